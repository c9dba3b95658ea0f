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

/* A polynomial's value at x by Horner's rule, c[0] the constant. */
static double
stats_poly(const double *c, size_t n, double x)
{
	double v = c[n - 1];

	for (size_t i = n - 1; i-- > 0; )
		v = v * x + c[i];
	return v;
}

/* Wichura's algorithm AS 241 (PPND16, Applied Statistics 37(3), 1988):
 * three rational approximations of degree 7, relative error about 1e-16
 * over the whole range, the one R's qnorm uses; no iteration, so the
 * same on every machine with IEEE doubles. */
double
stats_normal_quantile(double p)
{
	static const double a[8] = { 3.3871328727963666080e0,
		1.3314166789178437745e2, 1.9715909503065514427e3,
		1.3731693765509461125e4, 4.5921953931549871457e4,
		6.7265770927008700853e4, 3.3430575583588128105e4,
		2.5090809287301226727e3 };
	static const double b[8] = { 1.0, 4.2313330701600911252e1,
		6.8718700749205790830e2, 5.3941960214247511077e3,
		2.1213794301586595867e4, 3.9307895800092710610e4,
		2.8729085735721942674e4, 5.2264952788528545610e3 };
	static const double c[8] = { 1.42343711074968357734e0,
		4.63033784615654529590e0, 5.76949722146069140550e0,
		3.64784832476320460504e0, 1.27045825245236838258e0,
		2.41780725177450611770e-1, 2.27238449892691845833e-2,
		7.74545014278341407640e-4 };
	static const double d[8] = { 1.0, 2.05319162663775882187e0,
		1.67638483018380384940e0, 6.89767334985100004550e-1,
		1.48103976427480074590e-1, 1.51986665636164571966e-2,
		5.47593808499534494600e-4, 1.05075007164441684324e-9 };
	static const double e[8] = { 6.65790464350110377720e0,
		5.46378491116411436990e0, 1.78482653991729133580e0,
		2.96560571828504891230e-1, 2.65321895265761230930e-2,
		1.24266094738807843860e-3, 2.71155556874348757815e-5,
		2.01033439929228813265e-7 };
	static const double f[8] = { 1.0, 5.99832206555887937690e-1,
		1.36929880922735805310e-1, 1.48753612908506148525e-2,
		7.86869131145613259100e-4, 1.84631831751005468180e-5,
		1.42151175831644588870e-7, 2.04426310338993978564e-15 };
	double q = p - 0.5, r, x;

	if (!(p > 0) || !(p < 1))
		return p == 0 ? -INFINITY : p == 1 ? INFINITY : NAN;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * stats_poly(a, 8, r) / stats_poly(b, 8, r);
	}
	r = sqrt(-log(q < 0 ? p : 1 - p));
	if (r <= 5) {
		r -= 1.6;
		x = stats_poly(c, 8, r) / stats_poly(d, 8, r);
	} else {
		r -= 5;
		x = stats_poly(e, 8, r) / stats_poly(f, 8, r);
	}
	return q < 0 ? -x : x;
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
