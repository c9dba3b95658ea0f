/* test: */
/* procs: tree ticks, descendants, group ends and orphan reaping, on real
 * child processes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"
#include "testutil.h"

/* CPU seconds used by this process so far. */
static double
cpu_s(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) != 0 || clock_gettime(clk, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool
wait_gone(pid_t pid, double s)
{
	double end = clock_now() + s;

	while (!tu_gone(pid)) {
		if (clock_now() > end)
			return false;
		procs_reap_orphans(NULL, 0);
		tu_nap_ms(10);
	}
	return true;
}

static void
test_tree_ticks_grow_for_busy_child(void **state)
{
	long long before, during, after;
	double hz = (double)sysconf(_SC_CLK_TCK);
	double used;
	pid_t pid;
	int status;

	(void)state;
	before = procs_tree_ticks(getpid());
	assert_true(before >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		tu_spin_for(30);
		_exit(0);
	}
	/* Wait for the child to have used a measurable amount of CPU, however
	 * loaded the machine is. */
	while (cpu_s(pid) < 0.3)
		tu_nap_ms(20);
	during = procs_tree_ticks(getpid());
	used = cpu_s(pid);
	/* The child's ticks count while it runs... */
	assert_true((double)(during - before) >= 0.6 * used * hz);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* ...and stay counted once it was reaped (our cutime). */
	after = procs_tree_ticks(getpid());
	assert_true((double)(after - before) >= 0.6 * used * hz);
	assert_true(after >= during - 2);
}

static bool
find_pid(const struct procs_stat *st, void *arg)
{
	return st->pid == *(pid_t *)arg;
}

/* The one /proc/PID/stat parser: our own line reads back as us (ppid,
 * group, a start time in the past), and the walk of the host finds us. */
static void
test_stat_self_and_each(void **state)
{
	struct procs_stat st;
	pid_t me = getpid(), nobody = 0;
	double now = (double)time(NULL);

	(void)state;
	assert_int_equal(procs_stat(me, &st), 0);
	assert_int_equal(st.pid, me);
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.pgrp, getpgrp());
	assert_true(st.state == 'R' || st.state == 'S');
	assert_true(st.started > now - 3600 && st.started <= now + 2);
	assert_true(st.ticks >= 0);
	assert_true(procs_each(find_pid, &me));
	assert_false(procs_each(find_pid, &nobody));
	assert_int_equal(procs_stat(-1, &st), -1);
}

static void
test_tree_ticks_gone_root(void **state)
{
	pid_t pid = fork();

	(void)state;
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_int_equal(procs_tree_ticks(pid), -1);
}

/* A child (returned) and its grandchild (*grand), both waiting for a
 * signal and dying with the test.  The child runs init first (when not
 * NULL), so what it sets the grandchild inherits; the grandchild names
 * itself comm when comm is not NULL. */
static pid_t
fork_pair(void (*init)(void), const char *comm, pid_t *grand)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		if (init != NULL)
			init();
		pid_t g = fork();

		if (g == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
			if (comm != NULL)
				prctl(PR_SET_NAME, comm, 0, 0, 0);
			close(fds[0]);
			close(fds[1]);
			for (;;)
				pause();
		}
		(void)!write(fds[1], &g, sizeof g);
		for (;;)
			pause();
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], grand, sizeof *grand), sizeof *grand);
	close(fds[0]);
	return pid;
}

/* A comm with spaces and ')' must not confuse the parser: the child and its
 * grandchild are both found, and the odd name is the grandchild's. */
static void
test_descendants_with_odd_comm(void **state)
{
	pid_t pid, grand = 0, found[16];
	size_t n, i;
	bool have_child = false, have_grand = false;

	(void)state;
	pid = fork_pair(NULL, "a) (b c) 9 9", &grand);
	tu_nap_ms(50); /* let the grandchild rename itself */
	n = procs_descendants(getpid(), found, 16);
	for (i = 0; i < n; i++) {
		have_child |= found[i] == pid;
		have_grand |= found[i] == grand;
	}
	assert_true(have_child);
	assert_true(have_grand);
	assert_true(procs_alive(grand));
	assert_true(procs_tree_ticks(getpid()) >= 0);
	kill(grand, SIGKILL);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_true(wait_gone(grand, 5));
}

