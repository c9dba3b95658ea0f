/* The child side of the one spawn path (spawn.h): from the clone to the
 * exec.
 *
 * With CLONE_VM the child runs on the parent's memory and on the parent
 * thread's errno (no TLS of its own), while the parent runs on: it reads
 * the request in place, writes only its own stack (and, without an error
 * pipe, the spawn's fail slot), and makes only raw system calls, which
 * leave errno alone.  Everything here is async-signal-safe. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "spawn_int.h"
#include "sysname.h"

/* A system call that leaves errno alone.  -errno on failure.  Elsewhere
 * than x86_64 and aarch64 glibc's syscall(), which sets errno on failure
 * (where the parent, sharing it, may see it change). */
static inline long
spawn_raw(long n, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
	    : "=a"(ret)
	    : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
	    : "rcx", "r11", "memory");
	return ret;
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;

	__asm__ volatile("svc 0"
	    : "+r"(x0)
	    : "r"(x8), "r"(x1), "r"(x2), "r"(x3)
	    : "memory", "cc");
	return x0;
#else
	long ret = syscall(n, a, b, c, d);

	return ret < 0 ? -errno : ret;
#endif
}

/* The child's own words for a step, in its stderr. */
static const char *const spawn_child_verbs[] = {
	[SPAWN_STEP_STDIN] = "open", [SPAWN_STEP_OUTPUT] = "dup2",
	[SPAWN_STEP_AFFINITY] = "sched_setaffinity",
	[SPAWN_STEP_NICE] = "setpriority", [SPAWN_STEP_CHDIR] = "chdir",
	[SPAWN_STEP_EXEC] = "exec", [SPAWN_STEP_FORK] = "fork",
};

static void
spawn_child_say(const char *what, const char *arg, int e)
{
	const char *parts[] = { "benchtui: ", what, arg ? " " : "",
		arg ? arg : "", ": ", sysname_errdesc(e), "\n" };
	char buf[1024];
	size_t n = 0;

	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
		const char *p = parts[i] ? parts[i] : "?";

		while (*p != '\0' && n < sizeof buf - 1)
			buf[n++] = *p++;
	}
	(void)spawn_raw(SYS_write, 2, (long)buf, (long)n, 0);
}

/* A step failed (e: a positive errno) and was said: tell the parent
 * which and why (one write of both to the pipe, so it arrives whole, or
 * into the spawn's fail slot, which the parent reads once it has reaped
 * us), exit 127. */
static __attribute__((noreturn)) void
spawn_child_report(const struct spawn_child_args *ca, int step, int e)
{
	int msg[2] = { step, e };

	if (ca->err_wr >= 0) {
		(void)spawn_raw(SYS_write, ca->err_wr, (long)msg,
		    (long)sizeof msg, 0);
	} else {
		ca->sp->fail[1] = e;
		ca->sp->fail[0] = step;
	}
	_exit(127);
}

/* A step failed after the release: say so on stderr, tell the parent,
 * exit 127. */
static __attribute__((noreturn)) void
spawn_child_fail(const struct spawn_child_args *ca, int step,
    const char *arg, int e)
{
	spawn_child_say(spawn_child_verbs[step], arg, e);
	spawn_child_report(ca, step, e);
}

