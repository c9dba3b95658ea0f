/* Statistics: SPEC.md's arithmetic (see stats.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_int.h"
#include "xalloc.h"

/* qsort's comparison of doubles, ascending. */
static int
stats_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void
stats_sort(double *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, stats_cmp);
}

/* A sorted copy, or NULL when n == 0. */
static double *
stats_sorted(const double *v, size_t n)
{
	double *s;

	if (n == 0)
		return NULL;
	s = xreallocarray(NULL, n, sizeof *s);
	memcpy(s, v, n * sizeof *s);
	stats_sort(s, n);
	return s;
}

double
stats_median_sorted(const double *s, size_t n)
{
	if (n == 0)
		return NAN;
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

double
stats_median(const double *v, size_t n)
{
	double *s, m;

	if ((s = stats_sorted(v, n)) == NULL)
		return NAN;
	m = stats_median_sorted(s, n);
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
		if (!(a[i] > 0) || !(b[i] > 0))
			continue;
		out[k++] = a[i] / b[i];
	}
	return k;
}

double
stats_spread(const double *ratios, size_t n)
{
	double f = NAN;

	for (size_t i = 0; i < n; i++) {
		double d = fabs(ratios[i] - 1.0);
		if (i == 0 || d > f)
			f = d;
	}
	return f;
}

/* Acklam's rational approximation (relative error 1.2e-9), then one
 * Halley step on erfc, which brings it to double precision. */
double
stats_normal_quantile(double p)
{
	static const double a[] = { -3.969683028665376e+01,
		2.209460984245205e+02, -2.759285104469687e+02,
		1.383577518672690e+02, -3.066479806614716e+01,
		2.506628277459239e+00 };
	static const double b[] = { -5.447609879822406e+01,
		1.615858368580409e+02, -1.556989798598866e+02,
		6.680131188771972e+01, -1.328068155288572e+01 };
	static const double c[] = { -7.784894002430293e-03,
		-3.223964580411365e-01, -2.400758277161838e+00,
		-2.549732539343734e+00, 4.374664141464968e+00,
		2.938163982698783e+00 };
	static const double d[] = { 7.784695709041462e-03,
		3.224671290700398e-01, 2.445134137142996e+00,
		3.754408661907416e+00 };
	double q, r, x, e, u;

	if (!(p > 0) || !(p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (p < 0.02425) {
		q = sqrt(-2 * log(p));
		x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1);
	} else if (p <= 1 - 0.02425) {
		q = p - 0.5;
		r = q * q;
		x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) *
		    r + a[5]) * q / (((((b[0] * r + b[1]) * r + b[2]) * r +
		    b[3]) * r + b[4]) * r + 1);
	} else {
		q = sqrt(-2 * log(1 - p));
		x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) *
		    q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) *
		    q + 1);
	}
	e = 0.5 * erfc(-x / sqrt(2)) - p;
	u = e * sqrt(2 * M_PI) * exp(x * x / 2);
	return x - u / (1 + x * u / 2);
}

size_t
stats_min_n(double level)
{
	double alpha = (1.0 - level) / 2.0;
	size_t n = 1;

	if (!(alpha > 0) || !(alpha < 0.5))
		return 0;
	while (ldexp(1.0, -(int)n) > alpha && n < 1100)
		n++;
	return n;
}

double *
stats_sorted_logs(const double *v, size_t n)
{
	double *x;

	if (n == 0)
		return NULL;
	x = xreallocarray(NULL, n, sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] = log(v[i]);
	stats_sort(x, n);
	return x;
}

/* Sorted values whose Walsh averages stats_walsh_count counts. */
struct stats_walsh {
	const double *x;
	size_t n;
};

/* How many Walsh averages of sorted x are <= v.  (x[i] + x[j]) / 2 rounds
 * monotonically in each of x[i] and x[j], so the last j with an average
 * <= v only moves down as i moves up: one O(n) sweep. */
static uint64_t
stats_walsh_count(const void *arg, double v)
{
	const struct stats_walsh *w = arg;
	const double *x = w->x;
	uint64_t count = 0;
	size_t n = w->n, j = n;  /* one past the last j with an average <= v */

	for (size_t i = 0; i < n; i++) {
		while (j > i && !((x[i] + x[j - 1]) / 2 <= v))
			j--;
		if (j <= i)
			break;
		count += j - i;
	}
	return count;
}

