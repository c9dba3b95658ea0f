/* Statistics: SPEC.md's arithmetic, as pure functions (no I/O).
 *
 * The live ratios pane, report and the seal's summary all reach these
 * through tally, so the numbers never disagree.  A missing value is NAN
 * throughout: callers pass NAN for "no value" and get NAN for "undefined".
 * No state, but for what stats_wilcoxon_k keeps to answer the next n
 * sooner (the answer is the same with or without it). */
#ifndef BENCHTUI_STATS_H
#define BENCHTUI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum stats_verdict {
	STATS_UNKNOWN,   /* no interval (n too small for the level) */
	STATS_SAME,      /* the interval lies inside the margin */
	STATS_ABOVE,     /* the interval lies above 1 */
	STATS_BELOW,     /* the interval lies below 1 */
	STATS_UNDECIDED, /* the interval holds 1 and reaches past the margin */
};

/* The exact null distribution of the signed-rank statistic is used up to
 * this n; beyond it the normal approximation. */
#define STATS_EXACT_MAX 2000

/* Sort v[0..n) ascending (no NANs). */
void stats_sort(double *v, size_t n);

/* Median of v[0..n) (v is not changed): the middle value for odd n, the
 * mean of the two middle values for even n; NAN when n == 0. */
double stats_median(const double *v, size_t n);

/* stats_median of s[0..n) already sorted ascending. */
double stats_median_sorted(const double *s, size_t n);

/* Smallest and largest value; NAN when n == 0. */
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);

/* exp(mean(log v)); NAN when n == 0 or any value is <= 0 or NAN. */
double stats_geomean(const double *v, size_t n);

/* Paired ratios a[i] / b[i] for i in [0, n) where ok[i] (may be NULL: all)
 * and both values are present and greater than 0, written to out in index
 * order.  Returns how many were written. */
size_t stats_ratios(const double *a, const double *b, const bool *ok,
    size_t n, double *out);

/* An A/A arm's spread: the largest |r - 1| over its ratios; NAN when
 * n == 0.  A cell's floor is the largest spread over its A/A arms. */
double stats_spread(const double *ratios, size_t n);

/* k of the Wilcoxon signed-rank interval [W(k), W(M+1-k)] over the
 * M = n(n+1)/2 sorted Walsh averages: the largest k with
 * P(T <= k-1) <= (1-level)/2 for the signed-rank statistic T under the null,
 * exact for n <= STATS_EXACT_MAX, else floor(M/2 - z sqrt(n(n+1)(2n+1)/24)).
 * k depends on n and level only: ties and zeros enter the Walsh averages
 * as they fall.  0 when no k >= 1 exists (n < 6 at 0.95).  The exact
 * distribution costs about n^2.5 / 10 steps (28 ms at 2000) from nothing
 * but is kept (two of them, about 2 MiB each at n = 2000), so k for n
 * after k for any n' <= n costs the steps n' + 1 .. n (0.2 ms a step at
 * 2000): callers still memoise by n (and level).  Thread-safe. */
uint64_t stats_wilcoxon_k(size_t n, double level);

/* Let the distributions stats_wilcoxon_k keeps go (their memory back):
 * the next k is built from nothing, as a benchmark's first one wants. */
void stats_wilcoxon_forget(void);

/* The fewest reps with an interval at level: P(T <= 0) = 2^-n, so the
 * smallest n with 2^-n <= (1-level)/2 (6 at 0.95, 8 at 0.99). */
size_t stats_min_n(double level);

/* The k-th smallest (1-based) of the Walsh averages (x[i] + x[j]) / 2,
 * i <= j, of sorted x[0..n), without listing them: a bisection over the
 * doubles, each step counting in O(n), so 64 O(n) passes at most. */
double stats_walsh_select(const double *sorted, size_t n, uint64_t k);

