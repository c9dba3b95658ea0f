/* The client of a remote server's agent (benchtui(1) REMOTE HOSTS).
 *
 * ssh is started with the round's argv prefix, the host as one argument
 * (no shell on this machine ever reads it) and the agent's command line
 * as the far shell reads it; then each request gets one reply (wire.h),
 * with the host's events (its quiet gate) passed on before it.  A server
 * on another host goes through the same steps as a local one (server.h,
 * srvmeter.h): start and wait until ready, open and close a window
 * around each leg, stop.  One server at a time per connection.
 *
 * Anything that ends the conversation (ssh's exit, a line that is not a
 * message, no reply in time) makes the connection lost for good:
 * remote_lost says so and why, naming the host, and ssh is ended.
 *
 * Nothing from the far side is trusted: each reply is an answer to the
 * request awaited or a protocol error; its values are checked for type
 * and range and copied into a new object (remote_check.c); events are
 * only the far gate's samples while it holds a leg, rebuilt here; lines
 * and ssh's stderr are bounded by the limits given (remote_params), and
 * past one the connection is lost, naming the host and the limit.  A
 * refusal of open, close or stop loses it too, with the agent's words. */
#ifndef BENCHTUI_REMOTE_H
#define BENCHTUI_REMOTE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "quiet.h"

struct remote;

struct remote_params {
	const char *host;         /* as the round file spells it */
	const char *ssh_path;     /* ssh[0] resolved */
	char *const *ssh;         /* the argv prefix, ssh[0] first */
	char *const *agent;       /* the far command, before --dir DIR */
	const char *dir;          /* the agent's folder there */
	char *const *counters;    /* the window's events */
	const struct quiet_params *quiet; /* the host's gate, or NULL: off */
	const char *stderr_path;  /* ssh's stderr (and the far side's),
	                           * appended */
	int abort_fd;             /* readable: give up waiting */
	double timeout_s;         /* for hello's answer */
	size_t line_max;          /* the longest line the agent may send */
	size_t stderr_max;        /* the most ssh's stderr may hold (this
	                           * connection's), copied to stderr_path */
};

/* Start ssh, say hello (the version handshake), measure the round trip.
 * NULL with err when it failed: ssh's own words and the command line that
 * failed; the far shell not finding benchtui (exit 127) is said so, with
 * how to install it; a refusal is the agent's words (another version or
 * protocol names both), and an agent of another protocol that did not
 * refuse (one older than protocol numbers) is refused here, naming
 * both.  Nothing of it is left running then. */
struct remote *remote_connect(const struct remote_params *p, char *err,
    size_t errlen);

/* The hello reply: version, protocol, pid, dir, host (the facts),
 * quiet (the settings that host's gate runs with). */
const json_t *remote_hello(const struct remote *rm);
pid_t remote_ssh_pid(const struct remote *rm);
/* The command line started, quoted as a shell reads it (people only). */
const char *remote_cmdline(const struct remote *rm);

/* A host as a message names it: whole up to REMOTE_NAME_MAX - 1 bytes;
 * longer, its first 40 and last 20 bytes around "...", so that a long
 * host never pushes the reason after it out of a line.  Into buf (at
 * least REMOTE_NAME_MAX bytes), which it returns. */
#define REMOTE_NAME_MAX 64
const char *remote_name(const char *host, char *buf);
/* The handshake's round trips: {"min", "median", "n"} in ms (new). */
json_t *remote_rtt(const struct remote *rm);
/* Requests sent since the last call (the first: since the start),
 * cancel and release included. */
unsigned long remote_requests_take(struct remote *rm);

/* Whether the connection is lost.  With look, a poll that does not wait
 * first: nothing is due from the agent between requests, so anything on
 * its output then (its end, or a stray line) loses it. */
bool remote_lost(struct remote *rm, bool look);
/* Why: "HOST: ..." with ssh's status and words. */
const char *remote_lost_why(const struct remote *rm);

/* The agent's host events ("quiet", "warning"), "host" set; borrowed. */
typedef void (*remote_event_fn)(json_t *ev, void *arg);

/* {path: sha256 or null} of each program as the agent resolves it.
 * NULL with err when the connection was lost. */
json_t *remote_bins(struct remote *rm, const json_t *programs, char *err,
    size_t errlen);

struct remote_start {
	const char *cell;
	char *const *argv;
	const json_t *env;        /* {K: V} over the agent's environment */
	const char *cpus;         /* or NULL */
	int tcp_port;
	double ready_timeout_s;
	const char *log;          /* a file name in the agent's folder */
	int abort_fd;
};

/* Start a server there and wait until ready.  Its start reply (new):
 * pid, exec, sha256, log, warnings; or NULL with err and *cause: the
 * agent's (port_taken, died, ready_timeout, aborted, failed, busy) or
 * "lost". */
json_t *remote_start(struct remote *rm, const struct remote_start *p,
    const char **cause, char *err, size_t errlen);

