/* test: */
/* remote_check: every number of every answer and event an agent sends
 * (a leg's too),
 * set in turn to 1e308, -1e308, -1 and a string, is refused naming its
 * key, before any conversion; the good answers come back rebuilt with
 * only the fields the client knows; text is cut and made printable;
 * counters and bins not asked for are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "remote_int.h"

typedef json_t *(*check_fn)(const json_t *r, char *why, size_t len);

static char *const names[] = { "cycles", "instructions", NULL };

static json_t *
check_event(const json_t *r, char *why, size_t len)
{
	return remote_check_event(r, 10.0, why, len);
}

static json_t *
check_open(const json_t *r, char *why, size_t len)
{
	return remote_check_open(r, 10.0, why, len);
}

static json_t *
check_close(const json_t *r, char *why, size_t len)
{
	return remote_check_close(r, names, why, len);
}

static json_t *
check_leg(const json_t *r, char *why, size_t len)
{
	return remote_check_leg(r, 10.0, names, 1000, why, len);
}

static json_t *
load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, JSON_DECODE_ANY, &e);

	assert_non_null(j);
	return j;
}

static const char *const bad_values[] = { "1e308", "-1e308", "-1", "-0.5",
	"\"7\"" };

/* Each number of good (at the top, or one object down), set to each bad
 * value, is refused with its key named. */
static void
each_number_refused(check_fn fn, const char *good)
{
	json_t *g = load(good), *ok;
	char why[320];
	const char *k, *k2;
	json_t *v, *v2;

	ok = fn(g, why, sizeof why);
	if (ok == NULL)
		fail_msg("the good answer was refused: %s", why);
	json_decref(ok);
	json_object_foreach(g, k, v) {
		json_t *inner = json_is_object(v) ? v : NULL;

		/* The id is matched to the request awaited (remote.c). */
		if (strcmp(k, "id") == 0)
			continue;

		for (size_t b = 0; b < sizeof bad_values / sizeof *bad_values; b++) {
			json_t *m, *r;

			if (inner == NULL) {
				/* A leg's rc is -1 when a signal ended it. */
				if (!json_is_number(v) || (strcmp(k, "rc") == 0 &&
				    strcmp(bad_values[b], "-1") == 0))
					continue;
				m = json_deep_copy(g);
				json_object_set_new(m, k, load(bad_values[b]));
				r = fn(m, why, sizeof why);
				if (r != NULL)
					fail_msg("%s = %s was taken", k, bad_values[b]);
				assert_non_null(strstr(why, k));
				json_decref(m);
				continue;
			}
			json_object_foreach(inner, k2, v2) {
				if (!json_is_number(v2) && !json_is_object(v2))
					continue;
				/* The gate's default budget, which grows with
				 * the legs, is sent as -1 (-0.5 is refused). */
				if (strcmp(k2, "budget_s") == 0 &&
				    strcmp(bad_values[b], "-1") == 0)
					continue;
				m = json_deep_copy(g);
				if (json_is_object(v2)) {
					json_object_set_new(json_object_get(json_object_get(m,
					    k), k2), "cycles", load(bad_values[b]));
				} else {
					json_object_set_new(json_object_get(m, k), k2,
					    load(bad_values[b]));
				}
				r = fn(m, why, sizeof why);
				json_decref(m);
				if (r != NULL)
					fail_msg("%s.%s = %s was taken", k, k2,
					    bad_values[b]);
			}
		}
	}
	json_decref(g);
}

static void
test_event_numbers(void **state)
{
	(void)state;
	each_number_refused(check_event, "{\"t\":\"quiet\",\"foreign\":0.1,"
	    "\"threshold\":1,\"ok\":true,\"waited_s\":0.5,\"server_busy\":0.1,"
	    "\"max_server_busy\":0.5,\"probe\":1.0,\"probe_max\":1.01,"
	    "\"timeout_s\":60,\"limit_s\":60,\"budget_s\":600,\"spent_s\":1}");
}

static void
test_open_numbers(void **state)
{
	(void)state;
	each_number_refused(check_open, "{\"id\":3,\"ok\":true,\"gate\":"
	    "\"quiet\",\"wait_s\":0.2,\"foreign\":0.1,\"server_busy\":0.0,"
	    "\"probe\":1.0,\"probe_us\":5,\"alive\":true}");
}

static void
test_close_numbers(void **state)
{
	(void)state;
	each_number_refused(check_close, "{\"id\":4,\"ok\":true,\"foreign\":0.1,"
	    "\"server_busy\":0.1,\"alive\":true,\"server\":{\"pid\":42,"
	    "\"tasks\":2,\"cpu_source\":\"proc\",\"utime\":0.1,\"stime\":0.0,"
	    "\"cpu\":0.1,\"cycles\":1000,\"instructions\":2000,\"counters\":"
	    "{\"cycles\":1000,\"instructions\":2000}}}");
}

