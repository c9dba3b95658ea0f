/* test: asan-covered */
/* tally: a round on several hosts.  Pairs within a host only, each
 * host's estimate the paired rule on its own pairs (checked against
 * stats_interval on those ratios), the hosts whose effects differ named,
 * both readers (jansson and the line reader) and the cached report
 * agreeing, and a round on one host reported as before. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats.h"
#include "tally.h"

#define NREPS 18

/* One leg line of cell c into buf. */
static int
leg_line(char *buf, size_t len, const char *arm, int rep, const char *host,
    double wall)
{
	if (host == NULL)
		return snprintf(buf, len, "{\"t\":\"leg\",\"cell\":\"c\","
		    "\"arm\":\"%s\",\"rep\":%d,\"status\":\"ok\",\"rc\":0,"
		    "\"wall\":%.17g,\"cpu\":%.17g}", arm, rep, wall, wall);
	return snprintf(buf, len, "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"%s\","
	    "\"rep\":%d,\"host\":\"%s\",\"status\":\"ok\",\"rc\":0,"
	    "\"wall\":%.17g,\"cpu\":%.17g}", arm, rep, host, wall, wall);
}

static void
feed_json(struct tally *t, const char *line)
{
	json_error_t jerr;
	json_t *ev = json_loads(line, 0, &jerr);

	assert_non_null(ev);
	tally_feed(t, ev);
	json_decref(ev);
}

/* Through the line reader when it follows the line, else jansson. */
static void
feed_text(struct tally *t, const char *line)
{
	if (tally_feed_line(t, line, strlen(line)) == TALLY_LINE_PASS)
		feed_json(t, line);
}

static const char *const hosts3[] = { "hA", "hB", "hC" };

/* Rep r's host (dealt in turn) and the two arms' walls: hB's arm is 30%
 * slower, every host has its own speed, the noise a fixed pattern. */
static void
rep_values(int r, const char **host, double *base, double *x)
{
	int h = (r - 1) % 3;
	double noise = 1 + 0.01 * (double)((r * 7) % 5 - 2);

	*host = hosts3[h];
	*base = (1 + h) * (1 + 0.003 * r);
	*x = *base * (h == 1 ? 1.3 : 1.0) * noise;
}

/* A host other than h, for a rep whose legs do not agree. */
static const char *
other_host(const char *h)
{
	return strcmp(h, "hA") == 0 ? "hC" : "hA";
}

static struct tally *
three_hosts(bool text, int cross_rep)
{
	struct tally *t = tally_create();
	char line[512];

	assert_int_equal(tally_set_baseline(t, "base"), 0);
	for (int r = 1; r <= NREPS; r++) {
		const char *h, *hx;
		double b, x;

		rep_values(r, &h, &b, &x);
		hx = r == cross_rep ? other_host(h) : h;
		leg_line(line, sizeof line, "base", r, h, b);
		(text ? feed_text : feed_json)(t, line);
		leg_line(line, sizeof line, "x", r, hx, x);
		(text ? feed_text : feed_json)(t, line);
	}
	return t;
}

static json_t *
wall_of(json_t *rep)
{
	json_t *cell = json_object_get(json_object_get(rep, "cells"), "c");
	json_t *arm = json_object_get(json_object_get(cell, "arms"), "x");
	json_t *m = json_object_get(json_object_get(arm, "metrics"), "wall");

	assert_non_null(m);
	return m;
}

static void
test_each_host_and_pooled(void **state)
{
	struct tally *t = three_hosts(false, 0);
	json_t *rep = tally_report(t), *m = wall_of(rep), *hosts, *diff;
	double all[NREPS], mine[NREPS], est, lo, hi;
	size_t n = 0;

	(void)state;
	for (int r = 1; r <= NREPS; r++) {
		const char *h;
		double b, x;
		rep_values(r, &h, &b, &x);
		all[n++] = x / b;
	}
	/* Pooled: every pair, each within its host. */
	assert_int_equal(json_integer_value(json_object_get(m, "n")), NREPS);
	assert_true(stats_interval(all, n, stats_wilcoxon_k(n, 0.95), &est,
	    &lo, &hi));
	assert_true(json_real_value(json_object_get(m, "estimate")) == est);
	hosts = json_object_get(m, "hosts");
	assert_int_equal(json_object_size(hosts), 3);
	for (int h = 0; h < 3; h++) {
		json_t *o = json_object_get(hosts, hosts3[h]);
		size_t k = 0;

		assert_non_null(o);
		for (int r = 1 + h; r <= NREPS; r += 3)
			mine[k++] = all[r - 1];
		assert_int_equal(json_integer_value(json_object_get(o, "n")), k);
		assert_true(stats_interval(mine, k, stats_wilcoxon_k(k, 0.95),
		    &est, &lo, &hi));
		assert_true(json_real_value(json_object_get(o, "estimate")) ==
		    est);
		assert_true(json_real_value(json_object_get(o, "lo")) == lo);
		assert_true(json_real_value(json_object_get(o, "hi")) == hi);
		assert_string_equal(json_string_value(json_object_get(o,
		    "verdict")), h == 1 ? "above" : "undecided");
	}
	assert_true(json_is_true(json_object_get(m, "depends_on_machine")));
	diff = json_object_get(m, "hosts_differ");
	assert_int_equal(json_array_size(diff), 1);
	assert_string_equal(json_string_value(json_array_get(diff, 0)), "hB");
	json_decref(rep);
	tally_destroy(t);
}

