/* Intervals with the run as the unit (benchtui(1), "Profiles in the
 * report"): samples within one run are correlated and runs differ, so a
 * share's spread is read from how it varies between runs, not from the
 * count of samples.  Used by profdiff.c on events that carry per-run
 * counts ("per_run"). */
#ifndef BENCHTUI_PROFDIFF_RUNS_H
#define BENCHTUI_PROFDIFF_RUNS_H

#include <jansson.h>
#include <stdbool.h>

/* A share estimated over runs: p = K / N of the runs' counts k_r of
 * n_r, its variance V = R / (R - 1) * sum (k_r - p n_r)^2 / N^2 (the
 * cluster-robust, CR1, variance of a ratio), R the runs, but never
 * less than p (1 - p) / N, the variance of N samples taken one by one. */
struct profdiff_share {
	double p, var;
	long long k, n;
	int runs;
};

/* Whether ev has per-run counts. */
bool profdiff_runs_has(const json_t *ev);

/* The share of key in ev's per_run map ("symbols" or "callers"): a key
 * it lacks counts 0 in every run.  false without per-run counts. */
bool profdiff_runs_share(const json_t *ev, const char *map, const char *key,
    struct profdiff_share *s);

/* The two-sided 97.5% quantile of Student's t with df degrees of
 * freedom (df >= 1). */
double profdiff_runs_t(int df);

/* The 95% interval of a share (fractions, within 0..1), and of the
 * difference a - b: d +- t(min(Ra, Rb) - 1) sqrt(Va + Vb). */
void profdiff_runs_ci(const struct profdiff_share *s, double *lo,
    double *hi);
void profdiff_runs_diff(const struct profdiff_share *a,
    const struct profdiff_share *b, double *lo, double *hi);

/* The callers of OBJECT\tSYMBOL (key) in a and b, each caller's share of
 * all the arm's samples with its interval, the difference in points and
 * its interval; its samples per run in each arm (its time in the symbol)
 * with the difference and its interval; noise where either interval
 * holds 0; the
 * callers that moved first, largest move in points first: [{"caller",
 * "samples", "share", "ci", "vs_samples", "vs_share", "vs_ci", "diff",
 * "diff_ci", "per_run", "vs_per_run", "per_run_diff", "per_run_diff_ci",
 * "noise"}].  New reference. */
json_t *profdiff_runs_callers(const json_t *a, const json_t *b,
    const char *key);

#endif
