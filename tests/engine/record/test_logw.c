/* test: */
/* logw: one whole line per event, O_APPEND|O_CLOEXEC, and a write that
 * runs out of room mid-line is cut back so no torn line is left. */
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
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "event.h"
#include "logw.h"
#include "testutil.h"

static char tmpdir[] = "/tmp/benchtui-test-logw.XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return tu_rmtree(tmpdir);
}

static long
file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static json_t *
leg_event(int rep)
{
	json_t *ev = event_new("leg");

	json_object_set_new(ev, "cell", json_string("c"));
	json_object_set_new(ev, "arm", json_string("a"));
	json_object_set_new(ev, "rep", json_integer(rep));
	json_object_set_new(ev, "wall", json_real(0.25 * rep));
	return ev;
}

static void
test_lines(void **state)
{
	char path[PATH_MAX], err[256], buf[4096];
	struct logw *lw;
	FILE *f;
	int n = 0;

	(void)state;
	snprintf(path, sizeof path, "%s/lines.jsonl", tmpdir);
	lw = logw_open(path, err, sizeof err);
	assert_non_null(lw);
	for (int i = 1; i <= 3; i++) {
		json_t *ev = leg_event(i);

		assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
		json_decref(ev);
	}
	assert_int_equal(logw_sync(lw), 0);
	logw_destroy(lw);

	/* Reopening appends; it never truncates. */
	lw = logw_open(path, err, sizeof err);
	assert_non_null(lw);
	{
		json_t *ev = event_new("done");

		assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
		json_decref(ev);
	}
	logw_destroy(lw);

	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(buf, sizeof buf, f) != NULL) {
		json_t *ev = json_loads(buf, 0, NULL);

		assert_non_null(ev);
		assert_int_equal(buf[strlen(buf) - 1], '\n');
		n++;
		if (n <= 3)
			assert_int_equal(json_integer_value(json_object_get(ev,
			    "rep")), n);
		else
			assert_string_equal(event_type(ev), "done");
		json_decref(ev);
	}
	fclose(f);
	assert_int_equal(n, 4);
}

static void
test_open_error_names_file(void **state)
{
	char err[256];

	(void)state;
	assert_null(logw_open("/nonexistent-dir/log.jsonl", err, sizeof err));
	assert_non_null(strstr(err, "/nonexistent-dir/log.jsonl"));
}

static void
test_cloexec(void **state)
{
	char path[PATH_MAX], err[256], link[PATH_MAX], fdpath[64];
	struct logw *lw;
	int found = 0;

	(void)state;
	snprintf(path, sizeof path, "%s/cloexec.jsonl", tmpdir);
	lw = logw_open(path, err, sizeof err);
	assert_non_null(lw);
	for (int fd = 3; fd < 256; fd++) {
		ssize_t n;

		snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
		n = readlink(fdpath, link, sizeof link - 1);
		if (n <= 0)
			continue;
		link[n] = '\0';
		if (strcmp(link, path) != 0)
			continue;
		found = 1;
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		assert_true(fcntl(fd, F_GETFL) & O_APPEND);
	}
	assert_true(found);
	logw_destroy(lw);
}

/* A file size limit makes write(2) short in the middle of a line, as a full
 * disk does.  The append must fail, say so, and leave the file exactly as
 * it was: whole lines only.  Run in a child, since the limit is per
 * process. */
static void
test_short_write_is_cut_back(void **state)
{
	char path[PATH_MAX];
	pid_t pid;
	int status;

	(void)state;
	snprintf(path, sizeof path, "%s/short.jsonl", tmpdir);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char err[256];
		struct logw *lw = logw_open(path, err, sizeof err);
		json_t *ev = leg_event(1);
		struct rlimit rl;
		long before;

		signal(SIGXFSZ, SIG_IGN);
		if (lw == NULL || logw_append(lw, ev, err, sizeof err) != 0)
			_exit(10);
		before = file_size(path);
		rl.rlim_cur = rl.rlim_max = (rlim_t)before + 20;
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
			_exit(11);
		json_object_set_new(ev, "pad", json_string(
		    "a line far longer than the twenty bytes left"));
		if (logw_append(lw, ev, err, sizeof err) == 0)
			_exit(12);
		if (strstr(err, path) == NULL)
			_exit(13);
		if (file_size(path) != before)
			_exit(14);
		logw_destroy(lw);
		json_decref(ev);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	{
		FILE *f = fopen(path, "r");
		char buf[4096];
		int n = 0;

		assert_non_null(f);
		while (fgets(buf, sizeof buf, f) != NULL) {
			json_t *ev = json_loads(buf, 0, NULL);

			assert_non_null(ev);
			json_decref(ev);
			n++;
		}
		fclose(f);
		assert_int_equal(n, 1);
	}
}

/* A leg line waits at most about LOGW_SYNC_MS for its fdatasync (in the
 * background); a pause, abort or done line is synced before the append
 * returns. */
static void
test_sync_window(void **state)
{
	char path[PATH_MAX], err[256];
	struct logw *lw;
	json_t *ev;
	int i;

	(void)state;
	snprintf(path, sizeof path, "%s/sync.jsonl", tmpdir);
	lw = logw_open(path, err, sizeof err);
	assert_non_null(lw);
	for (i = 1; i <= 50; i++) {
		ev = leg_event(i);
		assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
		json_decref(ev);
	}
	/* Up to a hundred windows (10 ms steps), for a loaded machine's
	 * scheduling and a busy disk's fdatasync. */
	for (i = 0; i < 10 * 100 && logw_pending(lw); i++)
		usleep(LOGW_SYNC_MS * 100);
	assert_false(logw_pending(lw));

	ev = leg_event(51);
	assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
	json_decref(ev);
	ev = event_new("pause");
	assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
	json_decref(ev);
	assert_false(logw_pending(lw));
	logw_destroy(lw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_open_error_names_file),
		cmocka_unit_test(test_cloexec),
		cmocka_unit_test(test_short_write_is_cut_back),
		cmocka_unit_test(test_sync_window),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
