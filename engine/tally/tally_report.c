/* Tally: the report (see tally.h): every (cell, arm) against its
 * comparison arm, per metric, with the warnings a reader needs.  All
 * arithmetic through stats.h.  This file builds the pieces
 * (tally_piece.h): an arm's part of its cell, an A/A arm's state;
 * tally_join.c puts them together, tally_cache.c decides which to build
 * and keeps them. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_floor.h"
#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

static double
tally_val(const struct tarm *a, const struct tleg *l, size_t m)
{
	return m < l->nvals ? a->vals[l->off + m] : NAN;
}

json_t *
tally_real(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

size_t
tally_plan_reps(const struct tally *t)
{
	return t->have_spec ? (size_t)t->reps : (size_t)t->log_reps;
}

bool
tally_in_plan(size_t reps, size_t r)
{
	return reps == 0 || (r >= 1 && r <= reps);
}

static void
tally_warn_list(struct warns *w, int kind, json_t *msg)
{
	size_t n = json_array_size(w->list);

	if (n == w->cap) {
		w->cap = xgrow(w->cap, n + 1, 8);
		w->kind = xrealloc(w->kind, w->cap);
	}
	w->kind[n] = (unsigned char)kind;
	json_array_append_new(w->list, msg);
}

void
tally_warn(struct warns *w, int kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (++w->count[kind] > TALLY_WARN_CAP && kind != W_OTHER)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tally_warn_list(w, kind, json_string(buf));
}

void
tally_warns_add(struct warns *w, const struct warns *piece)
{
	size_t seen[W_KINDS] = { 0 };
	const json_t *msg;
	size_t j;

	/* The piece lists the first TALLY_WARN_CAP of each kind it made; the
	 * report lists those the report's own count still leaves room for. */
	json_array_foreach(piece->list, j, msg) {
		int k = piece->kind[j];
		if (k == W_OTHER || w->count[k] + seen[k] < TALLY_WARN_CAP)
			tally_warn_list(w, k, json_incref((json_t *)msg));
		seen[k]++;
	}
	for (int k = 0; k < W_KINDS; k++)
		w->count[k] += piece->count[k];
}

void
tally_warns_clear(struct warns *w)
{
	json_decref(w->list);
	free(w->kind);
	memset(w, 0, sizeof *w);
}

static bool
tally_is_aa(const struct tally *t, const char *arm, const char **of)
{
	const struct tspec_arm *list = t->have_spec ? t->sarms : t->aa;
	size_t n = t->have_spec ? t->nsarms : t->naa;

	for (size_t i = 0; i < n; i++)
		if (strcmp(list[i].name, arm) == 0 && list[i].aa_of) {
			*of = list[i].aa_of;
			return true;
		}
	return false;
}

const char *
tally_vs(const struct tally *t, const struct tcell *c, const char *arm,
    struct warns *w)
{
	const char *of, *base = NULL;

	if (t->have_spec) {
		for (size_t i = 0; i < t->nsarms; i++)
			if (strcmp(t->sarms[i].name, arm) == 0)
				return t->sarms[i].vs;
		return NULL;
	}
	if (tally_is_aa(t, arm, &of))
		return of;
	if (t->baseline) {
		for (size_t i = 0; i < c->narms && !base; i++)
			if (strcmp(c->arms[i].name, t->baseline) == 0)
				base = t->baseline;
		if (!base && w && strcmp(arm, c->arms[0].name) == 0)
			tally_warn(w, W_OTHER, "cell %s has no legs of the "
			    "baseline arm %s; its first arm is the baseline",
			    c->name, t->baseline);
	}
	for (size_t i = 0; i < c->narms && !base; i++)
		if (!tally_is_aa(t, c->arms[i].name, &of))
			base = c->arms[i].name;
	if (!base)
		base = c->arms[0].name;
	return strcmp(arm, base) == 0 ? NULL : base;
}

