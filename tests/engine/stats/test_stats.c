/* test: est=6 */
/* stats: hand-computed cases for every function of stats.h. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
	/* rep 2 not ok (failed leg), rep 3 missing in A, rep 4 B is 0, rep 6
	 * A is 0 (a count of 0 gives no ratio either). */
	const double a[] = { 2, 3, NAN, 1, 5, 0 }, b[] = { 1, 1, 1, 0, 4, 2 };
	const bool ok[] = { true, false, true, true, true, true };
	double out[6];

	(void)state;
	assert_int_equal(stats_ratios(a, b, ok, 6, out), 2);
	assert_near(out[0], 2, 0);
	assert_near(out[1], 1.25, 0);
	assert_int_equal(stats_ratios(a, b, NULL, 6, out), 3);
	assert_near(out[1], 3, 0);
}

static void
test_spread(void **state)
{
	const double r[] = { 1.02, 0.97, 1.0 }, e[] = { 1.25, 0.75 };

	(void)state;
	assert_near(stats_spread(r, N(r)), 0.03, 1e-12);
	assert_near(stats_spread(e, N(e)), 0.25, 0);
	assert_true(isnan(stats_spread(r, 0)));
}

static void
test_wilcoxon_k(void **state)
{
	(void)state;
	/* Exact tails from the tables of the signed-rank statistic:
	 * n = 5: P(T <= 0) = 1/32 > 0.025, so no interval at 0.95;
	 * n = 6: P(T <= 0) = 1/64, P(T <= 1) = 2/64 -> k = 1;
	 * n = 7: P(T <= 2) = 3/128, P(T <= 3) = 5/128 -> k = 3;
	 * n = 10: P(T <= 8) = 25/1024, P(T <= 9) = 33/1024 -> k = 9. */
	assert_int_equal(stats_wilcoxon_k(5, 0.95), 0);
	assert_int_equal(stats_wilcoxon_k(6, 0.95), 1);
	assert_int_equal(stats_wilcoxon_k(7, 0.95), 3);
	assert_int_equal(stats_wilcoxon_k(10, 0.95), 9);
	/* n = 5 at 0.90: P(T <= 0) = 1/32 <= 0.05 < P(T <= 1) -> k = 1. */
	assert_int_equal(stats_wilcoxon_k(5, 0.90), 1);
	assert_int_equal(stats_wilcoxon_k(0, 0.95), 0);
	assert_int_equal(stats_min_n(0.95), 6);
	assert_int_equal(stats_min_n(0.99), 8);
	assert_int_equal(stats_min_n(0.90), 5);
	for (size_t n = 1; n < 12; n++)
		assert_true((stats_wilcoxon_k(n, 0.99) > 0) ==
		    (n >= stats_min_n(0.99)));
	/* Beyond the exact range: floor(M/2 - 1.959964 sd). */
	assert_int_equal(stats_wilcoxon_k(2500, 0.95),
	    (uint64_t)floor(2500.0 * 2501 / 4 - 1.959963984540054 *
	    sqrt(2500.0 * 2501 * 5001 / 24)));
}

/* k the obvious way: the whole null distribution up to M/2, every step
 * over all of it (as stats.c did before it built half of it above a cut). */
static uint64_t
whole_k(size_t n, double level)
{
	size_t m = n * (n + 1) / 2, tmax = m / 2, top = 0;
	double *p = calloc(tmax + 1, sizeof *p), *q = calloc(tmax + 1, sizeof *q);
	double alpha = (1 - level) / 2, cdf = 0, *tmp;
	uint64_t k = 0;

	p[0] = 1;
	for (size_t i = 1; i <= n; i++) {
		top = top + i > tmax ? tmax : top + i;
		for (size_t t = 0; t <= top; t++)
			q[t] = t < i ? 0.5 * p[t] : 0.5 * (p[t] + p[t - i]);
		tmp = p, p = q, q = tmp;
	}
	for (size_t t = 0; t <= tmax && (cdf += p[t]) <= alpha; t++)
		k = t + 1;
	free(p);
	free(q);
	return k;
}

static void
test_wilcoxon_k_whole(void **state)
{
	/* 0.96875: alpha = 1/64 = P(T <= 0) at n = 6 exactly, where the
	 * sums are checked against the whole distribution. */
	const double levels[] = { 0.8, 0.9, 0.95, 0.96875, 0.99, 0.999 };
	const size_t big[] = { 500, 777, 1000 };

	(void)state;
	for (size_t n = 1; n <= 200; n++)
		for (size_t j = 0; j < N(levels); j++)
			assert_int_equal(stats_wilcoxon_k(n, levels[j]),
			    whole_k(n, levels[j]));
	for (size_t j = 0; j < N(big); j++)
		assert_int_equal(stats_wilcoxon_k(big[j], 0.95),
		    whole_k(big[j], 0.95));
}

