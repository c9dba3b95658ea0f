/* The one spawn path, the parent's side: clone3 (or clone) with CLONE_VM
 * on a private stack, held until released, execve of a resolved path (the
 * child's side is spawn_child.c).
 *
 * Sharing the address space means the child must not touch anything the
 * parent may be changing: it reads the request in place (the parent keeps
 * it until the child has exec'd or died) and writes only its own stack and
 * the spawn's fail slot.  A leg's release does not wait for the exec: the
 * parent goes on to wait for the leg's end, and learns of a step that
 * failed from that slot once it has reaped the child (no pipe made,
 * written and closed, and no wake-up at the exec, for every leg).  Where
 * the address space is copied (the sanitizer build, a stand-in parent) and
 * where the caller asks to know at once (spawn_run), a close-on-exec pipe
 * carries it instead. */
#include "spawn_int.h"

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


/* Under AddressSanitizer the child would run the sanitizer's interceptors
 * (read, close, sigaction) on the parent's thread state in the shared
 * memory, which hung or aborted now and then: the sanitizer build spawns
 * with a copied address space instead (fork's cost, same held protocol). */
#if defined(__SANITIZE_ADDRESS__)
#define SPAWN_CLONE_VM 0
#else
#define SPAWN_CLONE_VM CLONE_VM
#endif

/* A stand-in parent outlives its release, waiting for the program: it
 * gets a copy of the address space (fork's cost, for the rare leg that
 * runs so), not the parent's memory and the stack the next spawn reuses. */
static unsigned long
spawn_vm(const struct spawn_req *req)
{
	return req->stand_in ? 0 : SPAWN_CLONE_VM;
}

#ifndef CLONE_PIDFD
#define CLONE_PIDFD 0x00001000
#endif

/* The child's calls above need a few KiB; the rest is margin. */
#define SPAWN_STACK (64 * 1024)

/* The signal that releases a held child.  It waits for it blocked (it
 * is made with every signal blocked), so it is never delivered as such:
 * a kill instead of a pipe made, written and closed for every spawn. */
#define SPAWN_RELEASE_SIG SIGRTMAX

/* Whether the child reports a failed step through the spawn's fail slot
 * (shared memory) rather than a pipe, and its release does not wait for
 * the exec. */
static bool
spawn_async(const struct spawn_req *req)
{
	return spawn_vm(req) != 0 && !req->wait_exec;
}

/* What this kernel, and a seccomp filter over us, let the spawn path use,
 * asked once through libc's syscall(): close_range (Linux 5.9; without
 * it the child closes what /proc/self/fd lists) and pidfds (pidfd_open,
 * Linux 5.3; without them a thread waits for each leg and closes a pipe
 * that stands in for its pidfd, so timeouts, aborts and output draining
 * work the same). */
static struct {
	bool close_range, pidfd;
} spawn_feat;
static pthread_once_t spawn_feat_once = PTHREAD_ONCE_INIT;

static void
spawn_probe(void)
{
	int fd;

	/* One fd that cannot be open: a no-op where the call exists. */
	spawn_feat.close_range = syscall(SYS_close_range, ~0U, ~0U, 0U) == 0;
	fd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	spawn_feat.pidfd = fd >= 0;
	if (fd >= 0)
		close(fd);
}

/* One stack per thread, reused leg after leg: an mmap and munmap per leg
 * would cost a TLB shootdown each on a busy multi-threaded benchtui. */
static _Thread_local void *spawn_cached_stack;
static _Thread_local bool spawn_cached_busy;

/* --- parent side --------------------------------------------------------- */