const struct tarm *
tally_find_arm(const struct tcell *c, const char *name)
{
	for (size_t i = 0; name && i < c->narms; i++)
		if (strcmp(c->arms[i].name, name) == 0)
			return &c->arms[i];
	return NULL;
}

bool
tally_changes_unpaired(const struct tarm *b, uint64_t since_ver,
    const struct tarm *a, size_t reps)
{
	size_t kept = b->nchanges < TALLY_RECENT ? b->nchanges : TALLY_RECENT;
	bool seen_since = b->nchanges <= TALLY_RECENT;

	for (size_t j = b->nchanges - kept; j < b->nchanges; j++) {
		size_t r = b->change_rep[j % TALLY_RECENT];
		if (b->change_ver[j % TALLY_RECENT] <= since_ver) {
			seen_since = true;
			continue;
		}
		if (r < a->nlegs && a->legs[r].status == LEG_OK &&
		    tally_in_plan(reps, r))
			return false;
	}
	return seen_since;
}

size_t
tally_pair_host(const struct tarm *a, const struct tarm *b, size_t m,
    size_t reps, int host, double *out, double *va, double *vb)
{
	size_t n = a->nlegs < b->nlegs ? a->nlegs : b->nlegs, k = 0;

	for (size_t r = 0; r < n; r++) {
		const struct tleg *la = &a->legs[r], *lb = &b->legs[r];
		unsigned h = tally_leg_host(a, r);
		double x, y;
		/* Ratios are paired within a host, never across. */
		if (la->status != LEG_OK || lb->status != LEG_OK ||
		    !tally_in_plan(reps, r) || h != tally_leg_host(b, r) ||
		    (host >= 0 && h != (unsigned)host))
			continue;
		x = tally_val(a, la, m);
		y = tally_val(b, lb, m);
		if (stats_ratios(&x, &y, NULL, 1, &out[k]) == 1) {
			va[k] = x;
			vb[k] = y;
			k++;
		}
	}
	return k;
}

/* Paired ratios of metric m, a against b, in rep order into out (room for
 * max(a, b) reps), and the pairs' values into va and vb, compacted the same
 * way; returns n. */
static size_t
tally_pair(const struct tarm *a, const struct tarm *b, size_t m,
    size_t reps, double *out, double *va, double *vb)
{
	return tally_pair_host(a, b, m, reps, -1, out, va, vb);
}

bool
tally_k_known(const struct kmemo *km, size_t n)
{
	for (size_t j = 0; j < km->used; j++)
		if (km->n[j] == n)
			return true;
	return false;
}

/* n's place in km, its k and u made when n is new. */
static size_t
tally_kslot(struct kmemo *km, size_t n)
{
	size_t i = km->next;

	for (size_t j = 0; j < km->used; j++)
		if (km->n[j] == n)
			return j;
	km->n[i] = n;
	km->k[i] = stats_wilcoxon_k(n, km->level);
	km->u[i] = stats_floor_u(n, km->level);
	km->next = (i + 1) % KMEMO;
	if (km->used < KMEMO)
		km->used++;
	return i;
}

static uint64_t
tally_k(struct kmemo *km, size_t n)
{
	return km->k[tally_kslot(km, n)];
}

static size_t
tally_floor_u(struct kmemo *km, size_t n)
{
	return km->u[tally_kslot(km, n)];
}

/* Paired ratios as tally_pair, with the pairs' values cw->va and cw->vb
 * sorted: their medians and the floor estimator are all that read them. */
static size_t
tally_pair_sorted(struct tally_cellwork *cw, const struct tarm *a,
    const struct tarm *b, size_t m)
{
	size_t n = tally_pair(a, b, m, cw->reps, cw->ratios, cw->va, cw->vb);

	stats_sort(cw->va, n);
	stats_sort(cw->vb, n);
	return n;
}

