/* test: */
/* bisect without git: narrowing (the next revision, skips stepped
 * around, the end with one commit or with a range skips hide) and a
 * step's round file made from the user's (arms replaced, ${OUT} filled,
 * adaptive on the metric). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bisect_int.h"

/* n revisions, all untested. */
static void
test_bisect_range(struct bisect_range *r, size_t n)
{
	static char *names[64];

	r->n = n;
	r->revs = names;
	r->mark = calloc(n, sizeof *r->mark);
	assert_non_null(r->mark);
}

/* Hunt the first bad index culprit in n revisions; skip[i] marks those
 * that do not build.  The indexes tested in order into seen; the end. */
static size_t
test_bisect_hunt(size_t n, long culprit, const bool *skip, long *seen,
    struct bisect_next *end)
{
	struct bisect_range r;
	size_t k = 0;

	test_bisect_range(&r, n);
	r.mark[n - 1] = BISECT_BAD;
	for (bisect_narrow(&r, end); end->pick >= 0; bisect_narrow(&r, end)) {
		long i = end->pick;

		seen[k++] = i;
		r.mark[i] = skip != NULL && skip[i] ? BISECT_SKIP :
		    i >= culprit ? BISECT_BAD : BISECT_GOOD;
	}
	free(r.mark);
	return k;
}

static void
test_bisect_narrow_line(void **state)
{
	struct bisect_next end;
	long seen[64];

	(void)state;
	/* 24 revisions (the bad end the last), the culprit anywhere: found
	 * in at most ceil(log2 24) = 5 steps, as git bisect would. */
	for (long c = 0; c < 24; c++) {
		size_t k = test_bisect_hunt(24, c, NULL, seen, &end);

		assert_true(k <= 5);
		assert_int_equal(end.hi, c);
		assert_int_equal(end.lo, c - 1);
		assert_int_equal(end.left, 0);
	}
	/* The first pick halves the range: index 11 of 0..23 (-1 the good
	 * end, 23 the bad). */
	test_bisect_hunt(24, 10, NULL, seen, &end);
	assert_int_equal(seen[0], 11);
}

static void
test_bisect_narrow_skips(void **state)
{
	struct bisect_next end;
	bool skip[24] = { false };
	long seen[64];
	size_t k;

	(void)state;
	/* The one after the culprit does not build: stepped around, the
	 * culprit still found. */
	skip[11] = true;
	k = test_bisect_hunt(24, 10, skip, seen, &end);
	assert_int_equal(seen[0], 11);
	assert_int_equal(seen[1], 10);   /* of 10 and 12, the older */
	assert_int_equal(end.hi, 10);
	assert_int_equal(end.lo, 9);
	assert_true(k <= 7);
	/* The one before it does not build: it may be the first bad one, so
	 * the end is the range 10..11, not a culprit. */
	memset(skip, 0, sizeof skip);
	skip[10] = true;
	test_bisect_hunt(24, 11, skip, seen, &end);
	assert_int_equal(end.lo, 9);
	assert_int_equal(end.hi, 11);
	assert_int_equal(end.pick, -1);
}

static void
test_bisect_step_spec(void **state)
{
	json_error_t je;
	json_t *t = json_loads("{\"name\": \"x\", \"bin\": \"${OUT}/prog\","
	    "\"command\": [\"${BIN}\", \"${OUT}/data\"], \"baseline\": \"a\","
	    "\"arms\": [{\"name\": \"a\", \"env\": {\"D\": \"${OUT}/d\"}},"
	    "{\"name\": \"b\", \"vs\": \"a\"}], \"cells\": [{\"name\": \"c\"}],"
	    "\"reps\": 10, \"fail_on\": [\"a/wall:above\"]}", 0, &je);
	json_t *s, *arms;

	(void)state;
	assert_non_null(t);
	assert_true(bisect_step_uses_out(t));
	s = bisect_step_spec(t, "/w", "bisect-01-abc", "/g", "/c", "cpu");
	arms = json_object_get(s, "arms");
	assert_int_equal(json_array_size(arms), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    arms, 0), "name")), "good");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    arms, 0), "bin")), "/g/prog");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    arms, 1), "bin")), "/c/prog");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_array_get(arms, 1), "env"), "D")), "/c/d");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_array_get(arms, 1), "vars"), "OUT")), "/c");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    arms, 1), "vs")), "good");
	assert_null(json_object_get(s, "bin"));
	assert_null(json_object_get(s, "fail_on"));
	assert_string_equal(json_string_value(json_object_get(s, "workdir")),
	    "/w");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(s,
	    "reps"), "max")), 10);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    s, "reps"), "metric")), "cpu");
	/* The user's round file is left as it was. */
	assert_string_equal(json_string_value(json_object_get(t, "bin")),
	    "${OUT}/prog");
	json_decref(s);
	json_object_set_new(t, "bin", json_string("/bin/true"));
	json_object_set_new(t, "command", json_pack("[s]", "${BIN}"));
	json_object_del(json_array_get(json_object_get(t, "arms"), 0), "env");
	assert_false(bisect_step_uses_out(t));
	json_decref(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bisect_narrow_line),
		cmocka_unit_test(test_bisect_narrow_skips),
		cmocka_unit_test(test_bisect_step_spec),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
