/* One leg: fork, exec with no shell, measure, reap.
 *
 * The path between release and reap is kept lean: no sleeps, no polling
 * loops, no helper processes.  The parent waits on a pidfd (and the abort
 * fd) with poll, so a leg's end is seen the moment it happens. */
#include "leg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"

/* How long a timed-out or aborted leg gets between SIGTERM and SIGKILL. */
#define LEG_GRACE_MS 500

/* Child side, between fork and exec: only async-signal-safe calls, since
 * the parent may have other threads (the console). */
static void
leg_child_say(const char *what, const char *arg, int e)
{
	const char *parts[] = { "benchtui: leg: ", what, arg ? " " : "",
		arg ? arg : "", ": ", strerrordesc_np(e), "\n" };
	char buf[1024];
	size_t n = 0;

	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const char *p = parts[i] ? parts[i] : "?";

		while (*p != '\0' && n < sizeof buf - 1)
			buf[n++] = *p++;
	}
	if (write(2, buf, n) < 0)
		return;
}

static __attribute__((noreturn)) void
leg_child_fail(int errfd, const char *what, const char *arg, int e)
{
	leg_child_say(what, arg, e);
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* Close every fd from 3 up except the two the child still needs. */
static void
leg_child_close_fds(int keep1, int keep2)
{
	int lo = keep1 < keep2 ? keep1 : keep2;
	int hi = keep1 < keep2 ? keep2 : keep1;

	if (lo > 3)
		syscall(SYS_close_range, 3U, (unsigned)lo - 1, 0U);
	if (hi > lo + 1)
		syscall(SYS_close_range, (unsigned)lo + 1, (unsigned)hi - 1, 0U);
	syscall(SYS_close_range, (unsigned)hi + 1, ~0U, 0U);
}

static __attribute__((noreturn)) void
leg_child(const struct leg_spec *ls, pid_t parent, int outfd, int relfd,
    int errfd, const sigset_t *oldmask)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int nullfd;
	char c;

	/* Handlers and ignored signals of benchtui are not the leg's. */
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			sigaction(sig, &dfl, NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent) /* the parent died before the prctl */
		_exit(127);

	if (dup2(outfd, 1) < 0 || dup2(outfd, 2) < 0)
		leg_child_fail(errfd, "dup2", ls->out_path, errno);
	nullfd = open("/dev/null", O_RDONLY);
	if (nullfd < 0 || dup2(nullfd, 0) < 0)
		leg_child_fail(errfd, "open", "/dev/null", errno);
	leg_child_close_fds(relfd, errfd);

	if (procs_pin_self(ls->cpus, ls->ncpus) < 0)
		leg_child_fail(errfd, "sched_setaffinity", NULL, errno);
	if (ls->nice != 0 && setpriority(PRIO_PROCESS, 0, ls->nice) < 0)
		leg_child_fail(errfd, "setpriority", NULL, errno);
	if (ls->cwd != NULL && chdir(ls->cwd) < 0)
		leg_child_fail(errfd, "chdir", ls->cwd, errno);

	/* Wait for the parent to open the counters on us.  EOF means the
	 * parent gave up on this leg. */
	if (read(relfd, &c, 1) != 1)
		_exit(127);
	close(relfd);
	execvpe(ls->argv[0], ls->argv, ls->envp);
	leg_child_fail(errfd, "exec", ls->argv[0], errno);
}

/* Wait for the leader to exit: poll on its pidfd, the abort fd and the
 * deadline (0: none).  Returns 1 exited, 0 deadline passed, 2 abort. */
static int
leg_wait(int pidfd, int abort_fd, double deadline)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = pidfd, .events = POLLIN },
			{ .fd = abort_fd, .events = POLLIN },
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
		n = poll(pfd, abort_fd >= 0 ? 2 : 1, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1; /* cannot wait: fall back to a blocking wait4 */
		if (pfd[0].revents != 0)
			return 1;
		if (abort_fd >= 0 && pfd[1].revents != 0)
			return 2;
	}
}

/* End the leg's group: SIGTERM, LEG_GRACE_MS for the leader, SIGKILL. */
static void
leg_end_group(pid_t pgid, int pidfd)
{
	kill(-pgid, SIGTERM);
	if (pidfd >= 0)
		leg_wait(pidfd, -1, clock_now() + LEG_GRACE_MS / 1000.0);
	/* Whether or not the leader went, the rest of its group may not have. */
	kill(-pgid, SIGKILL);
}

int
leg_run(const struct leg_spec *ls, struct leg_result *res,
    leg_started_fn started, void *arg, char *err, size_t errlen)
{
	int outfd = -1, rel[2] = { -1, -1 }, errp[2] = { -1, -1 }, pidfd = -1;
	int status = 0, e = 0, why, ret = -1;
	bool counting = false;
	sigset_t all, old;
	pid_t pid, self = getpid();
	double t0;
	ssize_t n;

	memset(res, 0, sizeof *res);
	res->rc = -1;
	outfd = open(ls->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644);
	if (outfd < 0) {
		snprintf(err, errlen, "%s: cannot create the leg's output file: %s",
		    ls->out_path, strerror(errno));
		goto out;
	}
	if (pipe2(rel, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto out;
	}

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid == 0)
		leg_child(ls, self, outfd, rel[0], errp[1], &old);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		snprintf(err, errlen, "fork: %s", strerror(e));
		goto out;
	}
	res->pid = pid;
	/* Both sides set the group, so it exists whichever runs first. */
	setpgid(pid, pid);
	close(errp[1]);
	errp[1] = -1;
	close(outfd);
	outfd = -1;
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);

	if (ls->ctr != NULL) {
		counters_open(ls->ctr, pid);
		counting = true;
	}

	/* Announce the leg before releasing it, so that logging leg_start
	 * does not run on the CPUs during the measured window. */
	if (started != NULL)
		started(pid, arg);

	/* Release.  Our own read end is still open, so this cannot SIGPIPE
	 * even if the child already died in its set-up. */
	t0 = clock_now();
	if (write(rel[1], "x", 1) != 1)
		kill(-pid, SIGKILL);
	close(rel[1]);
	close(rel[0]);
	rel[0] = rel[1] = -1;

	/* EOF on the error pipe: exec succeeded (it is CLOEXEC). */
	do
		n = read(errp[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof e)
		res->exec_errno = e;

	why = pidfd >= 0 ? leg_wait(pidfd, ls->abort_fd,
	    ls->timeout_s > 0 ? t0 + ls->timeout_s : 0) : 1;
	if (why != 1) {
		res->timed_out = why == 0;
		res->aborted = why == 2;
		leg_end_group(pid, pidfd);
	}
	res->wall = clock_now() - t0;
	while (wait4(pid, &status, 0, &res->ru) < 0) {
		if (errno != EINTR) {
			snprintf(err, errlen, "wait4 %d: %s", (int)pid,
			    strerror(errno));
			goto out;
		}
	}
	if (why == 1 && pidfd < 0)
		res->wall = clock_now() - t0;
	if (WIFEXITED(status)) {
		res->rc = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->rc = -1;
		res->signal = WTERMSIG(status);
	}
	/* Grandchildren still in the leg's group die with it. */
	procs_kill_group(pid);
	ret = 0;
out:
	if (counting)
		counters_read_close(ls->ctr);
	if (outfd >= 0)
		close(outfd);
	for (int i = 0; i < 2; i++) {
		if (rel[i] >= 0)
			close(rel[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	return ret;
}
