/* test: */
/* resume_load on crafted round folders: a torn last line cut back (and the
 * bytes it dropped), counted and aborted legs, legacy rows, completion, and
 * resume_end_stale ending a leftover process group but not a process whose
 * start time says the pid was reused. */
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
#include <time.h>
#include <unistd.h>

#include "event.h"
#include "resume.h"
#include "testutil.h"

static char dir[256];

static long
size_of(const char *rel)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof path, "%s/%s", dir, rel);
	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test-resume-XXXXXX");
	assert_non_null(mkdtemp(dir));
	tu_put(dir, "round.json", "{}\n");
	tu_put(dir, "environment.json", "{\"workdir\": \"/from/envfile\", "
	    "\"host\": {\"kernel\": \"x\"}}\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	return 0;
}

#define ROUND "{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\"," \
	"\"name\":\"r\",\"spec_sha256\":\"abc\",\"dir\":\"/x\"," \
	"\"workdir\":\"/w\"}\n"

/* The log after a cut: the good lines, then one log_cut line of torn
 * bytes (written with the cut). */
static void
assert_cut(const char *whole, size_t torn)
{
	char path[512], want[64], *text;
	FILE *f;
	long n;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	assert_non_null(f = fopen(path, "r"));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	text = calloc(1, (size_t)n + 1);
	assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	assert_true(n > (long)strlen(whole));
	assert_memory_equal(text, whole, strlen(whole));
	snprintf(want, sizeof want, "\"bytes\":%zu}\n", torn);
	assert_non_null(strstr(text + strlen(whole), "{\"t\":\"log_cut\""));
	assert_non_null(strstr(text + strlen(whole), want));
	assert_null(strchr(text + strlen(whole), '\n') + 1 == text + n ?
	    NULL : "more than one line after the good ones");
	free(text);
}

static void
test_torn_cut(void **state)
{
	char err[512] = "";
	struct resume_state *rs;
	const char *whole =
	    ROUND
	    "{\"t\":\"leg_start\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"seq\":1,\"pid\":1}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"seq\":1,\"status\":\"ok\"}\n";
	const char *torn = "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"re";
	char text[2048];

	(void)state;
	snprintf(text, sizeof text, "%s%s", whole, torn);
	tu_put(dir, "log.jsonl", text);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_int_equal(resume_torn_bytes(rs), strlen(torn));
	assert_cut(whole, strlen(torn));
	assert_true(resume_leg_done(rs, "c", "a", 1));
	assert_false(resume_leg_done(rs, "c", "b", 1));
	assert_int_equal(resume_legs_done(rs), 1);
	assert_false(resume_completed(rs));
	assert_false(resume_sealed(rs));
	assert_string_equal(resume_spec_sha256(rs), "abc");
	assert_string_equal(resume_workdir(rs), "/w");
	resume_destroy(rs);

	/* Loading again finds nothing more to cut. */
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_int_equal(resume_torn_bytes(rs), 0);
	assert_cut(whole, strlen(torn));
	resume_destroy(rs);

	/* A last line that parses but has no newline is torn too. */
	snprintf(text, sizeof text, "%s{\"t\":\"pause\"}", whole);
	tu_put(dir, "log.jsonl", text);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_int_equal(resume_torn_bytes(rs), strlen("{\"t\":\"pause\"}"));
	assert_cut(whole, strlen("{\"t\":\"pause\"}"));
	resume_destroy(rs);
}

static void
test_done_legs(void **state)
{
	char err[512] = "";
	struct resume_state *rs;

	(void)state;
	tu_put(dir, "log.jsonl",
	    ROUND
	    "{\"t\":\"env\",\"ts\":\"2026-11-29T15:00:00.001Z\",\"host\":{\"kernel\":\"k\"}}\n"
	    /* aborted, then run again and counted */
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"status\":\"aborted\"}\n"
	    "{\"t\":\"abort\",\"reason\":\"key\"}\n"
	    "{\"t\":\"resume\"}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"status\":\"ok\"}\n"
	    /* aborted only */
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,\"status\":\"aborted\"}\n"
	    /* failed and timed out legs count */
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"status\":\"failed\"}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":2,\"status\":\"timed_out\"}\n"
	    /* a legacy row, no t and no status */
	    "{\"cell\":\"d\",\"arm\":\"a\",\"rep\":3,\"rc\":0}\n"
	    "{\"t\":\"unknown_type\"}\n"
	    "{\"t\":\"done\"}\n");
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_true(resume_leg_done(rs, "c", "a", 1));
	assert_false(resume_leg_done(rs, "c", "b", 1));
	assert_true(resume_leg_done(rs, "c", "a", 2));
	assert_true(resume_leg_done(rs, "c", "b", 2));
	assert_true(resume_leg_done(rs, "d", "a", 3));
	assert_false(resume_leg_done(rs, "d", "a", 1));
	assert_int_equal(resume_legs_done(rs), 4);
	assert_true(resume_completed(rs));
	assert_int_equal(resume_torn_bytes(rs), 0);
	/* The env event carries host facts, so it is what is recorded. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    resume_recorded_env(rs), "host"), "kernel")), "k");
	resume_destroy(rs);

	tu_put(dir, "SHA256SUMS", "");
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_true(resume_sealed(rs));
	resume_destroy(rs);

	/* A sealed log with a torn tail (tampering) is left as it is. */
	long before = size_of("log.jsonl");
	char path[512];
	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs("{\"t\":\"le", f);
	fclose(f);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_true(resume_sealed(rs));
	assert_int_equal(resume_torn_bytes(rs), 0);
	assert_int_equal(size_of("log.jsonl"), before + 8);
	resume_destroy(rs);
}

