/* Inside the round driver.  Not part of the engine's public surface.
 *
 * The driver is split by what each file owns, and calls run one way: a file
 * calls only the files listed below it here.
 *
 *   round_run.c      the plan loop: cells in order, their server, legs
 *                    and profiles
 *   round_partial.c  seal --partial: an unfinished round sealed on purpose
 *   round_open.c     the opening events (round, env, resume) and the
 *                    replay of a resumed log
 *   round_close.c    the closing: abort or done, the summaries, the seal
 *   round_hook.c     a cell's setup and cleanup, around its legs
 *   round_prof_srvperf.c  server_perf: the server's tree under perf
 *                    over load runs in mirror order (calls the next)
 *   round_prof_perf.c   perf profiles (the profile phase after a
 *                    cell's timed legs: round_run.c), their arms' runs
 *                    split and read back
 *   round_prof_legfar.c  the perf profile of legs on another host:
 *                    taken there by its agent, its files copied back
 *   round_prof_sys.c    the syscalls profile
 *   round_prof_srv.c    a server under a profiler
 *   round_prof_far.c    a far server's profile: taken by its agent,
 *                    its files copied back within the limit
 *   round_prof.c     what the profile kinds share
 *   round_hosts.c    one round on several hosts: the reps dealt, one
 *                    worker thread per host, its replies logged here;
 *                    each host's copy of the cell's server
 *   round_look.c     an adaptive round's looks at a cell
 *   round_leg.c      one leg: setup (its command from legcmd, the
 *                    one command builder; profile legs use it too),
 *                    prepare, gate, run, record
 *   round_far.c      a leg on the legs' host ("host"): sent to its
 *                    agent, its reply checked into the leg line
 *   round_gate.c     the quiet gate before a leg: the wait, how it
 *                    ended, the operator's g and G, the budget
 *   round_server.c   a cell's server: start, watch, window, stop, its
 *                    events; here or on another host, one shape
 *   round_remote.c   the servers' hosts: their agents, connected before
 *                    the first leg; hosts[]; a dropped connection
 *   round_record.c   the leg's events: leg_start and the leg line
 *   round_ledger.c   the process ledger of a run without a cgroup
 *   round_scratch.c  the scratch folder: emptied before, measured after
 *   round_emit.c     events out (log, tally, front end) and steering in
 *                    (abort, pause, the waits that see them)
 *   round.c          the round object: its folder or resume, destroy
 *
 * tools/include-graph checks it from the objects (make check's
 * link_walls).  The sections below hold each file's declarations, roughly
 * bottom up. */
#ifndef BENCHTUI_ROUND_INT_H
#define BENCHTUI_ROUND_INT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "leg.h"
#include "logw.h"
#include "plan.h"
#include "proftree.h"
#include "quiet.h"
#include "resume.h"
#include "round.h"
#include "spec.h"
#include "tally.h"

struct round {
	struct spec *spec;
	char *dir;                 /* absolute */
	char *sign_key;
	struct logw *log;
	/* What run made of a new round's folder (ROUND_MADE_*), so a run
	 * that cannot start (a full disk) takes it all back and leaves no
	 * stub that can be neither resumed nor reused. */
	unsigned made;
	int reuse_fd;              /* the lock of the killed run's log this
	                            * run cleared (round_dir_hold), held */
	int lock_fd;               /* flock on log.jsonl while the round runs:
	                            * a second resume, or seal --partial, of
	                            * the same folder refuses */
	round_event_fn on_event;
	void *arg;

	struct failon fail_on;     /* the round file's rules, then --fail-on's */

	struct resume_state *rs;   /* resume only */
	struct plan plan;
	struct tally *tally;

	/* Steering.  abort_pipe is written once on abort and never drained,
	 * so its read end stays readable: every wait of the round polls it.
	 * ctl_pipe wakes a paused round; it is drained by the pause wait. */
	int abort_pipe[2];
	int ctl_pipe[2];
	/* gate_pipe releases a quiet gate that holds (the operator's key);
	 * drained before each wait, so a key pressed between waits is not
	 * kept for the next one. */
	int gate_pipe[2];
	atomic_bool paused;
	atomic_bool aborted;
	_Atomic(const char *) abort_reason;
	/* The last signal a process of the round's own tree sent benchtui,
	 * and its pid (0: none since the last leg was recorded). */
	atomic_int tree_sig;
	atomic_int tree_pid;

	int stale_ended;           /* resume: leftover process groups ended */

