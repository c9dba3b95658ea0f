/* Statistics: SPEC.md's arithmetic, as pure functions (no I/O, no state).
 *
 * The live ratios pane, report and the seal's summary all reach these
 * through tally, so the numbers never disagree.  A missing value is NAN
 * throughout: callers pass NAN for "no value" and get NAN for "undefined". */
#ifndef BENCHTUI_STATS_H
#define BENCHTUI_STATS_H

#include <stdbool.h>
#include <stddef.h>

enum stats_verdict {
	STATS_UNKNOWN,
	STATS_WITHIN,
	STATS_ABOVE,
	STATS_BELOW,
};

/* Median of v[0..n) (v is not changed): the middle value for odd n, the
 * mean of the two middle values for even n; NAN when n == 0. */
double stats_median(const double *v, size_t n);

/* Smallest and largest value; NAN when n == 0. */
double stats_min(const double *v, size_t n);
double stats_max(const double *v, size_t n);

/* exp(mean(log v)); NAN when n == 0 or any value is <= 0 or NAN. */
double stats_geomean(const double *v, size_t n);

/* Paired ratios a[i] / b[i] for i in [0, n) where ok[i] (may be NULL: all)
 * and both values are present and b[i] > 0, written to out in index order.
 * Returns how many were written. */
size_t stats_ratios(const double *a, const double *b, const bool *ok,
    size_t n, double *out);

/* The noise floor contribution of ratios: the largest |r - 1|; NAN when
 * n == 0.  The floor of a cell is the largest over all its A/A arms. */
double stats_floor(const double *ratios, size_t n);

/* SPEC.md's verdict: ABOVE when every ratio > 1 + floor, BELOW when every
 * ratio < 1 - floor, else WITHIN (a ratio exactly on 1 +- floor is WITHIN);
 * UNKNOWN when floor is NAN (no A/A arm) or n < 2. */
enum stats_verdict stats_verdict(const double *ratios, size_t n, double floor);

/* "above", "below", "within", "unknown". */
const char *stats_verdict_name(enum stats_verdict v);

/* A distribution-free confidence interval for the median of v[0..n): the
 * order statistics [x(k), x(n+1-k)] with the largest k whose coverage
 * 1 - 2 P(Binomial(n, 1/2) <= k - 1) is at least want (e.g. 0.95).
 * Returns true with *lo, *hi and the exact coverage in *level, or false
 * when n is too small to reach want (n < 6 for 0.95). */
bool stats_median_ci(const double *v, size_t n, double want, double *lo,
    double *hi, double *level);

/* |median - 1| / floor: how many noise floors the effect is; NAN when the
 * floor is NAN or 0 (undefined) or the median is NAN. */
double stats_signal(double median, double floor);

/* instructions / cycles; NAN unless both are present and cycles > 0. */
double stats_ipc(double instructions, double cycles);

#endif
