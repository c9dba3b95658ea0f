/* One leg: spawn with no shell, measure, reap.
 *
 * The child is started by spawn.c (its own process group, PDEATHSIG,
 * pinned, niced, in the workdir, stdout and stderr to the output file) and
 * held until the counters are open on its pid; then it execs.  Wall time
 * runs from that release to the reap; rusage comes from wait4 on that
 * child.  After the leg, anything left in its process group is killed
 * (SIGKILL) and reaped, and with a cgroup anything left in the group
 * (escaped by setsid or a double fork) is killed too (cgroup.kill); the
 * caller reaps those that were reparented to it. */
#ifndef BENCHTUI_LEG_H
#define BENCHTUI_LEG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "cgroup.h"
#include "counters.h"
#include "legout.h"

struct leg_spec {
	const char *path;        /* the program, resolved (execve'd as is, no
	                          * PATH search); NULL: argv[0] as is */
	char *const *argv;
	char *const *envp;       /* the full environment for the child */
	const char *cwd;         /* workdir */
	const char *out_path;    /* stdout+stderr go here (created, 0644) */
	const char *in_path;     /* stdin comes from here (opened afresh,
	                          * read-only), or NULL: /dev/null */
	struct legout *out;      /* or stdout+stderr go to this pipe, drained
	                          * while the leg (and its grace) run */
	const unsigned char *cpus; /* mask of ncpus, or NULL: no pinning */
	int ncpus;
	int nice;                /* applied with setpriority in the child */
	bool stand_in;           /* run under a stand-in parent
	                          * (spawn_req.stand_in) */
	double timeout_s;        /* 0: none */
	struct counters *ctr;    /* may be NULL */
	struct cgroup *cg;       /* the group the leg runs in (joined before
	                          * its exec), or NULL */
	int abort_fd;            /* becomes readable when the leg must be ended
	                          * (abort); -1 for none */
	/* Told when the leg's leader stops (stop_sig: SIGSTOP, SIGTSTP, ...)
	 * or runs again (0), looked at twice a second; may be NULL.  A
	 * stopped leg with no timeout_s waits for ever, and only an abort
	 * (SIGKILL after the grace) ends it. */
	void (*state_fn)(int stop_sig, void *arg);
	/* Called with state_arg at each of those looks (twice a second while
	 * the leg runs); may be NULL. */
	void (*tick_fn)(void *arg);
	void *state_arg;
};

struct leg_result {
	pid_t pid;               /* also the pgid */
	int rc;                  /* exit code, or -1 when signalled */
	int signal;              /* terminating signal, or 0 */
	bool timed_out;
	bool aborted;            /* ended because abort_fd fired */
	int exec_errno;          /* a step before the program ran failed in
	                          * the child (rc is 127) */
	int exec_step;           /* which (enum spawn_step), or 0 */
	double wall;             /* seconds */
	double ended;            /* when the leader was seen to exit: epoch
	                          * seconds, CLOCK_REALTIME, the clock of
	                          * files' mtime (0: unknown) */
	struct rusage ru;
	long long mem_peak_kb;   /* the group's memory.peak over the leg, or
	                          * -1 (no group, or no per-leg peak here) */
	size_t strays;           /* processes left in the group after the
	                          * leader was reaped, killed (cgroup only) */
	bool killed_parent;      /* stand_in: the stand-in parent was
	                          * SIGKILLed while the program still ran (it
	                          * outlived it): the program's doing */
};

/* Called in the parent once the child exists and its counters are open,
 * just before it is released to exec (so that what the caller does here,
 * such as logging leg_start, stays out of the measured window). */
typedef void (*leg_started_fn)(pid_t pid, void *arg);

/* Run one leg to its end.  0 when the leg ran (whatever its exit status);
 * -1 with err when it could not be started (fork, pipe, output file). */
int leg_run(const struct leg_spec *ls, struct leg_result *res,
    leg_started_fn started, void *arg, char *err, size_t errlen);

#endif
