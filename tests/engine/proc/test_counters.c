/* test: counters raw-asan-covered */
/* test counters-pmu: counters timeout=60 arg=pmu */
/* Counters on real child processes: the test binary re-executes itself as
 * the leg ("work MB ITER"), so the work is known exactly and needs no shell
 * and no outside program.
 *
 * Run with the argument "pmu" it checks only hardware counting, and exits
 * 77 (skipped) on a machine without a PMU. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <dirent.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"

/* The leg: touch mb MiB page by page (no huge pages, so every page is a
 * fault) and spin iter million times.  With fork, the work is done by a
 * child of the leg, which inherit must count too. */
static int
work(int mb, long iter, int in_child)
{
	volatile uint64_t sink = 0;
	size_t len = (size_t)mb << 20;
	char *p;

	if (in_child) {
		pid_t pid = fork();
		int st;

		if (pid < 0)
			return 1;
		if (pid > 0)
			return waitpid(pid, &st, 0) == pid && WIFEXITED(st) ?
			    WEXITSTATUS(st) : 1;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	madvise(p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		p[i] = (char)i;
	for (long i = 0; i < iter * 1000000L; i++)
		sink += (uint64_t)i * 2654435761u;
	munmap(p, len);
	return sink == 1 ? 2 : 0;
}

struct leg_result {
	int status;
	struct counters *c;
};

/* Fork a child that waits on a pipe, open c on it, release it, reap it
 * (its status in *status), read c.  Released, the child execs ourselves
 * with argv; with argv NULL it touches 4 MiB and exits without an exec.
 * No cmocka asserts here: a forked helper uses it too.  0, or -1. */
static int
gated_child_read(struct counters *c, char *const *argv, int *status,
    void (*read_fn)(struct counters *))
{
	int gate[2];
	pid_t pid;

	if (pipe2(gate, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char b;
		volatile char *p = argv == NULL ? malloc(1 << 22) : NULL;

		close(gate[1]);
		while (read(gate[0], &b, 1) < 0 && errno == EINTR)
			;
		if (argv != NULL) {
			execv("/proc/self/exe", argv);
			_exit(127);
		}
		for (int i = 0; p != NULL && i < (1 << 22); i += 4096)
			p[i] = 1;
		_exit(0);
	}
	close(gate[0]);
	counters_open(c, pid);
	if (write(gate[1], "x", 1) != 1)
		return -1;
	close(gate[1]);
	if (waitpid(pid, status, 0) != pid)
		return -1;
	read_fn(c);
	return 0;
}

static int
gated_child(struct counters *c, char *const *argv, int *status)
{
	return gated_child_read(c, argv, status, counters_read_close);
}

/* A leg of ourselves in work mode (mb MiB touched, iter iterations, in a
 * child of the leg when in_child), counted by the named counters. */
static int
spawn_leg(struct leg_result *r, const char *const *names, int n, int mb,
    long iter, int in_child)
{
	char smb[16], siter[24];
	char *argv[] = { "test-counters", in_child ? "work-fork" : "work",
		smb, siter, NULL };

	snprintf(smb, sizeof(smb), "%d", mb);
	snprintf(siter, sizeof(siter), "%ld", iter);
	r->c = counters_create(names, n);
	if (r->c == NULL)
		return -1;
	return gated_child(r->c, argv, &r->status);
}

static void
run_leg(struct leg_result *r, const char *const *names, int n, int mb,
    long iter, int in_child)
{
	assert_int_equal(spawn_leg(r, names, n, mb, iter, in_child), 0);
}

static int
find(const struct counters *c, const char *name)
{
	for (int i = 0; i < counters_count(c); i++)
		if (strcmp(counters_name(c, i), name) == 0)
			return i;
	return -1;
}

static void
test_known_names(void **state)
{
	const char *const *names = counters_names();
	int n = 0, cycles = 0;

	(void)state;
	assert_true(counters_known("task-clock"));
	assert_true(counters_known("page-faults"));
	assert_true(counters_known("cycles"));
	assert_true(counters_known("stalled-cycles-backend"));
	assert_false(counters_known("bogus-event"));
	assert_false(counters_known("Cycles"));
	assert_false(counters_known(""));
	assert_false(counters_known(NULL));
	for (; names[n] != NULL; n++) {
		assert_true(counters_known(names[n]));
		cycles += strcmp(names[n], "cycles") == 0;
	}
	assert_int_equal(cycles, 1);
	assert_true(n >= 19);
	assert_true(strcmp(counters_backend(), "libperf") == 0 ||
	    strcmp(counters_backend(), "perf_event_open") == 0);
	/* The backend meson built this copy with (tests/meson.build). */
	if (getenv("BENCHTUI_COUNTERS_BACKEND") != NULL)
		assert_string_equal(counters_backend(),
		    getenv("BENCHTUI_COUNTERS_BACKEND"));
}

static void
test_busier_counts_more(void **state)
{
	static const char *const names[] = { "task-clock", "page-faults" };
	struct leg_result small, big;
	uint64_t tc_s, tc_b, pf_s, pf_b;

	(void)state;
	run_leg(&small, names, 2, 1, 1, 0);
	run_leg(&big, names, 2, 64, 40, 0);
	assert_true(WIFEXITED(small.status) && WEXITSTATUS(small.status) == 0);
	assert_true(WIFEXITED(big.status) && WEXITSTATUS(big.status) == 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(counters_errno(small.c, i), 0);
		assert_int_equal(counters_errno(big.c, i), 0);
		assert_false(counters_multiplexed(big.c, i));
	}
	assert_true(counters_value(small.c, 0, &tc_s));
	assert_true(counters_value(big.c, 0, &tc_b));
	assert_true(counters_value(small.c, 1, &pf_s));
	assert_true(counters_value(big.c, 1, &pf_b));
	/* 64 MiB is 16384 pages; the small leg touches 256. */
	assert_true(pf_b > pf_s + 10000);
	assert_true(tc_s > 0);
	assert_true(tc_b > tc_s);
	counters_destroy(small.c);
	counters_destroy(big.c);
}

static void
test_inherit_counts_children(void **state)
{
	static const char *const names[] = { "page-faults" };
	struct leg_result r;
	uint64_t pf;

	(void)state;
	run_leg(&r, names, 1, 32, 0, 1);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	assert_true(counters_value(r.c, 0, &pf));
	/* 32 MiB touched by the leg's child: 8192 faults it must include. */
	assert_true(pf > 8000);
	counters_destroy(r.c);
}

/* Nothing of the harness before exec: a child that is released but never
 * execs (it exits at once) counts nothing. */
static void
test_nothing_before_exec(void **state)
{
	static const char *const names[] = { "page-faults", "task-clock" };
	struct counters *c = counters_create(names, 2);
	int st;
	uint64_t v;

	(void)state;
	assert_int_equal(gated_child(c, NULL, &st), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(counters_errno(c, i), 0);
		if (counters_value(c, i, &v))
			assert_int_equal(v, 0);
	}
	counters_destroy(c);
}

/* cycles and instructions either count or are cleanly unsupported with
 * their errno, and the software event beside them still counts. */
static void
test_hardware_counts_or_errno(void **state)
{
	static const char *const names[] = { "cycles", "instructions", "task-clock" };
	struct leg_result r;
	uint64_t v;

	(void)state;
	run_leg(&r, names, 3, 1, 5, 0);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0);
	for (int i = 0; i < 2; i++) {
		int err = counters_errno(r.c, i);

		if (err == 0) {
			assert_true(counters_value(r.c, i, &v));
			assert_true(v > 0);
		} else {
			assert_false(counters_value(r.c, i, &v));
			assert_false(counters_multiplexed(r.c, i));
		}
	}
	assert_int_equal(counters_errno(r.c, 2), 0);
	assert_true(counters_value(r.c, 2, &v));
	assert_true(v > 0);
	counters_destroy(r.c);
}

static void
test_unknown_never_opened(void **state)
{
	static const char *const names[] = { "bogus", "task-clock" };
	struct leg_result r;
	uint64_t v;

	(void)state;
	run_leg(&r, names, 2, 1, 0, 0);
	assert_int_equal(counters_errno(r.c, find(r.c, "bogus")), EINVAL);
	assert_false(counters_value(r.c, 0, &v));
	assert_true(counters_value(r.c, 1, &v));
	/* Out-of-range indexes are refused, not read. */
	assert_false(counters_value(r.c, 2, &v));
	assert_false(counters_value(r.c, -1, &v));
	assert_null(counters_name(r.c, 2));
	counters_destroy(r.c);
	counters_destroy(NULL);
}

/* How many perf event fds this process holds; each must be
 * close-on-exec. */
static int
perf_fd_count(void)
{
	int perf_fds = 0;
	struct dirent *de;
	DIR *d;

	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		char path[64], link[64];
		ssize_t n;
		int fd = atoi(de->d_name);

		if (de->d_name[0] == '.' || fd == dirfd(d))
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, "anon_inode:[perf_event]") != 0)
			continue;
		perf_fds++;
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	}
	closedir(d);
	return perf_fds;
}

