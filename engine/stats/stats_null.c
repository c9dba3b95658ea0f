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
 * the old way and decides.
 *
 * The distribution at n is the one at n - 1 and one step more, so the
 * last STATS_NULL_KEPT built are kept from call to call, each only from
 * its cut up (8 sd and a few n of doubles: 2 MiB at n = 2000), and k for
 * n is built on the kept one with the largest n' <= n: steps n' + 1 to n,
 * the very steps a build from nothing takes after n', on the same doubles,
 * so k (and the check against the mass dropped) is the same bit for bit.
 * A console whose reps reach n + 1 pays one step (0.2 ms at n = 2000) for
 * the new k, not all n of them (28 ms).  Two threads (the console's engine
 * and its front end) never build on the same one at once; a caller that
 * finds every kept one busy builds its own and frees it. */
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_int.h"
#include "xalloc.h"

#define STATS_NULL_CUT 8.0
#define STATS_NULL_KEPT 2

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

/* The largest k with P(T <= k-1) <= alpha for cdf terms p[0..len), those
 * of t = t0 .. t0 + len - 1, every term below t0 being 0; the sums just
 * below and at the crossing into *below and *above.  O(len). */
static uint64_t
stats_null_scan(const double *p, size_t len, size_t t0, double alpha,
    double *below, double *above)
{
	double cdf = 0;
	uint64_t k = t0;

	/* alpha > 0: the zeros below t0 all count. */
	*below = 0;
	*above = 1;
	for (size_t j = 0; j < len; j++) {
		cdf += p[j];
		if (cdf > alpha) {
			*above = cdf;
			break;
		}
		*below = cdf;
		k = t0 + j + 1;
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
	k = stats_null_scan(p, tmax + 1, 0, alpha, &below, &above);
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

/* The distribution's lower half after n steps, kept in a window: w[x] is
 * p(x + off) for x in [0, cap).  p(t) is kept for t in [lo, hi], hi =
 * M/2; the window holds 0 from its start up to lo (the values below the
 * cut, and, while off < 0, the p(t) of t < 0 that a step reads). */
struct stats_null_dist {
	size_t n, lo, hi;
	ptrdiff_t off;
	double dropped;     /* the mass dropped below the cut so far */
	double *w;          /* NULL: nothing built */
	size_t cap;
	uint64_t stamp;     /* when last given back: the oldest is reused */
	bool busy;          /* a thread is building on it */
};

/* The window's index of t. */
static size_t
stats_null_x(const struct stats_null_dist *d, size_t t)
{
	return (size_t)((ptrdiff_t)t - d->off);
}

/* Back to n = 0 (p(0) = 1), the window kept. */
static void
stats_null_reset(struct stats_null_dist *d)
{
	if (d->w == NULL) {
		d->w = xcalloc(1, sizeof *d->w);
		d->cap = 1;
	}
	d->n = d->lo = d->hi = 0;
	d->off = 0;
	d->dropped = 0;
	d->w[0] = 1.0;
}

/* The doubles a window needs at step n (lo - 2n up to M/2, lo about the
 * cut), and a quarter more: so a build to n allocates once and then
 * only moves its values down the window as the cut moves up. */
static size_t
stats_null_room(size_t n)
{
	double top = (double)n * (double)(n + 1) / 2, lo;

	lo = floor(top / 2 - STATS_NULL_CUT * sqrt(top * (double)(2 * n + 1) /
	    12)) - (double)n;
	return (size_t)((top / 2 - (lo > 0 ? lo : 0) + (double)(2 * n + 1)) *
	    1.25);
}

/* Room for step i of a build to n, whose new middle is nhi: the window
 * must reach from lo - i (the fold reads p(t - i) for t >= lo) up to
 * nhi.  When it does not, the values [lo, hi] are moved (to a larger
 * window when needed, room for n) so that it starts 2i below lo: at n =
 * 2000 a move of 8 sd (210,000 doubles) about every 50 steps, each of
 * which folds as many. */
static void
stats_null_window(struct stats_null_dist *d, size_t i, size_t nhi, size_t n)
{
	ptrdiff_t need = (ptrdiff_t)d->lo - (ptrdiff_t)i, off;
	size_t len, keep = d->hi >= d->lo ? d->hi - d->lo + 1 : 0;
	double *w = d->w;

	if (d->off <= need && (ptrdiff_t)nhi - d->off < (ptrdiff_t)d->cap)
		return;
	off = need - (ptrdiff_t)i;
	len = (size_t)((ptrdiff_t)nhi - off) + 1;
	len += len / 4;
	if (len > d->cap) {
		if (len < stats_null_room(n))
			len = stats_null_room(n);
		w = xreallocarray(NULL, len, sizeof *w);
	}
	memmove(w + ((ptrdiff_t)d->lo - off), d->w + stats_null_x(d, d->lo),
	    keep * sizeof *w);
	memset(w, 0, (size_t)((ptrdiff_t)d->lo - off) * sizeof *w);
	if (w != d->w) {
		free(d->w);
		d->w = w;
		d->cap = len;
	}
	d->off = off;
}

/* Steps d->n + 1 .. n (the generating function's factors), the values
 * below each step's cut set to 0 and their mass added to d->dropped.
 * The same steps on the same doubles whether d starts at 0 or at a kept
 * n' < n: only the window's place in memory differs. */
static void
stats_null_grow(struct stats_null_dist *d, size_t n)
{
	for (size_t i = d->n + 1; i <= n; i++) {
		size_t ptop = (i - 1) * i / 2, top = ptop + i, nhi = top / 2;
		size_t nlo, lo = d->lo;
		double sd, cut, *w;

		stats_null_window(d, i, nhi, n);
		w = d->w;
		/* The previous step's values past its middle, by symmetry. */
		for (size_t t = d->hi + 1; t <= nhi; t++)
			w[stats_null_x(d, t)] = t <= ptop ?
			    w[stats_null_x(d, ptop - t)] : 0;
		stats_null_fold(w, stats_null_x(d, lo), stats_null_x(d, nhi),
		    i);
		sd = sqrt((double)i * (double)(i + 1) * (double)(2 * i + 1) / 24);
		cut = floor((double)top / 2 - STATS_NULL_CUT * sd);
		nlo = cut > (double)lo ? (size_t)cut : lo;
		for (; lo < nlo && lo <= nhi; lo++) {
			d->dropped += w[stats_null_x(d, lo)];
			w[stats_null_x(d, lo)] = 0;
		}
		d->lo = lo;
		d->hi = nhi;
		d->n = i;
	}
}

/* STATS_NULL_KEPT distributions kept from call to call, under one lock
 * held only to pick one and to give it back. */
static struct stats_null_dist stats_null_kept[STATS_NULL_KEPT];
static pthread_mutex_t stats_null_mu = PTHREAD_MUTEX_INITIALIZER;
static uint64_t stats_null_clock;
static struct stats_null_use stats_null_count;

/* The kept distribution to build n on, marked busy: the free one with the
 * largest n' <= n, else the free one given back longest ago (or never
 * used), to start anew; NULL when every one is busy. */
static struct stats_null_dist *
stats_null_take(size_t n)
{
	struct stats_null_dist *best = NULL, *old = NULL;

	pthread_mutex_lock(&stats_null_mu);
	for (size_t j = 0; j < STATS_NULL_KEPT; j++) {
		struct stats_null_dist *d = &stats_null_kept[j];
		if (d->busy)
			continue;
		if (d->w != NULL && d->n <= n &&
		    (best == NULL || d->n > best->n))
			best = d;
		if (old == NULL || d->stamp < old->stamp)
			old = d;
	}
	if (best == NULL)
		best = old;
	if (best != NULL)
		best->busy = true;
	pthread_mutex_unlock(&stats_null_mu);
	return best;
}

/* d back (NULL: one of the caller's own), and what was done counted:
 * built on from n' = from to n, the whole distribution built if full. */
static void
stats_null_give(struct stats_null_dist *d, size_t from, size_t n, bool full)
{
	struct stats_null_use *c = &stats_null_count;

	pthread_mutex_lock(&stats_null_mu);
	if (d != NULL) {
		d->busy = false;
		d->stamp = ++stats_null_clock;
	} else
		c->unkept++;
	if (from == 0)
		c->built++;
	else if (from < n)
		c->extended++;
	else
		c->reused++;
	c->steps += n - from;
	c->full += full;
	pthread_mutex_unlock(&stats_null_mu);
}

void
stats_null_used(struct stats_null_use *out)
{
	pthread_mutex_lock(&stats_null_mu);
	*out = stats_null_count;
	pthread_mutex_unlock(&stats_null_mu);
}

void
stats_wilcoxon_forget(void)
{
	pthread_mutex_lock(&stats_null_mu);
	for (size_t j = 0; j < STATS_NULL_KEPT; j++) {
		struct stats_null_dist *d = &stats_null_kept[j];
		if (d->busy)
			continue;
		free(d->w);
		*d = (struct stats_null_dist){ 0 };
	}
	pthread_mutex_unlock(&stats_null_mu);
}

/* Beyond STATS_EXACT_MAX: floor(M/2 - z sd). */
static uint64_t
stats_null_normal_k(size_t n, double level)
{
	double z = stats_normal_quantile((1.0 + level) / 2.0);
	double sd = sqrt((double)n * (double)(n + 1) * (double)(2 * n + 1) /
	    24.0);
	double kk = floor((double)n * (double)(n + 1) / 4.0 - z * sd);

	return kk >= 1 ? (uint64_t)kk : 0;
}

uint64_t
stats_wilcoxon_k(size_t n, double level)
{
	double alpha = (1.0 - level) / 2.0, below, above, tol;
	struct stats_null_dist own = { 0 }, *d;
	size_t from;
	uint64_t k;
	bool full;

	if (n == 0 || !(level > 0) || !(level < 1))
		return 0;
	if (n > STATS_EXACT_MAX)
		return stats_null_normal_k(n, level);
	if ((d = stats_null_take(n)) == NULL)
		d = &own;
	if (d->w == NULL || d->n > n)
		stats_null_reset(d);
	from = d->n;
	/* P(T <= M/2) >= 1/2 > alpha, so the answer's k-1 lies below M/2:
	 * only that half is needed.  The halving in each step keeps 2^n out
	 * of the doubles. */
	stats_null_grow(d, n);
	k = stats_null_scan(d->w + stats_null_x(d, d->lo),
	    d->hi >= d->lo ? d->hi - d->lo + 1 : 0, d->lo, alpha, &below,
	    &above);
	/* What dropping can move the sums by: the mass dropped, and the
	 * rounding of up to M/2 terms summed in another order of
	 * magnitudes (far below 1e-9 of them). */
	tol = 2 * d->dropped + 1e-9 * alpha;
	full = alpha - below <= tol || above - alpha <= tol;
	stats_null_give(d == &own ? NULL : d, from, n, full);
	free(own.w);
	/* Near the bound the doubles cannot decide: the counts can, as
	 * 128-bit integers while 2^n fits. */
	if (full)
		k = n <= STATS_EXACT_INT_MAX ? stats_wilcoxon_exact_k(n,
		    level) : stats_null_full_k(n, alpha);
	return k;
}