void
tally_estimate(struct kmemo *km, const double *ratios, const double *sa,
    const double *sb, size_t n, struct tally_ests *e)
{
	struct tally_est *p = &e->by[SPEC_ESTIMATOR_PAIRED];
	struct tally_est *f = &e->by[SPEC_ESTIMATOR_FLOOR];

	p->has_ci = stats_interval(ratios, n, n ? tally_k(km, n) : 0, &p->est,
	    &p->lo, &p->hi);
	f->has_ci = stats_floor_sorted(sa, sb, n, n ? tally_floor_u(km, n) : 0,
	    &f->est, &f->lo, &f->hi);
}

static json_t *
tally_ci_json(const struct tally_est *e)
{
	json_t *ci;

	if (!e->has_ci)
		return json_null();
	ci = json_array();
	json_array_append_new(ci, json_real(e->lo));
	json_array_append_new(ci, json_real(e->hi));
	return ci;
}

static const char *
tally_verdict_name(const struct tally_est *e, double margin)
{
	return stats_verdict_name(stats_verdict(e->has_ci, e->lo, e->hi,
	    margin));
}

/* "alt": the estimator the round did not choose, so a reader sees where
 * the two disagree. */
static json_t *
tally_alt_json(const struct tally_ests *e, enum spec_estimator chosen,
    double margin)
{
	enum spec_estimator other = chosen == SPEC_ESTIMATOR_FLOOR ?
	    SPEC_ESTIMATOR_PAIRED : SPEC_ESTIMATOR_FLOOR;
	json_t *o = json_object();

	json_object_set_new(o, "estimator", json_string(
	    spec_estimator_name(other)));
	json_object_set_new(o, "estimate", tally_real(e->by[other].est));
	json_object_set_new(o, "ci", tally_ci_json(&e->by[other]));
	json_object_set_new(o, "verdict", json_string(tally_verdict_name(
	    &e->by[other], margin)));
	return o;
}

/* sa and sb: the pairs' values, sorted. */
static json_t *
tally_metric_json(const double *ratios, const double *sa, const double *sb,
    size_t n, const struct tally_ests *es, enum spec_estimator chosen,
    bool aa, double margin, bool suspect, enum tally_lists lists)
{
	const struct tally_est *e = &es->by[chosen];
	json_t *o = json_object(), *list;
	size_t rfm;

	json_object_set_new(o, "n", json_integer((json_int_t)n));
	json_object_set_new(o, "median", tally_real(stats_median(ratios, n)));
	json_object_set_new(o, "min", tally_real(stats_min(ratios, n)));
	json_object_set_new(o, "max", tally_real(stats_max(ratios, n)));
	json_object_set_new(o, "geomean", tally_real(stats_geomean(ratios, n)));
	if (lists == TALLY_LISTS) {
		list = json_array();
		for (size_t i = 0; i < n; i++)
			json_array_append_new(list, json_real(ratios[i]));
		json_object_set_new(o, "ratios", list);
	} else if (lists == TALLY_DEFERRED)
		json_object_set_new(o, "ratios", json_null());
	json_object_set_new(o, "abs", tally_real(stats_median_sorted(sa, n)));
	json_object_set_new(o, "vs_abs", tally_real(stats_median_sorted(sb,
	    n)));
	json_object_set_new(o, "estimate", tally_real(e->est));
	json_object_set_new(o, "ci", tally_ci_json(e));
	json_object_set_new(o, "spread", aa ? tally_real(stats_spread(ratios,
	    n)) : json_null());
	json_object_set_new(o, "verdict", json_string(tally_verdict_name(e,
	    margin)));
	json_object_set_new(o, "suspect", json_boolean(suspect));
	/* What an undecided verdict tells: the least effect this interval
	 * sees, and the reps that would see the margin. */
	json_object_set_new(o, "mde", tally_real(stats_mde(e->has_ci, e->lo,
	    e->hi)));
	rfm = stats_reps_for_margin(n, e->has_ci, e->lo, e->hi, margin);
	json_object_set_new(o, "reps_for_margin", rfm ?
	    json_integer((json_int_t)rfm) : json_null());
	json_object_set_new(o, "alt", tally_alt_json(es, chosen, margin));
	return o;
}