	/* The kept files' sha256 the seal holds them to ({NAME: {"sha256"}},
	 * keepfiles.h): those kept at run, or those accepted at resume with
	 * --accept-changed-files (then listed in files_changed, for the
	 * resume event). */
	json_t *files_ref;
	json_t *files_changed;
	bool accept_changed_files;
	/* run --host chose the hosts (recorded in the round event, for
	 * resume). */
	bool hosts_given;

	/* A fatal error (the log cannot be written) stops the round. */
	bool fatal;
	char fatal_err[512];
};

struct cgroup;
struct counters;
struct quiet;
struct remote;
struct round_host;
struct round_srv;
struct template_ctx;

/* What the run loop keeps for one round_run call. */
struct run {
	struct round *r;
	struct counters *ctr;
	bool *ctr_warned;        /* one warning per unsupported event */
	struct quiet *quiet;
	/* The round's cgroup (NULL where the machine allows none): benchtui
	 * itself, and so its servers, in cg_self; the legs in cg_legs. */
	struct cgroup *cg, *cg_self, *cg_legs;
	/* The round's servers, one at a time (NULL: they stay in cg_self):
	 * their cpu.stat is a server's CPU over a leg. */
	struct cgroup *cg_servers;
	/* The hosts of servers that run elsewhere (round_remote.c). */
	struct round_host *hosts;
	size_t nhosts;
	int ncpus;
	unsigned char *client_mask;
	size_t legs_total;
	char err[1024];
	/* The cell's server death is logged once (by the leg loop, with its
	 * cause); the stop path then does not log it a second time. */
	bool srv_death_logged;
	/* The lock on the scratch folder's marker (-1: none held). */
	int scratch_lock;
	/* Whether the round file can name ${METRICS} at all, and whether its
	 * command does: worked out once (round_metrics_plan), asked each leg. */
	bool metrics_named, metrics_in_command;
	/* Without a cgroup: the round's processes logged so far. */
	struct run_ledger_ent {
		pid_t pid;
		double start;    /* resume_proc_started */
	} *ledger;
	size_t nledger, capledger;
	/* The abort event's reason is u->err (fail_fast), not the short
	 * abort reason. */
	bool stop_logged_err;
	/* fail_fast: per cell and arm (cell * narms + arm), the legs this
	 * run (or resume) recorded and how many of them failed or timed
	 * out: legs failed before a resume (before the cause was fixed) do
	 * not count again.  last_leg_bad: the last leg line's. */
	int *ff_seen, *ff_bad;
	bool last_leg_bad;
	/* The gate: the operator released the rest of the round (G); the
	 * budget's warning is out. */
	bool gate_released_all, gate_budget_warned;
	bool gate_started;       /* the start-up look is done */
	/* Legs on several hosts at once (round_hosts.c), or NULL. */
	struct round_hosts *mh;
};

/* --- round.c: the round object ----------------------------------------- */

/* Whether the folder dfd holds anything but . and ..: 1, 0, or -1 with
 * errno (dfd stays the caller's). */
int round_dir_has_entries(int dfd);

/* Write env as DIR/environment.json (pretty-printed, newline-ended):
 * created, or with replace written beside it and renamed over it.  0, or
 * -1 with err. */
int round_env_write(struct round *r, const json_t *env, bool replace,
    char *err, size_t errlen);

/* Remove what run made of a new round's folder (nothing of a resumed one,
 * nothing another run made): a run that could not start leaves no stub. */
void round_unmake(struct round *r);

/* seal --partial: the folder opened as resume opens it (the lock, the log
 * read back, round.json checked against it, leftovers ended), but without
 * the checks against this host, and refusing a sealed or complete round.
 * NULL with err and *exit_code. */
struct round *round_open_partial(const char *dir, const char *sign_key,
    int *exit_code, char *err, size_t errlen);

/* --- round_ledger.c: the process ledger (no cgroup) -------------------- */

/* Where the round has no cgroup: log ("ledger" event) the processes of
 * benchtui's tree not logged before, so a resume after a kill -9 ends
 * them.  A no-op with a cgroup. */
void round_ledger_note(struct run *u);

/* --- round_emit.c: events out, steering in ------------------------------ */

/* Append ev to the log, then hand it to the front end and the tally.
 * Takes no reference.  A failed append makes the round fatal (aborted). */
void round_emit(struct round *r, json_t *ev);
/* Abort from inside the driver (fatal errors). */
void round_abort_internal(struct round *r, const char *reason);

bool round_aborted(const struct run *u);
/* An event already in the log (resume's log_cut): the tally and the
 * front end only. */
