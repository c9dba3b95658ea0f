/* The floor estimator (see stats_floor.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_floor.h"
#include "stats_int.h"
#include "xalloc.h"

size_t
stats_floor_rank(size_t n)
{
	return n == 0 ? 0 : (n + 19) / 20;
}

static double
stats_floor_lchoose(size_t n, size_t k)
{
	return lgamma((double)n + 1) - lgamma((double)k + 1) -
	    lgamma((double)(n - k) + 1);
}

double
stats_floor_tail(size_t n, size_t u, size_t v)
{
	size_t k = u + v - 1;
	double lall, sum = 0;

	if (v < 1 || u <= v || u > n)
		return NAN;
	lall = stats_floor_lchoose(2 * n, k);
	/* j of the arm's values among the lowest k, k - j of the other
	 * arm's; k - j <= n, so j >= k - n (u <= n keeps that below v). */
	for (size_t j = k > n ? k - n : 0; j < v; j++)
		sum += exp(stats_floor_lchoose(n, j) +
		    stats_floor_lchoose(n, k - j) - lall);
	return sum;
}

/* Whether tail(n, u, v) <= (1 - level) / 2.  The doubles (lgamma, exp)
 * decide only when the tail is more than a millionth away from the
 * bound, a thousand times their error anywhere; closer, the integers do
 * (stats_exact.c), so a level within an ulp of a tail gets the same u on
 * every machine. */
static bool
stats_floor_le(size_t n, size_t u, size_t v, double level)
{
	double alpha = (1.0 - level) / 2.0, t = stats_floor_tail(n, u, v);

	if (t < alpha * (1 - 1e-6))
		return true;
	if (t > alpha * (1 + 1e-6))
		return false;
	return stats_floor_tail_le(n, u, v, level);
}

size_t
stats_floor_u(size_t n, double level)
{
	size_t v = stats_floor_rank(n), lo, hi;

	if (n == 0 || !(level > 0) || !(level < 1) || v >= n ||
	    !stats_floor_le(n, n, v, level))
		return 0;
	/* The tail falls as u grows: the smallest u in (v, n] at or below
	 * alpha.  hi always satisfies it, lo - 1 never does. */
	lo = v + 1;
	hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (stats_floor_le(n, mid, v, level))
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

size_t
stats_floor_min_n(double level)
{
	size_t n;

	if (!(level > 0) || !(level < 1))
		return 0;
	/* 1 / C(2n, n) shrinks about 4x a step: a few dozen at most. */
	for (n = 1; n < 1100 && stats_floor_u(n, level) == 0; n++)
		;
	return n;
}

bool
stats_floor_sorted(const double *sa, const double *sb, size_t n, size_t u,
    double *est, double *lo, double *hi)
{
	size_t v = stats_floor_rank(n);

	*est = *lo = *hi = NAN;
	if (n == 0)
		return false;
	*est = sa[v - 1] / sb[v - 1];
	if (u != 0) {
		*lo = sa[v - 1] / sb[u - 1];
		*hi = sa[u - 1] / sb[v - 1];
	}
	return u != 0;
}

bool
stats_floor_interval(const double *a, const double *b, size_t n,
    double level, double *est, double *lo, double *hi)
{
	double *sa, *sb;
	bool has_ci;

	if (n == 0)
		return stats_floor_sorted(a, b, 0, 0, est, lo, hi);
	/* O(n log n): two sorted copies. */
	sa = xreallocarray(NULL, 2 * n, sizeof *sa);
	sb = sa + n;
	memcpy(sa, a, n * sizeof *sa);
	memcpy(sb, b, n * sizeof *sb);
	stats_sort(sa, n);
	stats_sort(sb, n);
	has_ci = stats_floor_sorted(sa, sb, n, stats_floor_u(n, level), est,
	    lo, hi);
	free(sa);
	return has_ci;
}