static double
tally_arm_ipc(const struct tarm *a, size_t reps, double *buf)
{
	size_t n = 0;

	for (size_t r = 0; r < a->nlegs; r++) {
		const struct tleg *l = &a->legs[r];
		double ipc;
		if (l->status != LEG_OK || !tally_in_plan(reps, r))
			continue;
		ipc = stats_ipc(tally_val(a, l, M_INSTRUCTIONS),
		    tally_val(a, l, M_CYCLES));
		if (!isnan(ipc))
			buf[n++] = ipc;
	}
	return stats_median(buf, n);
}

/* Count a leg in q (struct tally_unquiet). */
static void
tally_unquiet_add(struct tally_unquiet *q, const struct tleg *l, bool noisy)
{
	unsigned g = (l->flags & TLEG_GATE_MASK) >> TLEG_GATE_SHIFT;

	q->legs++;
	if (g == TALLY_GATE_WAIVED)
		q->waived++;
	else if (g == TALLY_GATE_TIMEOUT)
		q->timeout++;
	else if (g == TALLY_GATE_BUDGET)
		q->budget++;
	else if (noisy || (l->flags & TLEG_PINNED_BUSY))
		q->noisy++;
}

/* Per-leg warnings and counts of one arm. */
static void
tally_arm_legs(const struct tally *t, const struct tcell *c,
    const struct tarm *a, struct warns *w, size_t *counted, size_t *failed,
    size_t *timed_out, size_t *planned, struct tally_unquiet *uq)
{
	for (size_t r = 0; r < a->nlegs; r++) {
		const struct tleg *l = &a->legs[r];
		double thr;
		if (l->status == LEG_NONE)
			continue;
		if (!tally_in_plan(tally_plan_reps(t), r)) {
			tally_warn(w, W_OUTSIDE, "%s %s rep %zu: a leg line outside "
			    "the plan (reps %zu); not counted", c->name, a->name,
			    r, tally_plan_reps(t));
			continue;
		}
		(*counted)++;
		if (t->have_spec && r >= 1 && r <= (size_t)(c->stopped_rep ?
		    c->stopped_rep : t->reps))
			(*planned)++;
		if (l->status == LEG_FAILED) {
			(*failed)++;
			tally_warn(w, W_FAILED, "%s %s rep %zu: the leg failed "
			    "and is left out of the ratios", c->name, a->name, r);
		} else if (l->status == LEG_TIMED_OUT) {
			(*timed_out)++;
			tally_warn(w, W_TIMEOUT, "%s %s rep %zu: the leg timed "
			    "out and is left out of the ratios", c->name,
			    a->name, r);
		}
		if (l->flags & TLEG_MULTIPLEXED)
			tally_warn(w, W_MUX, "%s %s rep %zu: counters were "
			    "multiplexed; their values are scaled estimates",
			    c->name, a->name, r);
		if (l->flags & TLEG_DUP)
			tally_warn(w, W_DUP, "%s %s rep %zu: more than one "
			    "counted leg line; the last one is used", c->name,
			    a->name, r);
		thr = isnan(t->spec_threshold) ? l->threshold : t->spec_threshold;
		if (!isnan(thr) && !isnan(l->foreign) && l->foreign > thr)
			tally_warn(w, W_FOREIGN, "%s %s rep %zu: %.2f foreign "
			    "cores during the leg, above the threshold %.2f",
			    c->name, a->name, r, (double)l->foreign, thr);
		if (l->flags & TLEG_PINNED_BUSY)
			tally_warn(w, W_FOREIGN, "%s %s rep %zu: a pinned cpu "
			    "was busy with foreign work during the leg "
			    "(client_busy or server_busy above its threshold)",
			    c->name, a->name, r);
		tally_unquiet_add(uq, l, !isnan(thr) && !isnan(l->foreign) &&
		    l->foreign > thr);
	}
}

