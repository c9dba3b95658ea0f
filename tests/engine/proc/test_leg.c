/* test: counters raw-asan-covered */
/* leg: real children.  Exit codes, signals, a timeout that ends the whole
 * process group (a grandchild that ignores SIGTERM too), abort, the env,
 * captured output, fd hygiene, exec failure, and counters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "counters.h"
#include "leg.h"
#include "procs.h"
#include "spawn.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/benchtui-test-leg.XXXXXX";
static char *base_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

static int
setup(void **state)
{
	(void)state;
	/* Orphaned grandchildren come back to us, so the test can see them
	 * reaped. */
	procs_become_subreaper();
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return tu_rmtree(tmpdir);
}

static void
run_sh(const char *script, char *const *envp, double timeout, int abort_fd,
    const char *outname, struct leg_result *res)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	char out[PATH_MAX], err[256];
	struct leg_spec ls = { .argv = argv, .envp = envp ? envp : base_env,
		.cwd = tmpdir, .out_path = out, .timeout_s = timeout,
		.abort_fd = abort_fd };

	snprintf(out, sizeof out, "%s/%s", tmpdir, outname);
	assert_int_equal(leg_run(&ls, res, NULL, NULL, err, sizeof err), 0);
}

static char *
slurp(const char *name)
{
	char *text = tu_slurp(tmpdir, name, NULL);

	assert_non_null(text);
	return text;
}

static void
test_exit_code(void **state)
{
	struct leg_result res;

	(void)state;
	run_sh("exit 7", NULL, 0, -1, "exit.out", &res);
	assert_int_equal(res.rc, 7);
	assert_int_equal(res.signal, 0);
	assert_false(res.timed_out);
	assert_false(res.aborted);
	assert_int_equal(res.exec_errno, 0);
	assert_true(res.pid > 0);
	assert_true(res.wall > 0 && res.wall < 5);

	run_sh("true", NULL, 0, -1, "true.out", &res);
	assert_int_equal(res.rc, 0);
}

static void
test_signal(void **state)
{
	struct leg_result res;

	(void)state;
	run_sh("kill -KILL $$", NULL, 0, -1, "sig.out", &res);
	assert_int_equal(res.rc, -1);
	assert_int_equal(res.signal, SIGKILL);
	assert_false(res.timed_out);
}

static void
test_output_and_env(void **state)
{
	char *envp[] = { "PATH=/usr/bin:/bin", "DEMO_KNOB=42", NULL };
	struct leg_result res;
	char *out;

	(void)state;
	run_sh("echo knob=$DEMO_KNOB; echo to-stderr >&2; pwd; "
	    "read x && echo stdin-had-data || echo stdin-empty",
	    envp, 0, -1, "env.out", &res);
	assert_int_equal(res.rc, 0);
	out = slurp("env.out");
	assert_non_null(strstr(out, "knob=42\n"));
	assert_non_null(strstr(out, "to-stderr\n"));
	assert_non_null(strstr(out, tmpdir));
	assert_non_null(strstr(out, "stdin-empty\n"));
}

/* A descriptor of ours without CLOEXEC must not reach the leg. */
static void
test_no_inherited_fds(void **state)
{
	struct leg_result res;
	char script[128], *out;
	int fd = open("/dev/null", O_RDONLY);

	(void)state;
	assert_true(fd >= 3);
	snprintf(script, sizeof script, "test -e /proc/self/fd/%d && echo "
	    "leaked || echo clean", fd);
	run_sh(script, NULL, 0, -1, "fds.out", &res);
	out = slurp("fds.out");
	assert_string_equal(out, "clean\n");
	close(fd);
}