void round_emit_seen(struct round *r, const json_t *ev);
/* round_emit, then drop our reference. */
void round_emit_new(struct run *u, json_t *ev);
/* round_emit as the callback of a wait that logs events of its own (the
 * quiet gate's, a server host's agent's); arg is the struct run. */
void round_emit_cb(json_t *ev, void *arg);
void round_warn(struct run *u, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Wait seconds (< 0: forever) for an abort, or with ctl for a steering
 * byte.  Never a sleep: an abort ends it at once. */
void round_wait(struct run *u, double seconds, bool ctl);
/* Between legs: hold while paused. */
void round_pause_point(struct run *u);

/* --- round_scratch.c: the scratch folder -------------------------------- */

/* Before a leg: check, claim and empty the scratch folder path (absolute),
 * creating it when missing.  Refused (-1 with err) when it is a symlink,
 * is or holds a system folder, $HOME, the workdir, the round folder or
 * file or any of keep[0..nkeep) (the leg's program, the paths its command
 * names); when it holds files but not benchtui's marker; when another
 * round holds the marker's lock.  The lock is kept in u until
 * round_scratch_release. */
int round_scratch_empty(struct run *u, const char *path, char *const *keep,
    size_t nkeep, char *err, size_t errlen);
/* Bytes in the regular files under path (the marker aside); -1 when it
 * cannot be measured (gone); -2 with err when it became a symlink. */
long long round_scratch_size(const char *path, char *err, size_t errlen);
/* Let go of the scratch lock (the round is over). */
void round_scratch_release(struct run *u);
/* p made absolute against base (malloc'd). */
char *round_abspath(const char *p, const char *base);

/* --- round_record.c: the leg's events ----------------------------------- */

/* Which leg an event is of: cell, arm, rep and seq (0 and 0 for warm-up
 * leg K, with "warmup": K). */
void round_leg_ident(json_t *ev, const struct spec *s,
    const struct plan_leg *pl, int warmup);
/* The leg_start event for pl (warm-up leg K when warmup > 0) and its
 * output file (relative to DIR); its "pid" is 0 until the caller sets it. */
json_t *round_leg_start_event(const struct spec *s, const struct plan_leg *pl,
    int warmup, const char *out);

/* What the gate did before a leg (its wait and its probe), and what its
 * sampler saw of the pinned cpus during it. */
struct round_gate_rec {
	enum tally_gate how;              /* NONE: the gate is off, no field */
	double wait_s;
	double probe, probe_us;           /* NAN: no probe */
	double client_busy, server_busy;  /* NAN: not pinned */
	/* The staying load the leg ran beside (quiet.h): its pids. */
	pid_t staying[QUIET_STAY_MAX];
	size_t nstaying;
};

/* The leg line: every field SPEC.md names, then extras.  bin is the
 * program that ran (may be NULL); gate what the gate did before it. */
json_t *round_leg_event(struct run *u, const struct plan_leg *pl, int warmup,
    const struct leg_result *res, const char *bin, long long bytes,
    double foreign, const struct round_gate_rec *gate, bool server_died);
/* ev's ipc from its cycles and instructions (none without both). */
void round_record_ipc(json_t *ev);
/* One warning per counter the machine lacks, after the first leg. */
void round_warn_counters(struct run *u);

/* --- round_far.c: a leg on the legs' host ("host") ---------------------- */

struct legcmd;
/* Run cmd's leg pl there, after that host's gate (marked on g; the
 * foreign load during it into *foreign), its leg_start (start, made
 * here) logged with the host and no pid; res from its checked values,
 * *far the reply (new).
 * 0; -1 when the round stopped (the connection lost, or the agent could
 * not start it: resumable, u->err names the host). */
int round_far_leg(struct run *u, const struct plan_leg *pl, const char *leg,
    const struct legcmd *cmd, char *const *keep, json_t *start,
    struct leg_result *res, struct round_gate_rec *g, double *foreign,
    json_t **far);
/* The leg line ev gets the host, its counters, output and program as
 * that host measured them. */
void round_far_record(json_t *ev, const json_t *far, const char *host);
/* round_far_leg's halves, for legs on several hosts at once
 * (round_hosts.c): the request for cmd's leg, its leg_start (start)
 * logged with host and no pid; then the checked reply far into res, *g
 * (when gated) and *foreign.  0; -1 when the round stops.  The request
 * carries the round's prepare, the leg's stdin (at most 512 KiB) and its
 * scratch folder, with keep (NULL-terminated, or NULL) the paths that
 * emptying it there must not take; NULL when the stdin cannot be sent
 * (the round stopped, u->err). */
json_t *round_far_request(struct run *u, const struct legcmd *cmd,
    char *const *keep, json_t *start, const char *host);
int round_far_reply(struct run *u, const char *leg, const char *host,
    bool gated, const json_t *far, struct leg_result *res,
    struct round_gate_rec *g, double *foreign);
/* The leg's output file (out_rel, relative to the round folder), kept
 * on rm's host, copied back into the round folder within
 * output.max_bytes; nothing logged, so a legs' host's own thread may
 * call it while the leg's reply waits. */
void round_far_output(const struct round *r, struct remote *rm,
    const char *out_rel);
/* The exit of the round's prepare, which the agent ran before the leg
 * (the leg did not run unless 0), or -1. */
int round_far_prepare_rc(const json_t *far);
/* A profile's leg on the legs' host, unrecorded: argv (NULL: cmd's own,
 * its output copied back into out_abs) with cmd's env and cwd, within
 * timeout_s (0: the round's); with attach ({kind, args}) a load that
 * stops after its warm-up, the profiler attached there then, the
 * checked reply in *far (new; its "attach" or "attach_error").  0 with
 * res; 1 when the agent could not run it (why); -1 when the connection
 * was lost (the round stopped). */
int round_far_load(struct run *u, const struct legcmd *cmd, char *const *argv,
    const char *out_abs, double timeout_s, const json_t *attach,
    json_t **far, struct leg_result *res, char *why, size_t len);

/* --- round_remote.c: the servers' hosts -------------------------------- */

/* Connect to every host the cells' servers name (server.host), once each,
 * before the first leg: ssh, the agent's hello, the binaries it will run
 * there.  0; -1 with u->err naming the host and ssh's words (the round is
 * aborted: resumable, exit 3). */
int round_remote_connect(struct run *u);
/* The agent serving sv's host, or NULL (a local server). */
struct remote *round_remote_for(struct run *u, const struct spec_server *sv);
/* Append to hosts (environment.json's, this machine's entry first) each
 * server's host: its facts, binaries, gate settings, agent and round
 * trip, or the error that kept it. */
void round_remote_add_hosts(const struct run *u, json_t *hosts);
/* A host's connection was lost: the round stops resumably (exit 3), the
 * abort naming the host, ssh's words and during what. */
void round_remote_lost(struct run *u, struct remote *rm, const char *during);
/* A host's agent refused a close or stop (the connection stands): the
 * round stops resumably the same way, naming the agent's reason (why:
 * "HOST: its words"). */
void round_remote_refused(struct run *u, const char *why, const char *during);
/* Twice a second while a leg runs: a connection that dropped stops the
 * round. */
void round_remote_watch(struct run *u, const char *leg);
/* The agent of the legs' host ("host"; of several, the first), or NULL
 * (legs run here). */
struct remote *round_remote_legs(struct run *u);
/* The agent of host, one of the legs' several hosts ("hosts"), or
 * NULL. */
struct remote *round_remote_legs_at(struct run *u, const char *host);
/* The ssh processes (a leg's leftovers are ended around them): how many
 * pids written to keep. */
size_t round_remote_keep(const struct run *u, pid_t *keep, size_t max);
/* Every connection closed: each agent ends what still runs there. */
void round_remote_end(struct run *u);

/* --- round_server.c: a cell's server ------------------------------------ */

/* Start the cell's server and wait until it is ready, logging "starting"
 * then "ready" or "died".  arm NULL: the cell's server, for all its legs;
 * else a server for one leg (spec_server_per_leg), with that arm's
 * server_bin and server_env and ${ARM}, ${REP}.  On another host its
 * agent starts it (the ready event names the host, the program and its
 * sha256 there).  NULL with u->err when it did not come up (or the round
 * was aborted meanwhile). */
struct round_srv *round_server_start(struct run *u,
    const struct spec_cell *cell, const struct spec_arm *arm, int rep);
/* The cell's server as host's own copy (a round on several hosts, the
 * cell's server with no host of its own; arm and rep as for
 * round_server_start, for a server per leg), through host's agent; its
 * events name host.  NULL with u->err when it did not come up, *lost
 * when the connection to host was lost meanwhile (the round goes on: the
 * caller stops that host's legs).  Stopping it later never stops the
 * round either. */
struct round_srv *round_server_start_copy(struct run *u,
    const struct spec_cell *cell, const struct spec_arm *arm, int rep,
    const char *host, bool *lost);
/* The agent a remote server runs under (NULL: here). */
struct remote *round_server_agent(const struct round_srv *srv);
/* Its pid; 0 when it runs on another host (or srv is NULL). */
pid_t round_server_local_pid(const struct round_srv *srv);
/* The server.c object of a local server, or NULL (another host). */
struct server *round_server_here(const struct round_srv *srv);
/* Its host (server.host), or NULL for this machine. */
const char *round_server_host(const struct round_srv *srv);
/* Whether it still runs (a remote one: as its agent last said), and a
 * sentence on how it died. */
bool round_server_alive(struct round_srv *srv);
const char *round_server_death(const struct round_srv *srv);
/* What the far host's gate did when a window opened (how is NONE for a
 * server here, or with no gate). */
struct round_srv_gate {
	enum tally_gate how;
	double wait_s;
	double foreign;                   /* there, before the leg */
	double server_busy;               /* its server's cpus (NAN: not
	                                   * pinned) */
	double probe, probe_us;           /* its probe (NAN: none ran) */
};
struct remote_gate;
/* Open the server's window just before leg (its name, for messages): its
 * counters on every thread of its tree and the first CPU reading; on
 * another host first that host's quiet gate (when rg is not NULL), its
 * events logged with "host".  0; -1 when the round stopped meanwhile (an
 * abort, or the connection lost: u->err names the host). */
int round_server_open(struct run *u, struct round_srv *srv,
    const struct remote_gate *rg, const char *leg, struct round_srv_gate *g);
/* A remote server's window opened or closed by another thread (legs on
 * several hosts: round_hosts.c), its agent's checked reply taken in
 * here: opened, its far gate and whether it lives; closed, the leg
 * line's "server" block as round_server_close makes it (new, or NULL),
 * rtt_ms the close's round trip. */
void round_server_far_opened(struct round_srv *srv, const json_t *reply);
json_t *round_server_far_closed(struct round_srv *srv, const json_t *reply,
    double rtt_ms);
/* The foreign work on a remote server's cpus over the last closed
 * window (its host's gate), or NAN (here, not pinned, no gate). */
double round_server_far_busy(const struct round_srv *srv);
/* Close it after the leg: the leg line's "server" block (new; "host",
 * "foreign", "rtt_ms" and "requests" too for a remote one: the requests
 * to its agent since the last leg's close, this close included; and what
 * its host's gate did before the leg: "gate", "wait_s", "probe",
 * "probe_us"), or NULL
 * (no window, or the connection lost: the round stopped). */
json_t *round_server_close(struct run *u, struct round_srv *srv,
    const char *leg);
/* A server that would not start (u->err says why, unless the round was
 * aborted meanwhile): the round stops resumably (exit 3), as for a full
 * disk: the cause is outside the legs, and resume tries again. */
void round_server_wont_start(struct run *u);
/* Log the cell's server as dead (once per cell). */
void round_server_died(struct run *u, const struct spec_cell *cell,
    struct round_srv *srv);
/* Before a leg: true (the round aborted, u->err set) when the server died
 * since the last leg. */
bool round_server_gone(struct run *u, const struct plan_leg *pl,
    struct round_srv *srv);
/* Stop it by its pid and log how it ended; destroys srv. */
void round_server_stop(struct run *u, const struct spec_cell *cell,
    struct round_srv *srv);

/* --- round_gate.c: the quiet gate before a leg --------------------------- */

/* Hold leg pl (named for messages) until the box is quiet or the gate
 * lets it go; *g says how.  0 to go on; -1 when the round stops
 * (aborted, or the gate timed out with on_timeout "abort": u->err says
 * why). */
int round_gate(struct run *u, const struct plan_leg *pl, const char *leg,
    struct round_gate_rec *g);
/* The far gate: open the window of leg pl's server srv, on its host
 * after that host's gate (told what is left of the round's one budget,
 * whether the round was released, whether the leg probes), and mark g as
 * the local gate marks it: its wait is the leg's too and spent of the
 * budget, and a leg the far gate let go on a busy host is waived,
 * timeout or budget (one the local gate marked so keeps its mark).  A
 * server here just opens its window.  0 to go on; -1 when the round
 * stops (aborted, the host lost, or its gate timed out with on_timeout
 * "abort": u->err says why). */
int round_gate_server(struct run *u, const struct plan_leg *pl,
    const char *leg, struct round_srv *srv, struct round_gate_rec *g);
/* After the leg: with staying (cores of the named staying load beside it)
 * at least QUIET_STAY_MARK, g is marked with its pids. */
void round_gate_leg_beside(struct run *u, double staying,
    struct round_gate_rec *g);
/* A leg on the legs' host ("host"): what that host's gate is told
 * before leg pl (false: the round has no gate), and its answer (the
 * leg's reply, far) marked on g as round_gate_server marks a far gate's:
 * its wait spent of the one budget.  0; -1 when the round stops. */
bool round_gate_far_ask(struct run *u, const struct plan_leg *pl,
    struct remote_gate *rg);
int round_gate_far_mark(struct run *u, const char *leg, const char *host,
    const json_t *far, struct round_gate_rec *g);
/* The operator's keys since the last look (gate_pipe: 'g' one leg, 'G'
 * the rest of the round), drained.  A G releases the rest of the round
 * from now on, and is logged.  Whether any key came. */
bool round_gate_keys(struct run *u);
/* Leg pl ran (res): whether its cell and arm are CPU-bound, for the
 * probe's "auto" rule (quiet_probe_auto). */
void round_gate_leg_ran(struct run *u, const struct plan_leg *pl,
    const struct leg_result *res);

/* --- round_hosts.c: one round on several hosts -------------------------- */

/* What the plan loop (round_run.c) tells the hosts' loop. */
struct round_hosts_cbs {
	/* Whether leg pl is still to run (not done before a resume). */
	bool (*todo)(const struct round *r, const struct plan_leg *pl);
	/* fail_fast after the counted leg at plan index i: true when the
	 * round stops (u->err). */
	bool (*fail_fast)(struct run *u, size_t i);
	/* The K-th warm-up leg of pl's cell and arm failed: said once. */
	void (*warmup_failed)(struct run *u, const struct plan_leg *pl, int k);
};
/* Cell c's legs on the round's hosts, all at once (the workers started
 * at the first cell).  false when the round stops (u->err says why); a
 * host lost stops only its own legs (round_hosts_lost says so at the
 * end). */
bool round_hosts_cell(struct run *u, size_t c,
    const struct round_hosts_cbs *cb);
/* Cell c's server before its legs: each host's own copy (a host whose
 * copy would not start stops there, the others go on), or the cell's
 * one server on a host of its own (one that would not start stops the
 * round).  false when the round stops (u->err).  After the cell's legs
 * and profiles, round_hosts_servers_stop stops them. */
bool round_hosts_servers(struct run *u, size_t c);
void round_hosts_servers_stop(struct run *u, size_t c);
/* The server a cell's profiles use (*srv): the first host's copy, or the
 * cell's one on a host of its own (NULL: none).  false when the first
 * host was lost: its profiles wait for resume. */
bool round_hosts_prof_srv(struct run *u, struct round_srv **srv);
/* After the last cell: when a host was lost (or refused a leg), the
 * round stops resumably, u->err naming each; true then. */
bool round_hosts_lost(struct run *u);
/* The workers joined, their state freed (before the agents are
 * disconnected). */
void round_hosts_end(struct run *u);

/* --- round_look.c: adaptive looks -------------------------------------- */

/* Cell c has completed rep: when rep is one of an adaptive round's looks,
 * log the look event; true when every arm that is not an A/A copy is
 * decided on the round's metric (the cell stops). */
bool round_look(struct run *u, size_t c, int rep);

/* --- round_leg.c: one leg ----------------------------------------------- */

struct legcmd;
struct legcmd_where;
/* Check, claim and empty the scratch folder of the leg c (built for w),
 * keeping whatever its command names outside ${SCRATCH}.  0; -2 with
 * u->err when the folder was refused (the round is aborted: resumable
 * once the folder is fixed).  Timed, warm-up and profile legs. */
int round_leg_scratch(struct run *u, const struct legcmd_where *w,
    const struct legcmd *c);

/* u->metrics_named and u->metrics_in_command, from the round file. */
void round_metrics_plan(struct run *u);

/* Run one planned leg, or with warmup K > 0 the K-th warm-up leg of pl's
 * cell and arm (logged with rep 0, never counted): 0 to go on, -1 to stop
 * the round (*failed for a failure that is not resumable); u->err says
 * why.  srv is the cell's server (or NULL); a cell whose server runs per
 * leg gets its own here, started before the leg and stopped after it. */
int round_leg(struct run *u, const struct plan_leg *pl, int warmup,
    struct round_srv *srv, bool *failed);
/* A leg on one of several hosts (round_hosts.c), in two halves around
 * its agent's reply: its command built and its leg_start logged with
 * host, *req the request for remote_leg and rg what the host's gate is
 * told (round_leg_far_gated: whether to gate); NULL when the round stops
 * (u->err says why).  Then the reply (far, taken) into its leg line: 0,
 * or -1 when the round stops.  round_leg_far_free in either case. */
struct round_leg;
struct remote_gate;
struct round_leg *round_leg_far_begin(struct run *u,
    const struct plan_leg *pl, int warmup, const char *host, json_t **req,
    struct remote_gate *rg);
bool round_leg_far_gated(const struct round_leg *l);
const char *round_leg_far_name(const struct round_leg *l);
/* Its output file, relative to the round folder (or NULL). */
const char *round_leg_far_out(const struct round_leg *l);
/* srvblock (taken, or NULL) is the leg line's "server" (its host's
 * server over the leg's window); died: that server died during it (the
 * leg fails; the caller stops the host). */
int round_leg_far_end(struct round_leg *l, json_t *far, json_t *srvblock,
    bool died);
void round_leg_far_free(struct round_leg *l);

/* --- round_hook.c: a cell's setup and cleanup --------------------------- */

/* Run cell c's setup (cleanup false) or cleanup argv, unmeasured: the
 * round's env and workdir, its output in legs/CELL-setup.out (-cleanup),
 * a "hook" event with its exit code.  0 when it exited 0 or the cell has
 * none; else -1: a failed setup has stopped the round resumably (u->err
 * names the cell), a failed cleanup is a warning.  A cleanup after an
 * abort still runs, for at most 30 s (or timeout_s). */
int round_hook(struct run *u, size_t c, bool cleanup);

/* --- round_prof*.c: the profile phase (round_run.c runs it) ------------ */

/* What the kinds share (round_prof.c). */
void round_prof_fmt(char *buf, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A "profile" event (status), or "profile_start" (status NULL). */
json_t *round_prof_event(const char *cell, const char *arm, const char *kind,
    const char *status);
/* A profile that could not be taken: its event, with the reason and the
 * files it left (a NULL-terminated list, or NULL). */
void round_prof_failed(struct run *u, const char *cell, const char *arm,
    const char *kind, const char *reason, const char *const *files);
/* leg_run's callback once a profile's process runs: profile_start with
 * its pid (kept in pid). */
struct prof_start {
	struct run *u;
	const char *cell, *arm, *kind;
	pid_t pid;
};
void round_prof_started(pid_t pid, void *arg);
/* "legs/NAME" + ext, relative to the round folder, and the same
 * absolute. */
void round_prof_paths(struct run *u, const char *name, const char *ext,
    char *rel, char *abs, size_t len);
/* The profile's files (rel, NULL-terminated) made free to write: what an
 * earlier attempt left is removed.  A symlink in the way is removed too
 * (never followed) and the profile refused (-1 with why naming it and
 * its target), as is a folder (left as it is). */
int round_prof_claim(struct run *u, char *const *rel, char *why, size_t len);
/* Whether a profile of kind can be taken with tool (tool NULL: on another
 * host, whose agent checks it there; else its path as resolved,
 * or NULL): nothing on this machine blocks it, the tool is installed and
 * the leg's command is built (rep 0 perf, -1 syscalls, -2 server_perf).
 * 0 to go on; 1 when it cannot (its failed event emitted); -1 when the
 * scratch folder was refused (the round is aborted). */
int round_prof_ready(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, const char *kind, const char *tool,
    const char *path, int rep, struct legcmd *cmd);
/* Why the cell's server cannot be profiled (a literal, or buf filled),
 * or NULL when it can (one on another host: by its agent there): the one
 * check point for servers benchtui cannot attach to. */
const char *round_prof_server_where(const struct spec_cell *cell,
    const struct round_srv *srv, char *buf, size_t len);
/* Whether the leg's command is benchtui load (this program, "load"). */
bool round_prof_is_load(const struct legcmd *cmd);
/* Whether the leg is benchtui load with a warm-up, which can stop between
 * its warm-up and its counted requests. */
bool round_prof_hold(const struct legcmd *cmd);

/* The server under a profiler: its tree, its tasks and the profiler's
 * stop are proftree.h's (the agent's too), by the names the profile
 * files use. */
#define PROF_PROCS_MAX PROFTREE_MAX
#define prof_tasks proftree_tasks
#define round_prof_tree proftree_tree
#define round_prof_count_tasks proftree_count_tasks
#define round_prof_pidlist proftree_pidlist
#define round_prof_stop_tool proftree_stop_tool
/* One leg of the arm as the server's load, the profiler attached (attach)
 * after the load's warm-up when hold, else before the leg. */
struct prof_load {
	struct run *u;
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	const char *kind;
	const struct legcmd *cmd;
	const char *out_abs;        /* the load's output file */
	int (*attach)(void *arg);   /* 0 attached; -1 (its reason in arg) */
	void *arg;
	bool hold;
	bool far;                   /* the legs' host runs it (set by the call) */
	struct prof_far *pf;        /* the server's profile there, or NULL */
	/* what happened */
	bool attached, attach_failed;
	struct prof_start ps;
	struct leg_result res;
	char why[512];              /* the leg could not start */
};
/* 0 when the leg ran (pl->res; pl->attached tells whether the profiler
 * got to attach); 1 when the attach failed or the leg could not start. */
int round_prof_load(struct prof_load *pl);
/* When the profiler attached, in words for the profile's event. */
const char *round_prof_attach_words(const struct prof_load *pl);
/* Whether the server answers a real request after a profile: an HTTP
 * request to the load's URL when the load is benchtui load, else a TCP
 * connect to the ready port.  how says which, and what came back. */
bool round_prof_answers(struct run *u, const struct spec_cell *cell,
    const struct legcmd *cmd, char *how, size_t len);

/* The kinds: 0 to go on, -1 when the round was aborted during it. */
/* A profile of a server on another host (round_prof_far.c): its agent
 * attaches the profiler there, the load runs here, the files come back
 * bounded by agent_limits.profile_bytes.  Each call: 0, or -1 with why
 * (a refusal: the profile fails with it; lost: the round was stopped
 * resumably, the profile is aborted). */
struct prof_far {
	struct run *u;
	struct remote *rm;      /* NULL: the server is here */
	const char *host, *cell, *arm, *kind;
	json_t *started;        /* prof_start's answer, checked */
	json_t *stopped;        /* prof_stop's answer, checked */
	json_t *copied;         /* the files copied back, or NULL */
	bool given;             /* attached by the load's leg there
	                         * (round_prof_far_given) */
	bool lost;
	char why[768];
};
/* The profiler attached there (args: perf record's options as the round
 * gives them); profile_start emitted with the host. */
int round_prof_far_start(struct prof_far *pf, char *const *args,
    size_t nargs);
int round_prof_far_stop(struct prof_far *pf);
/* The profiler the legs' agent attached when the load stopped after its
 * warm-up: started (prof_start's checked answer, borrowed) or err (its
 * refusal); round_prof_far_start then takes it as its own answer. */
void round_prof_far_given(struct prof_far *pf, const json_t *started,
    const char *err);
/* The far file ("out", "data", "report") into fd, at most profile_bytes;
 * its account {file: rel, bytes, size, cut} appended to copied (when not
 * NULL).  1 when it was cut at the limit. */
int round_prof_far_get(struct prof_far *pf, const char *file, int fd,
    const char *rel, json_t *copied);
/* perf report ARGS there, its output copied into f (rewound): its exit
 * status, -2 when the connection was lost, -1 otherwise. */
int round_prof_far_report(struct prof_far *pf, const char *const *args,
    FILE *f);
void round_prof_far_finish(struct prof_far *pf);

/* The perf profiles of a cell's arms (at most ROUND_PROF_ARMS_MAX): their
 * legs' runs take turns (A B B A ...) under one perf record, and each
 * arm gets its own event from its runs' samples. */
#define ROUND_PROF_ARMS_MAX 64
int round_prof_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *const *arms, size_t narms);
/* The server_perf profiles of a cell's arms, their load runs taking turns
 * (srv NULL: each run starts the arm's own server). */
int round_prof_server_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *const *arms, size_t narms, struct round_srv *srv);
int round_prof_syscalls(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, struct round_srv *srv);

/* --- round_open.c / round_close.c: the round's first and last events ---- */

/* A resumed round's torn last line, cut when it was read back: log_cut. */
void round_log_cut(struct run *u);
/* round + env (a new round) or log_cut + resume (a resumed one, after the
 * legs already done are replayed to the tally and the front end), then the
 * host's warnings. */
void round_open(struct run *u);
/* A resumed round: replay its log to the tally and the front end, so both
 * see the legs already done (they are not logged again). */
void round_replay(struct round *r);
/* The round stopped early: the abort event; the exit status (FAIL when
 * failed, else ABORTED). */
int round_close_stopped(struct run *u, bool failed);
/* The log synced, the summaries (marked partial or not), then SHA256SUMS,
 * its sha256 in sums; round.json checked first.  0, with the report the
 * summaries hold in *report when report is not NULL (the caller's to
 * drop); or -1 with u->err and errno (ENOSPC: the disk is full). */
int round_seal(struct run *u, bool partial, char sums[65], json_t **report);
/* done (when log_done), the summaries, the seal.  The exit status. */
int round_close_done(struct run *u, bool log_done);

#endif