/* A rep whose legs name different hosts is never paired, and said. */
static void
test_never_across(void **state)
{
	struct tally *t = three_hosts(false, 4);
	json_t *rep = tally_report(t), *m = wall_of(rep), *w;
	const char *s;
	size_t i;
	bool said = false;

	(void)state;
	assert_int_equal(json_integer_value(json_object_get(m, "n")),
	    NREPS - 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(m, "hosts"), "hA"), "n")), NREPS / 3 - 1);
	json_array_foreach(json_object_get(rep, "warnings"), i, w)
		if ((s = json_string_value(w)) != NULL &&
		    strstr(s, "different hosts (rep 4: hC and hA)") != NULL)
			said = true;
	assert_true(said);
	json_decref(rep);
	tally_destroy(t);
}

/* Both readers, and the cached report fed leg by leg, give one report. */
static void
test_readers_and_cache_agree(void **state)
{
	struct tally *a = three_hosts(false, 7), *b = three_hosts(true, 7);
	struct tally *c = tally_create();
	json_t *ra = tally_report(a), *rb = tally_report(b), *rc = NULL;
	char line[512];

	(void)state;
	assert_true(json_equal(ra, rb));
	assert_int_equal(tally_set_baseline(c, "base"), 0);
	for (int r = 1; r <= NREPS; r++) {
		const char *h, *hx;
		double v, x;

		rep_values(r, &h, &v, &x);
		hx = r == 7 ? other_host(h) : h;
		leg_line(line, sizeof line, "base", r, h, v);
		feed_json(c, line);
		json_decref(tally_report_cached(c));
		leg_line(line, sizeof line, "x", r, hx, x);
		feed_json(c, line);
		json_decref(rc);
		rc = tally_report_cached(c);
	}
	assert_true(json_equal(ra, rc));
	json_decref(ra);
	json_decref(rb);
	json_decref(rc);
	tally_destroy(a);
	tally_destroy(b);
	tally_destroy(c);
}

/* One host, or none: no host keys, the same report. */
static void
test_one_host_as_before(void **state)
{
	struct tally *one = tally_create(), *none = tally_create();
	json_t *r1, *r0, *m;
	char line[512];

	(void)state;
	assert_int_equal(tally_set_baseline(one, "base"), 0);
	assert_int_equal(tally_set_baseline(none, "base"), 0);
	for (int r = 1; r <= NREPS; r++) {
		const char *h;
		double b, x;

		rep_values(r, &h, &b, &x);
		leg_line(line, sizeof line, "base", r, "solo", b);
		feed_json(one, line);
		leg_line(line, sizeof line, "x", r, "solo", x);
		feed_json(one, line);
		leg_line(line, sizeof line, "base", r, NULL, b);
		feed_json(none, line);
		leg_line(line, sizeof line, "x", r, NULL, x);
		feed_json(none, line);
	}
	r1 = tally_report(one);
	r0 = tally_report(none);
	m = wall_of(r1);
	assert_null(json_object_get(m, "hosts"));
	assert_null(json_object_get(m, "depends_on_machine"));
	assert_null(json_object_get(m, "hosts_differ"));
	assert_true(json_equal(r1, r0));
	json_decref(r1);
	json_decref(r0);
	tally_destroy(one);
	tally_destroy(none);
}

/* Two hosts alike: nothing differs; too few reps a host: no claim. */
static void
test_alike_and_few(void **state)
{
	struct tally *t = tally_create();
	json_t *rep, *m;
	char line[512];

	(void)state;
	assert_int_equal(tally_set_baseline(t, "base"), 0);
	for (int r = 1; r <= 6; r++) {
		const char *h = r % 2 ? "one" : "two";
		double b = 1 + 0.01 * r, x = r == 2 ? 3 * b : b * 1.01;

		leg_line(line, sizeof line, "base", r, h, b);
		feed_json(t, line);
		leg_line(line, sizeof line, "x", r, h, x);
		feed_json(t, line);
	}
	rep = tally_report(t);
	m = wall_of(rep);
	/* Three pairs a host: no two-sample interval at 0.95, no claim. */
	assert_false(json_is_true(json_object_get(m, "depends_on_machine")));
	assert_int_equal(json_array_size(json_object_get(m, "hosts_differ")),
	    0);
	assert_true(json_is_null(json_object_get(json_object_get(
	    json_object_get(m, "hosts"), "one"), "lo")));
	json_decref(rep);
	tally_destroy(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_host_and_pooled),
		cmocka_unit_test(test_never_across),
		cmocka_unit_test(test_readers_and_cache_agree),
		cmocka_unit_test(test_one_host_as_before),
		cmocka_unit_test(test_alike_and_few),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