/* Estimate and interval of ratios[0..n) at level, as ratios: the
 * Hodges-Lehmann estimate and the Wilcoxon interval of the log ratios,
 * exponentiated.  k is stats_wilcoxon_k(n, level) (passed in so a caller
 * can memoise it).  *est is NAN when n == 0; returns true with *lo, *hi
 * when the interval exists (k >= 1). */
bool stats_interval(const double *ratios, size_t n, uint64_t k, double *est,
    double *lo, double *hi);

/* Two independent samples: one arm's values in two rounds (A before, B
 * after), or its paired ratios in two rounds.  B against A as a ratio:
 * on the logs, the two-sample Hodges-Lehmann estimate (the median of all
 * N = na * nb differences D = log b[j] - log a[i]) and the Mann-Whitney
 * interval [D(k), D(N+1-k)] over the sorted differences, exponentiated.
 *
 * The exact null distribution of U is used when both samples have at most
 * this many values and the pooled logs have no ties; else the normal
 * approximation. */
#define STATS_MW_EXACT_MAX 50

/* k of the Mann-Whitney interval for samples of na and nb at level: exact
 * (see above), the largest k with P(U <= k-1) <= (1-level)/2; else
 * floor(N/2 - z sigma), z the (1+level)/2 normal quantile and sigma^2 =
 * na nb / 12 * ((na+nb+1) - ties / ((na+nb)(na+nb-1))), ties the pooled
 * sample's sum of t^3 - t over its groups of t equal values
 * (stats_tie_sum).  0 when no k >= 1 exists. */
uint64_t stats_mw_k(size_t na, size_t nb, double level, double ties);

/* The sum of t^3 - t over the groups of t equal values of the pooled
 * sample of sorted x[0..na) and sorted y[0..nb); 0 without ties. */
double stats_tie_sum(const double *x, size_t na, const double *y, size_t nb);

/* The k-th smallest (1-based) of the N = na * nb differences y[j] - x[i]
 * of sorted x and sorted y, without listing them: a bisection over the
 * doubles, each step counting in O(na + nb).  NAN when k is not in
 * [1, N]. */
double stats_diff_select(const double *x, size_t na, const double *y,
    size_t nb, uint64_t k);

/* Estimate and interval of b against a (every value > 0) at level, as
 * ratios (see above).  *est is NAN when either sample is empty; returns
 * true with *lo, *hi when the interval exists. */
bool stats_interval2(const double *a, size_t na, const double *b, size_t nb,
    double level, double *est, double *lo, double *hi);

/* The verdict for an interval: SAME when [lo, hi] lies inside
 * [1/(1+margin), 1+margin], else ABOVE when lo > 1, BELOW when hi < 1,
 * else UNDECIDED; UNKNOWN when has_ci is false. */
enum stats_verdict stats_verdict(bool has_ci, double lo, double hi,
    double margin);

/* "same", "above", "below", "undecided", "unknown". */
const char *stats_verdict_name(enum stats_verdict v);

/* Whether a verdict settles the question (above, below or same). */
bool stats_decided(enum stats_verdict v);

/* The per-look level of an adaptive round with nlooks looks planned:
 * 1 - (1 - confidence) / nlooks (Bonferroni). */
double stats_look_level(double confidence, size_t nlooks);

/* What an interval can tell from no effect (SPEC.md "Arithmetic"): half
 * its width on the log scale, as a ratio's distance from 1,
 * exp((ln hi - ln lo) / 2) - 1 (0.034: about 3.4%).  NAN without an
 * interval. */
double stats_mde(bool has_ci, double lo, double hi);

/* The reps that would narrow an interval of n reps to the margin, if its
 * width shrinks as 1/sqrt(n): n (ln(1 + mde) / ln(1 + margin))^2 rounded
 * up, and never fewer than n (more reps never widen it).  0 without an
 * interval or a margin. */
size_t stats_reps_for_margin(size_t n, bool has_ci, double lo, double hi,
    double margin);

/* instructions / cycles; NAN unless both are present and cycles > 0. */
double stats_ipc(double instructions, double cycles);

#endif
