/* test: */
/* cgroup: a round's group and a child group for legs, a leg whose
 * descendants escape its process group (setsid, double fork), and
 * cgroup.kill ending them all.  Exits 77 where no cgroup v2 group can be
 * made (no v2 mount, no permission). */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgroup.h"
#include "procs.h"
#include "spawn.h"

extern char **environ;

static char name[64];

/* Run argv to its end in cg; its wait status. */
static int
run_in(struct cgroup *cg, char **argv)
{
	struct spawn_req rq = { .path = argv[0], .argv = argv,
		.envp = environ, .out_fd = -1,
		.cgroup_procs_fd = cgroup_procs_fd(cg),
		.cgroup_dir_fd = cgroup_dir_fd(cg) };
	char err[512];
	int status = -1;
	pid_t pid = spawn_run(&rq, NULL, err, sizeof err);

	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void
test_kill_escaped(void **state)
{
	char *argv[] = { "/bin/sh", "-c",
	    "setsid sleep 60 & (sleep 60 &) ; sleep 60 & exit 0", NULL };
	char err[512];
	struct cgroup *round, *legs;
	struct stat st;
	char *path;
	int status;

	(void)state;
	round = cgroup_create(NULL, name, err, sizeof err);
	assert_non_null(round);
	legs = cgroup_create(round, "legs", err, sizeof err);
	assert_non_null(legs);
	assert_false(cgroup_populated(legs));
	status = run_in(legs, argv);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The leader is gone; its sleeps, in and out of its group, are not,
	 * and they are still in the group. */
	assert_true(cgroup_populated(legs));
	assert_true(cgroup_cpu_usec(legs) >= 0);
	assert_true(cgroup_cpu_usec(round) >= cgroup_cpu_usec(legs));
	assert_true(cgroup_kill(legs, 5.0) >= 1);
	assert_false(cgroup_populated(legs));
	assert_int_equal(cgroup_kill(legs, 1.0), 0);
	procs_reap_orphans(NULL, 0);
	/* A child started in the group after its cgroup.kill runs (some
	 * kernels kill what clone3 starts in such a group). */
	status = run_in(legs, (char *[]){ "/bin/true", NULL });
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	path = strdup(cgroup_path(round));
	cgroup_destroy(legs);
	cgroup_destroy(round);
	assert_int_equal(stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	free(path);
}

/* Groups left by a benchtui that died (its pid gone) are removed; one of
 * a live pid is not. */
static void
test_remove_stale(void **state)
{
	char err[512], dead[64], live[64];
	struct cgroup *a, *al, *b;
	struct stat st;
	char *pa, *pb;
	pid_t pid = fork();

	(void)state;
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	snprintf(dead, sizeof dead, "benchtui-stale-test-%d-1", (int)pid);
	snprintf(live, sizeof live, "benchtui-stale-test-%d-1", (int)getpid());
	a = cgroup_create(NULL, dead, err, sizeof err);
	assert_non_null(a);
	al = cgroup_create(a, "legs", err, sizeof err);
	assert_non_null(al);
	b = cgroup_create(NULL, live, err, sizeof err);
	assert_non_null(b);
	pa = strdup(cgroup_path(a));
	pb = strdup(cgroup_path(b));
	assert_int_equal(cgroup_remove_stale("benchtui-stale-test"), 1);
	assert_int_equal(stat(pa, &st), -1);
	assert_int_equal(stat(pb, &st), 0);
	cgroup_destroy(b);
	free(pa);
	free(pb);
	/* Gone from the file system already: destroy frees what is left. */
	cgroup_destroy(al);
	cgroup_destroy(a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_escaped),
		cmocka_unit_test(test_remove_stale),
	};
	char err[512];
	struct cgroup *probe;

	procs_become_subreaper();
	snprintf(name, sizeof name, "benchtui-test-%d", (int)getpid());
	if ((probe = cgroup_create(NULL, name, err, sizeof err)) == NULL) {
		fprintf(stderr, "test-cgroup: skipped: %s\n", err);
		return 77;
	}
	cgroup_destroy(probe);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
