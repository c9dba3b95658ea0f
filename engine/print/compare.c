/* compare: two rounds' tallies side by side (see compare.h).  All
 * arithmetic through stats.h (stats_interval2); the names through
 * tally.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "stats.h"
#include "xalloc.h"

/* What building the comparison needs, and its room reused. */
struct compare_work {
	const struct tally *a, *b;
	double level, margin;
	json_t *only_a, *only_b, *notes;
	size_t matched;          /* metric entries made */
	bool per_host;           /* both rounds name hosts, one several */
	double *va, *vb;         /* one sample of each round */
	size_t capa, capb;
	/* tally_ratios' room, three lists a buffer: its own. */
	double *ra, *rb;
	size_t capra, caprb;
};

static json_t *
compare_real(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

/* Whether the tally holds cell i's arm by name. */
static bool
compare_has_arm(const struct tally *t, size_t cell, const char *arm)
{
	for (size_t j = 0; j < tally_arm_count(t, cell); j++)
		if (strcmp(tally_arm_at(t, cell, j), arm) == 0)
			return true;
	return false;
}

/* The index of cell name in t, or tally_cell_count(t). */
static size_t
compare_cell(const struct tally *t, const char *name)
{
	size_t i, n = tally_cell_count(t);

	for (i = 0; i < n; i++)
		if (strcmp(tally_cell_at(t, i), name) == 0)
			break;
	return i;
}

static bool
compare_has_metric(const struct tally *t, const char *name)
{
	for (size_t m = 0; m < tally_metric_count(t); m++)
		if (strcmp(tally_metric_at(t, m), name) == 0)
			return true;
	return false;
}

/* The two-sample object of va[0..na) against vb[0..nb): B over A. */
static json_t *
compare_entry(struct compare_work *w, const double *va, size_t na,
    const double *vb, size_t nb, bool abs)
{
	json_t *o = json_object(), *ci;
	double est, lo, hi;
	bool has = stats_interval2(va, na, vb, nb, w->level, &est, &lo, &hi);

	json_object_set_new(o, "n_a", json_integer((json_int_t)na));
	json_object_set_new(o, "n_b", json_integer((json_int_t)nb));
	if (abs) {
		json_object_set_new(o, "abs_a", compare_real(stats_median(va,
		    na)));
		json_object_set_new(o, "abs_b", compare_real(stats_median(vb,
		    nb)));
	}
	json_object_set_new(o, "estimate", compare_real(est));
	if (has) {
		ci = json_array();
		json_array_append_new(ci, json_real(lo));
		json_array_append_new(ci, json_real(hi));
	} else
		ci = json_null();
	json_object_set_new(o, "ci", ci);
	json_object_set_new(o, "verdict", json_string(stats_verdict_name(
	    stats_verdict(has, lo, hi, w->margin))));
	return o;
}

/* "CELL/ARM/METRIC" into list. */
static void
compare_only(json_t *list, const char *cell, const char *arm,
    const char *metric)
{
	char *s = xasprintf("%s/%s/%s", cell, arm, metric);

	json_array_append_new(list, json_string(s));
	free(s);
}

/* Every metric with values of arm in cell of a round the other lacks,
 * listed as only there. */
static void
compare_arm_alone(struct compare_work *w, const struct tally *t,
    const char *cell, const char *arm, json_t *list)
{
	for (size_t m = 0; m < tally_metric_count(t); m++) {
		const char *metric = tally_metric_at(t, m);
		if (tally_values(t, cell, arm, metric, &w->va, &w->capa) > 0)
			compare_only(list, cell, arm, metric);
	}
}

/* metric of arm in cell, the arm's own values in both rounds. */
static void
compare_metric(struct compare_work *w, const char *cell, const char *arm,
    const char *metric, json_t *mj)
{
	size_t na = tally_values(w->a, cell, arm, metric, &w->va, &w->capa);
	size_t nb = tally_values(w->b, cell, arm, metric, &w->vb, &w->capb);

	if (na > 0 && nb > 0) {
		json_object_set_new(mj, metric, compare_entry(w, w->va, na,
		    w->vb, nb, true));
		w->matched++;
	} else if (na > 0)
		compare_only(w->only_a, cell, arm, metric);
	else if (nb > 0)
		compare_only(w->only_b, cell, arm, metric);
}

/* metric's within-round ratios of arm (against its comparison arm) in
 * both rounds, when both have them. */
static void
compare_effect(struct compare_work *w, const char *cell, const char *arm,
    const char *metric, json_t *ej)
{
	size_t na = tally_ratios(w->a, cell, arm, metric, &w->ra, &w->capra);
	size_t nb = tally_ratios(w->b, cell, arm, metric, &w->rb, &w->caprb);

	json_t *e, *hosts;

	if (na == 0 || nb == 0)
		return;
	e = compare_entry(w, w->ra, na, w->rb, nb, false);
	json_object_set_new(ej, metric, e);
	if (!w->per_host)
		return;
	/* Each host both rounds ran on: did the effect change there. */
	hosts = json_object();
	for (size_t h = 0; h < tally_host_count(w->a); h++) {
		const char *name = tally_host_at(w->a, h);

		na = tally_ratios_host(w->a, cell, arm, metric, name, &w->ra,
		    &w->capra);
		nb = tally_ratios_host(w->b, cell, arm, metric, name, &w->rb,
		    &w->caprb);
		if (na > 0 && nb > 0)
			json_object_set_new(hosts, name, compare_entry(w, w->ra,
			    na, w->rb, nb, false));
	}
	if (json_object_size(hosts) > 0)
		json_object_set_new(e, "hosts", hosts);
	else
		json_decref(hosts);
}

/* Whether both rounds name hosts, one of them several: each effect is
 * then compared host by host too, and rounds without a host in common
 * are noted. */
static bool
compare_per_host(const struct tally *a, const struct tally *b,
    json_t *notes)
{
	size_t na = tally_host_count(a), nb = tally_host_count(b);

	if (na == 0 || nb == 0 || (na < 2 && nb < 2))
		return false;
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			if (strcmp(tally_host_at(a, i), tally_host_at(b, j)) == 0)
				return true;
	json_array_append_new(notes, json_string("the rounds ran on no host "
	    "in common: each effect is compared over every host's pairs, "
	    "not host by host"));
	return false;
}

/* Each metric of both rounds (A's order, then B's own), f for each. */
static void
compare_each_metric(struct compare_work *w, const char *cell,
    const char *arm, json_t *into, void (*f)(struct compare_work *,
    const char *, const char *, const char *, json_t *))
{
	for (size_t m = 0; m < tally_metric_count(w->a); m++)
		f(w, cell, arm, tally_metric_at(w->a, m), into);
	for (size_t m = 0; m < tally_metric_count(w->b); m++)
		if (!compare_has_metric(w->a, tally_metric_at(w->b, m)))
			f(w, cell, arm, tally_metric_at(w->b, m), into);
}

/* Arm of cell, in both rounds: its metrics and, unless it is the
 * baseline, its effect. */
static json_t *
compare_arm(struct compare_work *w, const char *cell, const char *arm)
{
	json_t *aj = json_object(), *mj = json_object(), *ej;
	const char *vs_a = tally_vs_of(w->a, cell, arm);
	const char *vs_b = tally_vs_of(w->b, cell, arm);

	compare_each_metric(w, cell, arm, mj, compare_metric);
	json_object_set_new(aj, "metrics", mj);
	if (vs_a != NULL && vs_b != NULL && strcmp(vs_a, vs_b) == 0) {
		ej = json_object();
		compare_each_metric(w, cell, arm, ej, compare_effect);
		json_object_set_new(aj, "effect", ej);
	} else if (vs_a != NULL || vs_b != NULL) {
		char *s = xasprintf("%s/%s is compared with %s in A and %s in "
		    "B: no effect row", cell, arm, vs_a ? vs_a : "nothing "
		    "(the baseline)", vs_b ? vs_b : "nothing (the baseline)");
		json_array_append_new(w->notes, json_string(s));
		free(s);
	}
	return aj;
}

/* o under key in parent, unless every object in it is empty (an arm or
 * a cell with nothing in common: its parts are listed as only one
 * round's). */
static void
compare_keep(json_t *parent, const char *key, json_t *o)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
		if (!json_is_object(v) || json_object_size(v) > 0) {
			json_object_set_new(parent, key, o);
			return;
		}
	json_decref(o);
}

