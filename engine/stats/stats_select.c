/* Statistics: the k-th smallest of a large set of doubles known only by
 * counting and listing (see stats_int.h): the Walsh averages of the paired
 * interval, the differences of the two-sample one. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats_int.h"
#include "xalloc.h"

/* Doubles as integers in the same order: the midpoint of two keys splits
 * the doubles between two values in half when halving the values cannot
 * (adjacent exponents), so a bracket always shrinks. */
static uint64_t
stats_select_key(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof u);
	return (u >> 63) ? ~u : u | (UINT64_C(1) << 63);
}

static double
stats_select_unkey(uint64_t k)
{
	uint64_t u = (k >> 63) ? k & ~(UINT64_C(1) << 63) : ~k;
	double x;

	memcpy(&x, &u, sizeof x);
	return x;
}

/* A double strictly between a < b: the middle value, or when that rounds
 * onto an end, the middle in the doubles' order; NAN when a and b are
 * adjacent. */
static double
stats_select_between(double a, double b)
{
	double v = a / 2 + b / 2;
	uint64_t ka, kb;

	if (v > a && v < b)
		return v;
	ka = stats_select_key(a);
	kb = stats_select_key(b);
	if (kb - ka < 2)
		return NAN;
	return stats_select_unkey(ka + (kb - ka) / 2);
}

/* The r-th smallest (0-based) of v[0..n), reordering v: Wirth's
 * selection, with the median of three as the pivot. */
static double
stats_select_nth(double *v, size_t n, size_t r)
{
	ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, k = (ptrdiff_t)r;

	while (l < m) {
		double a = v[l], b = v[l + (m - l) / 2], c = v[m], x, t;
		ptrdiff_t i = l, j = m;

		x = a < b ? (b < c ? b : a < c ? c : a) :
		    (a < c ? a : b < c ? c : b);
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				t = v[i], v[i] = v[j], v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			m = j;
	}
	return v[k];
}

/* The next value to count in the bracket (a, b] of ca < k <= cb members:
 * by linear interpolation of the count at a rank just past k on the side
 * that did not move last (side: -1 a moved, 1 b moved, 0 neither), so
 * that where the members spread evenly two counts close the bracket on
 * k; NAN when nothing lies between a and b. */
static double
stats_select_probe(const struct stats_set *s, double a, double b,
    uint64_t ca, uint64_t cb, uint64_t k, int side)
{
	double rank = (double)k - 0.5, v;

	if (side != 0)
		rank += (double)side * -0.25 * (double)s->width;
	if (rank <= (double)ca)
		rank = (double)ca + 0.5;
	if (rank >= (double)cb)
		rank = (double)cb - 0.5;
	v = a + (b - a) * ((rank - (double)ca) / (double)(cb - ca));
	return v > a && v < b ? v : stats_select_between(a, b);
}

double
stats_select(const struct stats_set *s, uint64_t k)
{
	double a = s->lo, b = s->hi, v, r, *buf;
	uint64_t ca = s->count(s->arg, a), cb = s->size, c, before;
	bool halve = false;
	int side = 0;
	size_t got;

	if (ca >= k)
		return a;
	/* count(a) < k <= count(b): the answer lies in (a, b].  Narrow the
	 * bracket until it holds few enough members to list: by
	 * interpolation, or by halving after an interpolation that did not
	 * halve the members (bunched values, outliers). */
	while ((before = cb - ca) > s->width) {
		v = halve ? stats_select_between(a, b) :
		    stats_select_probe(s, a, b, ca, cb, k, side);
		if (isnan(v))
			return b;     /* nothing between: every member is b */
		if ((c = s->count(s->arg, v)) >= k)
			b = v, cb = c, side = 1;
		else
			a = v, ca = c, side = -1;
		halve = !halve && cb - ca > before / 2;
	}
	buf = xreallocarray(NULL, (size_t)(cb - ca) + 1, sizeof *buf);
	got = s->list(s->arg, a, b, buf);
	r = got == cb - ca ? stats_select_nth(buf, got, (size_t)(k - ca - 1)) :
	    NAN;
	free(buf);
	return r;
}

double
stats_select_median(const struct stats_set *s)
{
	uint64_t m = s->size;

	if (m % 2)
		return stats_select(s, m / 2 + 1);
	return (stats_select(s, m / 2) + stats_select(s, m / 2 + 1)) / 2;
}
