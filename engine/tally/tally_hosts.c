/* Tally: a round on several hosts (see tally_piece.h).
 *
 * The pooled estimate is the round's rule over every pair of legs that
 * ran on one host (tally_pair never pairs across hosts).  Beside it, each
 * host's own estimate, and whether the hosts' effects differ: each host's
 * ratios against the other hosts' by the two-sample rule (compare's), at
 * the round's level shared among the comparisons.  benchtui(1) STATISTICS
 * states the rule; docs/STATISTICS.md why this one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

/* One host's part of an arm-metric: its ratios (and the pairs' values,
 * sorted) in the room at off, n of them. */
struct hpart {
	size_t off, n;
	struct tally_ests e;
	int side;            /* its effect against the others': 1 larger,
	                      * -1 smaller, 0 no difference seen */
};

static json_t *
tally_host_json(const struct hpart *p, enum spec_estimator chosen,
    double margin)
{
	const struct tally_est *e = &p->e.by[chosen];
	json_t *o = json_object();

	json_object_set_new(o, "estimate", tally_real(e->est));
	json_object_set_new(o, "lo", e->has_ci ? tally_real(e->lo) :
	    json_null());
	json_object_set_new(o, "hi", e->has_ci ? tally_real(e->hi) :
	    json_null());
	json_object_set_new(o, "n", json_integer((json_int_t)p->n));
	json_object_set_new(o, "verdict", json_string(stats_verdict_name(
	    stats_verdict(e->has_ci, e->lo, e->hi, margin))));
	return o;
}

/* Whether a host's effect (its ratios y) differs from the others' (x):
 * 1 when the two-sample interval of y against x at level lies above 1,
 * -1 below, else 0. */
static int
tally_hosts_side(const double *x, size_t nx, const double *y, size_t ny,
    double level)
{
	double est, lo, hi;

	if (!stats_interval2(x, nx, y, ny, level, &est, &lo, &hi))
		return 0;
	return lo > 1 ? 1 : hi < 1 ? -1 : 0;
}

void
tally_hosts_add(struct tally_cellwork *cw, const struct tarm *a,
    const struct tarm *b, size_t m, json_t *o)
{
	const struct tally *t = cw->t;
	size_t nh = t->nhosts, room = 0, used = 0, withn, nside[2] = { 0, 0 };
	struct hpart *part;
	double *r, *va, *vb, *rest, level;
	json_t *hosts = json_object(), *differ = json_array();

	if (b != NULL)
		room = (a->nlegs < b->nlegs ? a->nlegs : b->nlegs) + 1;
	part = xcalloc(nh, sizeof *part);
	r = xreallocarray(NULL, 4 * room + 1, sizeof *r);
	va = r + room;
	vb = va + room;
	rest = vb + room;
	for (size_t h = 0; h < nh; h++) {
		struct hpart *p = &part[h];

		p->off = used;
		p->n = b ? tally_pair_host(a, b, m, cw->reps, (int)h + 1,
		    r + used, va + used, vb + used) : 0;
		stats_sort(va + used, p->n);
		stats_sort(vb + used, p->n);
		tally_estimate(cw->km, r + used, va + used, vb + used, p->n,
		    &p->e);
		used += p->n;
	}
	/* Each host with pairs against the pooled pairs of the others, at
	 * the level shared among those comparisons (Bonferroni; two hosts
	 * are one comparison): no host reads as different by chance more
	 * often than the round's level allows, however many hosts. */
	withn = 0;
	for (size_t h = 0; h < nh; h++)
		withn += part[h].n > 0;
	level = withn > 2 ? 1 - (1 - t->level) / (double)withn : t->level;
	for (size_t h = 0; withn > 1 && h < nh; h++) {
		size_t k = 0;

		if (part[h].n == 0)
			continue;
		for (size_t g = 0; g < nh; g++)
			if (g != h) {
				memcpy(rest + k, r + part[g].off, part[g].n *
				    sizeof *rest);
				k += part[g].n;
			}
		part[h].side = tally_hosts_side(rest, k, r + part[h].off,
		    part[h].n, level);
		nside[part[h].side > 0 ? 1 : 0] += part[h].side != 0;
	}
	/* A typical host reads as different from a rest that holds an odd
	 * one: when hosts differ both ways, only the side with fewer hosts
	 * is named (both when as many). */
	for (size_t h = 0; h < nh; h++) {
		int s = part[h].side;

		json_object_set_new(hosts, t->hosts[h], tally_host_json(
		    &part[h], t->estimator, t->margin));
		if (s == 0 || (nside[0] && nside[1] &&
		    nside[s > 0 ? 1 : 0] > nside[s > 0 ? 0 : 1]))
			continue;
		json_array_append_new(differ, json_string(t->hosts[h]));
	}
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "depends_on_machine", json_boolean(
	    nside[0] + nside[1] > 0));
	json_object_set_new(o, "hosts_differ", differ);
	free(r);
	free(part);
}

size_t
tally_cross_hosts(const struct tarm *a, const struct tarm *b, size_t reps,
    size_t *first)
{
	size_t n = a->nlegs < b->nlegs ? a->nlegs : b->nlegs, k = 0;

	if (a->host == NULL && b->host == NULL)
		return 0;
	for (size_t r = 0; r < n; r++) {
		if (a->legs[r].status != LEG_OK || b->legs[r].status != LEG_OK ||
		    !tally_in_plan(reps, r) ||
		    tally_leg_host(a, r) == tally_leg_host(b, r))
			continue;
		if (k++ == 0)
			*first = r;
	}
	return k;
}
