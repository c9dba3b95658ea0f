/* Tally: what a reader outside the report asks of it (see tally.h): the
 * names it holds, and one arm's own values of a metric.  compare sets two
 * rounds' tallies side by side through these. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

size_t
tally_cell_count(const struct tally *t)
{
	return t->ncells;
}

const char *
tally_cell_at(const struct tally *t, size_t i)
{
	return i < t->ncells ? t->cells[i].name : NULL;
}

size_t
tally_arm_count(const struct tally *t, size_t cell)
{
	return cell < t->ncells ? t->cells[cell].narms : 0;
}

const char *
tally_arm_at(const struct tally *t, size_t cell, size_t arm)
{
	if (cell >= t->ncells || arm >= t->cells[cell].narms)
		return NULL;
	return t->cells[cell].arms[arm].name;
}

size_t
tally_metric_count(const struct tally *t)
{
	return t->nmetrics;
}

const char *
tally_metric_at(const struct tally *t, size_t m)
{
	return m < t->nmetrics ? t->metrics[m] : NULL;
}

/* Cell name's index, or t->ncells. */
static size_t
tally_values_cell(const struct tally *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->ncells; i++)
		if (strcmp(t->cells[i].name, name) == 0)
			break;
	return i;
}

const char *
tally_vs_of(const struct tally *t, const char *cell, const char *arm)
{
	size_t i = tally_values_cell(t, cell);

	if (i == t->ncells || t->cells[i].narms == 0 ||
	    tally_find_arm(&t->cells[i], arm) == NULL)
		return NULL;
	return tally_vs(t, &t->cells[i], arm, NULL);
}

size_t
tally_values(const struct tally *t, const char *cell, const char *arm,
    const char *metric, double **buf, size_t *cap)
{
	size_t i = tally_values_cell(t, cell), m, n = 0, reps;
	const struct tarm *a;

	for (m = 0; m < t->nmetrics; m++)
		if (strcmp(t->metrics[m], metric) == 0)
			break;
	if (i == t->ncells || m == t->nmetrics ||
	    (a = tally_find_arm(&t->cells[i], arm)) == NULL)
		return 0;
	if (*cap < a->nlegs + 1) {
		*buf = xreallocarray(*buf, a->nlegs + 1, sizeof **buf);
		*cap = a->nlegs + 1;
	}
	reps = tally_plan_reps(t);
	for (size_t r = 0; r < a->nlegs; r++) {
		const struct tleg *l = &a->legs[r];
		double v;
		if (l->status != LEG_OK || !tally_in_plan(reps, r) ||
		    m >= l->nvals)
			continue;
		v = a->vals[l->off + m];
		if (v > 0 && !isinf(v))
			(*buf)[n++] = v;
	}
	return n;
}

size_t
tally_host_count(const struct tally *t)
{
	return t->nhosts;
}

const char *
tally_host_at(const struct tally *t, size_t i)
{
	return i < t->nhosts ? t->hosts[i] : NULL;
}

size_t
tally_ratios_host(const struct tally *t, const char *cell, const char *arm,
    const char *metric, const char *host, double **buf, size_t *cap)
{
	size_t i = tally_values_cell(t, cell), m, h, need;
	const struct tarm *a, *b;

	for (m = 0; m < t->nmetrics; m++)
		if (strcmp(t->metrics[m], metric) == 0)
			break;
	for (h = 0; h < t->nhosts; h++)
		if (strcmp(t->hosts[h], host) == 0)
			break;
	if (i == t->ncells || m == t->nmetrics || h == t->nhosts ||
	    t->cells[i].narms == 0 ||
	    (a = tally_find_arm(&t->cells[i], arm)) == NULL ||
	    (b = tally_find_arm(&t->cells[i], tally_vs(t, &t->cells[i], arm,
	    NULL))) == NULL)
		return 0;
	need = (a->nlegs > b->nlegs ? a->nlegs : b->nlegs) + 1;
	if (*cap < need) {
		*buf = xreallocarray(*buf, need, 3 * sizeof **buf);
		*cap = need;
	}
	return tally_pair_host(a, b, m, tally_plan_reps(t), (int)h + 1, *buf,
	    *buf + *cap, *buf + 2 * *cap);
}
