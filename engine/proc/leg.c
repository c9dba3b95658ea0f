/* One leg: spawn (spawn.c), counters, release, wait, reap.
 *
 * The path between release and reap is kept lean: no sleeps, no polling
 * loops, no helper processes.  The parent waits on a pidfd (and the abort
 * fd) with poll, so a leg's end is seen the moment it happens. */
#include "leg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"
#include "rfile.h"
#include "spawn.h"

/* How long a timed-out or aborted leg gets between SIGTERM and SIGKILL. */
#define LEG_GRACE_MS 500

/* The signal that stopped pid, 0 when it runs (its /proc state is not
 * 'T'), read without reaping it. */
static int
leg_stopped(pid_t pid)
{
	struct procs_stat e;
	siginfo_t si;

	if (procs_stat(pid, &e) != 0 || e.state != 'T')
		return 0;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG | WNOWAIT) == 0 &&
	    si.si_pid == pid && si.si_code == CLD_STOPPED)
		return si.si_status;
	return SIGSTOP;
}

/* Wait for the leader to exit: poll on its pidfd, the abort fd, the
 * output pipe (pumped as it fills) and the deadline (0: none).  Returns 1
 * exited, 0 deadline passed, 2 abort.  With a state_fn, the leader's stops
 * and continues are told as they are seen (twice a second). */
static int
leg_wait(int pidfd, int abort_fd, double deadline, const struct leg_spec *ls,
    pid_t pid)
{
	int was = 0;
	double next_look = clock_now() + 0.5;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = pidfd, .events = POLLIN },
			{ .fd = abort_fd, .events = POLLIN },
			{ .fd = ls->out != NULL ? legout_rd(ls->out) : -1,
			  .events = POLLIN },
		};
		int timeout = -1, n;

		if (deadline > 0) {
			double left = deadline - clock_now();

			if (left <= 0)
				return 0;
			/* poll takes an int of ms: wait at most a day at a
			 * time (the loop comes back for the rest) */
			timeout = left > 86400.0 ? 86400000 :
			    (int)(left * 1000.0) + 1;
		}
		/* The stop/continue look is due twice a second whatever else
		 * wakes the poll: a leg that writes more often than that
		 * never lets it time out. */
		if (ls->state_fn != NULL) {
			int look = (int)((next_look - clock_now()) * 1000.0) + 1;

			if (look < 0)
				look = 0;
			if (timeout < 0 || timeout > look)
				timeout = look;
		}
		n = poll(pfd, 3, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1; /* cannot wait: fall back to a blocking wait4 */
		if (pfd[2].revents != 0)
			(void)legout_pump(ls->out);
		if (pfd[0].revents != 0)
			return 1;
		if (abort_fd >= 0 && pfd[1].revents != 0)
			return 2;
		if (ls->state_fn != NULL && clock_now() >= next_look) {
			int now = leg_stopped(pid);

			next_look = clock_now() + 0.5;
			if (now != was)
				ls->state_fn(now, ls->state_arg);
			was = now;
			if (ls->tick_fn != NULL)
				ls->tick_fn(ls->state_arg);
		}
	}
}

/* End the leg's group: SIGTERM, LEG_GRACE_MS for the leader (its output
 * still drained), SIGKILL. */
static void
leg_end_group(const struct leg_spec *ls, pid_t pgid, int pidfd)
{
	struct leg_spec quiet = { .abort_fd = -1, .out = ls->out };

	/* By pid too: a leg ended just after its release may not have made
	 * its own group yet (its setsid). */
	kill(pgid, SIGTERM);
	kill(-pgid, SIGTERM);
	/* A stopped leg acts on the SIGTERM once it runs again. */
	kill(-pgid, SIGCONT);
	if (pidfd >= 0)
		leg_wait(pidfd, -1, clock_now() + LEG_GRACE_MS / 1000.0,
		    &quiet, pgid);
	/* Whether or not the leader went, the rest of its group may not have. */
	kill(pgid, SIGKILL);
	kill(-pgid, SIGKILL);
}

/* The moment the leader's exit was seen, on the clock of files' mtime:
 * what the leg wrote is older, what its leftovers write later is newer. */