/* Cell ia of A (ib of B): the arms of both, A's order then B's own. */
static json_t *
compare_cell_json(struct compare_work *w, size_t ia, size_t ib)
{
	const char *cell = tally_cell_at(w->a, ia), *arm;
	json_t *cj = json_object(), *arms = json_object();

	for (size_t j = 0; j < tally_arm_count(w->a, ia); j++) {
		arm = tally_arm_at(w->a, ia, j);
		if (compare_has_arm(w->b, ib, arm))
			compare_keep(arms, arm, compare_arm(w, cell, arm));
		else
			compare_arm_alone(w, w->a, cell, arm, w->only_a);
	}
	for (size_t j = 0; j < tally_arm_count(w->b, ib); j++) {
		arm = tally_arm_at(w->b, ib, j);
		if (!compare_has_arm(w->a, ia, arm))
			compare_arm_alone(w, w->b, cell, arm, w->only_b);
	}
	json_object_set_new(cj, "arms", arms);
	return cj;
}

/* Every arm of cell i of t, a cell the other round lacks, listed as only
 * there. */
static void
compare_cell_alone(struct compare_work *w, const struct tally *t, size_t i,
    json_t *list)
{
	for (size_t j = 0; j < tally_arm_count(t, i); j++)
		compare_arm_alone(w, t, tally_cell_at(t, i),
		    tally_arm_at(t, i, j), list);
}

json_t *
compare_round_facts(const struct tally *t)
{
	static const char *const keys[] = { "partial", "legs_counted",
	    "legs_total", "warnings" };
	json_t *rep = tally_report_brief(t), *o = json_object(), *v;

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		v = json_object_get(rep, keys[i]);
		json_object_set(o, keys[i], v != NULL ? v : json_null());
	}
	json_decref(rep);
	return o;
}

size_t
compare_build(const struct tally *a, const struct tally *b, double level,
    double margin, json_t *out, json_t *notes)
{
	struct compare_work w = { .a = a, .b = b, .level = level,
	    .margin = margin, .only_a = json_array(), .only_b = json_array(),
	    .notes = notes };
	json_t *cells = json_object();

	w.per_host = compare_per_host(a, b, notes);
	for (size_t i = 0; i < tally_cell_count(a); i++) {
		size_t ib = compare_cell(b, tally_cell_at(a, i));
		if (ib < tally_cell_count(b))
			compare_keep(cells, tally_cell_at(a, i),
			    compare_cell_json(&w, i, ib));
		else
			compare_cell_alone(&w, a, i, w.only_a);
	}
	for (size_t i = 0; i < tally_cell_count(b); i++)
		if (compare_cell(a, tally_cell_at(b, i)) == tally_cell_count(a))
			compare_cell_alone(&w, b, i, w.only_b);
	json_object_set_new(out, "only_a", w.only_a);
	json_object_set_new(out, "only_b", w.only_b);
	json_object_set_new(out, "cells", cells);
	free(w.va);
	free(w.vb);
	free(w.ra);
	free(w.rb);
	return w.matched;
}
