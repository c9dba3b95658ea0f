/* test: */
/* words: values in adaptive units, verdicts in words, the lead metrics
 * and the summary every view prints. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "words.h"

static void
test_units(void **state)
{
	char b[64];

	(void)state;
	/* A 12.7 ms leg reads 12.7ms, never 0.01s. */
	assert_string_equal(words_secs(b, sizeof b, 0.0127), "12.7ms");
	assert_string_equal(words_secs(b, sizeof b, 0.258), "258ms");
	assert_string_equal(words_secs(b, sizeof b, 1.234), "1.23s");
	assert_string_equal(words_secs(b, sizeof b, 0.0009996), "1.00ms");
	assert_string_equal(words_secs(b, sizeof b, 85e-6), "85.0us");
	assert_string_equal(words_secs(b, sizeof b, 850e-9), "850ns");
	assert_string_equal(words_secs(b, sizeof b, 1234), "1234s");
	assert_string_equal(words_secs(b, sizeof b, 0), "0s");
	assert_string_equal(words_secs(b, sizeof b, NAN), "n/a");
	assert_string_equal(words_bytes(b, sizeof b, 512), "512B");
	assert_string_equal(words_bytes(b, sizeof b, 1468006), "1.40MiB");
	assert_string_equal(words_bytes(b, sizeof b, 1023 * 1024), "1.00MiB");
	assert_string_equal(words_count(b, sizeof b, 88144292), "88.1M");
	assert_string_equal(words_count(b, sizeof b, 66), "66");
	assert_string_equal(words_count(b, sizeof b, 12345), "12.3k");
	assert_string_equal(words_count(b, sizeof b, 1.5), "1.50");
	/* By name: task-clock counts ns, lat_*_ms ms, rps requests/s. */
	assert_string_equal(words_value(b, sizeof b, "task-clock", 88144292,
	    false), "88.1ms");
	assert_string_equal(words_value(b, sizeof b, "lat_p99_ms", 0.25,
	    false), "250us");
	assert_string_equal(words_value(b, sizeof b, "rps", 12345, false),
	    "12.3k req/s");
	assert_string_equal(words_value(b, sizeof b, "rps", 12345, true),
	    "12.3k/s");
	assert_string_equal(words_value(b, sizeof b, "server_cpu", 0.0127,
	    false), "12.7ms");
	assert_string_equal(words_value(b, sizeof b, "bytes", 2048, false),
	    "2.00KiB");
	assert_string_equal(words_value(b, sizeof b, "page-faults", 2043,
	    false), "2.04k");
	assert_string_equal(words_pct(b, sizeof b, 0.034), "3.4%");
	/* A cut symbol never passes for a file name. */
	assert_string_equal(words_cut(b, sizeof b, "sum_strided.constprop.0",
	    14), "sum_strided~");
	assert_string_equal(words_cut(b, sizeof b, "sum_strided.constprop.0",
	    20), "sum_strided.constpr~");
	assert_string_equal(words_cut(b, sizeof b, "main", 14), "main");
	assert_string_equal(words_cut(b, sizeof b, "a_very_long_name", 8),
	    "a_very~");
	assert_string_equal(words_pct(b, sizeof b, 0.004), "0.40%");
}

static json_t *
metric(const char *verdict, double est, double lo, double hi, int n,
    double mde, int rfm, bool suspect)
{
	return json_pack("{s:i, s:f, s:[f,f], s:s, s:b, s:f, s:i}", "n", n,
	    "estimate", est, "ci", lo, hi, "verdict", verdict, "suspect",
	    suspect, "mde", mde, "reps_for_margin", rfm);
}

