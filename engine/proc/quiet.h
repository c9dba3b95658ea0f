/* The quiet-box gate.
 *
 * Foreign CPU is the CPU time the machine spent busy that belongs to no
 * process of this round (benchtui's own tree: itself, its legs, its
 * servers), from /proc/stat minus the tree's CPU time, in cores.  A thread
 * samples it in the background all through the round (10 times a second);
 * before each leg the gate lets it go at once when the trailing window_ms
 * was under max_foreign_cores, else holds until it is, the operator
 * releases it, or timeout_s passes. */
#ifndef BENCHTUI_QUIET_H
#define BENCHTUI_QUIET_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

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
	double timeout_s;   /* one leg's wait */
	double budget_s;    /* the whole round's wait */
};

/* What the gate saw before a leg. */
struct quiet_seen {
	double foreign;     /* cores over the last window */
	double waited_s;    /* this wait */
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

/* The operator released the rest of the round: no wait from now on. */
void quiet_release_all(struct quiet *q);
/* The budget spent so far (seconds); a resumed round starts from what its
 * log's legs waited. */
double quiet_spent(const struct quiet *q);
void quiet_set_spent(struct quiet *q, double spent_s);

/* Bracket a leg to measure the foreign CPU during it (cores, from the
 * background samples around it; a leg shorter than 0.5 s is judged over the
 * last 0.5 s, since one clock tick is 10 ms).  Costs no sample of its
 * own. */
void quiet_leg_begin(struct quiet *q);
double quiet_leg_end(struct quiet *q);

double quiet_threshold(const struct quiet *q);

void quiet_destroy(struct quiet *q);

#endif