static void
test_timeout_kills_group(void **state)
{
	struct leg_result res;
	char *out;
	pid_t gc;

	(void)state;
	/* The grandchild ignores SIGTERM and would outlive its parent. */
	run_sh("(trap '' TERM; exec sleep 30) & echo $!; sleep 30",
	    NULL, 0.3, -1, "timeout.out", &res);
	assert_true(res.timed_out);
	assert_false(res.aborted);
	assert_int_equal(res.rc, -1);
	assert_int_equal(res.signal, SIGTERM);
	assert_true(res.wall >= 0.3 && res.wall < 2.0);
	out = slurp("timeout.out");
	gc = (pid_t)atoi(out);
	assert_true(gc > 0);
	assert_int_equal(kill(gc, 0), -1);
	assert_int_equal(errno, ESRCH);
	assert_int_equal(kill(-res.pid, 0), -1);
}

static void
test_abort_fd(void **state)
{
	struct leg_result res;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], "a", 1), 1);
	run_sh("sleep 30", NULL, 0, p[0], "abort.out", &res);
	assert_true(res.aborted);
	assert_false(res.timed_out);
	assert_true(res.wall < 2.0);
	close(p[0]);
	close(p[1]);
}

static void
test_exec_failure(void **state)
{
	static const char *const names[] = { "task-clock", "page-faults" };
	char *argv[] = { "/nonexistent/prog", NULL };
	char out[PATH_MAX], err[256];
	struct counters *c = counters_create(names, 2);
	struct leg_spec ls = { .argv = argv, .envp = base_env, .cwd = tmpdir,
		.out_path = out, .abort_fd = -1, .ctr = c };
	struct leg_result res;
	uint64_t v;

	(void)state;
	assert_non_null(c);
	snprintf(out, sizeof out, "%s/noexec.out", tmpdir);
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(res.exec_errno, ENOENT);
	assert_int_equal(res.rc, 127);
	assert_non_null(strstr(slurp("noexec.out"), "/nonexistent/prog"));
	/* The program never ran: no count (null in the leg line), not 0. */
	for (int i = 0; i < 2; i++)
		if (counters_errno(c, i) == 0)
			assert_false(counters_value(c, i, &v));
	counters_destroy(c);
}

/* execve, never execvpe: a bare name is not looked up on PATH (the engine
 * resolves the program once, as check does), and a script without "#!"
 * is an exec error, never a shell. */
static void
test_no_path_search_no_shell(void **state)
{
	char *argv[] = { "true", NULL };
	char out[PATH_MAX], err[256], script[PATH_MAX];
	struct leg_spec ls = { .argv = argv, .envp = base_env, .cwd = tmpdir,
		.out_path = out, .abort_fd = -1 };
	struct leg_result res;

	(void)state;
	snprintf(out, sizeof out, "%s/path.out", tmpdir);
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(res.exec_errno, ENOENT);
	assert_int_equal(res.rc, 127);

	snprintf(script, sizeof script, "%s/noshebang", tmpdir);
	tu_put(NULL, script, "echo ran-by-a-shell\n");
	assert_int_equal(chmod(script, 0755), 0);
	argv[0] = script;
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(res.exec_errno, ENOEXEC);
	assert_int_equal(res.rc, 127);
	assert_null(strstr(slurp("path.out"), "ran-by-a-shell"));

	/* The resolved path is what runs; argv[0] is only the name. */
	argv[0] = "anything";
	ls.path = "/bin/true";
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(res.exec_errno, 0);
	assert_int_equal(res.rc, 0);
}

/* What benchtui ignores or catches, and what its thread blocks, is not the
 * leg's: the leg starts with default dispositions and an empty mask. */
static void
test_signals_reset(void **state)
{
	char *argv[] = { "/bin/cat", "/proc/self/status", NULL };
	char out[PATH_MAX], err[256];
	struct leg_spec ls = { .argv = argv, .envp = base_env, .cwd = tmpdir,
		.out_path = out, .abort_fd = -1 };
	struct leg_result res;
	void (*old_usr1)(int), (*old_pipe)(int);
	sigset_t block, oldmask;
	const char *st;

	(void)state;
	old_usr1 = signal(SIGUSR1, SIG_IGN);
	old_pipe = signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &oldmask);
	/* Dispositions are read once, not for every child: tell spawn. */
	spawn_signals_refresh();
	snprintf(out, sizeof out, "%s/status.out", tmpdir);
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	signal(SIGUSR1, old_usr1);
	signal(SIGPIPE, old_pipe);
	spawn_signals_refresh();
	assert_int_equal(res.rc, 0);
	st = slurp("status.out");
	if (strstr(st, "SigIgn:\t0000000000000000") == NULL)
		fprintf(stderr, "%s", st);
	assert_non_null(strstr(st, "SigIgn:\t0000000000000000"));
	assert_non_null(strstr(st, "SigBlk:\t0000000000000000"));
}

