/* Statistics: SPEC.md's arithmetic (see stats.h). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "xalloc.h"

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

/* The p-quantile of the standard normal: Acklam's rational approximation
 * (relative error 1.2e-9), then one Halley step on erfc, which brings it to
 * double precision. */
static double
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

/* One step of the null distribution's recursion: multiplying the
 * generating function by (1 + z^i) / 2, for t in [0, top].  Two buffers
 * (no aliasing) so the compiler can vectorise the inner loop. */
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

uint64_t
stats_wilcoxon_k(size_t n, double level)
{
	double alpha = (1.0 - level) / 2.0, *p, *q, *tmp, cdf;
	uint64_t m = (uint64_t)n * (n + 1) / 2, k;
	size_t tmax, top = 0;

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
	 * only that half of the distribution is built.  The halving in each
	 * step keeps 2^n out of the doubles. */
	tmax = (size_t)(m / 2);
	p = xcalloc(tmax + 1, sizeof *p);
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
	k = 0;
	cdf = 0;
	for (size_t t = 0; t <= tmax; t++) {
		cdf += p[t];
		if (cdf > alpha)
			break;
		k = t + 1;
	}
	free(p);
	free(q);
	return k;
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

/* Doubles as integers in the same order, so that a bisection over them
 * ends in at most 64 steps on an exact value. */
static uint64_t
stats_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof u);
	return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double
stats_unkey(uint64_t k)
{
	uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;

	memcpy(&x, &u, sizeof x);
	return x;
}

/* How many Walsh averages of sorted x are <= v.  (x[i] + x[j]) / 2 rounds
 * monotonically in each of x[i] and x[j], so the last j with an average
 * <= v only moves down as i moves up: one O(n) sweep. */
static uint64_t
stats_walsh_count(const double *x, size_t n, double v)
{
	uint64_t count = 0;
	size_t j = n;  /* one past the last j with (x[i] + x[j]) / 2 <= v */

	for (size_t i = 0; i < n; i++) {
		while (j > i && !((x[i] + x[j - 1]) / 2 <= v))
			j--;
		if (j <= i)
			break;
		count += j - i;
	}
	return count;
}

double
stats_walsh_select(const double *sorted, size_t n, uint64_t k)
{
	uint64_t lo, hi;

	if (n == 0 || k == 0 || k > (uint64_t)n * (n + 1) / 2)
		return NAN;
	/* The smallest average is x[0], the largest x[n-1]: find the smallest
	 * double v with count(v) >= k; it is one of the averages. */
	lo = stats_key(sorted[0]);
	hi = stats_key(sorted[n - 1]);
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (stats_walsh_count(sorted, n, stats_unkey(mid)) >= k)
			hi = mid;
		else
			lo = mid + 1;
	}
	return stats_unkey(lo);
}

bool
stats_interval(const double *ratios, size_t n, uint64_t k, double *est,
    double *lo, double *hi)
{
	uint64_t m = (uint64_t)n * (n + 1) / 2;
	double *x;

	*est = *lo = *hi = NAN;
	if (n == 0)
		return false;
	x = xreallocarray(NULL, n, sizeof *x);
	for (size_t i = 0; i < n; i++)
		x[i] = log(ratios[i]);
	stats_sort(x, n);
	if (m % 2)
		*est = exp(stats_walsh_select(x, n, m / 2 + 1));
	else
		*est = exp((stats_walsh_select(x, n, m / 2) +
		    stats_walsh_select(x, n, m / 2 + 1)) / 2);
	if (k >= 1 && k <= m / 2 + m % 2) {
		*lo = exp(stats_walsh_select(x, n, k));
		*hi = exp(stats_walsh_select(x, n, m + 1 - k));
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
stats_ipc(double instructions, double cycles)
{
	if (isnan(instructions) || isnan(cycles) || !(cycles > 0))
		return NAN;
	return instructions / cycles;
}
