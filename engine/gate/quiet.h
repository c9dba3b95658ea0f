/* The quiet-box gate.
 *
 * Before each leg the gate lets it go at once when the trailing window_ms
 * was quiet: the machine's foreign load (CPU of processes that are not the
 * round's, quietsamp.h) under max_foreign_cores, and each pinned cpu set
 * (the legs' client cpus, the running server's) with at most its
 * max_*_busy of foreign work.  Else it holds until the box is quiet, the
 * operator releases it, or timeout_s passes -- and never longer than what
 * is left of the round's budget, which all the waits of a round share:
 * budget_s, or by default 5 s plus a quarter of the time the legs have
 * taken so far (quiet_budget_left, the one place that says how much is
 * left). */
#ifndef BENCHTUI_QUIET_H
#define BENCHTUI_QUIET_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "quiettop.h"

struct quiet;

enum quiet_result {
	QUIET_OK,        /* quiet for the whole window (or the gate is off) */
	QUIET_TIMEOUT,   /* gave up after timeout_s; caller checks on_timeout */
	QUIET_ABORTED,   /* abort_fd fired while waiting */
	QUIET_RELEASED,  /* release_fd fired (the operator let the leg go), or
	                  * the rest of the round was released: not quiet */
	QUIET_BUDGET,    /* the round's budget_s of waiting is spent (now or
	                  * before): not quiet, and no wait */
};

/* Emit one event (a "quiet" sample); the callee takes no reference. */
typedef void (*quiet_emit_fn)(json_t *ev, void *arg);

/* The gate's settings (the round file's "quiet" object). */
struct quiet_params {
	double max_foreign_cores;
	int window_ms;
	double timeout_s;        /* one leg's wait */
	double budget_s;         /* the whole round's wait; below 0
	                          * (QUIET_BUDGET_SCALED): it scales with
	                          * the legs' time */
	double max_client_busy;  /* foreign cores on the client cpus */
	double max_server_busy;  /* on the server's cpus */
	bool probe;              /* make the calibration probe (probe.h) */
	double probe_margin;     /* a probe slower than its floor by more
	                          * than this holds the leg */
	bool stay;               /* load that stays is named and not
	                          * waited for (quiet_staying) */
};

/* What the gate saw: before a leg (quiet_wait) or during it
 * (quiet_leg_end).  Cores, to three decimals. */
struct quiet_seen {
	double foreign;          /* the whole machine's foreign load */
	double client_busy;      /* NAN: no client cpus */
	double server_busy;      /* NAN: no server pinned */
	double waited_s;         /* the wait (quiet_wait only) */
	double probe;            /* the probe's slowdown (NAN: none ran) */
	double probe_us;         /* its time, microseconds */
	double staying;          /* of foreign, the named staying load's */
	bool stay_named;         /* this wait named load that stays */
};

struct cgroup;

/* A gate for the round whose own tree is rooted at root_pid (benchtui),
 * sampling from now on.  own, when not NULL, is a cgroup holding that whole
 * tree (benchtui in it): its cpu.stat is read instead of the tree's /proc
 * files.  client is a mask of ncpus entries (the client cpus), or NULL
 * (watch every cpu).  NULL on failure. */
struct quiet *quiet_create(const struct quiet_params *p,
    const unsigned char *client, int ncpus, pid_t root_pid,
    struct cgroup *own);

/* The round's groups of legs and of servers (NULL: none), so that a pinned
 * cpu's figure leaves out the round's own work on it. */
void quiet_set_groups(struct quiet *q, struct cgroup *legs,
    struct cgroup *servers);
/* The server that runs now (pid 0: none) and its cpus (a mask of ncpus
 * entries; NULL: not pinned, and no server_busy). */
void quiet_set_server(struct quiet *q, pid_t pid, const unsigned char *mask,
    int ncpus);

