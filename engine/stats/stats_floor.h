/* The floor estimator: SPEC.md's "noise that only adds time", as pure
 * functions (no I/O, no state, no randomness).
 *
 * The paired rule (stats.h) compares arms leg against leg; on a machine
 * whose noise only ever slows a leg down, in bursts, the paired ratios
 * are symmetric but heavy-tailed and its interval stays wide.  The floor
 * estimator compares the lower ends of the two arms' distributions, where
 * that noise does not reach, with an interval from order statistics whose
 * error rate is exact (distribution-free) for identically distributed
 * legs and is checked on real bursty noise by bench/noise.py.
 *
 * Over the n paired reps (the same reps as the paired ratios), with
 * a(1) <= .. <= a(n) the arm's values sorted and b(1) <= .. <= b(n) its
 * comparison arm's:
 *   v = ceil(n / 20), at least 1 (the 5th percentile's rank);
 *   estimate = a(v) / b(v);
 *   u = the smallest u in (v, n] with stats_floor_tail(n, u, v) <=
 *       (1 - level) / 2; none: no interval;
 *   interval = [a(v) / b(u), a(u) / b(v)]. */
#ifndef BENCHTUI_STATS_FLOOR_H
#define BENCHTUI_STATS_FLOOR_H

#include <stdbool.h>
#include <stddef.h>

/* The rank of the floor: ceil(n / 20), at least 1; 0 when n == 0. */
size_t stats_floor_rank(size_t n);

/* Under identical arms (all 2n values exchangeable), the probability that
 * a(v) > b(u), that is that at most v-1 of the lowest u+v-1 pooled values
 * are the arm's: the hypergeometric sum over j < v of
 * C(n, j) C(n, u+v-1-j) / C(2n, u+v-1).  It falls as u grows.  NAN for
 * ranks out of 1 <= v < u <= n. */
double stats_floor_tail(size_t n, size_t u, size_t v);

/* u of the interval at n and level (a bisection over u, O(v log n) terms),
 * or 0 when no u exists (n < 4 at 0.95, n < 5 at 0.99). */
size_t stats_floor_u(size_t n, double level);

/* The fewest reps with a floor interval at level. */
size_t stats_floor_min_n(double level);

/* Estimate and interval of a[0..n) against b[0..n) (values > 0, the
 * paired reps' values; neither is changed) at level, as ratios.  *est is
 * NAN when n == 0; returns true with *lo and *hi when the interval
 * exists. */
bool stats_floor_interval(const double *a, const double *b, size_t n,
    double level, double *est, double *lo, double *hi);

/* stats_floor_interval of sa[0..n) and sb[0..n) already sorted ascending,
 * with u = stats_floor_u(n, level) passed in (so a caller that has sorted
 * them for their medians sorts once, and can memoise u). */
bool stats_floor_sorted(const double *sa, const double *sb, size_t n,
    size_t u, double *est, double *lo, double *hi);

#endif