static void
test_alive_false_for_zombie(void **state)
{
	pid_t pid = fork();
	double end = clock_now() + 5;

	(void)state;
	if (pid == 0)
		_exit(3);
	/* A zombie is not alive, though kill(pid, 0) still succeeds. */
	while (procs_alive(pid) && clock_now() < end)
		tu_nap_ms(5);
	assert_false(procs_alive(pid));
	assert_int_equal(kill(pid, 0), 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_false(procs_alive(pid));
}

static void
test_reap_orphans_leaves_kept(void **state)
{
	pid_t p[3];
	int i, status;
	double end;

	(void)state;
	for (i = 0; i < 3; i++) {
		p[i] = fork();
		assert_true(p[i] >= 0);
		if (p[i] == 0)
			_exit(10 + i);
	}
	end = clock_now() + 5;
	while ((procs_alive(p[0]) || procs_alive(p[1]) || procs_alive(p[2])) &&
	    clock_now() < end)
		tu_nap_ms(5);
	/* Keep the first: waitid reports it first, which must not stop the
	 * others from being reaped. */
	procs_reap_orphans(&p[0], 1);
	assert_int_equal(waitpid(p[1], NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(waitpid(p[2], NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(waitpid(p[0], &status, 0), p[0]);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 10);
}

/* A group leader of its own that ignores SIGTERM. */
static void
stubborn_leader(void)
{
	setpgid(0, 0);
	signal(SIGTERM, SIG_IGN);
}

/* A group whose leader and grandchild ignore SIGTERM, and whose grandchild
 * outlives the leader: end_group kills both after the grace. */
static void
test_end_group_stubborn(void **state)
{
	pid_t pid, grand = 0;
	double t0;

	(void)state;
	pid = fork_pair(stubborn_leader, NULL, &grand);
	setpgid(pid, pid);
	t0 = clock_now();
	procs_end_group(pid, 0.3);
	/* It waited the grace out (they ignore SIGTERM), but not much more. */
	assert_true(clock_now() - t0 >= 0.25);
	assert_true(clock_now() - t0 < 3.0);
	assert_true(tu_gone(pid)); /* our child: reaped by end_group */
	assert_true(wait_gone(grand, 5)); /* reparented to us: reaped here */
	/* Ending a group that is gone is harmless. */
	procs_end_group(pid, 0.1);
	procs_kill_group(pid);
}

static void
test_end_group_quick_when_terminable(void **state)
{
	pid_t pid;
	double t0;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	t0 = clock_now();
	procs_end_group(pid, 5.0);
	assert_true(clock_now() - t0 < 2.0);
	assert_true(tu_gone(pid));
}

/* A process that left the leg's group and session (setsid) and ignores
 * SIGTERM is still found through the ppid links and ended; a kept one (a
 * server) and its child are left alone. */
static void
test_end_descendants_escaped_and_kept(void **state)
{
	pid_t esc, kept, kept_child = 0;
	size_t n;

	(void)state;
	esc = fork();
	assert_true(esc >= 0);
	if (esc == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		setsid();
		signal(SIGTERM, SIG_IGN);
		for (;;)
			pause();
	}
	kept = fork_pair(NULL, NULL, &kept_child);
	tu_nap_ms(50);
	n = procs_end_descendants(getpid(), &kept, 1, 0.3);
	assert_int_equal(n, 1);
	assert_true(tu_gone(esc));
	assert_true(procs_alive(kept));
	assert_true(procs_alive(kept_child));
	kill(kept, SIGKILL);
	kill(kept_child, SIGKILL);
	assert_int_equal(waitpid(kept, NULL, 0), kept);
	assert_true(wait_gone(kept_child, 5));
	assert_int_equal(procs_end_descendants(getpid(), NULL, 0, 0.1), 0);
}

/* procs_flock_owner names the process that took a flock, also once it
 * has died and a child of its holds the lock on; none for a file nobody
 * locks. */
static void
test_flock_owner_after_taker_died(void **state)
{
	char path[] = "/tmp/benchtui-test-flock-XXXXXX";
	int fd = mkstemp(path), said[2], hold[2], st;
	pid_t taker, holder = 0;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(procs_flock_owner(fd), -1);
	/* said: the taker tells us its child's pid; hold: the child holds
	 * the lock until we close hold's write end. */
	assert_int_equal(pipe(said), 0);
	assert_int_equal(pipe(hold), 0);
	taker = fork();
	assert_true(taker >= 0);
	if (taker == 0) {
		int lfd = open(path, O_RDONLY);
		pid_t h;

		if (lfd < 0 || flock(lfd, LOCK_EX) != 0)
			_exit(1);
		if ((h = fork()) == 0) {
			char b;

			close(hold[1]);
			_exit(read(hold[0], &b, 1) < 0);
		}
		_exit(write(said[1], &h, sizeof h) != sizeof h);
	}
	close(said[1]);
	close(hold[0]);
	assert_int_equal(read(said[0], &holder, sizeof holder), sizeof holder);
	assert_int_equal(waitpid(taker, &st, 0), taker);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* The taker is gone, its lock is not. */
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(procs_flock_owner(fd), taker);
	assert_false(procs_alive(procs_flock_owner(fd)));
	close(hold[1]);
	close(said[0]);
	/* The holder is our grandchild, reparented to us (a subreaper). */
	assert_int_equal(waitpid(holder, NULL, 0), holder);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
	close(fd);
	unlink(path);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree_ticks_grow_for_busy_child),
		cmocka_unit_test(test_tree_ticks_gone_root),
		cmocka_unit_test(test_stat_self_and_each),
		cmocka_unit_test(test_descendants_with_odd_comm),
		cmocka_unit_test(test_alive_false_for_zombie),
		cmocka_unit_test(test_reap_orphans_leaves_kept),
		cmocka_unit_test(test_end_group_stubborn),
		cmocka_unit_test(test_end_group_quick_when_terminable),
		cmocka_unit_test(test_end_descendants_escaped_and_kept),
		cmocka_unit_test(test_flock_owner_after_taker_died),
	};

	/* Orphaned grandchildren come back to us, as they do to benchtui. */
	procs_become_subreaper();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
