/* Inside stats: what the paired arithmetic (stats.c) and the two-sample
 * arithmetic (stats_two.c) share.  Not part of the engine's public
 * surface. */
#ifndef BENCHTUI_STATS_INT_H
#define BENCHTUI_STATS_INT_H

#include <stddef.h>
#include <stdint.h>

/* log(v[i]) for i in [0, n), sorted ascending; malloc'd, NULL when n == 0.
 * Every v[i] must be > 0. */
double *stats_sorted_logs(const double *v, size_t n);

/* The p-quantile of the standard normal to double precision. */
double stats_normal_quantile(double p);

/* Exact tails (stats_exact.c): the decisions of the floor estimator's u
 * and, near the bound, of the signed-rank k, in integers. */
#include <stdbool.h>
#include <openssl/bn.h>

/* Whether count / total <= (1 - level) / 2 exactly, level read as the
 * rational number the double is. */
bool stats_exact_tail_le(const BIGNUM *count, const BIGNUM *total,
    double level);

/* Whether the floor estimator's tail (stats_floor.h) at n, u, v is at
 * most (1 - level) / 2: sum over j < v of C(n, j) C(n, u + v - 1 - j)
 * against C(2n, u + v - 1), exactly. */
bool stats_floor_tail_le(size_t n, size_t u, size_t v, double level);

/* The signed-rank interval's k at n <= STATS_EXACT_INT_MAX from the
 * null's exact counts (128-bit integers: 2^n of them at most). */
#define STATS_EXACT_INT_MAX 127
uint64_t stats_wilcoxon_exact_k(size_t n, double level);

/* A large set of doubles (the Walsh averages of n values, the differences
 * of two samples), known only by counting and listing its members, never
 * held whole. */
struct stats_set {
	/* How many members are <= v. */
	uint64_t (*count)(const void *arg, double v);
	/* The members in (a, b] into out (room for all of them); how many. */
	size_t (*list)(const void *arg, double a, double b, double *out);
	const void *arg;
	double lo, hi;      /* the smallest and the largest member */
	uint64_t size;      /* how many members */
	uint64_t width;     /* list a bracket once it holds this many or fewer */
};

/* The k-th smallest (1-based, k in [1, size]) member: the bracket [lo,
 * hi] halved by counting (in value, or in the doubles' order where values
 * no longer halve) until it holds at most width members, which are then
 * listed and the one wanted picked out.  Counts: about log2(size /
 * width) plus a few. */
double stats_select(const struct stats_set *s, uint64_t k);

/* The median member: the middle one, or the mean of the two middle ones
 * when size is even. */
double stats_select_median(const struct stats_set *s);

/* What stats_wilcoxon_k did with its kept distributions (stats_null.c)
 * since the program started: how many k were built from nothing, on a
 * kept distribution of a smaller n, or read from one of the same n; the
 * steps taken in all; how many were built in a distribution of the
 * caller's own (every kept one busy); how many needed the whole
 * distribution (the cut too close to call).  For the tests. */
struct stats_null_use {
	uint64_t built, extended, reused, steps, unkept, full;
};
void stats_null_used(struct stats_null_use *out);

#endif