static void
leg_ended(struct leg_result *res)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
		res->ended = (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* From the release to the reap: the wall, the rusage and how it ended.
 * 0, or -1 with err when it cannot be reaped. */
static int
leg_measure(const struct leg_spec *ls, struct spawn *sp,
    struct leg_result *res, char *err, size_t errlen)
{
	pid_t pid = sp->pid;
	int status = 0, why;
	double t0;

	/* The window opens at the release: what the child does from here
	 * (it unblocks its signals and execs) a bare posix_spawn loop
	 * times as well; the clone and the child's set-up before it are
	 * not the leg's. */
	t0 = clock_now();
	spawn_release(sp, &res->exec_errno);
	res->exec_step = sp->fail_step;
	why = sp->pidfd >= 0 ? leg_wait(sp->pidfd, ls->abort_fd,
	    ls->timeout_s > 0 ? t0 + ls->timeout_s : 0, ls, pid) : 1;
	if (why != 1) {
		res->timed_out = why == 0;
		res->aborted = why == 2;
		leg_end_group(ls, pid, sp->pidfd);
	}
	res->wall = clock_now() - t0;
	leg_ended(res);
	while (wait4(pid, &status, 0, &res->ru) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "wait4 %d: %s", (int)pid,
			    strerror(errno));
			return -1;
		}
	}
	if (why == 1 && sp->pidfd < 0) {
		res->wall = clock_now() - t0;
		leg_ended(res);
	}
	spawn_reaped(sp, &res->exec_errno);
	res->exec_step = sp->fail_step;
	if (WIFEXITED(status)) {
		res->rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->rc = -1;
		res->signal = WTERMSIG(status);
	}
	/* A stand-in that ended by SIGKILL as the program did reaped it
	 * first; one the program outlived (reparented to us, subreaper) was
	 * killed from outside while it ran: by the program, whose parent it
	 * was (neither a timeout nor an abort sent it alone). */
	if (sp->program > 0 && res->signal == SIGKILL && why == 1)
		res->killed_parent = waitpid(sp->program, NULL, 0) ==
		    sp->program;
	return 0;
}

int
leg_run(const struct leg_spec *ls, struct leg_result *res,
    leg_started_fn started, void *arg, char *err, size_t errlen)
{
	struct spawn_req rq = {
		.path = ls->path != NULL ? ls->path : ls->argv[0],
		.argv = ls->argv, .envp = ls->envp, .cwd = ls->cwd,
		.out_fd = -1, .cpus = ls->cpus, .ncpus = ls->ncpus,
		.nice = ls->nice, .stand_in = ls->stand_in,
		.cgroup_procs_fd = ls->cg != NULL ? cgroup_procs_fd(ls->cg) : -1,
		.cgroup_dir_fd = ls->cg != NULL ? cgroup_dir_fd(ls->cg) : -1,
	};
	struct spawn sp;
	int own_fd = -1, in_fd = -1, ret = -1;
	bool counting = false, spawned = false, peak = false;

	memset(res, 0, sizeof *res);
	res->rc = -1;
	res->mem_peak_kb = -1;
	/* The drained pipe's write end is the child's as it is (legout
	 * closes it); only a file made here is closed here. */
	if (ls->out != NULL)
		rq.out_fd = legout_fd(ls->out);
	else if ((rq.out_fd = own_fd = rfile_create(ls->out_path, O_CLOEXEC,
	    0644)) < 0) {
		snprintf(err, errlen, "%s: cannot create the leg's output file: %s",
		    ls->out_path, rfile_strerror(errno));
		goto out;
	}
	if (ls->in_path != NULL && (rq.in_fd = in_fd = open(ls->in_path,
	    O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "%s: cannot open the leg's stdin: %s",
		    ls->in_path, strerror(errno));
		goto out;
	}
	if (spawn_create(&rq, &sp, err, errlen) != 0)
		goto out;
	spawned = true;
	res->pid = sp.pid;
	if (ls->ctr != NULL) {
		counters_open(ls->ctr, sp.pid);
		counting = true;
	}
	/* Announce the leg before releasing it, so that logging leg_start
	 * does not run on the CPUs during the measured window. */
	if (started != NULL)
		started(sp.pid, arg);
	if (ls->cg != NULL)
		peak = cgroup_peak_begin(ls->cg);
	if (leg_measure(ls, &sp, res, err, errlen) != 0)
		goto out;
	if (peak)
		res->mem_peak_kb = cgroup_peak_end(ls->cg);
	/* Grandchildren still in the leg's group die with it: with a
	 * cgroup, everything the leg started, in its process group or not
	 * (one read when nothing is left), else the process group. */
	if (ls->cg != NULL)
		res->strays = cgroup_kill(ls->cg, 2.0);
	else
		procs_kill_group(sp.pid);
	ret = 0;
out:
	if (counting)
		counters_read(ls->ctr);
	if (own_fd >= 0)
		close(own_fd);
	if (in_fd >= 0)
		close(in_fd);
	if (spawned)
		spawn_finish(&sp);
	return ret;
}