static void
test_start_stop_hello_numbers(void **state)
{
	(void)state;
	each_number_refused(remote_check_start, "{\"id\":2,\"ok\":true,"
	    "\"pid\":42,\"exec\":\"/bin/x\",\"sha256\":null,\"log\":\"/a/l\","
	    "\"warnings\":[]}");
	each_number_refused(remote_check_stop, "{\"id\":9,\"ok\":true,"
	    "\"state\":\"stopped\",\"pid\":42}");
	each_number_refused(remote_check_hello, "{\"id\":1,\"ok\":true,"
	    "\"version\":\"0.1.0\",\"protocol\":2,\"pid\":7,\"dir\":\"/d\","
	    "\"host\":{\"hostname\":\"h\"},\"quiet\":{\"max_foreign_cores\":0.5,"
	    "\"window_ms\":200,\"timeout_s\":60,\"budget_s\":600,"
	    "\"max_server_busy\":0.5,\"probe\":true,\"probe_margin\":0.01}}");
}

static void
test_leg_numbers(void **state)
{
	(void)state;
	each_number_refused(check_leg, "{\"id\":5,\"ok\":true,\"pid\":42,"
	    "\"rc\":0,\"signal\":0,\"timed_out\":false,\"aborted\":false,"
	    "\"exec_errno\":0,\"exec_step\":0,\"wall\":0.5,\"utime\":0.1,"
	    "\"stime\":0.1,\"maxrss_kb\":900,\"minflt\":10,\"majflt\":0,"
	    "\"mem_peak_kb\":null,\"strays\":0,\"counters\":{\"cycles\":5,"
	    "\"instructions\":null},\"multiplexed\":[\"cycles\"],"
	    "\"output_bytes\":12,\"output_truncated\":false,\"exec\":\"/bin/sh\","
	    "\"gate\":\"quiet\",\"wait_s\":0.1,\"probe\":null,\"probe_us\":null,"
	    "\"foreign\":0.2}");
}

/* The wait a far side reports is bounded by the client's own wait. */
static void
test_wait_bounded(void **state)
{
	json_t *r = load("{\"gate\":\"quiet\",\"wait_s\":30,\"foreign\":0,"
	    "\"server_busy\":null,\"probe\":null,\"probe_us\":null,"
	    "\"alive\":true}"), *ok;
	char why[320];

	(void)state;
	assert_null(remote_check_open(r, 2.0, why, sizeof why));
	assert_non_null(strstr(why, "wait_s"));
	ok = remote_check_open(r, 31.0, why, sizeof why);
	assert_non_null(ok);
	json_decref(ok);
	json_decref(r);
}

/* Only known fields come back; text is cut and has no control bytes. */
static void
test_rebuilt(void **state)
{
	json_t *r = load("{\"t\":\"quiet\",\"foreign\":0.1,\"threshold\":1,"
	    "\"ok\":true,\"waited_s\":0.5,\"timeout_s\":60,\"limit_s\":60,"
	    "\"budget_s\":600,\"spent_s\":1,\"pid\":1,\"path\":\"/sys\"}"), *ok;
	json_t *s = json_string("a\x1b[31mred\nline");
	char why[320], big[3000];

	(void)state;
	ok = remote_check_event(r, 5, why, sizeof why);
	assert_non_null(ok);
	assert_null(json_object_get(ok, "pid"));
	assert_null(json_object_get(ok, "path"));
	assert_null(json_object_get(ok, "t"));
	json_decref(ok);
	json_object_set_new(r, "t", json_string("cgroup"));
	assert_null(remote_check_event(r, 5, why, sizeof why));
	json_decref(r);
	ok = remote_text(s, 100);
	assert_string_equal(json_string_value(ok), "a?[31mred?line");
	json_decref(ok);
	json_decref(s);
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	s = json_string(big);
	ok = remote_text(s, REMOTE_TEXT_MAX);
	assert_int_equal(json_string_length(ok), REMOTE_TEXT_MAX);
	json_decref(ok);
	json_decref(s);
}

/* Counters and programs that were not asked about are refused. */
static void
test_unasked(void **state)
{
	json_t *c = load("{\"foreign\":null,\"server_busy\":null,\"alive\":true,"
	    "\"server\":{\"pid\":42,\"tasks\":1,\"cpu_source\":\"proc\","
	    "\"utime\":null,\"stime\":null,\"cpu\":null,\"cycles\":null,"
	    "\"instructions\":null,\"counters\":{\"cycles\":1,\"evil\":2}}}");
	json_t *progs = load("[\"/bin/a\"]");
	json_t *bins = load("{\"/bin/a\":null,\"/etc/shadow\":null}");
	char why[320];

	(void)state;
	assert_null(remote_check_close(c, names, why, sizeof why));
	assert_non_null(strstr(why, "counters"));
	assert_null(remote_check_bins(bins, progs, why, sizeof why));
	json_decref(c);
	json_decref(progs);
	json_decref(bins);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_numbers),
		cmocka_unit_test(test_open_numbers),
		cmocka_unit_test(test_close_numbers),
		cmocka_unit_test(test_start_stop_hello_numbers),
		cmocka_unit_test(test_leg_numbers),
		cmocka_unit_test(test_wait_bounded),
		cmocka_unit_test(test_rebuilt),
		cmocka_unit_test(test_unasked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
