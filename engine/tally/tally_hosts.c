/* Tally: a round on several hosts (see tally_piece.h).
 *
 * The pooled estimate is the round's rule over every pair of legs that
 * ran on one host (tally_pair never pairs across hosts).  Beside it, each
 * host's own estimate, and which hosts' effects differ: each host's
 * ratios against the other hosts' by the two-sample rule (compare's), at
 * the round's level shared among the comparisons, the farthest named
 * first.  benchtui(1) STATISTICS
 * states the rule; docs/STATISTICS.md why this one. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

/* The most hosts with ratios whose differences are looked for. */
#define TALLY_HOSTS_RULE_MAX 64

/* One host's part of an arm-metric: its ratios (and the pairs' values,
 * sorted) in the room at off, n of them. */
struct hpart {
	size_t off, n;
	struct tally_ests e;
	bool active;         /* still looked at (tally_hosts_name) */
	bool named;          /* differs from the others */
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

/* How far a host's effect (its ratios y) lies from the others' (x): the
 * |log| of the two-sample estimate of y against x at level when its
 * interval excludes 1, else -1 (no difference seen). */
static double
tally_hosts_apart(const double *x, size_t nx, const double *y, size_t ny,
    double level)
{
	double est, lo, hi;

	if (!stats_interval2(x, nx, y, ny, level, &est, &lo, &hi) ||
	    (lo <= 1 && hi >= 1))
		return -1;
	return fabs(log(est));
}

/* The active hosts' ratios but host h's, pooled into rest; how many. */
static size_t
tally_hosts_rest(const struct hpart *part, size_t nh, size_t h,
    const double *r, double *rest)
{
	size_t k = 0;

	for (size_t g = 0; g < nh; g++)
		if (g != h && part[g].active) {
			memcpy(rest + k, r + part[g].off, part[g].n *
			    sizeof *rest);
			k += part[g].n;
		}
	return k;
}

/* Which hosts differ (benchtui-stats(7)), step by step: among the active
 * hosts (those with ratios), each against the others pooled at level;
 * of those whose interval excludes 1, the one whose estimate lies
 * farthest from 1 is named and leaves the active set, and the rest are
 * looked at again, until none differs.  Two active hosts are compared
 * with each other, both named when they differ.  A typical host reads as
 * different from a rest that holds an odd one; naming the odd one first
 * and taking it out keeps the typical ones unnamed. */
static void
tally_hosts_name(struct hpart *part, size_t nh, const double *r,
    double *rest, double level)
{
	size_t active = 0;

	for (size_t h = 0; h < nh; h++)
		active += part[h].active = part[h].n > 0;
	while (active >= 2) {
		size_t best = nh, k;
		double far = -1, d;

		for (size_t h = 0; h < nh; h++) {
			if (!part[h].active)
				continue;
			k = tally_hosts_rest(part, nh, h, r, rest);
			d = tally_hosts_apart(rest, k, r + part[h].off,
			    part[h].n, level);
			if (d > far) {
				far = d;
				best = h;
			}
		}
		if (best == nh)
			return;
		if (active == 2) {
			for (size_t h = 0; h < nh; h++)
				part[h].named |= part[h].active;
			return;
		}
		part[best].named = true;
		part[best].active = false;
		active--;
	}
}

void
tally_hosts_add(struct tally_cellwork *cw, const struct tarm *a,
    const struct tarm *b, size_t m, json_t *o)
{
	const struct tally *t = cw->t;
	size_t nh = t->nhosts, room = 0, used = 0, withn = 0;
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
		withn += p->n > 0;
	}
	/* The level shared among the hosts' comparisons (Bonferroni; two
	 * hosts are one comparison): no host reads as different by chance
	 * more often than the round's level allows, however many hosts. */
	level = withn > 2 ? 1 - (1 - t->level) / (double)withn : t->level;
	/* Each step compares every host with all the others' ratios: a
	 * crafted log of a thousand hosts would take hours.  A fleet that
	 * large runs a round a node and reads them with compare. */
	if (withn <= TALLY_HOSTS_RULE_MAX)
		tally_hosts_name(part, nh, r, rest, level);
	else
		tally_warn(cw->w, W_HOST, "%s %s vs %s %s: %zu hosts, more than "
		    "%d: which hosts differ is not computed", cw->c->name,
		    a->name, b ? b->name : "?", t->metrics[m], withn,
		    TALLY_HOSTS_RULE_MAX);
	for (size_t h = 0; h < nh; h++) {
		json_object_set_new(hosts, t->hosts[h], tally_host_json(
		    &part[h], t->estimator, t->margin));
		if (part[h].named)
			json_array_append_new(differ, json_string(t->hosts[h]));
	}
	json_object_set_new(o, "hosts", hosts);
	json_object_set_new(o, "depends_on_machine", json_boolean(
	    json_array_size(differ) > 0));
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