/* No counter fd may reach a child: every perf fd is close-on-exec. */
static void
test_fds_cloexec(void **state)
{
	static const char *const names[] = { "task-clock", "page-faults",
		"context-switches" };
	struct counters *c = counters_create(names, 3);
	int open_ok = 0;

	(void)state;
	counters_open(c, getpid());
	for (int i = 0; i < 3; i++)
		open_ok += counters_errno(c, i) == 0;
	assert_int_equal(perf_fd_count(), open_ok);
	assert_int_equal(open_ok, 3);
	counters_read_close(c);
	assert_int_equal(perf_fd_count(), 0);
	counters_destroy(c);
}

/* A set reused leg after leg keeps the last leg's events open until the
 * next leg's have opened (so the kernel's software-event switches stay
 * on between legs), and never holds more than that: after a read, its
 * events; after the next open, only the new ones; none once destroyed. */
static void
test_kept_until_next_open(void **state)
{
	static const char *const names[] = { "task-clock", "page-faults",
		"context-switches" };
	struct counters *c = counters_create(names, 3);
	uint64_t first = 0, second = 0;

	(void)state;
	for (int leg = 0; leg < 3; leg++) {
		char *argv[] = { "test-counters", "work",
			leg == 0 ? "16" : "1", "0", NULL };
		int st;

		assert_int_equal(gated_child_read(c, argv, &st, counters_read),
		    0);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		for (int i = 0; i < 3; i++)
			assert_int_equal(counters_errno(c, i), 0);
		/* Read, and still open. */
		assert_int_equal(perf_fd_count(), 3);
		assert_true(counters_value(c, 1, leg == 0 ? &first : &second));
	}
	/* Fresh values each leg, not a sum with the kept events'. */
	assert_true(first > second + 3000);
	counters_open(c, getpid());
	assert_int_equal(perf_fd_count(), 3);
	counters_read(c);
	assert_int_equal(perf_fd_count(), 3);
	counters_destroy(c);
	assert_int_equal(perf_fd_count(), 0);
}

