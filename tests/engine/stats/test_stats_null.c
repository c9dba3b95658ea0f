/* test: est=18 */
/* test stats_null_shuffled: asan-covered est=12 arg=shuffled long */
/* stats_null: k of the signed-rank interval built on a kept distribution
 * (the one of a smaller n, one step or more on) is the k of the whole
 * distribution, for every n up to 2500, in order and out of it (the
 * shuffle over all of them is the test stats_null_shuffled), and the
 * steps are taken as claimed (stats_null_used). */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stats.h"
#include "stats_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define NULL_MAX 2500

/* Ascending alpha: one scan finds each k in turn. */
static const double null_levels[] = { 0.99, 0.95 };
/* The normal quantiles of (1 + level) / 2, for n past STATS_EXACT_MAX. */
static const double null_z[] = { 2.5758293035489004, 1.959963984540054 };

/* k by n and level: the whole distribution's (test_stats.c's whole_k, all
 * n from one pass), the normal approximation past STATS_EXACT_MAX. */
static uint64_t null_ref[NULL_MAX + 1][N(null_levels)];

/* The k of each level for the whole distribution p at n (cdf from t = 0,
 * as whole_k sums it), p known up to M/2. */
static void
null_ref_scan(const double *p, size_t n)
{
	size_t tmax = n * (n + 1) / 4, j = 0;
	double cdf = 0;

	for (size_t t = 0; t <= tmax && j < N(null_levels); t++) {
		cdf += p[t];
		while (j < N(null_levels) && cdf > (1 - null_levels[j]) / 2)
			null_ref[n][j++] = t;
	}
	for (; j < N(null_levels); j++)
		null_ref[n][j] = tmax + 1;
}

/* Every step over the whole distribution up to the largest M/2, each
 * value the same double whole_k makes (the values at t depend on those
 * at t and below only). */
static int
null_setup(void **state)
{
	size_t tmax = (size_t)STATS_EXACT_MAX * (STATS_EXACT_MAX + 1) / 4;
	double *p = calloc(tmax + 1, sizeof *p), *q = calloc(tmax + 1,
	    sizeof *q), *tmp;
	size_t top = 0;

	(void)state;
	if (p == NULL || q == NULL)
		return -1;
	p[0] = 1;
	for (size_t i = 1; i <= STATS_EXACT_MAX; i++) {
		const double *restrict a = p;
		double *restrict b = q;
		top = top + i > tmax ? tmax : top + i;
		for (size_t t = 0; t < i && t <= top; t++)
			b[t] = 0.5 * a[t];
		for (size_t t = i; t <= top; t++)
			b[t] = 0.5 * (a[t] + a[t - i]);
		tmp = p, p = q, q = tmp;
		null_ref_scan(p, i);
	}
	for (size_t n = STATS_EXACT_MAX + 1; n <= NULL_MAX; n++)
		for (size_t j = 0; j < N(null_levels); j++)
			null_ref[n][j] = (uint64_t)floor((double)n * (n + 1) /
			    4 - null_z[j] * sqrt((double)n * (n + 1) *
			    (2 * n + 1) / 24));
	free(p);
	free(q);
	return 0;
}

/* How many of the levels' k at n differ from the whole distribution's. */
static int
null_check(size_t n)
{
	int bad = 0;

	for (size_t j = 0; j < N(null_levels); j++)
		if (stats_wilcoxon_k(n, null_levels[j]) != null_ref[n][j]) {
			print_error("n = %zu level %g: k %llu, whole %llu\n", n,
			    null_levels[j], (unsigned long long)
			    stats_wilcoxon_k(n, null_levels[j]),
			    (unsigned long long)null_ref[n][j]);
			bad++;
		}
	return bad;
}

/* n = 2..2500 in order: each exact n one step on from n - 1 (the second
 * level reads the same distribution), nothing built from nothing. */
static void
test_null_in_order(void **state)
{
	struct stats_null_use a, b;

	(void)state;
	stats_wilcoxon_forget();
	assert_int_equal(null_check(1), 0);
	for (size_t n = 2; n <= NULL_MAX; n++) {
		stats_null_used(&a);
		assert_int_equal(null_check(n), 0);
		stats_null_used(&b);
		assert_int_equal(b.built, a.built);
		assert_int_equal(b.extended - a.extended,
		    n <= STATS_EXACT_MAX ? 1 : 0);
		assert_int_equal(b.steps - a.steps,
		    n <= STATS_EXACT_MAX ? 1 : 0);
		assert_int_equal(b.reused - a.reused,
		    n <= STATS_EXACT_MAX ? N(null_levels) - 1 : 0);
		assert_int_equal(b.unkept, a.unkept);
	}
}