static void
test_env_pointer(void **state)
{
	char err[512] = "";
	struct resume_state *rs;

	(void)state;
	/* No workdir in the round event, env only points at the file. */
	tu_put(dir, "log.jsonl",
	    "{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\",\"name\":\"r\","
	    "\"spec_sha256\":\"abc\",\"dir\":\"/x\"}\n"
	    "{\"t\":\"env\",\"file\":\"environment.json\"}\n");
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_string_equal(resume_workdir(rs), "/from/envfile");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    resume_recorded_env(rs), "host"), "kernel")), "x");
	resume_destroy(rs);
}

static void
test_bad_input(void **state)
{
	char err[512] = "";
	struct resume_state *rs;

	(void)state;
	/* A bad line that is not the last is an error naming its line. */
	tu_put(dir, "log.jsonl", ROUND "{not json\n{\"t\":\"done\"}\n");
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), -1);
	assert_non_null(strstr(err, "log.jsonl:2:"));
	assert_null(rs);
	/* No round event. */
	tu_put(dir, "log.jsonl", "{\"t\":\"done\"}\n");
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), -1);
	assert_non_null(strstr(err, "round"));
	/* Not a folder / no round.json. */
	assert_int_equal(resume_load("/nonexistent-dir", &rs, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent-dir"));
	char path[512];
	snprintf(path, sizeof path, "%s/round.json", dir);
	unlink(path);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), -1);
	assert_non_null(strstr(err, "round.json"));
}

/* A child in its own process group, like a leg, sleeping. */
static pid_t
spawn_leg(void)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setpgid(0, 0);
		for (;;)
			pause();
	}
	setpgid(pid, pid);
	return pid;
}

static void
test_end_stale(void **state)
{
	char err[512] = "", ts[EVENT_TS_LEN], text[4096];
	struct resume_state *rs;
	pid_t stale = spawn_leg(), finished = spawn_leg(), reused = spawn_leg();
	int status;

	(void)state;
	event_timestamp(ts);
	snprintf(text, sizeof text,
	    ROUND
	    /* started, never finished: must be ended */
	    "{\"t\":\"leg_start\",\"ts\":\"%s\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"pid\":%d}\n"
	    /* finished: its pid belongs to someone else now, leave it */
	    "{\"t\":\"leg_start\",\"ts\":\"%s\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,\"pid\":%d}\n"
	    "{\"t\":\"leg\",\"ts\":\"%s\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,\"status\":\"ok\"}\n"
	    /* logged long before this process started: a reused pid */
	    "{\"t\":\"leg_start\",\"ts\":\"2020-01-01T00:00:00.000Z\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"pid\":%d}\n",
	    ts, (int)stale, ts, (int)finished, ts, (int)reused);
	tu_put(dir, "log.jsonl", text);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_int_equal(resume_end_stale(rs), 1);
	assert_int_equal(waitpid(stale, &status, 0), stale);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_int_equal(waitpid(finished, &status, WNOHANG), 0);
	assert_int_equal(waitpid(reused, &status, WNOHANG), 0);
	/* Nothing left to end the second time. */
	assert_int_equal(resume_end_stale(rs), 0);
	resume_destroy(rs);
	kill(finished, SIGKILL);
	kill(reused, SIGKILL);
	waitpid(finished, NULL, 0);
	waitpid(reused, NULL, 0);
}

static void
test_end_stale_server(void **state)
{
	char err[512] = "", ts[EVENT_TS_LEN], text[4096];
	struct resume_state *rs;
	pid_t live = spawn_leg(), stopped = spawn_leg();
	int status;

	(void)state;
	event_timestamp(ts);
	snprintf(text, sizeof text,
	    ROUND
	    "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c1\",\"pid\":null,\"state\":\"starting\"}\n"
	    "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c1\",\"pid\":%d,\"state\":\"ready\"}\n"
	    "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c2\",\"pid\":null,\"state\":\"starting\"}\n"
	    "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c2\",\"pid\":%d,\"state\":\"ready\"}\n"
	    "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c2\",\"pid\":%d,\"state\":\"stopped\"}\n",
	    ts, ts, (int)live, ts, ts, (int)stopped, ts, (int)stopped);
	tu_put(dir, "log.jsonl", text);
	assert_int_equal(resume_load(dir, &rs, err, sizeof err), 0);
	assert_int_equal(resume_end_stale(rs), 1);
	assert_int_equal(waitpid(live, &status, 0), live);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(waitpid(stopped, &status, WNOHANG), 0);
	resume_destroy(rs);
	kill(stopped, SIGKILL);
	waitpid(stopped, NULL, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_torn_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_done_legs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_pointer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_stale_server, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