static void
test_verdicts(void **state)
{
	char b[256];
	json_t *m;

	(void)state;
	m = metric("above", 1.211, 1.073, 1.463, 10, 0.17, 300, false);
	assert_string_equal(words_verdict(b, sizeof b, "chunk512", "chunk4k",
	    "wall", m, 0.95, 0.01),
	    "chunk512 is 21.1% slower than chunk4k in wall [7.3%, 46.3%]");
	json_decref(m);
	m = metric("below", 0.8, 0.75, 0.9, 10, 0.1, 300, true);
	assert_string_equal(words_verdict(b, sizeof b, "b", "a", "cpu", m,
	    0.95, 0.01), "b is 20.0% faster than a in cpu [10.0%, 25.0%] "
	    "SUSPECT (the A/A arms differ)");
	json_decref(m);
	/* More requests/s is faster; past 2x, a factor. */
	m = metric("above", 2.5, 2.1, 3, 10, 0.2, 300, false);
	assert_string_equal(words_verdict(b, sizeof b, "b", "a", "rps", m,
	    0.95, 0.01), "b is 2.50x faster than a in requests/s "
	    "[2.10x, 3.00x]");
	json_decref(m);
	m = metric("below", 0.94, 0.9, 0.98, 10, 0.04, 200, false);
	assert_string_equal(words_verdict(b, sizeof b, "l9", "l1", "bytes", m,
	    0.95, 0.01), "l9 is 6.0% smaller than l1 in bytes [2.0%, 10.0%]");
	json_decref(m);
	m = metric("same", 1.001, 0.996, 1.006, 10, 0.005, 10, false);
	assert_string_equal(words_verdict(b, sizeof b, "b", "a", "wall", m,
	    0.95, 0.01), "same within 1% [-0.40%, +0.60%]");
	json_decref(m);
	m = metric("undecided", 1.02, 0.99, 1.059, 10, 0.034, 113, false);
	assert_string_equal(words_verdict(b, sizeof b, "b", "a", "wall", m,
	    0.95, 0.01), "undecided: can't see less than 3.4% with 10 reps; "
	    "about 113 would [-1.0%, +5.9%]");
	assert_string_equal(words_verdict_short(b, sizeof b, m),
	    "undecided +-3.4%");
	json_decref(m);
	m = json_pack("{s:i, s:f, s:n, s:s}", "n", 4, "estimate", 1.1, "ci",
	    "verdict", "unknown");
	assert_string_equal(words_verdict(b, sizeof b, "b", "a", "wall", m,
	    0.95, 0.01), "unknown: 4 reps, an interval needs 6");
	json_decref(m);
}

static void
test_lead(void **state)
{
	const char *names[16];
	json_t *ms = json_pack("{s:{}, s:{}, s:{}, s:{}, s:{}, s:{}, s:{}, "
	    "s:{}, s:{}, s:{}, s:{}}", "wall", "cpu", "task-clock",
	    "page-faults", "server_cpu", "server_task-clock", "requests",
	    "rps", "lat_p99_ms", "bytes", "lat_p50_ms");
	size_t n;

	(void)state;
	n = words_lead(ms, names, 16);
	assert_int_equal(n, 7);
	assert_string_equal(names[0], "rps");
	assert_string_equal(names[1], "lat_p50_ms");
	assert_string_equal(names[2], "lat_p99_ms");
	assert_string_equal(names[3], "server_cpu");
	assert_string_equal(names[4], "wall");
	assert_string_equal(names[5], "cpu");
	assert_string_equal(names[6], "bytes");
	assert_string_equal(words_label("lat_p99_ms"), "p99 latency");
	assert_string_equal(words_head("context-switches"), "ctx-sw");
	json_decref(ms);
}

/* The summary: lead metrics, both absolute medians, the sentence. */
static void
test_summary(void **state)
{
	json_t *rep = json_pack("{s:f, s:f, s:{s:{s:{s:f, s:f}, s:[], s:{s:{"
	    "s:s, s:n, s:{s:o, s:o}}}}}}", "level", 0.95, "margin", 0.01,
	    "cells", "work", "floor", "wall", 0.021, "cpu", 0.013, "biased",
	    "arms", "chunk512", "vs", "chunk4k", "aa_of", "metrics",
	    "wall", metric("above", 1.211, 1.073, 1.463, 10, 0.17, 300, false),
	    "cpu", metric("undecided", 1.02, 0.99, 1.059, 10, 0.034, 113,
	    false));
	json_t *w = json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(rep, "cells"),
	    "work"), "arms"), "chunk512"), "metrics"), "wall");
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	json_object_set_new(w, "abs", json_real(0.258));
	json_object_set_new(w, "vs_abs", json_real(0.0127));
	words_summary(rep, f, WORDS_TEXT);
	fclose(f);
	assert_non_null(strstr(text, "cell work (A/A floor: wall 2.1%, cpu "
	    "1.3%)\n"));
	assert_non_null(strstr(text, "  chunk512 vs chunk4k, 10 paired reps\n"
	    "    wall    258ms vs 12.7ms  chunk512 is 21.1% slower than chunk4k "
	    "in wall [7.3%, 46.3%]\n"));
	/* Past 100 columns, continued under the verdict's column. */
	assert_non_null(strstr(text, "    cpu       n/a vs n/a     undecided: "
	    "can't see less than 3.4% with 10 reps; about 113 would\n"
	    "                             [-1.0%, +5.9%]\n"));
	free(text);
	json_decref(rep);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_verdicts),
		cmocka_unit_test(test_lead),
		cmocka_unit_test(test_summary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