/* Which metrics cell c shows: a server's or a load's numbers are not
 * rows of a cell without them.  O(legs x metrics) of the cell. */
static void
tally_cell_shown(const struct tally *t, const struct tcell *c, bool *shown)
{
	for (size_t m = 0; m < t->nmetrics; m++)
		shown[m] = m == M_WALL || m == M_CPU ||
		    tally_counter_named(t, t->metrics[m]);
	for (size_t i = 0; i < c->narms; i++) {
		const struct tarm *a = &c->arms[i];

		for (size_t r = 0; r < a->nlegs; r++)
			for (size_t m = 0; m < a->legs[r].nvals; m++)
				if (!isnan(a->vals[a->legs[r].off + m]))
					shown[m] = true;
	}
}

void
tally_cellwork_init(struct tally_cellwork *cw, const struct tally *t,
    const struct tcell *c)
{
	size_t maxreps = 0;
	const char *of;

	for (size_t i = 0; i < c->narms; i++)
		if (c->arms[i].nlegs > maxreps)
			maxreps = c->arms[i].nlegs;
	cw->t = t;
	cw->c = c;
	cw->nm = t->nmetrics;
	cw->reps = tally_plan_reps(t);
	cw->shown = xreallocarray(NULL, cw->nm + 1, sizeof *cw->shown);
	tally_cell_shown(t, c, cw->shown);
	cw->ratios = xreallocarray(NULL, maxreps + 1, sizeof *cw->ratios);
	cw->va = xreallocarray(NULL, maxreps + 1, sizeof *cw->va);
	cw->vb = xreallocarray(NULL, maxreps + 1, sizeof *cw->vb);
	cw->aa_vs = xcalloc(c->narms + 1, sizeof *cw->aa_vs);
	for (size_t i = 0; i < c->narms; i++)
		if (tally_is_aa(t, c->arms[i].name, &of))
			cw->aa_vs[i] = tally_find_arm(c, of);
}

void
tally_cellwork_finish(struct tally_cellwork *cw)
{
	free(cw->shown);
	free(cw->ratios);
	free(cw->va);
	free(cw->vb);
	free(cw->aa_vs);
}

bool
tally_piece_k(struct tally_cellwork *cw, size_t i, const struct tarm *b,
    bool make)
{
	const struct tarm *a = &cw->c->arms[i];
	bool needed = false;

	for (size_t m = 0; b != NULL && m < cw->nm; m++) {
		size_t n = tally_pair(a, b, m, cw->reps, cw->ratios, cw->va,
		    cw->vb);
		if (n == 0 || tally_k_known(cw->km, n))
			continue;
		needed = true;
		if (!make)
			break;
		(void)tally_k(cw->km, n);
	}
	return needed;
}

/* The A/A arms first: every verdict needs to know whether identical arms
 * read differently (biased), and the floor describes the cell.  Each A/A
 * arm's estimate against its original is made once here and used again
 * for its own verdicts (the estimate is most of a report's arithmetic). */
void
tally_aa_build(struct tally_cellwork *cw, size_t i, struct tally_aa *aa)
{
	const struct tarm *a = &cw->c->arms[i], *b = cw->aa_vs[i];

	for (size_t m = 0; m < cw->nm; m++) {
		size_t n = tally_pair_sorted(cw, a, b, m);
		aa->spread[m] = stats_spread(cw->ratios, n);
		tally_estimate(cw->km, cw->ratios, cw->va, cw->vb, n,
		    &aa->est[m]);
	}
	aa->ver_a = a->ver;
	aa->ver_b = b->ver;
}

