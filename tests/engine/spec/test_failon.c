/* test: */
/* failon: rules read and checked, matched against a report object (a
 * suspect verdict never matches), joined to fit a buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "failon.h"
#include "stats.h"

static void
test_failon_parse(void **state)
{
	struct failon f = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(failon_add(&f, "wall:above", err, sizeof err), 0);
	assert_null(f.r[0].arm);
	assert_string_equal(f.r[0].metric, "wall");
	assert_int_equal(failon_add(&f, "fast/server_cpu:below", err,
	    sizeof err), 0);
	assert_string_equal(f.r[1].arm, "fast");
	assert_string_equal(f.r[1].metric, "server_cpu");
	assert_string_equal(f.r[1].verdict, "below");
	/* A metric of a ${METRICS} file may hold a ':' or a '/'. */
	assert_int_equal(failon_add(&f, "a/lat:p99:above", err, sizeof err), 0);
	assert_string_equal(f.r[2].metric, "lat:p99");
	assert_int_equal(failon_add(&f, "wall", err, sizeof err), -1);
	assert_non_null(strstr(err, "not a rule"));
	assert_int_equal(failon_add(&f, "wall:worse", err, sizeof err), -1);
	assert_non_null(strstr(err, "unknown verdict 'worse'"));
	assert_int_equal(failon_add(&f, "9x/wall:above", err, sizeof err), -1);
	assert_non_null(strstr(err, "'9x' is not an arm's name"));
	assert_int_equal(failon_add(&f, ":above", err, sizeof err), -1);
	assert_int_equal(f.n, 3);
	/* Every verdict the arithmetic gives is a verdict a rule may name. */
	for (int v = STATS_UNKNOWN; v <= STATS_UNDECIDED; v++) {
		char rule[64];
		snprintf(rule, sizeof rule, "cpu:%s", stats_verdict_name(v));
		assert_int_equal(failon_add(&f, rule, err, sizeof err), 0);
	}
	failon_finish(&f);
	assert_int_equal(f.n, 0);
}

static void
test_failon_match(void **state)
{
	const char *rep_text = "{\"cells\": {"
	    "\"c1\": {\"arms\": {"
	    "  \"fast\": {\"metrics\": {"
	    "    \"wall\": {\"verdict\": \"below\", \"estimate\": 0.9,"
	    "              \"ci\": [0.88, 0.92], \"suspect\": false},"
	    "    \"cpu\": {\"verdict\": \"above\", \"estimate\": 1.1,"
	    "             \"ci\": [1.05, 1.15], \"suspect\": true}}},"
	    "  \"slow\": {\"metrics\": {"
	    "    \"wall\": {\"verdict\": \"above\", \"estimate\": 1.2,"
	    "              \"ci\": [1.1, 1.3]}}}}},"
	    "\"c2\": {\"arms\": {\"slow\": {\"metrics\": {"
	    "    \"wall\": {\"verdict\": \"unknown\", \"estimate\": 1.0,"
	    "              \"ci\": null}}}}}}}";
	json_t *rep = json_loads(rep_text, 0, NULL), *msgs = json_array();
	struct failon f = { 0 };
	char err[256], buf[4096], small[120];

	(void)state;
	assert_non_null(rep);
	failon_add(&f, "wall:above", err, sizeof err);
	failon_add(&f, "fast/cpu:above", err, sizeof err);  /* suspect */
	failon_add(&f, "slow/wall:unknown", err, sizeof err);
	failon_add(&f, "fast/wall:same", err, sizeof err);
	assert_int_equal(failon_match(&f, rep, msgs), 2);
	assert_string_equal(json_string_value(json_array_get(msgs, 0)),
	    "c1/slow wall above: 1.2 [1.1, 1.3] (fail_on wall:above)");
	assert_string_equal(json_string_value(json_array_get(msgs, 1)),
	    "c2/slow wall unknown: 1 no interval (fail_on slow/wall:unknown)");
	failon_join(msgs, buf, sizeof buf);
	assert_non_null(strstr(buf, "wall:above); c2/slow"));
	failon_join(msgs, small, sizeof small);
	assert_non_null(strstr(small, "; and 1 more"));
	assert_int_equal(failon_match(NULL, rep, msgs), 0);
	failon_finish(&f);
	json_decref(msgs);
	json_decref(rep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failon_parse),
		cmocka_unit_test(test_failon_match),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
