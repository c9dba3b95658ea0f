/* test: */
/* stats_floor: the floor estimator's ranks, tail, interval, and the
 * invariances its definition promises (benchtui(1) STATISTICS). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "stats_floor.h"

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void
test_rank(void **state)
{
	(void)state;
	assert_int_equal(stats_floor_rank(0), 0);
	assert_int_equal(stats_floor_rank(1), 1);
	assert_int_equal(stats_floor_rank(20), 1);
	assert_int_equal(stats_floor_rank(21), 2);
	assert_int_equal(stats_floor_rank(40), 2);
	assert_int_equal(stats_floor_rank(41), 3);
	assert_int_equal(stats_floor_rank(1000), 50);
}

/* Hand-counted hypergeometric sums. */
static void
test_tail(void **state)
{
	(void)state;
	/* v = 1: every one of the lowest u pooled values is the other
	 * arm's: C(n, u) / C(2n, u). */
	assert_near(stats_floor_tail(4, 4, 1), 1.0 / 70, 1e-15);
	assert_near(stats_floor_tail(6, 5, 1), 6.0 / 792, 1e-15);
	assert_near(stats_floor_tail(6, 4, 1), 15.0 / 495, 1e-15);
	/* n 10, u 8, v 2: lowest 9, at most one of the arm's:
	 * (C(10,0) C(10,9) + C(10,1) C(10,8)) / C(20,9). */
	assert_near(stats_floor_tail(10, 8, 2), 460.0 / 167960, 1e-15);
	/* u = n with v > 1 leaves out the impossible j (k - j > n): n 3,
	 * lowest 4, j = 1 only: C(3,1) C(3,3) / C(6,4). */
	assert_near(stats_floor_tail(3, 3, 2), 3.0 / 15, 1e-15);
	assert_true(isnan(stats_floor_tail(4, 1, 1)));
	assert_true(isnan(stats_floor_tail(4, 5, 1)));
	assert_true(isnan(stats_floor_tail(4, 3, 0)));
	/* It falls as u grows, which the bisection relies on. */
	for (size_t n = 2; n <= 300; n += 7) {
		size_t v = stats_floor_rank(n);
		for (size_t u = v + 2; u <= n; u++)
			assert_true(stats_floor_tail(n, u, v) <
			    stats_floor_tail(n, u - 1, v));
	}
}

static void
test_u(void **state)
{
	(void)state;
	assert_int_equal(stats_floor_u(3, 0.95), 0);
	assert_int_equal(stats_floor_u(4, 0.95), 4);
	assert_int_equal(stats_floor_u(6, 0.95), 5);  /* 15/495 > .025 */
	assert_int_equal(stats_floor_u(10, 0.95), 5); /* 210/4845 > .025 */
	assert_int_equal(stats_floor_u(4, 0.99), 0);
	assert_int_equal(stats_floor_u(0, 0.95), 0);
	assert_int_equal(stats_floor_min_n(0.95), 4);
	assert_int_equal(stats_floor_min_n(0.99), 5);
	/* The definition: the smallest u whose tail is within alpha. */
	for (size_t n = 4; n <= 2000; n = n * 3 / 2 + 1) {
		size_t u = stats_floor_u(n, 0.95), v = stats_floor_rank(n);
		assert_true(u > v && u <= n);
		assert_true(stats_floor_tail(n, u, v) <= 0.025);
		if (u > v + 1)
			assert_true(stats_floor_tail(n, u - 1, v) > 0.025);
	}
	/* A 1M-leg log's n: the bisection stays cheap and in range. */
	assert_true(stats_floor_u(250000, 0.95) > stats_floor_rank(250000));
}

static void
test_interval(void **state)
{
	/* Reps out of order: sorted a = 10 11 12 13 14 15, b = 9 .. 14. */
	const double a[] = { 13, 10, 15, 11, 14, 12 };
	const double b[] = { 9, 14, 10, 13, 11, 12 };
	double est, lo, hi;

	(void)state;
	assert_true(stats_floor_interval(a, b, N(a), 0.95, &est, &lo, &hi));
	assert_near(est, 10.0 / 9, 1e-15);      /* a(1) / b(1) */
	assert_near(lo, 10.0 / 13, 1e-15);      /* a(1) / b(5) */
	assert_near(hi, 14.0 / 9, 1e-15);       /* a(5) / b(1) */
	assert_near(a[0], 13, 0);               /* the input is not sorted */
	assert_false(stats_floor_interval(a, b, 3, 0.95, &est, &lo, &hi));
	assert_near(est, 10.0 / 9, 1e-15);      /* an estimate from n = 1 */
	assert_true(isnan(lo) && isnan(hi));
	assert_false(stats_floor_interval(a, b, 0, 0.95, &est, &lo, &hi));
	assert_true(isnan(est));
}

/* Scale, swap and order: what the definition promises. */
static void
test_invariance(void **state)
{
	double a[40], b[40], ca[40], cb[40], est, lo, hi, e2, l2, h2;
	uint64_t x = 7;

	(void)state;
	for (size_t i = 0; i < 40; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		a[i] = 1.0 + (double)(x >> 40) / (double)(1 << 24);
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		b[i] = 1.0 + (double)(x >> 40) / (double)(1 << 24);
	}
	assert_true(stats_floor_interval(a, b, 40, 0.95, &est, &lo, &hi));
	assert_true(lo <= est && est <= hi);
	/* Both arms in other units: the same ratios. */
	for (size_t i = 0; i < 40; i++) {
		ca[i] = a[i] * 1e-3;
		cb[i] = b[i] * 1e-3;
	}
	assert_true(stats_floor_interval(ca, cb, 40, 0.95, &e2, &l2, &h2));
	assert_near(e2, est, 1e-14);
	assert_near(l2, lo, 1e-14);
	assert_near(h2, hi, 1e-14);
	/* The arm 10% slower: everything 1.1 times. */
	for (size_t i = 0; i < 40; i++)
		ca[i] = a[i] * 1.1;
	assert_true(stats_floor_interval(ca, b, 40, 0.95, &e2, &l2, &h2));
	assert_near(e2, est * 1.1, 1e-14);
	assert_near(l2, lo * 1.1, 1e-14);
	assert_near(h2, hi * 1.1, 1e-14);
	/* The arms swapped: the reciprocals. */
	assert_true(stats_floor_interval(b, a, 40, 0.95, &e2, &l2, &h2));
	assert_near(e2, 1 / est, 1e-14);
	assert_near(l2, 1 / hi, 1e-14);
	assert_near(h2, 1 / lo, 1e-14);
	/* The reps in another order (the pairing plays no part). */
	for (size_t i = 0; i < 40; i++) {
		ca[i] = a[39 - i];
		cb[i] = b[(i + 13) % 40];
	}
	assert_true(stats_floor_interval(ca, cb, 40, 0.95, &e2, &l2, &h2));
	assert_near(e2, est, 0);
	assert_near(l2, lo, 0);
	assert_near(h2, hi, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rank),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_u),
		cmocka_unit_test(test_interval),
		cmocka_unit_test(test_invariance),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
