/* The one spawn path: clone(CLONE_VM) on a private stack, held until
 * released, execve of a resolved path.
 *
 * Sharing the address space means the child must not touch anything the
 * parent may be changing: it reads the request in place (the parent keeps
 * it until the exec is over) and writes only its own stack.  It also shares
 * the parent thread's TLS, so its errno is the parent's: the parent is
 * blocked in a read of the child's pipes whenever the child can make a call
 * fail, and never reads errno of its own across that wait. */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procs.h"

/* Under AddressSanitizer the child would run the sanitizer's interceptors
 * (read, close, sigaction) on the parent's thread state in the shared
 * memory, which hung or aborted now and then: the sanitizer build spawns
 * with a copied address space instead (fork's cost, same held protocol). */
#if defined(__SANITIZE_ADDRESS__)
#define SPAWN_CLONE_VM 0
#else
#define SPAWN_CLONE_VM CLONE_VM
#endif

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

/* The child's calls above need a few KiB; the rest is margin. */
#define SPAWN_STACK (64 * 1024)

/* What the child needs beyond the request, at a fixed place: the pipes'
 * far ends and the parent's pid. */
struct spawn_child_args {
	const struct spawn *sp;
	int rel_rd;    /* the child's end of the release pipe */
	int rel_wr;    /* the parent's end: the child closes its copy */
	int err_wr;    /* the child's end of the error pipe */
	int err_rd;
	pid_t parent;
};

/* One stack per thread, reused leg after leg: an mmap and munmap per leg
 * would cost a TLB shootdown each on a busy multi-threaded benchtui. */
static _Thread_local void *spawn_cached_stack;
static _Thread_local bool spawn_cached_busy;

/* --- child side: async-signal-safe only --------------------------------- */