/* n = 2..null_shuffle_max shuffled, the first null_shuffle_take of them:
 * built from nothing where nothing kept lies at or below n, else on the
 * kept one; the same k either way.  The test stats_null_shuffled takes
 * 600 n drawn from all of 2..2500 (every size of window, in random
 * order: 2.5 s; all 2499 took 10 s here, the in-order test covers every
 * n); the sanitizer build runs all of 2..400 (the same lines). */
static size_t null_shuffle_max = 400, null_shuffle_take = 399;

static void
test_null_shuffled(void **state)
{
	size_t v[NULL_MAX - 1], m = null_shuffle_max - 1;
	uint64_t x = 0x9e3779b97f4a7c15u;
	struct stats_null_use a, b;

	(void)state;
	for (size_t i = 0; i < m; i++)
		v[i] = i + 2;
	for (size_t i = m - 1; i > 0; i--) {
		size_t j, t;
		x = x * 6364136223846793005u + 1442695040888963407u;
		j = (size_t)((x >> 33) % (i + 1));
		t = v[i], v[i] = v[j], v[j] = t;
	}
	stats_wilcoxon_forget();
	stats_null_used(&a);
	for (size_t i = 0; i < m && i < null_shuffle_take; i++)
		assert_int_equal(null_check(v[i]), 0);
	stats_null_used(&b);
	assert_true(b.built > a.built);
	assert_true(b.extended > a.extended);
	assert_int_equal(b.unkept, a.unkept);
}

/* From nothing at each n (nothing kept), as before there was a kept one:
 * every n up to 300 (the window moves most often relative to its size
 * there) and a few large ones. */
static void
test_null_fresh(void **state)
{
	const size_t big[] = { 500, 1000, 1999, 2000 };
	struct stats_null_use a, b;

	(void)state;
	for (size_t n = 1; n <= 300 + N(big); n++) {
		size_t at = n <= 300 ? n : big[n - 301];
		stats_wilcoxon_forget();
		stats_null_used(&a);
		assert_int_equal(null_check(at), 0);
		stats_null_used(&b);
		assert_int_equal(b.built - a.built, 1);
		assert_int_equal(b.steps - a.steps, at);
	}
}

/* Three threads in order at once from the same start, one more than the
 * distributions kept: each k still the whole distribution's (a busy one
 * is never shared; the third builds its own). */
static pthread_barrier_t null_start;

static void *
null_thread(void *arg)
{
	size_t bad = 0;

	(void)arg;
	pthread_barrier_wait(&null_start);
	for (size_t n = 2; n <= 1200; n++)
		bad += stats_wilcoxon_k(n, 0.95) != null_ref[n][1];
	return (void *)bad;
}

static void
test_null_threads(void **state)
{
	pthread_t th[3];
	void *bad;

	(void)state;
	stats_wilcoxon_forget();
	assert_int_equal(pthread_barrier_init(&null_start, NULL, N(th)), 0);
	for (size_t i = 0; i < N(th); i++)
		assert_int_equal(pthread_create(&th[i], NULL, null_thread,
		    NULL), 0);
	for (size_t i = 0; i < N(th); i++) {
		assert_int_equal(pthread_join(th[i], &bad), 0);
		assert_null(bad);
	}
	pthread_barrier_destroy(&null_start);
}

/* No argument: every test, the shuffle over 2..400; "shuffled": the
 * shuffle alone, 600 n of 2..2500. */
int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_in_order),
		cmocka_unit_test(test_null_shuffled),
		cmocka_unit_test(test_null_fresh),
		cmocka_unit_test(test_null_threads),
	};
	const struct CMUnitTest all[] = {
		cmocka_unit_test(test_null_shuffled),
	};

	if (argc > 1 && strcmp(argv[1], "shuffled") == 0) {
		null_shuffle_max = NULL_MAX;
		null_shuffle_take = 600;
		return cmocka_run_group_tests(all, null_setup, NULL);
	}
	return cmocka_run_group_tests(tests, null_setup, NULL);
}
