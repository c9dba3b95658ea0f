/* The one spawn path: clone3 (or clone) with CLONE_VM on a private stack,
 * held until released, execve of a resolved path.
 *
 * Sharing the address space means the child must not touch anything the
 * parent may be changing: it reads the request in place (the parent keeps
 * it until the exec is over) and writes only its own stack.  It also shares
 * the parent thread's TLS, so its errno is the parent's: the parent is
 * blocked in a read of the child's pipes whenever the child can make a call
 * fail, and never reads errno of its own across that wait. */
#include "spawn.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
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

/* The signal that releases a held child.  It waits for it blocked (it
 * is made with every signal blocked), so it is never delivered as such:
 * a kill instead of a pipe made, written and closed for every spawn. */
#define SPAWN_RELEASE_SIG SIGRTMAX

/* What the child needs beyond the request, at a fixed place: the error
 * pipe's ends, the release signal and the parent's pid. */
struct spawn_child_args {
	const struct spawn *sp;
	int err_wr;    /* the child's end of the error pipe */
	int err_rd;
	int rel_sig;   /* SPAWN_RELEASE_SIG, and the set holding it alone */
	sigset_t rel_set;
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

	/* Held: nothing may fail (and so write errno) before the release,
	 * while the parent runs on.  None of these can: it dies with the
	 * parent (also while held), and it waits for the release signal,
	 * blocked like every other, so no handler can interrupt the wait. */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != ca->parent) /* the parent died before the prctl */
		_exit(127);
	while (syscall(SYS_rt_sigtimedwait, &ca->rel_set, NULL, NULL,
	    (size_t)(_NSIG / 8)) != ca->rel_sig)
		;
	close(ca->err_rd);

	/* A session of its own: its own process group, and no controlling
	 * terminal, so a leg that opens /dev/tty fails at once (ENXIO)
	 * instead of stopping on SIGTTIN for ever or drawing over the
	 * console.  First, so that no signal of the terminal's reaches it
	 * once it unblocks them. */
	(void)setsid();

	/* The parent's handlers and ignored signals are not the child's.
	 * Every other signal is at its default already. */
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig <= 64 && sig < NSIG; sig++)
		if (sp->sigs & (1ULL << (sig - 1)) && sig != SIGKILL &&
		    sig != SIGSTOP && sigaction(sig, &dfl, NULL) != 0)
			spawn_child_default(sig);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);

	nullfd = open("/dev/null", O_RDWR);
	if (nullfd < 0)
		spawn_child_fail(efd, "open", "/dev/null", errno);
	if (dup2(rq->in_fd > 0 ? rq->in_fd : nullfd, 0) < 0)
		spawn_child_fail(efd, "dup2", "stdin", errno);
	if (rq->out_fd >= 0 ? dup2(rq->out_fd, 1) < 0 || dup2(rq->out_fd, 2) < 0 :
	    dup2(nullfd, 1) < 0 || dup2(nullfd, 2) < 0)
		spawn_child_fail(efd, "dup2", "stdout", errno);
	if (rq->err_fd > 0 && dup2(rq->err_fd, 2) < 0)
		spawn_child_fail(efd, "dup2", "stderr", errno);
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

/* The signals this process catches or ignores (bit sig-1), read from
 * /proc/self/status (SigIgn, SigCgt) with one pread instead of 64
 * sigaction calls, and kept: reading it costs some 10 us, and the
 * dispositions change only when a front end sets its handlers, before a
 * round (round_run calls spawn_signals_refresh).  A signal reset that was
 * at its default already costs one call in the child; a handler set since
 * the last read would run in the child if that signal came between its
 * unmasking and its exec, hence the refresh. */
