/* Statistics: SPEC.md's arithmetic (see stats.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int
stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* A sorted copy, or NULL (n == 0 or no memory). */
static double *
stats_sorted(const double *v, size_t n)
{
	double *s;

	if (n == 0 || (s = malloc(n * sizeof *s)) == NULL)
		return NULL;
	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, stats_cmp);
	return s;
}

double
stats_median(const double *v, size_t n)
{
	double *s, m;

	if ((s = stats_sorted(v, n)) == NULL)
		return NAN;
	if (n % 2)
		m = s[n / 2];
	else
		m = (s[n / 2 - 1] + s[n / 2]) / 2.0;
	free(s);
	return m;
}

double
stats_min(const double *v, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] < m)
			m = v[i];
	return m;
}

double
stats_max(const double *v, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++)
		if (i == 0 || v[i] > m)
			m = v[i];
	return m;
}

double
stats_geomean(const double *v, size_t n)
{
	double sum = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0))
			return NAN;
		sum += log(v[i]);
	}
	return exp(sum / (double)n);
}

size_t
stats_ratios(const double *a, const double *b, const bool *ok, size_t n,
    double *out)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (ok && !ok[i])
			continue;
		if (isnan(a[i]) || isnan(b[i]) || !(b[i] > 0))
			continue;
		out[k++] = a[i] / b[i];
	}
	return k;
}

double
stats_floor(const double *ratios, size_t n)
{
	double f = NAN;

	for (size_t i = 0; i < n; i++) {
		double d = fabs(ratios[i] - 1.0);
		if (i == 0 || d > f)
			f = d;
	}
	return f;
}

enum stats_verdict
stats_verdict(const double *ratios, size_t n, double floor)
{
	bool above = true, below = true;

	if (isnan(floor) || n < 2)
		return STATS_UNKNOWN;
	for (size_t i = 0; i < n; i++) {
		if (!(ratios[i] > 1.0 + floor))
			above = false;
		if (!(ratios[i] < 1.0 - floor))
			below = false;
	}
	if (above)
		return STATS_ABOVE;
	if (below)
		return STATS_BELOW;
	return STATS_WITHIN;
}

const char *
stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_WITHIN: return "within";
	case STATS_ABOVE:  return "above";
	case STATS_BELOW:  return "below";
	case STATS_UNKNOWN: break;
	}
	return "unknown";
}

/* log P(Binomial(n, 1/2) = i), through lgamma so that large n neither
 * overflows nor underflows. */
static double
stats_binom_logpmf_half(size_t n, size_t i)
{
	return lgamma((double)n + 1) - lgamma((double)i + 1) -
	    lgamma((double)(n - i) + 1) - (double)n * log(2.0);
}

bool
stats_median_ci(const double *v, size_t n, double want, double *lo,
    double *hi, double *level)
{
	size_t best = 0;
	double best_level = 0, cdf = 0, *s;

	/* Coverage of [x(k), x(n+1-k)] is 1 - 2 P(B <= k-1); it falls as k
	 * grows, so walk up from k = 1 carrying the cdf and keep the last k
	 * that still reaches want. */
	for (size_t k = 1; k <= n / 2; k++) {
		double cov;

		cdf += exp(stats_binom_logpmf_half(n, k - 1));
		cov = 1.0 - 2.0 * cdf;
		if (cov < want)
			break;
		best = k;
		best_level = cov;
	}
	if (best == 0 || (s = stats_sorted(v, n)) == NULL)
		return false;
	*lo = s[best - 1];
	*hi = s[n - best];
	*level = best_level;
	free(s);
	return true;
}

double
stats_signal(double median, double floor)
{
	if (isnan(median) || isnan(floor) || !(floor > 0))
		return NAN;
	return fabs(median - 1.0) / floor;
}

double
stats_ipc(double instructions, double cycles)
{
	if (isnan(instructions) || isnan(cycles) || !(cycles > 0))
		return NAN;
	return instructions / cycles;
}
