/* Statistics: two independent samples (see stats.h), beside the paired
 * arithmetic of stats.c and sharing its selection (stats_int.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_int.h"
#include "xalloc.h"

/* The largest k with P(U <= k-1) <= alpha for the Mann-Whitney statistic
 * U of samples of m and n under the null, from its exact distribution.
 * Mann and Whitney's recurrence: the largest of the m + n values belongs
 * to the first sample with probability m / (m + n), and then adds n to U,
 * so P[m,n](u) = m/(m+n) P[m-1,n](u-n) + n/(m+n) P[m,n-1](u).  Row a of p
 * holds P[a,b] for the b reached so far, for u in [0, mn/2] only: the
 * answer lies below the middle (P(U <= mn/2) >= 1/2 > alpha).  O(m^2 n^2
 * / 2) work: 3e6 steps at 50 and 50. */
static uint64_t
stats_mw_exact_k(size_t m, size_t n, double alpha)
{
	size_t half = m * n / 2, w = half + 1;
	double *p = xcalloc((m + 1) * w, sizeof *p), cdf = 0;
	uint64_t k = 0;

	for (size_t a = 0; a <= m; a++)
		p[a * w] = 1.0;           /* P[a,0]: U = 0 surely */
	for (size_t b = 1; b <= n; b++)
		for (size_t a = 1; a <= m; a++) {
			double wa = (double)a / (double)(a + b);
			double wb = (double)b / (double)(a + b);
			double *row = p + a * w;
			const double *prev = p + (a - 1) * w;
			for (size_t u = 0; u < w; u++)
				row[u] = wb * row[u] +
				    (u >= b ? wa * prev[u - b] : 0.0);
		}
	for (size_t u = 0; u < w; u++) {
		cdf += p[m * w + u];
		if (cdf > alpha)
			break;
		k = u + 1;
	}
	free(p);
	return k;
}

uint64_t
stats_mw_k(size_t na, size_t nb, double level, double ties)
{
	double alpha = (1.0 - level) / 2.0, nn, z, var, kk;

	if (na == 0 || nb == 0 || !(level > 0) || !(level < 1))
		return 0;
	if (ties == 0 && na <= STATS_MW_EXACT_MAX && nb <= STATS_MW_EXACT_MAX)
		return stats_mw_exact_k(na, nb, alpha);
	nn = (double)na + (double)nb;
	z = stats_normal_quantile((1.0 + level) / 2.0);
	var = (double)na * (double)nb / 12.0 *
	    ((nn + 1.0) - ties / (nn * (nn - 1.0)));
	kk = floor((double)na * (double)nb / 2.0 - z * sqrt(var > 0 ? var : 0));
	return kk >= 1 ? (uint64_t)kk : 0;
}

double
stats_tie_sum(const double *x, size_t na, const double *y, size_t nb)
{
	size_t i = 0, j = 0;
	double sum = 0, last = NAN, run = 0;

	/* The pooled sample in order, merged from the two sorted ones. */
	while (i < na || j < nb) {
		double v = j >= nb || (i < na && x[i] <= y[j]) ? x[i++] : y[j++];
		if (v == last)
			run++;
		else {
			sum += run * run * run - run;
			run = 1;
			last = v;
		}
	}
	return sum + run * run * run - run;
}

/* Two sorted samples whose differences y[j] - x[i] stats_diff_count
 * counts. */
struct stats_diffs {
	const double *x, *y;
	size_t na, nb;
};

/* How many differences y[j] - x[i] are <= v.  A difference rounds
 * monotonically in each of y[j] and x[i]: for each j the i that qualify
 * are a tail of x, and that tail only shrinks as j moves up, so one
 * O(na + nb) sweep, written as a merge whose every step moves i or j
 * without a branch (the branchy sweep mispredicts once per j). */
static uint64_t
stats_diff_count(const void *arg, double v)
{
	const struct stats_diffs *d = arg;
	const double *x = d->x, *y = d->y;
	uint64_t count = 0;
	size_t i = 0, j = 0, na = d->na, nb = d->nb;

	while (i < na && j < nb) {
		size_t in = !(y[j] - x[i] <= v);  /* x[i] is not in j's tail */
		i += in;
		count += (1 - in) * (na - i);
		j += 1 - in;
	}
	return count;
}

/* The differences in (a, b]: for each j, the x[i] between the tail that
 * qualifies for b and the one that qualifies for a, both found by the
 * sweep of stats_diff_count. */
static size_t
stats_diff_list(const void *arg, double a, double b, double *out)
{
	const struct stats_diffs *d = arg;
	size_t ia = 0, ib = 0, got = 0;

	for (size_t j = 0; j < d->nb; j++) {
		while (ib < d->na && !(d->y[j] - d->x[ib] <= b))
			ib++;
		if (ib == d->na)
			break;
		while (ia < d->na && !(d->y[j] - d->x[ia] <= a))
			ia++;
		for (size_t i = ib; i < ia; i++)
			out[got++] = d->y[j] - d->x[i];
	}
	return got;
}

/* The set of the differences of sorted x and y, both not empty. */
static struct stats_set
stats_diff_set(const struct stats_diffs *d)
{
	return (struct stats_set){ .count = stats_diff_count,
	    .list = stats_diff_list, .arg = d,
	    .lo = d->y[0] - d->x[d->na - 1], .hi = d->y[d->nb - 1] - d->x[0],
	    .size = (uint64_t)d->na * d->nb,
	    .width = 2 * ((uint64_t)d->na + d->nb) };
}

double
stats_diff_select(const double *x, size_t na, const double *y, size_t nb,
    uint64_t k)
{
	struct stats_diffs d = { x, y, na, nb };
	struct stats_set set;

	if (na == 0 || nb == 0 || k == 0 || k > (uint64_t)na * nb)
		return NAN;
	set = stats_diff_set(&d);
	return stats_select(&set, k);
}

bool
stats_interval2(const double *a, size_t na, const double *b, size_t nb,
    double level, double *est, double *lo, double *hi)
{
	uint64_t m = (uint64_t)na * nb, k;
	double *x, *y;
	struct stats_diffs d;
	struct stats_set set;

	*est = *lo = *hi = NAN;
	if (na == 0 || nb == 0)
		return false;
	x = stats_sorted_logs(a, na);
	y = stats_sorted_logs(b, nb);
	d = (struct stats_diffs){ x, y, na, nb };
	set = stats_diff_set(&d);
	*est = exp(stats_select_median(&set));
	k = stats_mw_k(na, nb, level, stats_tie_sum(x, na, y, nb));
	if (k >= 1 && k <= m / 2 + m % 2) {
		*lo = exp(stats_select(&set, k));
		*hi = exp(stats_select(&set, m + 1 - k));
	}
	free(x);
	free(y);
	return !isnan(*lo);
}