/* Whether pid's /proc state is 'T' (stopped). */
static bool
is_stopped(pid_t pid)
{
	struct procs_stat st;

	return procs_stat(pid, &st) == 0 && st.state == 'T';
}

/* A held child shares this thread's errno (CLONE_VM): stopped and
 * continued while held (its wait for the release then fails with EINTR),
 * it must leave that errno alone.  And signals sent to it while held (a
 * Ctrl-C to benchtui's process group, which it is still in) are not the
 * leg's: released, it runs its program and exits 7, not by SIGINT. */
static void
test_held_signals(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	struct spawn_req rq = { .path = argv[0], .argv = argv,
		.envp = base_env, .cwd = tmpdir, .out_fd = -1 };
	struct spawn sp;
	char err[256];
	int e, status;

	(void)state;
	assert_int_equal(spawn_create(&rq, &sp, err, sizeof err), 0);
	for (int i = 0; i < 10; i++) {
		struct timespec nap = { 0, 20 * 1000 * 1000 };

		assert_int_equal(kill(sp.pid, SIGSTOP), 0);
		for (int k = 0; k < 500 && !is_stopped(sp.pid); k++)
			tu_nap_ms(2);
		assert_true(is_stopped(sp.pid));
		errno = 4242;
		kill(sp.pid, SIGCONT);
		nanosleep(&nap, NULL);
		e = errno;
		if (e != 4242)
			fail_msg("round %d: the held child set our errno to %d", i,
			    e);
	}
	assert_int_equal(kill(sp.pid, SIGINT), 0);
	assert_int_equal(kill(sp.pid, SIGHUP), 0);
	assert_int_equal(kill(sp.pid, SIGTERM), 0);
	assert_int_equal(spawn_release(&sp, &e), 0);
	assert_int_equal(e, 0);
	assert_int_equal(waitpid(sp.pid, &status, 0), sp.pid);
	spawn_finish(&sp);
	if (!WIFEXITED(status))
		fail_msg("the released child was killed by signal %d",
		    WTERMSIG(status));
	assert_int_equal(WEXITSTATUS(status), 7);
}

/* Whether the held child pid has done its set-up: its own session and
 * process group, and cwd its folder. */
static bool
held_set_up(pid_t pid, const char *cwd)
{
	struct procs_stat st;
	char link[64], at[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof link, "/proc/%d/cwd", (int)pid);
	if (procs_stat(pid, &st) != 0 || st.pgrp != pid ||
	    (n = readlink(link, at, sizeof at - 1)) <= 0)
		return false;
	at[n] = '\0';
	return strcmp(at, cwd) == 0;
}

/* The child's set-up (session, signals, fds, cpus, nice, folder) is the
 * harness's work, done while it is held: out of the leg's measured
 * window, and beside the parent's last steps before the release.  A
 * step that fails then is said at once, and the child waits for its
 * release to report it: the parent meets a held child either way. */