/* The Walsh averages in (a, b], by the sweep of stats_walsh_count made for
 * a and b at once. */
static size_t
stats_walsh_list(const void *arg, double a, double b, double *out)
{
	const struct stats_walsh *w = arg;
	const double *x = w->x;
	size_t n = w->n, ja = n, jb = n, got = 0;

	for (size_t i = 0; i < n; i++) {
		while (jb > i && !((x[i] + x[jb - 1]) / 2 <= b))
			jb--;
		if (jb <= i)
			break;
		while (ja > i && !((x[i] + x[ja - 1]) / 2 <= a))
			ja--;
		for (size_t j = ja > i ? ja : i; j < jb; j++)
			out[got++] = (x[i] + x[j]) / 2;
	}
	return got;
}

/* The set of the Walsh averages of sorted x[0..n), n >= 1. */
static struct stats_set
stats_walsh_set(const struct stats_walsh *w)
{
	return (struct stats_set){ .count = stats_walsh_count,
	    .list = stats_walsh_list, .arg = w, .lo = w->x[0],
	    .hi = w->x[w->n - 1], .size = (uint64_t)w->n * (w->n + 1) / 2,
	    .width = 2 * (uint64_t)w->n };
}

double
stats_walsh_select(const double *sorted, size_t n, uint64_t k)
{
	struct stats_walsh w = { sorted, n };
	struct stats_set set;

	if (n == 0 || k == 0 || k > (uint64_t)n * (n + 1) / 2)
		return NAN;
	set = stats_walsh_set(&w);
	return stats_select(&set, k);
}

bool
stats_interval(const double *ratios, size_t n, uint64_t k, double *est,
    double *lo, double *hi)
{
	uint64_t m = (uint64_t)n * (n + 1) / 2;
	struct stats_walsh w;
	struct stats_set set;
	double *x;

	*est = *lo = *hi = NAN;
	if (n == 0)
		return false;
	x = stats_sorted_logs(ratios, n);
	w = (struct stats_walsh){ x, n };
	set = stats_walsh_set(&w);
	*est = exp(stats_select_median(&set));
	if (k >= 1 && k <= m / 2 + m % 2) {
		*lo = exp(stats_select(&set, k));
		*hi = exp(stats_select(&set, m + 1 - k));
	}
	free(x);
	return !isnan(*lo);
}

enum stats_verdict
stats_verdict(bool has_ci, double lo, double hi, double margin)
{
	if (!has_ci || isnan(lo) || isnan(hi))
		return STATS_UNKNOWN;
	if (lo >= 1.0 / (1.0 + margin) && hi <= 1.0 + margin)
		return STATS_SAME;
	if (lo > 1.0)
		return STATS_ABOVE;
	if (hi < 1.0)
		return STATS_BELOW;
	return STATS_UNDECIDED;
}

const char *
stats_verdict_name(enum stats_verdict v)
{
	switch (v) {
	case STATS_SAME:      return "same";
	case STATS_ABOVE:     return "above";
	case STATS_BELOW:     return "below";
	case STATS_UNDECIDED: return "undecided";
	case STATS_UNKNOWN:   break;
	}
	return "unknown";
}

bool
stats_decided(enum stats_verdict v)
{
	return v == STATS_SAME || v == STATS_ABOVE || v == STATS_BELOW;
}

double
stats_look_level(double confidence, size_t nlooks)
{
	return 1.0 - (1.0 - confidence) / (double)(nlooks ? nlooks : 1);
}

double
stats_mde(bool has_ci, double lo, double hi)
{
	if (!has_ci || !(lo > 0) || !(hi >= lo) || isinf(hi))
		return NAN;
	return exp((log(hi) - log(lo)) / 2) - 1;
}

size_t
stats_reps_for_margin(size_t n, bool has_ci, double lo, double hi,
    double margin)
{
	double mde = stats_mde(has_ci, lo, hi), want;

	if (isnan(mde) || n == 0 || !(margin > 0))
		return 0;
	want = ceil((double)n * pow(log1p(mde) / log1p(margin), 2) - 1e-9);
	/* A width that would need more reps than a round can hold says the
	 * same as the cap: far more than anyone will run. */
	if (!(want < 1e9))
		want = 1e9;
	return want > (double)n ? (size_t)want : n;
}

double
stats_ipc(double instructions, double cycles)
{
	if (isnan(instructions) || isnan(cycles) || !(cycles > 0))
		return NAN;
	return instructions / cycles;
}