static unsigned long long spawn_sigs;
static bool spawn_sigs_known;
static pthread_mutex_t spawn_sigs_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned long long
spawn_read_signals(void)
{
	char buf[4096];
	unsigned long long all = 0;
	ssize_t n;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return ~0ULL; /* cannot tell: reset every one */
	n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
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

void
spawn_signals_refresh(void)
{
	unsigned long long sigs = spawn_read_signals();

	pthread_mutex_lock(&spawn_sigs_lock);
	spawn_sigs = sigs;
	spawn_sigs_known = true;
	pthread_mutex_unlock(&spawn_sigs_lock);
}

static unsigned long long
spawn_changed_signals(void)
{
	unsigned long long sigs;
	bool known;

	pthread_mutex_lock(&spawn_sigs_lock);
	sigs = spawn_sigs;
	known = spawn_sigs_known;
	pthread_mutex_unlock(&spawn_sigs_lock);
	if (known)
		return sigs;
	spawn_signals_refresh();
	return spawn_changed_signals();
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

#if defined(__x86_64__) && defined(SYS_clone3)
/* struct clone_args of clone3(2), CLONE_ARGS_SIZE_VER2. */
struct spawn_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
	    stack_size, tls, set_tid, set_tid_size, cgroup;
};

/* clone3 running fn(arg) on the new stack in the child, which exits with
 * its value (fn never returns here: it execs or _exits).  glibc has no
 * such wrapper; this is its clone3.S in short.  The pid, or -errno. */
static long
spawn_clone3(struct spawn_clone_args *cl, int (*fn)(void *), void *arg)
{
	register long r8 __asm__("r8") = (long)fn;
	register long r9 __asm__("r9") = (long)arg;
	long ret;

	__asm__ volatile(
	    "syscall\n\t"
	    "test %%rax, %%rax\n\t"
	    "jnz 1f\n\t"
	    "xor %%ebp, %%ebp\n\t"
	    "mov %%r9, %%rdi\n\t"
	    "call *%%r8\n\t"
	    "mov %%eax, %%edi\n\t"
	    "mov %[exit], %%eax\n\t"
	    "syscall\n\t"
	    "hlt\n"
	    "1:"
	    : "=a"(ret)
	    : "0"((long)SYS_clone3), "D"(cl), "S"(sizeof *cl), "r"(r8), "r"(r9),
	      [exit] "i"(SYS_exit)
	    : "rcx", "r11", "cc", "memory");
	return ret;
}
#define SPAWN_HAVE_CLONE3 1
#else
#define SPAWN_HAVE_CLONE3 0
#endif

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* clone3 straight into the cgroup, where this kernel and architecture
 * allow: no move of a live process afterwards (a cgroup.procs write, some
 * 20-80 us here).  The pid, or -1 (errno) when the caller should fall back
 * to clone. */
static pid_t
spawn_clone_into(const struct spawn_req *req, void *top, void *ca,
    int *pidfd)
{
#if SPAWN_HAVE_CLONE3
	static _Atomic bool unsupported;
	struct spawn_clone_args cl = {
		.flags = SPAWN_CLONE_VM | CLONE_PIDFD | CLONE_INTO_CGROUP,
		.pidfd = (uint64_t)(uintptr_t)pidfd, .exit_signal = SIGCHLD,
		.stack = (uint64_t)(uintptr_t)top,
		.cgroup = (uint64_t)req->cgroup_dir_fd,
	};
	long ret;

	if (req->cgroup_dir_fd <= 0 || unsupported) {
		errno = ENOSYS;
		return -1;
	}
	/* The child starts at the top of the stack less the arguments'
	 * room, 16-byte aligned as a call expects. */
	cl.stack_size = ((uintptr_t)ca - 64 - (uintptr_t)cl.stack) & ~15ULL;
	ret = spawn_clone3(&cl, spawn_child, ca);
	if (ret < 0) {
		/* ENOSYS (no clone3), E2BIG or EINVAL (no CLONE_INTO_CGROUP):
		 * never again; anything else may be this group's alone. */
		if (ret == -ENOSYS || ret == -E2BIG || ret == -EINVAL)
			unsupported = true;
		errno = (int)-ret;
		return -1;
	}
	return (pid_t)ret;
#else
	(void)req;
	(void)top;
	(void)ca;
	(void)pidfd;
	errno = ENOSYS;
	return -1;
#endif
}

/* The child, made with all signals blocked (it must not run a handler of
 * ours before it has reset them): in the cgroup from the start where it
 * can, else moved there by the caller (*moved false).  The pid, or -1. */
static pid_t
spawn_clone(const struct spawn_req *req, struct spawn *sp,
    struct spawn_child_args *ca, int *pidfd, bool *moved)
{
	sigset_t all, old;
	pid_t pid;
	int e;

	*moved = false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = spawn_clone_into(req, sp->stack, ca, pidfd);
	if (pid > 0) {
		*moved = true;
	} else {
		pid = clone(spawn_child, (char *)ca - 64, SPAWN_CLONE_VM |
		    CLONE_PIDFD | SIGCHLD, ca, pidfd);
		if (pid < 0 && errno == EINVAL) { /* no CLONE_PIDFD */
			*pidfd = -1;
			pid = clone(spawn_child, (char *)ca - 64, SPAWN_CLONE_VM |
			    SIGCHLD, ca);
			if (pid > 0)
				*pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
		}
	}
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	return pid;
}

/* Move the held child into the cgroup through cgroup.procs.  0, or -1
 * with err (the child is then cancelled and finished). */
static int
spawn_join_cgroup(const struct spawn_req *req, struct spawn *sp, char *err,
    size_t errlen)
{
	char num[24];
	int len = snprintf(num, sizeof num, "%d", (int)sp->pid);

	if (req->cgroup_procs_fd <= 0 ||
	    write(req->cgroup_procs_fd, num, (size_t)len) == len)
		return 0;
	snprintf(err, errlen, "cgroup: cannot move pid %d into the round's "
	    "cgroup: %s", (int)sp->pid, strerror(errno));
	spawn_cancel(sp);
	spawn_finish(sp);
	return -1;
}

int
spawn_create(const struct spawn_req *req, struct spawn *sp, char *err,
    size_t errlen)
{
	int errp[2] = { -1, -1 }, pidfd = -1;
	struct spawn_child_args *ca;
	bool moved;
	pid_t pid;

	memset(sp, 0, sizeof *sp);
	sp->pid = -1;
	sp->pidfd = sp->err_fd = -1;
	sp->req = req;
	sp->sigs = spawn_changed_signals();
	if (req->path == NULL || req->argv == NULL || req->argv[0] == NULL) {
		snprintf(err, errlen, "spawn: no program to run");
		return -1;
	}
	if (pipe2(errp, O_CLOEXEC) < 0) {
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
	*ca = (struct spawn_child_args){ .sp = sp, .err_wr = errp[1],
		.err_rd = errp[0], .rel_sig = SPAWN_RELEASE_SIG,
		.parent = getpid() };
	sigemptyset(&ca->rel_set);
	sigaddset(&ca->rel_set, ca->rel_sig);
	if ((pid = spawn_clone(req, sp, ca, &pidfd, &moved)) < 0) {
		snprintf(err, errlen, "clone: %s", strerror(errno));
		goto fail;
	}
	sp->pid = pid;
	sp->pidfd = pidfd;
	/* The child makes its session (and so its group) itself, before its
	 * exec and so before spawn_release returns: a setpgid here would make
	 * it a group leader, which setsid refuses. */
	close(errp[1]);
	sp->held = true;
	sp->err_fd = errp[0];
	return moved ? 0 : spawn_join_cgroup(req, sp, err, errlen);
fail:
	for (int i = 0; i < 2; i++)
		if (errp[i] >= 0)
			close(errp[i]);
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
	/* Not reaped yet, so the pid is still the child's. */
	if (kill(sp->pid, SPAWN_RELEASE_SIG) != 0)
		(void)kill(sp->pid, SIGKILL);
	sp->held = false;
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
	/* Given up while held: nothing else would end its wait. */
	if (sp->held && sp->pid > 0)
		(void)kill(sp->pid, SIGKILL);
	sp->held = false;
	if (sp->err_fd >= 0)
		close(sp->err_fd);
	if (sp->pidfd >= 0)
		close(sp->pidfd);
	sp->err_fd = sp->pidfd = -1;
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