/* Every Walsh average listed and sorted, the obvious way. */
static int
cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void
test_walsh_select(void **state)
{
	/* Ties, zeros and negatives. */
	double x[] = { -2, -0.5, 0, 0, 0.25, 0.25, 0.25, 1, 3 };
	size_t n = N(x), m = n * (n + 1) / 2, k = 0;
	double w[45];

	(void)state;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i; j < n; j++)
			w[k++] = (x[i] + x[j]) / 2;
	qsort(w, m, sizeof *w, cmpd);
	for (k = 1; k <= m; k++)
		assert_true(stats_walsh_select(x, n, k) == w[k - 1]);
	assert_true(isnan(stats_walsh_select(x, n, 0)));
	assert_true(isnan(stats_walsh_select(x, n, m + 1)));
}

static void
test_interval(void **state)
{
	/* Ratios 2^-1, 1, 2, 4, 8, 16: log2 -1, 0, 1, 2, 3, 4.  k = 1 at
	 * 0.95: [W(1), W(21)] = [x(1), x(6)]; 21 averages, the 11th is 1.5. */
	const double r[] = { 2, 0.5, 16, 1, 8, 4 };
	double est, lo, hi;

	(void)state;
	assert_true(stats_interval(r, 6, 1, &est, &lo, &hi));
	assert_near(lo, 0.5, 1e-12);
	assert_near(hi, 16, 1e-12);
	assert_near(est, pow(2, 1.5), 1e-12);
	/* No k: an estimate but no interval. */
	assert_false(stats_interval(r, 6, 0, &est, &lo, &hi));
	assert_near(est, pow(2, 1.5), 1e-12);
	assert_true(isnan(lo) && isnan(hi));
	/* n = 2: 3 averages, the middle one. */
	assert_false(stats_interval(r, 2, 0, &est, &lo, &hi));
	assert_near(est, pow(2, 0), 1e-12);
	/* n = 4, M = 10 even: the mean of the 5th and 6th. */
	{
		const double q[] = { 2, 0.5, 16, 1 }; /* logs -1 0 1 4 */
		/* averages: -1 -.5 0 0 .5 1 1.5 2 2.5 4: mean of .5 and 1 */
		stats_interval(q, 4, 0, &est, &lo, &hi);
		assert_near(est, pow(2, 0.75), 1e-12);
	}
	assert_false(stats_interval(r, 0, 1, &est, &lo, &hi));
	assert_true(isnan(est));
}

static void
test_two_sample(void **state)
{
	/* Ties, negatives, and a difference that occurs more than once. */
	const double x[] = { -1, 0, 0, 0.5, 2 }, y[] = { -0.5, 0, 1, 1, 3, 4 };
	const double a[] = { 1, 2, 4 }, b[] = { 2, 4, 8, 16 };
	size_t na = N(x), nb = N(y), k = 0;
	double d[30], est, lo, hi;

	(void)state;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			d[k++] = y[j] - x[i];
	qsort(d, na * nb, sizeof *d, cmpd);
	for (k = 1; k <= na * nb; k++)
		assert_true(stats_diff_select(x, na, y, nb, k) == d[k - 1]);
	assert_true(isnan(stats_diff_select(x, na, y, nb, 0)));
	assert_true(isnan(stats_diff_select(x, na, y, nb, na * nb + 1)));
	/* Tables of U (qwilcox): k = 1 at 4 and 4, 3 at 5 and 5, 24 at 10
	 * and 10; none at 3 and 3 (P(U <= 0) = 1/20 > 0.025). */
	assert_int_equal(stats_mw_k(4, 4, 0.95, 0), 1);
	assert_int_equal(stats_mw_k(5, 5, 0.95, 0), 3);
	assert_int_equal(stats_mw_k(10, 10, 0.95, 0), 24);
	assert_int_equal(stats_mw_k(3, 3, 0.95, 0), 0);
	assert_int_equal(stats_mw_k(0, 5, 0.95, 0), 0);
	/* Past the exact limit: floor(N/2 - z sigma). */
	assert_int_equal(stats_mw_k(60, 40, 0.95, 0), (uint64_t)floor(1200 -
	    1.959963984540054 * sqrt(2400.0 / 12 * 101)));
	assert_near(stats_tie_sum(x, na, y, nb), 24 + 6, 0);
	/* B = 2^{1,2,3,4} against A = 2^{0,1,2}: differences 2^{-1..4}, 12
	 * of them, the 6th and 7th 2^1 and 2^2; ties, so the normal
	 * approximation, which gives no k >= 1 at 3 and 4. */
	assert_false(stats_interval2(a, 3, b, 4, 0.95, &est, &lo, &hi));
	assert_near(est, pow(2, 1.5), 1e-12);
	assert_true(isnan(lo));
	assert_false(stats_interval2(a, 0, b, 4, 0.95, &est, &lo, &hi));
	assert_true(isnan(est));
}