void
tally_cell_floor(const struct tally_cellwork *cw, double *floor, bool *bias)
{
	const struct tcell *c = cw->c;

	for (size_t m = 0; m < cw->nm; m++) {
		floor[m] = NAN;
		bias[m] = false;
		for (size_t i = 0; i < c->narms; i++) {
			const struct tally_est *e;
			double f;
			if (cw->aa_vs[i] == NULL)
				continue;
			f = cw->aa[i].spread[m];
			e = &cw->aa[i].est[m].by[cw->t->estimator];
			if (!isnan(f) && (isnan(floor[m]) || f > floor[m]))
				floor[m] = f;
			if (e->has_ci && (e->lo > 1 || e->hi < 1))
				bias[m] = true;
		}
	}
}

/* The A/A estimate of arm i against b made for the floor, when it is of
 * the legs both have now; else NULL. */
static const struct tally_ests *
tally_aa_est(const struct tally_cellwork *cw, size_t i, const struct tarm *b,
    size_t m)
{
	const struct tally_aa *aa = &cw->aa[i];

	if (b == NULL || b != cw->aa_vs[i] || !aa->valid ||
	    aa->ver_a != cw->c->arms[i].ver || aa->ver_b != b->ver)
		return NULL;
	return &aa->est[m];
}

/* Arm i's object against its comparison arm vs; *ncmp counts the
 * verdicts. */
static json_t *
tally_arm_json(struct tally_cellwork *cw, size_t i, const char *vs,
    double ipc, size_t *ncmp)
{
	const struct tally *t = cw->t;
	const struct tarm *a = &cw->c->arms[i], *b = tally_find_arm(cw->c, vs);
	json_t *aj = json_object(), *mj = json_object();
	const char *of;
	bool aa = tally_is_aa(t, a->name, &of);
	size_t maxn = 0;

	json_object_set_new(aj, "vs", json_string(vs));
	json_object_set_new(aj, "aa_of", aa ? json_string(of) : json_null());
	for (size_t m = 0; m < cw->nm; m++) {
		const struct tally_ests *made;
		size_t n;
		struct tally_ests e;

		if (!cw->shown[m])
			continue;
		n = b ? tally_pair_sorted(cw, a, b, m) : 0;
		if (n > maxn)
			maxn = n;
		if ((made = tally_aa_est(cw, i, b, m)) != NULL)
			e = *made;
		else
			tally_estimate(cw->km, cw->ratios, cw->va, cw->vb, n,
			    &e);
		json_object_set_new(mj, t->metrics[m], tally_metric_json(
		    cw->ratios, cw->va, cw->vb, n, &e, t->estimator, aa,
		    t->margin, cw->bias[m], cw->lists));
		if (t->nhosts > 1)
			tally_hosts_add(cw, a, b, m, json_object_get(mj,
			    t->metrics[m]));
		(*ncmp)++;
	}
	json_object_set_new(aj, "metrics", mj);
	json_object_set_new(aj, "ipc", tally_real(ipc));
	if (t->estimator == SPEC_ESTIMATOR_FLOOR ? tally_floor_u(cw->km,
	    maxn) == 0 : tally_k(cw->km, maxn) == 0)
		tally_warn(cw->w, W_FEW, "%s %s vs %s: only %zu paired reps, "
		    "too few for an interval at level %g; its verdicts are "
		    "unknown", cw->c->name, a->name, vs, maxn, cw->km->level);
	return aj;
}

/* A rep whose two legs ran on different hosts is never paired: say so
 * (the dealing keeps a rep's arms on one host, so a log that does not is
 * broken or hand-made). */
static void
tally_warn_cross(struct tally_cellwork *cw, const struct tarm *a,
    const struct tarm *b)
{
	const struct tally *t = cw->t;
	size_t first = 0, n = tally_cross_hosts(a, b, cw->reps, &first);
	unsigned ha, hb;

	if (n == 0)
		return;
	ha = tally_leg_host(a, first);
	hb = tally_leg_host(b, first);
	tally_warn(cw->w, W_HOST, "%s %s vs %s: %zu reps whose legs ran on "
	    "different hosts (rep %zu: %.60s and %.60s); not paired",
	    cw->c->name, a->name, b->name, n, first,
	    ha ? t->hosts[ha - 1] : "no host", hb ? t->hosts[hb - 1] :
	    "no host");
}

