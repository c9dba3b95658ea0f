/* Starting a child program: the one spawn path of legs, servers and
 * profiles.
 *
 * The child is made with clone(CLONE_VM) on a stack of its own, so nothing
 * of benchtui's address space is copied (fork) or torn down again by the
 * exec: that cost would otherwise land inside a leg's wall, cpu and faults.
 * The child is held before it execs until spawn_release, so that counters
 * can be opened on its pid first (enable-on-exec).  What it execs is
 * spawn_req.path with execve: never a PATH search, never a shell, so a
 * script without "#!" fails with ENOEXEC like any other exec error.
 *
 * The child starts in the request's cgroup (clone3 CLONE_INTO_CGROUP,
 * x86_64) or is moved there through cgroup.procs while it is held.
 *
 * Between clone and exec the child uses only async-signal-safe calls.
 * While held it sets PR_SET_PDEATHSIG, takes its own session and process
 * group (setsid: no controlling terminal), resets to SIG_DFL the signals
 * benchtui catches or ignores (and only those), points fds 0/1/2 at
 * /dev/null (or in_fd) and the output fd (stderr: or err_fd), closes
 * every other fd, pins itself, nices itself and chdirs: the harness's
 * work, out of the leg's window and beside the parent's last steps
 * before the release.  Released, it drops the signals that came while it
 * was held, unblocks every signal and execs.  A failure of a step, or of
 * the exec, reaches the parent after the release as the step that failed
 * and its errno (through the spawn's fail slot, or a close-on-exec pipe:
 * spawn_release), and is also written to the child's stderr. */
#ifndef BENCHTUI_SPAWN_H
#define BENCHTUI_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct spawn_req {
	const char *path;          /* execve'd as is: resolve it beforehand */
	char *const *argv;
	char *const *envp;
	const char *cwd;           /* or NULL: benchtui's */
	int out_fd;                /* becomes fds 1 and 2; -1: /dev/null */
	int in_fd;                 /* > 0: becomes fd 0; 0 or -1: /dev/null */
	int err_fd;                /* > 0: becomes fd 2 (out_fd stays fd 1
	                            * alone); 0 or -1: fd 2 is out_fd's */
	const unsigned char *cpus; /* mask of ncpus entries, or NULL */
	int ncpus;
	int nice;                  /* 0: left as it is */
	int cgroup_procs_fd;       /* an open cgroup.procs the child joins
	                            * before it execs; -1 (or 0): none */
	int cgroup_dir_fd;         /* that group's folder: the child is made
	                            * in it (clone3 CLONE_INTO_CGROUP) where
	                            * the kernel allows, else moved through
	                            * cgroup_procs_fd; -1 (or 0): none */
	bool wait_exec;            /* spawn_release waits until the program
	                            * runs (or a step failed) and says which;
	                            * else that is known once it is reaped
	                            * (spawn_reaped) */
	bool stand_in;             /* the program runs as the child's child,
	                            * the child a stand-in parent that waits
	                            * for it and exits as it did: a program
	                            * that kills its parent (kill -9 $PPID)
	                            * kills the stand-in, not benchtui */
};

/* The steps between clone and exec that can fail, as spawn_release
 * reports them (spawn.fail_step). */
enum spawn_step {
	SPAWN_STEP_NONE = 0,
	SPAWN_STEP_STDIN,     /* open of /dev/null as stdin */
	SPAWN_STEP_OUTPUT,    /* dup2 of the output onto stdout and stderr */
	SPAWN_STEP_AFFINITY,  /* sched_setaffinity to the cpus */
	SPAWN_STEP_NICE,      /* setpriority to the nice value */
	SPAWN_STEP_CHDIR,     /* chdir to the working folder */
	SPAWN_STEP_EXEC,      /* the execve itself */
	SPAWN_STEP_FORK,      /* the stand-in parent's fork */
};

/* What failed, in words a user can act on: "setpriority (nice -5)",
 * "chdir to /w", "exec of /bin/true", with the errno's words and, where
 * one helps, a hint ("a negative nice needs root or CAP_SYS_NICE").
 * path, cwd and nice are what the request had. */
void spawn_step_words(int step, int e, const char *path, const char *cwd,
    int nice, char *buf, size_t len);

/* A child between spawn_create and its release or cancel.  Caller-owned
 * (init/finish style): spawn_create fills it. */
struct spawn {
	pid_t pid;                 /* also its process group */
	int pidfd;                 /* or -1 where the kernel has none */
	bool held;                 /* made, not yet released (a signal does) */
	int err_fd;                /* read end: an errno, or EOF at exec */
	void *stack;
	size_t stack_size;
	const struct spawn_req *req; /* the child reads it until it execs */
	unsigned long long sigs;   /* the signals to reset (bit sig-1) */
	int fail_step;             /* enum spawn_step that failed, after
	                            * spawn_release; 0 when it exec'd */
	pid_t program;             /* with stand_in, after spawn_release: the
	                            * program's pid (the child's child) */
	volatile int fail[2];      /* step and errno, written by a child that
	                            * shares our memory before it exits 127 */
};

/* Create the child, held before its exec.  The request and everything it
 * points to must stay unchanged until spawn_release or spawn_cancel
 * returns, since the child reads them in place.  0, or -1 with err. */
int spawn_create(const struct spawn_req *req, struct spawn *sp, char *err,
    size_t errlen);

/* Let the child go on to exec.  With req->wait_exec (or where the child
 * does not share our memory) wait until it has, or has failed to: 0 with
 * *exec_errno 0 when the program runs, or the errno of the step that
 * failed, sp->fail_step (the child has then exited with status 127).
 * Otherwise return at once with *exec_errno 0, and spawn_reaped says it
 * once the child is reaped.  The pid stays the caller's to reap; the pidfd
 * stays open until spawn_finish. */
int spawn_release(struct spawn *sp, int *exec_errno);

/* After the released child was reaped: a step that failed before its exec
 * (*exec_errno and sp->fail_step; both left as they are when none did). */
void spawn_reaped(struct spawn *sp, int *exec_errno);

/* Give up on a held child: it exits without running anything and is
 * reaped.  Then finish. */
void spawn_cancel(struct spawn *sp);

/* Free what spawn_create took (the stack, the pipes, the pidfd). */
void spawn_finish(struct spawn *sp);

/* Read again which signals this process catches or ignores (the child
 * resets those): after setting handlers, before spawning with them set.
 * Otherwise they are read once, at the first spawn. */
void spawn_signals_refresh(void);

/* The whole thing for callers that have nothing to do in between (servers,
 * profiles): create, release, finish.  The pid, or -1 with err; a step
 * that failed is named (spawn_step_words), the child reaped.
 * *pidfd, when not NULL, gets the child's pidfd (or -1), the caller's to
 * close. */
pid_t spawn_run(const struct spawn_req *req, int *pidfd, char *err,
    size_t errlen);

#endif