/* Hold until quiet: at once when the last window was.  "quiet" events are
 * emitted through emit when the box turns quiet, while the gate holds (one
 * a second, with waited_s, timeout_s and limit_s for a countdown) and when
 * it ends (timed_out, or override when released).  abort_fd and release_fd
 * (or -1) end the wait early; neither is drained.  One wait lasts at most
 * timeout_s and what is left of budget_s, which every wait of the round
 * spends; once it is spent, or the round released (quiet_release_all),
 * the gate only judges the last window and never waits.  *seen gets what
 * it saw. */
enum quiet_result quiet_wait(struct quiet *q, int abort_fd, int release_fd,
    quiet_emit_fn emit, void *arg, struct quiet_seen *seen);

/* Whether the next quiet_wait runs the probe (made when params.probe):
 * once the window is quiet, a probe on the client cpus; one slower than
 * its floor by more than probe_margin, or with a gap (probe.h), holds the
 * leg as foreign load does.  The last probe's figures are in *seen. */
void quiet_probe_next(struct quiet *q, bool on);
/* Probe on the cpus of mask from now on (NULL: wherever the gate's
 * thread runs): the agent's gate probes its server's cpus.  A gate made
 * with no client cpus has seeded every cpu's floor already. */
void quiet_probe_cpus(struct quiet *q, const unsigned char *mask, int ncpus);

/* Load that stays.  Waiting helps only against load that comes and goes:
 * a foreign process busy through the start-up look and the first wait is
 * named once (with its pid) and is not waited for again: from then on a
 * window is judged without its CPU, and the legs beside it are marked.
 * The busiest processes of the look (or, when the look was quiet, of the
 * first half second the first wait holds: a walk of /proc, only once the
 * load is over the limit) are watched sample by sample for
 * QUIET_STAY_WATCH_S; one that ran in at least QUIET_STAY_FRAC of the
 * samples and used at least QUIET_STAY_CORES stays (a loop busy 200 ms of
 * every second runs in a quarter of them).  Only the round's first wait,
 * and only when the machine's load (not a pinned cpu's alone) holds it. */
#define QUIET_STAY_WATCH_S 1.0
#define QUIET_STAY_FRAC 0.8
#define QUIET_STAY_CORES 0.1
#define QUIET_STAY_MAX 3
/* A leg with at least this much of the staying load beside it is marked
 * (cores). */
#define QUIET_STAY_MARK 0.1

/* The named staying processes, up to max, into out.  How many. */
size_t quiet_staying(const struct quiet *q, struct quiettop_proc *out,
    size_t max);
/* The line that names them: "load that stays: hog (pid 4242) 0.98 cores;
 * ...". */
void quiet_stay_line(const struct quiet *q, char *buf, size_t len);

/* The operator released the rest of the round: no wait from now on. */
void quiet_release_all(struct quiet *q);
/* The default budget: QUIET_BUDGET_BASE_S plus QUIET_BUDGET_SHARE of the
 * time the legs have taken so far, so the gate slows a round by at most a
 * quarter and 5 s. */
#define QUIET_BUDGET_SCALED (-1.0)
#define QUIET_BUDGET_BASE_S 5.0
#define QUIET_BUDGET_SHARE 0.25

/* The whole budget as it stands (budget_s, or the scaled one now). */
double quiet_budget(const struct quiet *q);
/* What is left of it (seconds, at least 0): 0 for the rest of the round
 * once a wait found it spent, however the legs' time grows after. */
double quiet_budget_left(const struct quiet *q);
/* The budget spent so far (seconds). */
double quiet_spent(const struct quiet *q);
/* Spend secs more: a wait elsewhere (a server's host) of the same
 * budget. */
void quiet_spend(struct quiet *q, double secs);
/* A leg that ran elsewhere (the legs' host) took secs of the round: the
 * scaled budget grows with it as with a local leg (quiet_leg_end). */
void quiet_legs_ran(struct quiet *q, double secs);
/* A resumed round starts from what its log's legs waited (spent_s) and
 * took (legs_s). */