static void
test_verdict(void **state)
{
	(void)state;
	assert_int_equal(stats_verdict(true, 0.995, 1.009, 0.01), STATS_SAME);
	/* The margin's edges belong to same: 1/(1+m) and 1+m. */
	assert_int_equal(stats_verdict(true, 1 / 1.01, 1.01, 0.01), STATS_SAME);
	assert_int_equal(stats_verdict(true, 1.001, 1.011, 0.01), STATS_ABOVE);
	assert_int_equal(stats_verdict(true, 0.90, 0.999, 0.01), STATS_BELOW);
	assert_int_equal(stats_verdict(true, 0.98, 1.02, 0.01), STATS_UNDECIDED);
	/* Inside the margin wins over above: a tiny, certain effect is same. */
	assert_int_equal(stats_verdict(true, 1.001, 1.002, 0.01), STATS_SAME);
	assert_int_equal(stats_verdict(false, NAN, NAN, 0.01), STATS_UNKNOWN);
	assert_string_equal(stats_verdict_name(STATS_SAME), "same");
	assert_string_equal(stats_verdict_name(STATS_ABOVE), "above");
	assert_string_equal(stats_verdict_name(STATS_BELOW), "below");
	assert_string_equal(stats_verdict_name(STATS_UNDECIDED), "undecided");
	assert_string_equal(stats_verdict_name(STATS_UNKNOWN), "unknown");
	assert_true(stats_decided(STATS_SAME) && !stats_decided(STATS_UNDECIDED));
	assert_near(stats_look_level(0.95, 5), 0.99, 1e-12);
}

/* SPEC.md's example: an interval of 10 reps 3.4% wide each side of its
 * centre, at a margin of 1%. */
static void
test_mde(void **state)
{
	double lo = 0.97, hi = lo * 1.034 * 1.034;

	(void)state;
	assert_near(stats_mde(true, lo, hi), 0.034, 1e-12);
	assert_near(stats_mde(true, 1 / 1.05, 1.05), 0.05, 1e-12);
	assert_true(isnan(stats_mde(false, NAN, NAN)));
	assert_true(isnan(stats_mde(true, 0, 1)));
	/* 10 (ln 1.034 / ln 1.01)^2 = 112.9: 113 reps. */
	assert_int_equal(stats_reps_for_margin(10, true, lo, hi, 0.01), 113);
	/* Already narrower than the margin: the reps it has. */
	assert_int_equal(stats_reps_for_margin(10, true, 0.999, 1.001, 0.01),
	    10);
	/* Twice the margin's width: four times the reps. */
	assert_int_equal(stats_reps_for_margin(25, true, 1 / 1.0201, 1.0201,
	    0.01), 100);
	assert_int_equal(stats_reps_for_margin(10, false, NAN, NAN, 0.01), 0);
	assert_int_equal(stats_reps_for_margin(10, true, lo, hi, 0), 0);
}

static void
test_large(void **state)
{
	/* A million ratios: selection, not listing 5e11 averages. */
	size_t n = 1000000;
	double *r = malloc(n * sizeof *r), est, lo, hi;
	uint64_t k = stats_wilcoxon_k(n, 0.95);

	(void)state;
	assert_non_null(r);
	for (size_t i = 0; i < n; i++)
		r[i] = exp(((double)(i * 7919 % n) / (double)n - 0.5) * 0.1);
	assert_true(stats_interval(r, n, k, &est, &lo, &hi));
	assert_near(est, 1, 1e-4);
	assert_true(lo < 1 && hi > 1 && hi - lo < 0.001);
	free(r);
}

static void
test_ipc(void **state)
{
	(void)state;
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
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_wilcoxon_k),
		cmocka_unit_test(test_wilcoxon_k_whole),
		cmocka_unit_test(test_walsh_select),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_two_sample),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_mde),
		cmocka_unit_test(test_large),
		cmocka_unit_test(test_ipc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