/* A set is reused leg after leg with fresh values each time. */
static void
test_reuse(void **state)
{
	static const char *const names[] = { "page-faults", "cycles" };
	struct counters *c = counters_create(names, 2);
	uint64_t first = 0, second = 0;
	int cycles_err[2];

	(void)state;
	for (int round = 0; round < 2; round++) {
		char *argv[] = { "test-counters", "work",
			round == 0 ? "16" : "1", "0", NULL };
		int st;

		assert_int_equal(gated_child(c, argv, &st), 0);
		assert_true(counters_value(c, 0, round == 0 ? &first : &second));
		cycles_err[round] = counters_errno(c, 1);
	}
	assert_true(first > second + 3000);
	/* An event the machine lacks stays unsupported (not asked again),
	 * and one it has opens every time. */
	assert_int_equal(cycles_err[0], cycles_err[1]);
	counters_destroy(c);
}

/* As a user without CAP_PERFMON under perf_event_paranoid >= 2, counting
 * falls back to user space only, and still counts. */
static void
test_user_only_fallback(void **state)
{
	static const char *const names[] = { "task-clock", "page-faults" };
	FILE *f;
	int paranoid = -1, st;
	pid_t helper;

	(void)state;
	f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	if (f != NULL) {
		if (fscanf(f, "%d", &paranoid) != 1)
			paranoid = -1;
		fclose(f);
	}
	if (geteuid() != 0 || paranoid < 2) {
		print_message("skipped: needs root to drop to nobody and paranoid >= 2\n");
		return;
	}
	helper = fork();
	assert_true(helper >= 0);
	if (helper == 0) {
		struct leg_result r;
		uint64_t v;

		if (setgid(65534) != 0 || setuid(65534) != 0)
			_exit(10);
		/* setuid left us non-dumpable, which would deny perf access
		 * to our own child (ptrace rules), not paranoid. */
		prctl(PR_SET_DUMPABLE, 1);
		if (spawn_leg(&r, names, 2, 8, 0, 0) != 0)
			_exit(14);
		/* A build tree nobody may not enter (a clone under /root):
		 * the leg could not exec, so there is nothing to judge. */
		if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127)
			_exit(20);
		if (!counters_user_only(r.c))
			_exit(11);
		if (counters_errno(r.c, 1) != 0 || !counters_value(r.c, 1, &v))
			_exit(12);
		if (v < 2000)
			_exit(13);
		counters_destroy(r.c);
		_exit(0);
	}
	assert_int_equal(waitpid(helper, &st, 0), helper);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 20 || WEXITSTATUS(st) == 10) {
		print_message("skipped: user nobody cannot run the test binary here\n");
		return;
	}
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* The PMU test: real hardware counts, or 77 where there is no PMU. */
static int
pmu_main(void)
{
	static const char *const names[] = { "cycles", "instructions" };
	struct counters *c = counters_create(names, 2);
	int gate[2], st;
	uint64_t cyc, ins;
	pid_t pid;

	if (c == NULL || pipe2(gate, O_CLOEXEC) != 0)
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char b;
		char *argv[] = { "test-counters", "work", "1", "20", NULL };

		close(gate[1]);
		while (read(gate[0], &b, 1) < 0 && errno == EINTR)
			;
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	close(gate[0]);
	counters_open(c, pid);
	if (write(gate[1], "x", 1) != 1)
		return 1;
	close(gate[1]);
	waitpid(pid, &st, 0);
	counters_read_close(c);
	if (counters_errno(c, 0) != 0) {
		printf("SKIP: no hardware PMU: cycles: %s\n",
		    strerror(counters_errno(c, 0)));
		counters_destroy(c);
		return 77;
	}
	if (!counters_value(c, 0, &cyc) || !counters_value(c, 1, &ins)) {
		printf("FAIL: cycles or instructions opened but did not count\n");
		return 1;
	}
	/* 20 million loop iterations: at least that many instructions. */
	printf("cycles %llu instructions %llu\n", (unsigned long long)cyc,
	    (unsigned long long)ins);
	counters_destroy(c);
	return ins >= 20000000ULL && cyc > 1000000ULL ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_names),
		cmocka_unit_test(test_busier_counts_more),
		cmocka_unit_test(test_inherit_counts_children),
		cmocka_unit_test(test_nothing_before_exec),
		cmocka_unit_test(test_hardware_counts_or_errno),
		cmocka_unit_test(test_unknown_never_opened),
		cmocka_unit_test(test_fds_cloexec),
		cmocka_unit_test(test_kept_until_next_open),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_user_only_fallback),
	};

	if (argc == 4 && strcmp(argv[1], "work") == 0)
		return work(atoi(argv[2]), atol(argv[3]), 0);
	if (argc == 4 && strcmp(argv[1], "work-fork") == 0)
		return work(atoi(argv[2]), atol(argv[3]), 1);
	if (argc == 2 && strcmp(argv[1], "pmu") == 0)
		return pmu_main();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