/* struct linux_dirent64 of getdents64(2). */
struct spawn_dirent {
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/* Without close_range: close what /proc/self/fd lists (our own table:
 * no CLONE_FILES), again until a pass closes nothing; without /proc,
 * every fd up to 65536. */
static void
spawn_child_close_listed(int keep)
{
	char buf[2048] __attribute__((aligned(8)));

	for (int pass = 0; pass < 16; pass++) {
		long dfd = spawn_raw(SYS_openat, AT_FDCWD, (long)"/proc/self/fd",
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0), n;
		bool closed = false;

		if (dfd < 0) {
			for (int fd = 3; fd < 65536; fd++)
				if (fd != keep)
					(void)spawn_raw(SYS_close, fd, 0, 0, 0);
			return;
		}
		while ((n = spawn_raw(SYS_getdents64, dfd, (long)buf,
		    (long)sizeof buf, 0)) > 0)
			for (long off = 0; off < n;) {
				const struct spawn_dirent *d =
				    (const void *)(buf + off);
				long fd = 0;

				for (const char *c = d->name; *c >= '0' &&
				    *c <= '9'; c++)
					fd = fd * 10 + (*c - '0');
				if (d->name[0] >= '0' && d->name[0] <= '9' &&
				    fd >= 3 && fd != keep && fd != dfd) {
					(void)spawn_raw(SYS_close, fd, 0, 0, 0);
					closed = true;
				}
				off += d->reclen;
			}
		(void)spawn_raw(SYS_close, dfd, 0, 0, 0);
		if (!closed)
			return;
	}
}

/* Close every fd from 3 up except keep (-1: none). */
static void
spawn_child_close_fds(const struct spawn_child_args *ca, int keep)
{
	if (!ca->close_range) {
		spawn_child_close_listed(keep);
		return;
	}
	if (keep > 3)
		(void)spawn_raw(SYS_close_range, 3, keep - 1, 0, 0);
	(void)spawn_raw(SYS_close_range, keep >= 3 ? keep + 1 : 3, ~0U, 0, 0);
}

/* Set sig's action to handler (SIG_DFL or SIG_IGN) with the kernel's own
 * call: glibc's sigaction refuses the signals it keeps for itself (32 and
 * 33), yet a parent may have left one ignored, and an ignored signal
 * survives exec. */
static void
spawn_child_action(int sig, void (*handler)(int))
{
	struct {
		void (*handler)(int);
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ksa = { .handler = handler };

	(void)spawn_raw(SYS_rt_sigaction, sig, (long)&ksa, 0,
	    (long)sizeof ksa.mask);
}

/* Drop the signals that came while the child was held, or between its
 * release and its setsid: they were sent to benchtui's process group (a
 * Ctrl-C, a hangup), which the child was still in, and are not the leg's.
 * Unblocked, a SIGINT would kill the leg before it ran.  Setting a
 * pending signal to SIG_IGN discards it; the caller then resets it. */
static void
spawn_child_drop_pending(void)
{
	unsigned long pend = 0;

	if (spawn_raw(SYS_rt_sigpending, (long)&pend, (long)sizeof pend, 0,
	    0) < 0)
		return;
	for (int sig = 1; sig <= 64; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    (pend & (1UL << (sig - 1))) != 0) {
			spawn_child_action(sig, SIG_IGN);
			spawn_child_action(sig, SIG_DFL);
		}
}

/* fd onto to (0, 1 or 2).  0, or -errno. */
static long
spawn_child_dup(int fd, int to)
{
	if (fd == to)
		return 0;
	return spawn_raw(SYS_dup3, fd, to, 0, 0);
}

/* Pinned to the request's cpus (none: left as it is).  0, or -errno. */
static long
spawn_child_pin(const struct spawn_req *rq)
{
	cpu_set_t set;

	if (rq->cpus == NULL || rq->ncpus <= 0)
		return 0;
	CPU_ZERO(&set);
	for (int i = 0; i < rq->ncpus && i < CPU_SETSIZE; i++)
		if (rq->cpus[i])
			CPU_SET(i, &set);
	return spawn_raw(SYS_sched_setaffinity, 0, (long)sizeof set,
	    (long)&set, 0);
}

/* The stand-in parent (spawn_req.stand_in; never with CLONE_VM, so libc
 * is ours here): fork the program (a raw fork: no atfork handler of the
 * parent runs in this copy), tell the parent its pid, wait for its exec
 * through a pipe of our own, then for its end, and end as it did.  Its
 * output, cwd, nice and signals are ours already. */
static __attribute__((noreturn)) void
spawn_child_stand_in(const struct spawn_child_args *ca,
    const struct spawn_req *rq)
{
	int gp[2], msg[2] = { SPAWN_MSG_PROGRAM, 0 }, e = 0, st = 0;
	long pid;
	ssize_t n;

	if (pipe2(gp, O_CLOEXEC) < 0)
		spawn_child_fail(ca, SPAWN_STEP_FORK, NULL, errno);
	if ((pid = syscall(SYS_clone, (long)SIGCHLD, 0L, 0L, 0L, 0L)) < 0)
		spawn_child_fail(ca, SPAWN_STEP_FORK, NULL, errno);
	if (pid == 0) {
		/* It dies with the stand-in, as it would with benchtui. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		execve(rq->path, rq->argv, rq->envp);
		e = errno;
		if (write(gp[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(gp[1]);
	msg[1] = (int)pid;
	if (write(ca->err_wr, msg, sizeof msg) < 0)
		_exit(127);
	do
		n = read(gp[0], &e, sizeof e);
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof e) {
		(void)waitpid((pid_t)pid, NULL, 0);
		spawn_child_fail(ca, SPAWN_STEP_EXEC, rq->path, e);
	}
	close(gp[0]);
	close(ca->err_wr);  /* EOF: the program runs */
	while (waitpid((pid_t)pid, &st, 0) < 0 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		(void)kill(getpid(), WTERMSIG(st));
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

/* Its own session, and benchtui's handlers and ignored signals reset
 * (every other signal is at its default already); every signal stays
 * blocked until the release. */
static void
spawn_child_session(const struct spawn *sp)
{
	/* A session of its own: its own process group, and no controlling
	 * terminal, so a leg that opens /dev/tty fails at once (ENXIO)
	 * instead of stopping on SIGTTIN for ever or drawing over the
	 * console.  First, so that no signal of the terminal's reaches it
	 * from here on. */
	(void)spawn_raw(SYS_setsid, 0, 0, 0, 0);
	for (int sig = 1; sig <= 64; sig++)
		if (sp->sigs & (1ULL << (sig - 1)) && sig != SIGKILL &&
		    sig != SIGSTOP)
			spawn_child_action(sig, SIG_DFL);
}

/* Released: the signals that came while it was held dropped, none
 * blocked, as the program should find them. */
static void
spawn_child_unblock(void)
{
	unsigned long none = 0;

	spawn_child_drop_pending();
	(void)spawn_raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&none, 0,
	    (long)sizeof none);
}

/* The set-up, done while held: its session and signals, fds 0, 1 and 2,
 * no other fd, its cpus, nice and folder.  Work of the harness, not of
 * the leg: done before the release, it is out of the measured window,
 * and it runs beside the parent's last steps before the release (the
 * counters' opens, leg_start) instead of after them.  0, or the step
 * that failed with its errno in *e and what it was about in *what. */
static int
spawn_child_setup(const struct spawn_child_args *ca,
    const struct spawn_req *rq, int *e, const char **what)
{
	long nullfd, r;

	if (ca->err_rd >= 0)
		(void)spawn_raw(SYS_close, ca->err_rd, 0, 0, 0);
	spawn_child_session(ca->sp);
	nullfd = spawn_raw(SYS_openat, AT_FDCWD, (long)"/dev/null", O_RDWR, 0);
	*what = "/dev/null";
	if ((r = nullfd) < 0)
		goto stdin_failed;
	*what = "stdin";
	if ((r = spawn_child_dup(rq->in_fd > 0 ? rq->in_fd : (int)nullfd,
	    0)) < 0)
		goto stdin_failed;
	r = rq->out_fd >= 0 ? spawn_child_dup(rq->out_fd, 1) :
	    spawn_child_dup((int)nullfd, 1);
	if (r >= 0)
		r = spawn_child_dup(rq->out_fd >= 0 ? rq->out_fd : (int)nullfd,
		    2);
	if (r >= 0 && rq->err_fd > 0)
		r = spawn_child_dup(rq->err_fd, 2);
	*what = "stdout";
	if (r < 0) {
		*e = (int)-r;
		return SPAWN_STEP_OUTPUT;
	}
	spawn_child_close_fds(ca, ca->err_wr);
	*what = NULL;
	if ((r = spawn_child_pin(rq)) < 0) {
		*e = (int)-r;
		return SPAWN_STEP_AFFINITY;
	}
	if (rq->nice != 0 && (r = spawn_raw(SYS_setpriority, PRIO_PROCESS, 0,
	    rq->nice, 0)) < 0) {
		*e = (int)-r;
		return SPAWN_STEP_NICE;
	}
	*what = rq->cwd;
	if (rq->cwd != NULL && (r = spawn_raw(SYS_chdir, (long)rq->cwd, 0, 0,
	    0)) < 0) {
		*e = (int)-r;
		return SPAWN_STEP_CHDIR;
	}
	return SPAWN_STEP_NONE;
stdin_failed:
	*e = (int)-r;
	return SPAWN_STEP_STDIN;
}

int
spawn_child(void *arg)
{
	const struct spawn_child_args *ca = arg;
	const struct spawn *sp = ca->sp;
	const struct spawn_req *rq = sp->req;
	const char *what = NULL;
	int step, e = 0;
	long r;

	/* It dies with the parent (also while held). */
	(void)spawn_raw(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
	if (spawn_raw(SYS_getppid, 0, 0, 0, 0) != ca->parent)
		_exit(127);  /* the parent died before the prctl */
	/* A step that fails is said at once and reported after the
	 * release, so the parent meets a held child either way. */
	if ((step = spawn_child_setup(ca, rq, &e, &what)) != SPAWN_STEP_NONE)
		spawn_child_say(spawn_child_verbs[step], what, e);
	/* Held: it waits for the release signal, blocked like every other,
	 * so no handler can interrupt the wait (a stop and continue can:
	 * EINTR, and it waits again). */
	while (spawn_raw(SYS_rt_sigtimedwait, (long)&ca->rel_set, 0, 0,
	    (long)(_NSIG / 8)) != ca->rel_sig)
		;
	if (step != SPAWN_STEP_NONE)
		spawn_child_report(ca, step, e);
	spawn_child_unblock();
	if (rq->stand_in)
		spawn_child_stand_in(ca, rq);
	r = spawn_raw(SYS_execve, (long)rq->path, (long)rq->argv,
	    (long)rq->envp, 0);
	spawn_child_fail(ca, SPAWN_STEP_EXEC, rq->path, (int)-r);
}