static void
test_setup_while_held(void **state)
{
	char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	char missing[PATH_MAX], out[PATH_MAX], err[256], real[PATH_MAX];
	struct spawn_req rq = { .path = argv[0], .argv = argv,
		.envp = base_env, .cwd = tmpdir, .out_fd = -1 };
	struct spawn sp;
	int e, status, fd, k;
	const char *said = NULL;

	(void)state;
	assert_non_null(realpath(tmpdir, real));
	assert_int_equal(spawn_create(&rq, &sp, err, sizeof err), 0);
	for (k = 0; k < 2500 && !held_set_up(sp.pid, real); k++)
		tu_nap_ms(2);
	assert_true(held_set_up(sp.pid, real));
	assert_true(sp.held);
	assert_int_equal(spawn_release(&sp, &e), 0);
	assert_int_equal(waitpid(sp.pid, &status, 0), sp.pid);
	spawn_reaped(&sp, &e);
	spawn_finish(&sp);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	assert_int_equal(e, 0);

	/* A folder that is not there: said while held, reported once
	 * released. */
	snprintf(missing, sizeof missing, "%s/not-there", tmpdir);
	snprintf(out, sizeof out, "%s/held-chdir.out", tmpdir);
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	rq.cwd = missing;
	rq.out_fd = fd;
	assert_int_equal(spawn_create(&rq, &sp, err, sizeof err), 0);
	for (k = 0; k < 2500; k++) {
		said = tu_slurp(tmpdir, "held-chdir.out", NULL);
		if (said != NULL && strstr(said, "not-there") != NULL)
			break;
		tu_nap_ms(2);
	}
	assert_non_null(said);
	assert_non_null(strstr(said, "chdir"));
	/* Still held, not gone. */
	assert_int_equal(waitpid(sp.pid, &status, WNOHANG), 0);
	assert_int_equal(spawn_release(&sp, &e), 0);
	assert_int_equal(waitpid(sp.pid, &status, 0), sp.pid);
	spawn_reaped(&sp, &e);
	spawn_finish(&sp);
	close(fd);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 127);
	assert_int_equal(e, ENOENT);
	assert_int_equal(sp.fail_step, SPAWN_STEP_CHDIR);
}

static void
test_bad_output_path(void **state)
{
	char *argv[] = { "true", NULL };
	char err[256];
	struct leg_spec ls = { .argv = argv, .envp = base_env, .cwd = tmpdir,
		.out_path = "/nonexistent-dir/x.out", .abort_fd = -1 };
	struct leg_result res;

	(void)state;
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.out"));
}

/* rusage is the leg's own (wait4), and task-clock counts it from exec. */
static void
test_rusage_and_counters(void **state)
{
	const char *names[] = { "task-clock" };
	struct counters *c = counters_create(names, 1);
	char *argv[] = { "/bin/sh", "-c",
	    "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done", NULL };
	char out[PATH_MAX], err[256];
	struct leg_spec ls = { .argv = argv, .envp = base_env, .cwd = tmpdir,
		.out_path = out, .abort_fd = -1, .ctr = c };
	struct leg_result res;
	double cpu;
	uint64_t v;

	(void)state;
	assert_non_null(c);
	snprintf(out, sizeof out, "%s/busy.out", tmpdir);
	assert_int_equal(leg_run(&ls, &res, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(res.rc, 0);
	cpu = (double)res.ru.ru_utime.tv_sec + res.ru.ru_utime.tv_usec / 1e6 +
	    (double)res.ru.ru_stime.tv_sec + res.ru.ru_stime.tv_usec / 1e6;
	assert_true(cpu > 0.01);
	assert_true(cpu <= res.wall * 1.1 + 0.01);
	if (counters_errno(c, 0) != 0) {
		counters_destroy(c);
		skip();
	}
	assert_true(counters_value(c, 0, &v));
	/* task-clock is in ns; within a factor of two of rusage's cpu. */
	assert_true((double)v / 1e9 > cpu * 0.5);
	assert_true((double)v / 1e9 < cpu * 2.0 + 0.01);
	counters_destroy(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_code),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_output_and_env),
		cmocka_unit_test(test_no_inherited_fds),
		cmocka_unit_test(test_timeout_kills_group),
		cmocka_unit_test(test_abort_fd),
		cmocka_unit_test(test_exec_failure),
		cmocka_unit_test(test_no_path_search_no_shell),
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test(test_held_signals),
		cmocka_unit_test(test_setup_while_held),
		cmocka_unit_test(test_bad_output_path),
		cmocka_unit_test(test_rusage_and_counters),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
