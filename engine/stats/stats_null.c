/* Statistics: k of the Wilcoxon signed-rank interval (see stats.h), from
 * the exact null distribution of the signed-rank statistic T up to
 * STATS_EXACT_MAX, the normal approximation beyond.
 *
 * T_n = sum of j * B_j over j = 1..n with B_j fair coins: its
 * distribution is the generating function prod (1 + z^j) / 2, built one
 * factor at a time, p_j(t) = (p_{j-1}(t) + p_{j-1}(t - j)) / 2.  Built
 * whole up to M/2 that is n^3/4 steps: 2e9 (1.2 s) at n = 2000.  Two
 * things make it about n^2.5 / 10 (3e7 at n = 2000, 30 ms), with the same
 * doubles:
 *  - symmetry: p_j(t) = p_j(j(j+1)/2 - t), bit for bit (the two are the
 *    same sum with its terms swapped), so only the lower half is built and
 *    the upper half read from it;
 *  - a cut: mass far below the mean never reaches the tail the answer
 *    lies in.  By Hoeffding's inequality (T_j sums independent terms of
 *    range i <= j) P(T_j <= mean_j - c sd_j) <= exp(-c^2 / 2), so values
 *    below c = STATS_NULL_CUT standard deviations are dropped (set to 0)
 *    at each step, and the mass dropped is summed.
 * The answer is then the original one unless the tail's sum lies within
 * the mass dropped (plus the sum's own rounding) of alpha; in that case,
 * which real levels all but never meet, the whole distribution is built
 * the old way and decides. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "stats.h"
#include "stats_int.h"
#include "xalloc.h"

#define STATS_NULL_CUT 8.0

/* The step's inner loop, at most half the work of a report: built for
 * AVX2 too where the compiler can pick at run time (not under the
 * sanitizers, whose start-up the resolver would run before). */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && \
    !defined(__SANITIZE_ADDRESS__) && defined(__has_attribute)
#if __has_attribute(target_clones)
#define STATS_NULL_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef STATS_NULL_CLONES
#define STATS_NULL_CLONES
#endif

/* One step over the whole of [0, top] (the old way, for the check):
 * multiplying the generating function by (1 + z^i) / 2.  Two buffers (no
 * aliasing) so the compiler can vectorise the inner loop. */
static void
stats_null_step(const double *restrict p, double *restrict q, size_t i,
    size_t top)
{
	size_t t;

	for (t = 0; t < i && t <= top; t++)
		q[t] = 0.5 * p[t];
	for (; t <= top; t++)
		q[t] = 0.5 * (p[t] + p[t - i]);
}

/* The largest k with P(T <= k-1) <= alpha for cdf terms p[0..tmax]; the
 * sums just below and at the crossing into *below and *above. */
static uint64_t
stats_null_scan(const double *p, size_t tmax, double alpha, double *below,
    double *above)
{
	double cdf = 0;
	uint64_t k = 0;

	*below = 0;
	*above = 1;
	for (size_t t = 0; t <= tmax; t++) {
		cdf += p[t];
		if (cdf > alpha) {
			*above = cdf;
			break;
		}
		*below = cdf;
		k = t + 1;
	}
	return k;
}

/* The whole distribution up to M/2, O(n^3 / 4). */
static uint64_t
stats_null_full_k(size_t n, double alpha)
{
	uint64_t m = (uint64_t)n * (n + 1) / 2, k;
	size_t tmax = (size_t)(m / 2), top = 0;
	double *p = xcalloc(tmax + 1, sizeof *p), *q, *tmp, below, above;

	q = xcalloc(tmax + 1, sizeof *q);
	p[0] = 1.0;
	for (size_t i = 1; i <= n; i++) {
		top += i;
		if (top > tmax)
			top = tmax;
		stats_null_step(p, q, i, top);
		tmp = p;
		p = q;
		q = tmp;
	}
	k = stats_null_scan(p, tmax, alpha, &below, &above);
	free(p);
	free(q);
	return k;
}

/* p[t] = (p[t] + p[t - i]) / 2 for t from hi down to lo, in place: going
 * down, p[t - i] is still the previous step's.  4 at a time while the
 * four read lie below the four written (i >= 4). */
STATS_NULL_CLONES static void
stats_null_fold(double *p, size_t lo, size_t hi, size_t i)
{
	size_t t = hi + 1;

#if defined(__GNUC__)
	typedef double stats_v4 __attribute__((vector_size(32)));
	if (i >= 4)
		for (; t >= lo + 4; ) {
			stats_v4 a, b;
			t -= 4;
			__builtin_memcpy(&a, p + t, sizeof a);
			__builtin_memcpy(&b, p + t - i, sizeof b);
			a = 0.5 * (a + b);
			__builtin_memcpy(p + t, &a, sizeof a);
		}
#endif
	while (t > lo) {
		t--;
		p[t] = 0.5 * (p[t] + p[t - i]);
	}
}

/* The distribution's lower half at n into p[0..M/2] (p has n zeros in
 * front of it, so p[t - i] is 0 for t < i), values below the cut 0;
 * returns the mass dropped. */
static double
stats_null_half(double *p, size_t n)
{
	size_t lo = 0, hi = 0, top = 0;
	double dropped = 0;

	p[0] = 1.0;
	for (size_t i = 1; i <= n; i++) {
		size_t ptop = top, nhi, nlo;
		double sd, cut;

		top += i;
		nhi = top / 2;
		/* The previous step's values past its middle, by symmetry. */
		for (size_t t = hi + 1; t <= nhi; t++)
			p[t] = t <= ptop ? p[ptop - t] : 0;
		stats_null_fold(p, lo, nhi, i);
		sd = sqrt((double)i * (double)(i + 1) * (double)(2 * i + 1) / 24);
		cut = floor((double)top / 2 - STATS_NULL_CUT * sd);
		nlo = cut > (double)lo ? (size_t)cut : lo;
		for (; lo < nlo && lo <= nhi; lo++) {
			dropped += p[lo];
			p[lo] = 0;
		}
		hi = nhi;
	}
	return dropped;
}

uint64_t
stats_wilcoxon_k(size_t n, double level)
{
	double alpha = (1.0 - level) / 2.0, *buf, dropped, below, above, tol;
	uint64_t m = (uint64_t)n * (n + 1) / 2, k;
	size_t tmax = (size_t)(m / 2);

	if (n == 0 || !(level > 0) || !(level < 1))
		return 0;
	if (n > STATS_EXACT_MAX) {
		double z = stats_normal_quantile((1.0 + level) / 2.0);
		double sd = sqrt((double)n * (double)(n + 1) *
		    (double)(2 * n + 1) / 24.0);
		double kk = floor((double)m / 2.0 - z * sd);
		return kk >= 1 ? (uint64_t)kk : 0;
	}
	/* P(T <= M/2) >= 1/2 > alpha, so the answer's k-1 lies below M/2:
	 * only that half is needed.  The halving in each step keeps 2^n out
	 * of the doubles. */
	buf = xcalloc(n + tmax + 1, sizeof *buf);
	dropped = stats_null_half(buf + n, n);
	k = stats_null_scan(buf + n, tmax, alpha, &below, &above);
	free(buf);
	/* What dropping can move the sums by: the mass dropped, and the
	 * rounding of up to M/2 terms summed in another order of
	 * magnitudes (far below 1e-9 of them). */
	tol = 2 * dropped + 1e-9 * alpha;
	if (alpha - below <= tol || above - alpha <= tol)
		k = stats_null_full_k(n, alpha);
	return k;
}
