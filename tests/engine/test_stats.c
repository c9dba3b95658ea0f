/* stats: hand-computed cases for every function of stats.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "stats.h"

/* cmocka 1.1 has no double assertion; an absolute tolerance does. */
#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_median(void **state)
{
	const double odd[] = { 3, 1, 2 }, even[] = { 4, 1, 3, 2 }, one[] = { 7 };
	double v[] = { 5, 1, 4 };

	(void)state;
	assert_near(stats_median(odd, N(odd)), 2, 0);
	assert_near(stats_median(even, N(even)), 2.5, 0);
	assert_near(stats_median(one, 1), 7, 0);
	assert_true(isnan(stats_median(odd, 0)));
	/* The input is not reordered: ratios stay in rep order. */
	assert_near(stats_median(v, 3), 4, 0);
	assert_near(v[0], 5, 0);
	assert_near(v[1], 1, 0);
}

static void
test_min_max(void **state)
{
	const double v[] = { 1.5, 0.5, 2.5, 1 };

	(void)state;
	assert_near(stats_min(v, N(v)), 0.5, 0);
	assert_near(stats_max(v, N(v)), 2.5, 0);
	assert_true(isnan(stats_min(v, 0)));
	assert_true(isnan(stats_max(v, 0)));
}

static void
test_geomean(void **state)
{
	const double a[] = { 1, 4 }, b[] = { 2, 8, 4 }, z[] = { 1, 0 };

	(void)state;
	assert_near(stats_geomean(a, N(a)), 2, 1e-12);
	assert_near(stats_geomean(b, N(b)), 4, 1e-12);
	assert_true(isnan(stats_geomean(z, N(z))));
	assert_true(isnan(stats_geomean(a, 0)));
}

static void
test_ratios(void **state)
{
	/* rep 2 not ok (failed leg), rep 3 missing in A, rep 4 B is 0. */
	const double a[] = { 2, 3, NAN, 1, 5 }, b[] = { 1, 1, 1, 0, 4 };
	const bool ok[] = { true, false, true, true, true };
	double out[5];

	(void)state;
	assert_int_equal(stats_ratios(a, b, ok, 5, out), 2);
	assert_near(out[0], 2, 0);
	assert_near(out[1], 1.25, 0);
	assert_int_equal(stats_ratios(a, b, NULL, 5, out), 3);
	assert_near(out[1], 3, 0);
}

static void
test_floor(void **state)
{
	const double r[] = { 1.02, 0.97, 1.0 }, e[] = { 1.25, 0.75 };

	(void)state;
	assert_near(stats_floor(r, N(r)), 0.03, 1e-12);
	assert_near(stats_floor(e, N(e)), 0.25, 0);
	assert_true(isnan(stats_floor(r, 0)));
}

static void
test_verdict(void **state)
{
	const double up[] = { 1.3, 1.5, 1.26 }, down[] = { 0.7, 0.6 };
	const double mixed[] = { 1.3, 1.1 };
	/* Exactly on 1 + floor and 1 - floor: not beyond it, so within. */
	const double on_hi[] = { 1.25, 1.5 }, on_lo[] = { 0.75, 0.5 };

	(void)state;
	assert_int_equal(stats_verdict(up, N(up), 0.25), STATS_ABOVE);
	assert_int_equal(stats_verdict(down, N(down), 0.25), STATS_BELOW);
	assert_int_equal(stats_verdict(mixed, N(mixed), 0.25), STATS_WITHIN);
	assert_int_equal(stats_verdict(on_hi, N(on_hi), 0.25), STATS_WITHIN);
	assert_int_equal(stats_verdict(on_lo, N(on_lo), 0.25), STATS_WITHIN);
	assert_int_equal(stats_verdict(up, 1, 0.25), STATS_UNKNOWN);
	assert_int_equal(stats_verdict(up, N(up), NAN), STATS_UNKNOWN);
	assert_int_equal(stats_verdict(up, N(up), 0), STATS_ABOVE);
	assert_string_equal(stats_verdict_name(STATS_ABOVE), "above");
	assert_string_equal(stats_verdict_name(STATS_BELOW), "below");
	assert_string_equal(stats_verdict_name(STATS_WITHIN), "within");
	assert_string_equal(stats_verdict_name(STATS_UNKNOWN), "unknown");
}

static void
test_median_ci(void **state)
{
	const double v5[] = { 5, 4, 3, 2, 1 };
	const double v6[] = { 6, 1, 5, 2, 4, 3 };
	const double v10[] = { 10, 9, 8, 7, 6, 5, 4, 3, 2, 1 };
	double lo = 0, hi = 0, level = 0;

	(void)state;
	/* n = 5: even [min, max] covers only 1 - 2/32 = 93.75%. */
	assert_false(stats_median_ci(v5, 5, 0.95, &lo, &hi, &level));
	/* n = 6: [x(1), x(6)], coverage 1 - 2/64. */
	assert_true(stats_median_ci(v6, 6, 0.95, &lo, &hi, &level));
	assert_near(lo, 1, 0);
	assert_near(hi, 6, 0);
	assert_near(level, 1 - 2.0 / 64, 1e-12);
	/* n = 10: P(B <= 1) = 11/1024 -> 97.85% for k = 2; k = 3 gives
	 * 1 - 2 * 56/1024 = 89.06% < 95%, so [x(2), x(9)]. */
	assert_true(stats_median_ci(v10, 10, 0.95, &lo, &hi, &level));
	assert_near(lo, 2, 0);
	assert_near(hi, 9, 0);
	assert_near(level, 1 - 22.0 / 1024, 1e-12);
	/* A lower level asked: k = 3 now qualifies. */
	assert_true(stats_median_ci(v10, 10, 0.80, &lo, &hi, &level));
	assert_near(lo, 3, 0);
	assert_near(hi, 8, 0);
}

static void
test_median_ci_large(void **state)
{
	static double v[20001];
	double lo, hi, level;

	(void)state;
	for (size_t i = 0; i < N(v); i++)
		v[i] = (double)i;
	/* Normal approximation: k ~ n/2 - 0.98 sqrt(n) ~ 9862. */
	assert_true(stats_median_ci(v, N(v), 0.95, &lo, &hi, &level));
	assert_true(lo > 9850 && lo < 9875);
	assert_near(hi, (double)(N(v) - 1) - lo, 0);
	assert_true(level >= 0.95 && level < 0.96);
}

static void
test_signal_ipc(void **state)
{
	(void)state;
	assert_near(stats_signal(1.1, 0.05), 2, 1e-12);
	assert_near(stats_signal(0.9, 0.05), 2, 1e-12);
	assert_true(isnan(stats_signal(1.1, 0)));
	assert_true(isnan(stats_signal(1.1, NAN)));
	assert_true(isnan(stats_signal(NAN, 0.1)));
	assert_near(stats_ipc(3000, 2000), 1.5, 0);
	assert_true(isnan(stats_ipc(3000, 0)));
	assert_true(isnan(stats_ipc(NAN, 2000)));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_min_max),
		cmocka_unit_test(test_geomean),
		cmocka_unit_test(test_ratios),
		cmocka_unit_test(test_floor),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_median_ci),
		cmocka_unit_test(test_median_ci_large),
		cmocka_unit_test(test_signal_ipc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
