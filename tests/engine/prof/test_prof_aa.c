/* test: */
/* Intervals over runs, validated: 20 A/A pairs of profiles from one real
 * recording (tests/data/profile/aa-runs.jsonl: prof-memcpy's arms a and
 * aa, one program, 200 runs of 40 samples each, taking turns under one
 * perf record).
 * Pair i is runs 10i..10i+9 of each arm, as a profile of 10 runs would be;
 * of the symbols above 0.5% share, at most 5% may be marked moved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "perfsplit.h"
#include "profdiff.h"

#define PAIRS 20
#define RUNS 10

/* A copy of a per-run vector's runs lo..hi-1, and their sum. */
static json_t *
slice(const json_t *v, size_t lo, size_t hi, long long *sum)
{
	json_t *out = json_array();

	*sum = 0;
	for (size_t i = lo; i < hi; i++) {
		json_int_t k = json_integer_value(json_array_get(v, i));

		json_array_append_new(out, json_integer(k));
		*sum += k;
	}
	return out;
}

/* The profile event of runs lo..hi-1 of ev: its per-run counts and the
 * rows they add up to. */
static json_t *
sub_event(const json_t *ev, size_t lo, size_t hi)
{
	const json_t *pr = json_object_get(ev, "per_run"), *v;
	json_t *out = json_pack("{s:s,s:s,s:O,s:s,s:s}", "t", "profile", "cell",
	    "c", "arm", json_object_get(ev, "arm"), "kind", "perf", "status",
	    "ok"), *top = json_array(), *syms = json_object();
	const char *key;
	long long n, k;

	json_object_set_new(out, "samples", json_integer(0));
	json_object_set_new(out, "per_run", json_pack("{s:o,s:o,s:{}}",
	    "samples", slice(json_object_get(pr, "samples"), lo, hi, &n),
	    "symbols", syms, "callers"));
	json_object_set_new(out, "samples", json_integer(n));
	json_object_foreach((json_t *)json_object_get(pr, "symbols"), key, v) {
		const char *tab = strchr(key, '\t');

		json_object_set_new(syms, key, slice(v, lo, hi, &k));
		if (k > 0)
			json_array_append_new(top, json_pack("{s:s,s:s%,s:I}",
			    "symbol", tab + 1, "object", key, (size_t)(tab - key),
			    "samples", (json_int_t)k));
	}
	json_object_set_new(out, "top", top);
	return out;
}

static void
test_aa_pairs(void **state)
{
	char path[4096];
	FILE *f;
	char *line = NULL;
	size_t cap = 0, moved = 0, total = 0;
	json_t *ev[2] = { NULL, NULL }, *cells;

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/profile/aa-runs.jsonl",
	    getenv("BENCHTUI_SOURCE_DIR"));
	assert_non_null(f = fopen(path, "r"));
	while (getline(&line, &cap, f) > 0) {
		json_t *e = json_loads(line, 0, NULL);
		const char *arm = json_string_value(json_object_get(e, "arm"));

		if (arm != NULL && strcmp(arm, "a") == 0)
			ev[0] = e;
		else if (arm != NULL && strcmp(arm, "aa") == 0)
			ev[1] = e;
		else
			json_decref(e);
	}
	free(line);
	fclose(f);
	assert_non_null(ev[0]);
	assert_non_null(ev[1]);
	cells = json_pack("{s:{s:{s:{s:s,s:s}}}}", "c", "arms", "aa", "vs", "a",
	    "aa_of", "a");
	for (size_t i = 0; i < PAIRS; i++) {
		struct profdiff *d = profdiff_create();
		json_t *a = sub_event(ev[0], i * RUNS, (i + 1) * RUNS),
		    *b = sub_event(ev[1], i * RUNS, (i + 1) * RUNS), *p, *r;
		size_t j, m = 0, n = 0;

		profdiff_feed(d, a);
		profdiff_feed(d, b);
		p = profdiff_json(d, cells);
		json_array_foreach(json_object_get(json_object_get(json_object_get(
		    json_object_get(p, "c"), "aa"), "perf"), "symbols"), j, r) {
			double s = json_number_value(json_object_get(r, "share")),
			    vs = json_number_value(json_object_get(r, "vs_share"));

			if (json_object_get(r, "kind") != NULL ||
			    (s <= 0.5 && vs <= 0.5))
				continue;
			assert_non_null(json_object_get(r, "diff_ci"));
			n++;
			m += json_is_false(json_object_get(r, "noise"));
		}
		printf("pair %2zu: %zu of %zu symbols above 0.5%% moved\n", i, m,
		    n);
		moved += m;
		total += n;
		json_decref(p);
		json_decref(a);
		json_decref(b);
		profdiff_destroy(d);
	}
	printf("A/A: %zu of %zu symbols above 0.5%% marked moved (%.1f%%) in "
	    "%d pairs of %d runs\n", moved, total, 100.0 * (double)moved /
	    (double)total, PAIRS, RUNS);
	assert_true(total >= PAIRS * 3);
	assert_true(moved * 20 <= total);
	json_decref(cells);
	json_decref(ev[0]);
	json_decref(ev[1]);
}

/* Every sample to its run by pid: a run's own pid, a child's (between
 * its run and the next), past a wrap of the kernel's pids, and the
 * runner's own left out. */
static void
test_split_pids(void **state)
{
	/* runs: arm 0 pid 32000, arm 1 pid 32700, arm 1 pid 300 (after
	 * the wrap), arm 0 pid 900; the runner is 31990 */
	json_t *list = json_pack("[{s:i,s:i},{s:i,s:i},{s:i,s:i},{s:i,s:i}]",
	    "arm", 0, "pid", 32000, "arm", 1, "pid", 32700, "arm", 1, "pid",
	    300, "arm", 0, "pid", 900);
	json_t *prof = json_pack("{s:s,s:[{s:s,s:s,s:i,s:i,s:[]},"
	    "{s:s,s:s,s:i,s:i,s:[]},{s:s,s:s,s:i,s:i,s:[]},"
	    "{s:s,s:s,s:i,s:i,s:[]},{s:s,s:s,s:i,s:i,s:[]},"
	    "{s:s,s:s,s:i,s:i,s:[]}]}", "event", "cpu-clock",
	    "symbols",
	    "symbol", "f", "object", "x", "samples", 10, "pid", 32000, "callers",
	    "symbol", "f", "object", "x", "samples", 5, "pid", 32701, "callers",
	    "symbol", "f", "object", "x", "samples", 7, "pid", 300, "callers",
	    "symbol", "f", "object", "x", "samples", 3, "pid", 32750, "callers",
	    "symbol", "f", "object", "x", "samples", 2, "pid", 950, "callers",
	    "symbol", "f", "object", "x", "samples", 99, "pid", 31990, "callers");
	json_t *parts;
	char *got;

	(void)state;
	assert_non_null(list);
	assert_non_null(prof);
	parts = perfsplit(prof, list, 31990, 2);
	/* arm 0: run 0 has 10, run 3 has 2 (child 950) */
	got = json_dumps(json_object_get(json_object_get(json_array_get(parts,
	    0), "per_run"), "samples"), JSON_COMPACT);
	assert_string_equal(got, "[10,2]");
	free(got);
	/* arm 1: run 1 has 5 + 3 (children 32701, 32750), run 2 has 7 */
	got = json_dumps(json_object_get(json_object_get(json_array_get(parts,
	    1), "per_run"), "samples"), JSON_COMPACT);
	assert_string_equal(got, "[8,7]");
	free(got);
	json_decref(parts);
	json_decref(prof);
	json_decref(list);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_pids),
		cmocka_unit_test(test_aa_pairs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