void quiet_set_history(struct quiet *q, double spent_s, double legs_s);
/* A gate that waits on someone else's budget (a server host's agent):
 * left_s is all it may wait from now on, of a budget of total_s (below
 * 0: one that scales, whose whole the agent does not know). */
void quiet_set_budget_left(struct quiet *q, double total_s, double left_s);

/* The budget in words: "budget_s 30 s", or the scaled one's rule and
 * what it came to so far. */
void quiet_budget_words(const struct quiet *q, char *buf, size_t len);

/* How a wait ended, in the one word the log, the leg line and the
 * agent's wire say it: "quiet", "timeout", "released", "budget"; NULL
 * for QUIET_ABORTED, which no leg carries.  quiet_result_of_word reads
 * one back (false: not one of them). */
const char *quiet_result_word(enum quiet_result res);
bool quiet_result_of_word(const char *word, enum quiet_result *res);

/* The probe's "auto" rule: a leg is probed unless every leg of its kind
 * (key, below nkeys: the round's cell and arm) before it used less than
 * QUIET_PROBE_CPU_BOUND of a core over its wall.  One that computes is
 * slowed about as much as its cpu is; one that mostly waits (on I/O, a
 * server, a sleep) is not, and is not probed.  Before the first leg of
 * a kind nothing is known and the probe runs.  A quarter, and once is
 * enough: on a busy box a leg that computes may get a third of its cpu,
 * and its cpu/wall reads low. */
#define QUIET_PROBE_CPU_BOUND 0.25
void quiet_probe_leg_ran(struct quiet *q, size_t key, size_t nkeys,
    double cpu_s, double wall_s);
bool quiet_probe_auto(const struct quiet *q, size_t key);

/* How many of the busiest processes it names. */
#define QUIET_STARTUP_TOP 3

/* What the start-up look saw. */
struct quiet_startup {
	double span_s;           /* seconds of samples judged */
	double waited_s;         /* how long it held the round: spent of
	                          * budget_s, as any wait of the gate */
	struct quiet_seen seen;  /* the loads over them */
	bool busy;               /* foreign load over max_foreign_cores */
	struct quiettop_proc top[QUIET_STARTUP_TOP]; /* when busy: who */
	size_t ntop;
	struct quiettop_more more;   /* and the rest */
};

/* The start-up look: the first window_ms of samples, which is also the
 * first leg's gate window, so on a quiet box the first leg goes one window
 * after the gate was made (waiting until the gate has that many, up to
 * the abort_fd; a gate that waits no more,
 * its budget spent, takes what samples it has), and when the box was
 * busier than max_foreign_cores, its busiest foreign processes since the
 * gate was made.  Once per gate; 0, or -1 when aborted. */
int quiet_startup(struct quiet *q, int abort_fd, struct quiet_startup *out);
/* The one line that says it: "the box is already busy: 1.42 foreign
 * cores ... busiest: cc1 (pid 4242) 0.98, ..." or "the box is quiet:
 * ...". */
void quiet_startup_line(const struct quiet *q, const struct quiet_startup *s,
    char *buf, size_t len);
/* The same as an event (t "gate", kind "startup"); new reference. */
json_t *quiet_startup_event(const struct quiet *q,
    const struct quiet_startup *s);

/* Bracket a leg to measure what ran beside it (from the background samples
 * around it; a leg shorter than 0.5 s is judged over the last 0.5 s,
 * since one clock tick is 10 ms).  Costs no sample of its own.  Returns
 * the foreign cores; *during (may be NULL) gets every figure.  The leg's
 * time counts towards the scaled budget. */
void quiet_leg_begin(struct quiet *q);
double quiet_leg_end(struct quiet *q, struct quiet_seen *during);

double quiet_threshold(const struct quiet *q);

void quiet_destroy(struct quiet *q);

#endif
