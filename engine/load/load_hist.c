/* load's latency histogram: log-linear buckets (HDR-style), so a
 * percentile is within 0.8% of the true value and memory does not grow
 * with --requests or --duration.  One per thread, merged at the end. */
#include "load_int.h"

#include <string.h>

static size_t
load_hist_index(uint64_t v)
{
	int msb, shift;
	size_t idx;

	if (v < 2 * LOAD_HIST_SUB)
		return (size_t)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - LOAD_HIST_SUB_BITS;
	if (shift > LOAD_HIST_MAX_SHIFT)
		return LOAD_HIST_BUCKETS - 1;
	idx = (size_t)LOAD_HIST_SUB * (size_t)shift + (size_t)(v >> shift);
	return idx < LOAD_HIST_BUCKETS ? idx : LOAD_HIST_BUCKETS - 1;
}

/* The middle of bucket idx, in ns. */
static double
load_hist_value(size_t idx)
{
	size_t shift, top;
	double lo, width;

	if (idx < 2 * LOAD_HIST_SUB)
		return (double)idx;
	shift = idx / LOAD_HIST_SUB - 1;
	top = idx - LOAD_HIST_SUB * shift;   /* in [SUB, 2*SUB) */
	lo = (double)((uint64_t)top << shift);
	width = (double)((uint64_t)1 << shift);
	return lo + width / 2;
}

void
load_hist_add(struct load_hist *h, double seconds)
{
	double ns = seconds * 1e9;
	uint64_t v = ns > 0 ? (ns < 9e18 ? (uint64_t)ns : UINT64_MAX) : 0;

	h->count[load_hist_index(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

void
load_hist_merge(struct load_hist *into, const struct load_hist *h)
{
	for (size_t i = 0; i < LOAD_HIST_BUCKETS; i++)
		into->count[i] += h->count[i];
	into->n += h->n;
	if (h->max > into->max)
		into->max = h->max;
}

double
load_hist_quantile(const struct load_hist *h, double p)
{
	uint64_t rank, seen = 0;
	double v;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)(p * (double)h->n);
	if ((double)rank < p * (double)h->n)
		rank++;
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < LOAD_HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			v = load_hist_value(i);
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}