static void
spawn_child_say(const char *what, const char *arg, int e)
{
	const char *parts[] = { "benchtui: ", what, arg ? " " : "",
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
spawn_child_fail(int errfd, const char *what, const char *arg, int e)
{
	spawn_child_say(what, arg, e);
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

/* Close every fd from 3 up except keep. */
static void
spawn_child_close_fds(int keep)
{
	if (keep > 3)
		syscall(SYS_close_range, 3U, (unsigned)keep - 1, 0U);
	syscall(SYS_close_range, (unsigned)keep + 1, ~0U, 0U);
}

/* glibc's sigaction refuses the signals it keeps for itself (32 and 33),
 * yet a parent may have left one ignored, and an ignored signal survives
 * exec: ask the kernel directly.  A raw system call is async-signal-safe. */
static void
spawn_child_default(int sig)
{
	struct {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ksa = { .handler = SIG_DFL };

	(void)syscall(SYS_rt_sigaction, sig, &ksa, NULL, sizeof ksa.mask);
}

static int
spawn_child(void *arg)
{
	const struct spawn_child_args *ca = arg;
	const struct spawn *sp = ca->sp;
	const struct spawn_req *rq = sp->req;
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int nullfd, efd = ca->err_wr;
	char c;

	/* Held: nothing may fail (and so write errno) before the release,
	 * while the parent runs on. */
	close(ca->rel_wr);
	if (read(ca->rel_rd, &c, 1) != 1) /* EOF: the parent gave up */
		_exit(127);
	close(ca->rel_rd);
	close(ca->err_rd);

	/* The parent's handlers and ignored signals are not the child's.
	 * Every other signal is at its default already. */
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
		if (sp->sigs & (1ULL << (sig - 1)) && sig != SIGKILL &&
		    sig != SIGSTOP && sigaction(sig, &dfl, NULL) != 0)
			spawn_child_default(sig);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);

	/* A session of its own: its own process group, and no controlling
	 * terminal, so a leg that opens /dev/tty fails at once (ENXIO)
	 * instead of stopping on SIGTTIN for ever or drawing over the
	 * console. */
	(void)setsid();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != ca->parent) /* the parent died before the prctl */
		_exit(127);

	nullfd = open("/dev/null", O_RDWR);
	if (nullfd < 0 || dup2(nullfd, 0) < 0)
		spawn_child_fail(efd, "open", "/dev/null", errno);
	if (rq->out_fd >= 0 ? dup2(rq->out_fd, 1) < 0 || dup2(rq->out_fd, 2) < 0 :
	    dup2(nullfd, 1) < 0 || dup2(nullfd, 2) < 0)
		spawn_child_fail(efd, "dup2", "stdout", errno);
	spawn_child_close_fds(efd);

	if (procs_pin_self(rq->cpus, rq->ncpus) < 0)
		spawn_child_fail(efd, "sched_setaffinity", NULL, errno);
	if (rq->nice != 0 && setpriority(PRIO_PROCESS, 0, rq->nice) < 0)
		spawn_child_fail(efd, "setpriority", NULL, errno);
	if (rq->cwd != NULL && chdir(rq->cwd) < 0)
		spawn_child_fail(efd, "chdir", rq->cwd, errno);
	execve(rq->path, rq->argv, rq->envp);
	spawn_child_fail(efd, "exec", rq->path, errno);
}

/* --- parent side --------------------------------------------------------- */

static int spawn_status_fd = -1;
static pthread_once_t spawn_status_once = PTHREAD_ONCE_INIT;

static void
spawn_status_open(void)
{
	spawn_status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
}

/* The signals this process catches or ignores, from /proc/self/status
 * (SigIgn, SigCgt), read afresh for every child (benchtui may have set a
 * handler since) with one pread of a file kept open, instead of asking
 * sigaction 64 times. */
static unsigned long long
spawn_changed_signals(void)
{
	char buf[4096];
	unsigned long long all = 0;
	ssize_t n;

	pthread_once(&spawn_status_once, spawn_status_open);
	if (spawn_status_fd < 0)
		return ~0ULL; /* cannot tell: reset every one */
	n = pread(spawn_status_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return ~0ULL;
	buf[n] = '\0';
	for (const char *key = "SigIgn:"; key != NULL;
	    key = strcmp(key, "SigIgn:") == 0 ? "SigCgt:" : NULL) {
		const char *p = strstr(buf, key);

		if (p == NULL)
			return ~0ULL;
		all |= strtoull(p + strlen(key), NULL, 16);
	}
	return all;
}

static void *
spawn_stack_get(size_t *size)
{
	void *st;

	*size = SPAWN_STACK;
	if (spawn_cached_stack != NULL && !spawn_cached_busy) {
		spawn_cached_busy = true;
		return spawn_cached_stack;
	}
	st = mmap(NULL, SPAWN_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (st == MAP_FAILED)
		return NULL;
	if (spawn_cached_stack == NULL) {
		spawn_cached_stack = st;
		spawn_cached_busy = true;
	}
	return st;
}

static void
spawn_stack_put(void *st, size_t size)
{
	if (st == NULL)
		return;
	if (st == spawn_cached_stack)
		spawn_cached_busy = false;
	else
		munmap(st, size);
}

int
spawn_create(const struct spawn_req *req, struct spawn *sp, char *err,
    size_t errlen)
{
	int rel[2] = { -1, -1 }, errp[2] = { -1, -1 }, e, pidfd = -1;
	struct spawn_child_args *ca = NULL;
	sigset_t all, old;
	pid_t pid;

	memset(sp, 0, sizeof *sp);
	sp->pid = -1;
	sp->pidfd = sp->rel_fd = sp->rel_rd = sp->err_fd = -1;
	sp->req = req;
	sp->sigs = spawn_changed_signals();
	if (req->path == NULL || req->argv == NULL || req->argv[0] == NULL) {
		snprintf(err, errlen, "spawn: no program to run");
		return -1;
	}
	if (pipe2(rel, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	if ((sp->stack = spawn_stack_get(&sp->stack_size)) == NULL) {
		snprintf(err, errlen, "spawn: cannot map a stack: %s",
		    strerror(errno));
		goto fail;
	}
	/* The child's arguments live at the top of its own stack, out of the
	 * caller's way. */
	ca = (struct spawn_child_args *)((char *)sp->stack + sp->stack_size) - 1;
	*ca = (struct spawn_child_args){ .sp = sp, .rel_rd = rel[0],
		.rel_wr = rel[1], .err_wr = errp[1], .err_rd = errp[0],
		.parent = getpid() };

	/* All signals blocked across the clone: the child must not run a
	 * handler of ours before it has reset them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = clone(spawn_child, (char *)ca - 64, SPAWN_CLONE_VM | CLONE_PIDFD |
	    SIGCHLD, ca, &pidfd);
	if (pid < 0 && errno == EINVAL) { /* a kernel without CLONE_PIDFD */
		pidfd = -1;
		pid = clone(spawn_child, (char *)ca - 64, SPAWN_CLONE_VM | SIGCHLD, ca);
		if (pid > 0)
			pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	}
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (pid < 0) {
		snprintf(err, errlen, "clone: %s", strerror(e));
		goto fail;
	}
	sp->pid = pid;
	sp->pidfd = pidfd;
	/* The child makes its session (and so its group) itself, before its
	 * exec and so before spawn_release returns: a setpgid here would make
	 * it a group leader, which setsid refuses. */
	close(errp[1]);
	/* rel[0] stays open here until the release, so that writing the
	 * release byte cannot raise SIGPIPE even if the child died. */
	sp->rel_fd = rel[1];
	sp->err_fd = errp[0];
	sp->rel_rd = rel[0];
	if (req->cgroup_procs_fd > 0) {
		char num[24];
		int len = snprintf(num, sizeof num, "%d", (int)pid);

		if (write(req->cgroup_procs_fd, num, (size_t)len) != len) {
			snprintf(err, errlen, "cgroup: cannot move pid %d into "
			    "the round's cgroup: %s", (int)pid, strerror(errno));
			spawn_cancel(sp);
			spawn_finish(sp);
			return -1;
		}
	}
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (rel[i] >= 0)
			close(rel[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	spawn_stack_put(sp->stack, sp->stack_size);
	sp->stack = NULL;
	return -1;
}

int
spawn_release(struct spawn *sp, int *exec_errno)
{
	sigset_t all, old;
	ssize_t n;
	int e = 0;

	*exec_errno = 0;
	/* No handler of ours may run on this thread while the child can
	 * write errno (its errno is this thread's). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (write(sp->rel_fd, "x", 1) != 1)
		(void)kill(sp->pid, SIGKILL);
	close(sp->rel_fd);
	close(sp->rel_rd);
	sp->rel_fd = sp->rel_rd = -1;
	/* EOF: the exec succeeded (the pipe is close-on-exec), or the child
	 * died without a word. */
	do
		n = read(sp->err_fd, &e, sizeof e);
	while (n < 0 && errno == EINTR);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n == (ssize_t)sizeof e)
		*exec_errno = e;
	close(sp->err_fd);
	sp->err_fd = -1;
	/* The child is past its exec, or gone: its stack is free again. */
	spawn_stack_put(sp->stack, sp->stack_size);
	sp->stack = NULL;
	return 0;
}

void
spawn_cancel(struct spawn *sp)
{
	if (sp->pid <= 0)
		return;
	(void)kill(sp->pid, SIGKILL);
	while (waitpid(sp->pid, NULL, 0) < 0 && errno == EINTR)
		;
	sp->pid = -1;
}

void
spawn_finish(struct spawn *sp)
{
	if (sp->rel_fd >= 0)
		close(sp->rel_fd);
	if (sp->rel_rd >= 0)
		close(sp->rel_rd);
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	sp->rel_fd = sp->rel_rd = sp->err_fd = sp->pidfd = -1;
	spawn_stack_put(sp->stack, sp->stack_size);
	sp->stack = NULL;
}

pid_t
spawn_run(const struct spawn_req *req, int *pidfd, char *err, size_t errlen)
{
	struct spawn sp;
	pid_t pid;
	int e;

	if (pidfd != NULL)
		*pidfd = -1;
	if (spawn_create(req, &sp, err, errlen) != 0)
		return -1;
	spawn_release(&sp, &e);
	pid = sp.pid;
	if (e != 0) {
		snprintf(err, errlen, "cannot run %s: %s", req->path,
		    strerror(e));
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		spawn_finish(&sp);
		return -1;
	}
	if (pidfd != NULL) {
		*pidfd = sp.pidfd;
		sp.pidfd = -1;
	}
	spawn_finish(&sp);
	return pid;
}