/* What the far gate is told before a leg: the round's one budget_s is
 * spent by both hosts' waits, so the client says what is left of it. */
struct remote_gate {
	double budget_left_s;     /* of the round's budget_s */
	bool release_all;         /* the operator released the round (G) */
	bool probe;               /* this leg is probed (the auto rule) */
};

/* Open the server's window: with g, the host's quiet gate first (its
 * events through fn), release_fd letting it go, abort_fd giving up; NULL:
 * no gate.  The reply (new): gate ("quiet", "timeout", "budget",
 * "released", "off"), wait_s, foreign, server_busy, probe, probe_us,
 * alive, death; or NULL with err (lost, or aborted: not lost). */
json_t *remote_open(struct remote *rm, const struct remote_gate *g,
    int abort_fd, int release_fd, remote_event_fn fn, void *arg, char *err,
    size_t errlen);

/* Close the window: server (the tree's block, as srvmeter_end gives),
 * foreign and server_busy (that host's, over the leg), alive, death; or
 * NULL with err (lost). */
json_t *remote_close_window(struct remote *rm, char *err, size_t errlen);

/* Stop the server by pid and its tree: state ("stopped", "died"), pid,
 * death; or NULL with err (lost). */
json_t *remote_stop(struct remote *rm, char *err, size_t errlen);

/* A leg there (a round whose "host" is that host), run as a local leg
 * is.  The request's fields: argv, env ({K: V} over the agent's), cwd,
 * cpus (or absent), nice, timeout_s, out (a file name in the agent's
 * folder), keep, max_bytes.  abort_fd sends cancel (the leg is ended as
 * an abort ends a local one).  The reply, checked (new): pid, rc,
 * signal, timed_out, aborted, exec_errno, exec_step, wall, utime,
 * stime, maxrss_kb, minflt, majflt, mem_peak_kb, strays, counters
 * (those of hello), multiplexed, output_bytes, output_truncated, exec;
 * with g, that host's gate first (as remote_open's: its events through
 * fn, release_fd letting it go) and its gate, wait_s, probe, probe_us
 * and the foreign load during the leg;
 * or NULL with err (lost, or the agent could not start it: *started
 * false). */
json_t *remote_leg(struct remote *rm, json_t *req, double timeout_s,
    const struct remote_gate *g, int abort_fd, int release_fd,
    remote_event_fn fn, void *arg, bool *started, char *err, size_t errlen);

/* A profile of the server there (server_perf, syscalls), taken by the
 * agent with the code a local profile runs, while the load runs here.
 * Each returns NULL (or -1, or -3 for report) with err; *refused then
 * says the agent said no (a missing tool, a kernel setting, the
 * profiler not attaching: the profile fails with its words, the
 * connection stands) rather than the connection being lost.
 *
 * start: the profiler attached to the server's tree (kind "syscalls" or
 * "server_perf", args perf record's options as the round gives them);
 * its answer (new): processes, tasks, pids, and for perf unwind and
 * fallback (the method that host's perf unwinds with). */
json_t *remote_prof_start(struct remote *rm, const char *kind,
    char *const *args, size_t nargs, bool *refused, char *err,
    size_t errlen);
/* stop: SIGINT to the profiler alone; stopped (it ended as asked),
 * alive, death, traced_after, contaminated (new). */
json_t *remote_prof_stop(struct remote *rm, bool *refused, char *err,
    size_t errlen);
/* legs: the legs' perf profile taken there (legs on that host): perf
 * record ARGS of benchtui prof-repeat over plan (the one the round
 * driver writes for a local one; each arm's program resolved there),
 * bounded by timeout_s there; abort_fd readable (or -1) sends cancel,
 * which ends the recording there by its process group.  {rc, signal,
 * timed_out, aborted, wall, unwind, fallback}, checked; its files ("data", "out", "runs", "plan")
 * then come back with remote_prof_get, and remote_prof_report reads
 * its data there. */
json_t *remote_prof_legs(struct remote *rm, const json_t *plan,
    char *const *args, size_t nargs, double timeout_s, int abort_fd,
    bool *refused, char *err, size_t errlen);
/* perf report ARGS -i the recording, there, into its "report" file:
 * perf report's exit status (-2 aborted there), or -3. */
int remote_prof_report(struct remote *rm, char *const *args, size_t nargs,
    bool *refused, char *err, size_t errlen);
/* A file of the profile there ("out", "data", "report", "runs",
 * "plan") copied to fd in pieces, never more than limit bytes whatever
 * the far side says or sends: bytes written, size (what the far side said it holds, at
 * least bytes), cut (it holds more than limit).  0, or -1. */
struct remote_fetch {
	long long bytes, size;
	bool cut;
};
int remote_prof_get(struct remote *rm, const char *file, int fd,
    long long limit, struct remote_fetch *f, bool *refused, char *err,
    size_t errlen);

/* Close the agent's input (it ends what runs and exits), wait for ssh,
 * end it by pid when it lingers; free rm. */
void remote_disconnect(struct remote *rm);

#endif