void
tally_piece_build(struct tally_cellwork *cw, size_t i, struct tally_piece *p)
{
	const struct tally *t = cw->t;
	const struct tcell *c = cw->c;
	const struct tarm *a = &c->arms[i], *b;
	const char *vs;

	json_decref(p->arm);
	tally_warns_clear(&p->w);
	p->w.list = json_array();
	p->counted = p->failed = p->timed_out = p->planned = p->ncmp = 0;
	memset(&p->uq, 0, sizeof p->uq);
	cw->w = &p->w;
	vs = tally_vs(t, c, a->name, cw->w);
	b = tally_find_arm(c, vs);
	p->ipc = tally_arm_ipc(a, cw->reps, cw->ratios);
	tally_arm_legs(t, c, a, cw->w, &p->counted, &p->failed,
	    &p->timed_out, &p->planned, &p->uq);
	p->arm = vs != NULL ? tally_arm_json(cw, i, vs, p->ipc, &p->ncmp) :
	    NULL;
	if (b != NULL)
		tally_warn_cross(cw, a, b);
	p->ver_a = a->ver;
	p->ver_b = b != NULL ? b->ver : 0;
	p->stopped_rep = c->stopped_rep;
	p->valid = true;
}

json_t *
tally_report(const struct tally *t)
{
	return tally_report_lists(t, TALLY_LISTS);
}

json_t *
tally_report_brief(const struct tally *t)
{
	return tally_report_lists(t, TALLY_NO_LISTS);
}

json_t *
tally_report_deferred(const struct tally *t)
{
	return tally_report_lists(t, TALLY_DEFERRED);
}

static const char *
tally_cell_name(const struct tally *t, size_t i)
{
	return t->cells[i].name;
}

static const char *
tally_metric_name(const struct tally *t, size_t i)
{
	return t->metrics[i];
}

/* The index of name among the n names name_of gives, looked for from *at
 * round the end and kept in *at (the report asks in order, so mostly one
 * compare); n when none. */
static size_t
tally_index_from(const struct tally *t,
    const char *(*name_of)(const struct tally *, size_t), size_t n,
    const char *name, size_t *at)
{
	for (size_t k = 0; k < n; k++) {
		size_t i = (*at + k) % n;

		if (strcmp(name_of(t, i), name) == 0)
			return *at = i;
	}
	return n;
}

size_t
tally_ratios_at(const struct tally *t, struct tally_cursor *cur,
    const char *cell, const char *arm, const char *metric, double **buf,
    size_t *cap)
{
	const struct tcell *c = NULL;
	const struct tarm *a, *b;
	size_t i, m, need;

	i = tally_index_from(t, tally_cell_name, t->ncells, cell, &cur->cell);
	m = tally_index_from(t, tally_metric_name, t->nmetrics, metric,
	    &cur->metric);
	if (i < t->ncells)
		c = &t->cells[i];
	if (c == NULL || c->narms == 0 || m == t->nmetrics ||
	    (a = tally_find_arm(c, arm)) == NULL ||
	    (b = tally_find_arm(c, tally_vs(t, c, arm, NULL))) == NULL)
		return 0;
	need = (a->nlegs > b->nlegs ? a->nlegs : b->nlegs) + 1;
	if (*cap < need) {
		*buf = xreallocarray(*buf, need, 3 * sizeof **buf);
		*cap = need;
	}
	return tally_pair(a, b, m, tally_plan_reps(t), *buf, *buf + *cap,
	    *buf + 2 * *cap);
}

size_t
tally_ratios(const struct tally *t, const char *cell, const char *arm,
    const char *metric, double **buf, size_t *cap)
{
	struct tally_cursor cur = { 0 };

	return tally_ratios_at(t, &cur, cell, arm, metric, buf, cap);
}