void
spawn_step_words(int step, int e, const char *path, const char *cwd,
    int nice, char *buf, size_t len)
{
	const char *hint = "";
	char what[600];

	switch (step) {
	case SPAWN_STEP_STDIN:
		snprintf(what, sizeof what, "open or dup2 of stdin (/dev/null "
		    "or the round's stdin file)");
		break;
	case SPAWN_STEP_OUTPUT:
		snprintf(what, sizeof what, "dup2 of the output onto stdout and "
		    "stderr");
		break;
	case SPAWN_STEP_AFFINITY:
		snprintf(what, sizeof what, "sched_setaffinity to the cpus it is "
		    "pinned to");
		break;
	case SPAWN_STEP_NICE:
		snprintf(what, sizeof what, "setpriority (nice %d)", nice);
		if (nice < 0 && (e == EPERM || e == EACCES))
			hint = "; a negative nice needs root or CAP_SYS_NICE";
		break;
	case SPAWN_STEP_CHDIR:
		snprintf(what, sizeof what, "chdir to %.500s", cwd ? cwd : "?");
		break;
	case SPAWN_STEP_FORK:
		snprintf(what, sizeof what, "fork under a stand-in parent");
		break;
	default:
		snprintf(what, sizeof what, "exec of %.500s", path ? path : "?");
		if (e == ENOEXEC)
			hint = " (not a program: a script needs a #! line)";
		break;
	}
	if (step == SPAWN_STEP_EXEC || step == SPAWN_STEP_NONE)
		snprintf(buf, len, "%s failed: %s%s", what, strerror(e), hint);
	else
		snprintf(buf, len, "%s failed before the exec of %.500s: %s%s",
		    what, path ? path : "?", strerror(e), hint);
}

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
		.flags = spawn_vm(req) | (spawn_feat.pidfd ? CLONE_PIDFD : 0) |
		    CLONE_INTO_CGROUP,
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
		pid = clone(spawn_child, (char *)ca - 64, spawn_vm(req) |
		    (spawn_feat.pidfd ? CLONE_PIDFD : 0) | SIGCHLD, ca, pidfd);
		if (pid < 0 && errno == EINVAL && spawn_feat.pidfd) {
			/* no CLONE_PIDFD (Linux 5.2 has pidfd_open later) */
			*pidfd = -1;
			pid = clone(spawn_child, (char *)ca - 64, spawn_vm(req) |
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

/* A pidfd's stand-in where the kernel has none: a thread waits for pid's
 * exit (leaving it to be reaped) and closes a pipe's write end, so the
 * read end polls readable at the exit as a pidfd does.  The read end, or
 * -1 with errno. */
struct spawn_watch_arg {
	pid_t pid;
	int wr;
};

static void *
spawn_watch_main(void *arg)
{
	struct spawn_watch_arg *w = arg;
	siginfo_t si;

	/* ECHILD once someone else reaped it: gone either way. */
	while (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOWAIT) < 0 &&
	    errno == EINTR)
		;
	close(w->wr);
	free(w);
	return NULL;
}

static int
spawn_watch(pid_t pid)
{
	struct spawn_watch_arg *w = malloc(sizeof *w);
	sigset_t all, old;
	pthread_t t;
	int p[2], rc;

	if (w == NULL || pipe2(p, O_CLOEXEC) < 0) {
		free(w);
		return -1;
	}
	*w = (struct spawn_watch_arg){ .pid = pid, .wr = p[1] };
	/* The thread takes no signal of ours. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&t, NULL, spawn_watch_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		close(p[0]);
		close(p[1]);
		free(w);
		errno = rc;
		return -1;
	}
	pthread_detach(t);
	return p[0];
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

	pthread_once(&spawn_feat_once, spawn_probe);
	memset(sp, 0, sizeof *sp);
	sp->pid = -1;
	sp->pidfd = sp->err_fd = -1;
	sp->req = req;
	sp->sigs = spawn_changed_signals();
	sp->program = -1;
	if (req->path == NULL || req->argv == NULL || req->argv[0] == NULL) {
		snprintf(err, errlen, "spawn: no program to run");
		return -1;
	}
	if (!spawn_async(req) && pipe2(errp, O_CLOEXEC) < 0) {
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
		.parent = getpid(), .close_range = spawn_feat.close_range };
	sigemptyset(&ca->rel_set);
	sigaddset(&ca->rel_set, ca->rel_sig);
	if ((pid = spawn_clone(req, sp, ca, &pidfd, &moved)) < 0) {
		snprintf(err, errlen, "clone: %s", strerror(errno));
		goto fail;
	}
	sp->pid = pid;
	sp->pidfd = pidfd >= 0 ? pidfd : spawn_watch(pid);
	if (sp->pidfd < 0) {
		snprintf(err, errlen, "spawn: this kernel has no pidfd, and no "
		    "thread could watch the child instead: %s", strerror(errno));
		spawn_cancel(sp);
		spawn_finish(sp);
		return -1;
	}
	/* The child makes its session (and so its group) itself, before its
	 * exec and so before spawn_release returns: a setpgid here would make
	 * it a group leader, which setsid refuses. */
	if (errp[1] >= 0)
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
	int msg[2] = { 0, 0 };

	*exec_errno = 0;
	sp->fail_step = SPAWN_STEP_NONE;
	/* Not reaped yet, so the pid is still the child's. */
	if (sp->err_fd < 0) {
		if (kill(sp->pid, SPAWN_RELEASE_SIG) != 0)
			(void)kill(sp->pid, SIGKILL);
		sp->held = false;
		return 0;
	}
	/* No handler of ours may run on this thread while a child that
	 * shares our memory is past its release (the sanitizer build's does
	 * not). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (kill(sp->pid, SPAWN_RELEASE_SIG) != 0)
		(void)kill(sp->pid, SIGKILL);
	sp->held = false;
	/* EOF: the exec succeeded (the pipe is close-on-exec), or the child
	 * died without a word. */
	for (;;) {
		do
			n = read(sp->err_fd, msg, sizeof msg);
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof msg || msg[0] != SPAWN_MSG_PROGRAM)
			break;
		sp->program = msg[1];
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (n == (ssize_t)sizeof msg) {
		sp->fail_step = msg[0];
		*exec_errno = msg[1];
	}
	close(sp->err_fd);
	sp->err_fd = -1;
	/* The child is past its exec, or gone: its stack is free again. */
	spawn_stack_put(sp->stack, sp->stack_size);
	sp->stack = NULL;
	return 0;
}

void
spawn_reaped(struct spawn *sp, int *exec_errno)
{
	/* The child wrote the slot before it exited; the reap is after. */
	if (sp->fail[0] != SPAWN_STEP_NONE) {
		sp->fail_step = sp->fail[0];
		*exec_errno = sp->fail[1];
	}
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
	struct spawn_req sync = *req;
	struct spawn sp;
	pid_t pid;
	int e;

	if (pidfd != NULL)
		*pidfd = -1;
	/* It must know at once whether the program runs: a pipe. */
	sync.wait_exec = true;
	if (spawn_create(&sync, &sp, err, errlen) != 0)
		return -1;
	spawn_release(&sp, &e);
	pid = sp.pid;
	if (e != 0) {
		spawn_step_words(sp.fail_step, e, req->path, req->cwd, req->nice,
		    err, errlen);
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
