/* Tally: legs in, comparisons out (see tally.h).
 *
 * A round of a million legs must fit comfortably in memory, so no json_t is
 * kept per leg: each (cell, arm) holds a small fixed record per rep and its
 * metric values in one growing array of doubles (NAN where absent).  All
 * arithmetic is done in tally_report (tally_report.c) through stats.h.
 * This file: the storage, and feeding leg lines into it. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profdiff.h"
#include "stats.h"
#include "tally_int.h"
#include "xalloc.h"

/* The names of the fixed metrics, in the order of M_*. */
static const char *const fixed_metrics[M_FIXED] = {
	"wall", "cpu", "cycles", "instructions",
};

struct tally *
tally_create(void)
{
	struct tally *t = xrealloc(NULL, sizeof *t);

	memset(t, 0, sizeof *t);
	t->quiet_threshold = NAN;
	t->spec_threshold = NAN;
	/* benchtui-round(5)'s defaults, for a log that does not say. */
	t->max_client_busy = t->max_server_busy = 0.1;
	t->level = TALLY_LEVEL;
	t->margin = TALLY_MARGIN;
	for (size_t i = 0; i < M_FIXED; i++)
		(void)tally_metric(t, fixed_metrics[i]);
	return t;
}

struct tcell *
tally_cell(struct tally *t, const char *name, bool create)
{
	struct tcell *c;

	if (t->last_cell < t->ncells &&
	    strcmp(t->cells[t->last_cell].name, name) == 0)
		return &t->cells[t->last_cell];
	for (size_t i = 0; i < t->ncells; i++)
		if (strcmp(t->cells[i].name, name) == 0) {
			t->last_cell = i;
			return &t->cells[i];
		}
	if (!create)
		return NULL;
	t->cells = xreallocarray(t->cells, t->ncells + 1, sizeof *t->cells);
	c = &t->cells[t->ncells];
	memset(c, 0, sizeof *c);
	c->name = xstrdup(name);
	t->last_cell = t->ncells++;
	tally_reshape(t);
	return c;
}

struct tarm *
tally_arm(struct tally *t, struct tcell *c, const char *name, bool create)
{
	struct tarm *a;

	if (t->last_arm < c->narms &&
	    strcmp(c->arms[t->last_arm].name, name) == 0)
		return &c->arms[t->last_arm];
	for (size_t i = 0; i < c->narms; i++)
		if (strcmp(c->arms[i].name, name) == 0) {
			t->last_arm = i;
			return &c->arms[i];
		}
	if (!create)
		return NULL;
	c->arms = xreallocarray(c->arms, c->narms + 1, sizeof *c->arms);
	a = &c->arms[c->narms];
	memset(a, 0, sizeof *a);
	a->name = xstrdup(name);
	t->last_arm = c->narms++;
	tally_reshape(t);
	return a;
}

static void
tally_arm_free(struct tarm *a)
{
	free(a->name);
	free(a->legs);
	free(a->host);
	free(a->vals);
}

static size_t
tally_arm_counted(const struct tarm *a)
{
	size_t n = 0;

	for (size_t r = 0; r < a->nlegs; r++)
		n += a->legs[r].status != LEG_NONE;
	return n;
}

static void
tally_spec_arms_free(struct tally *t)
{
	for (size_t i = 0; i < t->nsarms; i++) {
		free(t->sarms[i].name);
		free(t->sarms[i].vs);
		free(t->sarms[i].aa_of);
	}
	free(t->sarms);
	t->sarms = NULL;
	t->nsarms = 0;
}

/* Rebuild the cells and their arms in the spec's order.  A resumed round
 * may have fed its old log before the spec arrives: those legs are moved
 * over, and legs of cells or arms the spec does not know are dropped and
 * counted as ignored. */
static void
tally_spec_order(struct tally *t, const struct spec *s)
{
	struct tcell *cells = xreallocarray(NULL, s->ncells, sizeof *cells);

	for (size_t i = 0; i < s->ncells; i++) {
		struct tcell *old = NULL, *c = &cells[i];
		for (size_t k = 0; k < t->ncells && !old; k++)
			if (t->cells[k].name &&
			    strcmp(t->cells[k].name, s->cells[i].name) == 0)
				old = &t->cells[k];
		memset(c, 0, sizeof *c);
		c->name = xstrdup(s->cells[i].name);
		c->arms = xreallocarray(NULL, s->narms, sizeof *c->arms);
		c->narms = s->narms;
		c->aborted_seen = old ? old->aborted_seen : 0;
		c->stopped_rep = old ? old->stopped_rep : 0;
		c->look = old ? json_incref(old->look) : NULL;
		for (size_t j = 0; j < s->narms; j++) {
			struct tarm *a = &c->arms[j];
			memset(a, 0, sizeof *a);
			for (size_t k = 0; old && k < old->narms; k++)
				if (old->arms[k].name && strcmp(old->arms[k].name,
				    s->arms[j].name) == 0) {
					*a = old->arms[k];
					memset(&old->arms[k], 0, sizeof old->arms[k]);
					break;
				}
			if (a->name == NULL)
				a->name = xstrdup(s->arms[j].name);
		}
	}
	for (size_t k = 0; k < t->ncells; k++) {
		for (size_t j = 0; j < t->cells[k].narms; j++) {
			t->ignored += tally_arm_counted(&t->cells[k].arms[j]);
			tally_arm_free(&t->cells[k].arms[j]);
		}
		free(t->cells[k].arms);
		free(t->cells[k].name);
		json_decref(t->cells[k].look);
	}
	free(t->cells);
	t->cells = cells;
	t->ncells = s->ncells;
	t->last_cell = t->last_arm = 0;
	tally_reshape(t);
}

static void
tally_named_free(struct tally *t)
{
	for (size_t i = 0; i < t->nnamed; i++)
		free(t->named[i]);
	free(t->named);
	t->named = NULL;
	t->nnamed = 0;
}


/* The named counters: names[0..n), or the strings of list when not
 * NULL. */
static void
tally_named_set(struct tally *t, char *const *names, size_t n,
    const json_t *list)
{
	tally_named_free(t);
	if (list != NULL)
		n = json_array_size(list);
	t->named = xreallocarray(NULL, n + 1, sizeof *t->named);
	for (size_t i = 0; i < n; i++) {
		const char *s = list ? json_string_value(json_array_get(list,
		    i)) : names[i];

		if (s != NULL)
			t->named[t->nnamed++] = xstrdup(s);
	}
}

void
tally_set_spec(struct tally *t, const struct spec *s)
{
	free(t->name);
	t->name = xstrdup(s->name);
	t->have_spec = true;
	t->reps = s->reps;
	t->spec_threshold = s->quiet.enabled ? s->quiet.max_foreign_cores : NAN;
	t->max_client_busy = s->quiet.max_client_busy;
	t->max_server_busy = s->quiet.max_server_busy;
	/* An adaptive round's report uses its looks' level (Bonferroni). */
	tally_set_stats(t, s->adaptive.on ? stats_look_level(s->confidence,
	    spec_looks(s, NULL, 0)) : s->confidence, s->margin);
	tally_named_set(t, s->counters_given ? s->counters : NULL,
	    s->counters_given ? s->ncounters : 0, NULL);
	t->named_set = true;
	t->estimator = s->estimator;
	tally_spec_arms_free(t);
	t->sarms = xreallocarray(NULL, s->narms, sizeof *t->sarms);
	t->nsarms = s->narms;
	for (size_t i = 0; i < s->narms; i++) {
		t->sarms[i].name = xstrdup(s->arms[i].name);
		t->sarms[i].vs = s->arms[i].vs ? xstrdup(s->arms[i].vs) : NULL;
		t->sarms[i].aa_of = s->arms[i].aa_of ?
		    xstrdup(s->arms[i].aa_of) : NULL;
	}
	tally_spec_order(t, s);
}

void
tally_set_name(struct tally *t, const char *name)
{
	t->clock++;
	if (t->name == NULL && name != NULL)
		t->name = xstrdup(name);
}

int
tally_set_baseline(struct tally *t, const char *arm)
{
	if (arm == NULL || !spec_name_valid(arm))
		return -1;
	for (size_t i = 0; i < t->naa; i++)
		if (strcmp(t->aa[i].name, arm) == 0)
			return -2;
	free(t->baseline);
	t->baseline = xstrdup(arm);
	tally_reshape(t);
	return 0;
}

int
tally_add_aa(struct tally *t, const char *arm, const char *of)
{
	if (arm == NULL || of == NULL || !spec_name_valid(arm) ||
	    !spec_name_valid(of) || strcmp(arm, of) == 0)
		return -1;
	/* As in a round file: an arm is one A/A copy at most, of an arm that
	 * is not itself a copy, and the baseline is no copy. */
	if (t->baseline != NULL && strcmp(t->baseline, arm) == 0)
		return -2;
	for (size_t i = 0; i < t->naa; i++)
		if (strcmp(t->aa[i].name, arm) == 0 ||
		    strcmp(t->aa[i].name, of) == 0 ||
		    strcmp(t->aa[i].aa_of, arm) == 0)
			return -2;
	t->aa = xreallocarray(t->aa, t->naa + 1, sizeof *t->aa);
	t->aa[t->naa].name = xstrdup(arm);
	t->aa[t->naa].aa_of = xstrdup(of);
	t->aa[t->naa].vs = NULL;
	t->naa++;
	tally_reshape(t);
	return 0;
}

void
tally_reshape(struct tally *t)
{
	t->gen++;
	t->clock++;
}

size_t
tally_metric(struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (strcmp(t->metrics[i], name) == 0)
			return i;
	t->metrics = xreallocarray(t->metrics, t->nmetrics + 1,
	    sizeof *t->metrics);
	t->metrics[t->nmetrics] = xstrdup(name);
	tally_reshape(t);
	return t->nmetrics++;
}

bool
tally_counter_named(const struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->nnamed; i++)
		if (strcmp(t->named[i], name) == 0)
			return true;
	return false;
}

const char *
tally_leg_status_name(enum tally_leg_status st)
{
	switch (st) {
	case TALLY_LEG_OK:        return "ok";
	case TALLY_LEG_FAILED:    return "failed";
	case TALLY_LEG_TIMED_OUT: return "timed_out";
	case TALLY_LEG_ABORTED:   return "aborted";
	case TALLY_LEG_NONE:      break;
	}
	return "?";
}

static bool
tally_bad(const struct tleg *l)
{
	return l->status == LEG_FAILED || l->status == LEG_TIMED_OUT;
}

size_t
tally_failed_legs(const struct tally *t, struct tally_failure *first,
    char *where, size_t wlen)
{
	size_t total = 0, len = 0;

	if (first)
		*first = (struct tally_failure){ NULL, NULL, 0 };
	if (wlen)
		where[0] = '\0';
	/* O(cells x arms x reps): once, when a round closes. */
	for (size_t i = 0; i < t->ncells; i++) {
		const struct tcell *c = &t->cells[i];
		size_t n = 0, maxr = 0;
		for (size_t j = 0; j < c->narms; j++)
			if (c->arms[j].nlegs > maxr)
				maxr = c->arms[j].nlegs;
		for (size_t r = 0; r < maxr; r++)
			for (size_t j = 0; j < c->narms; j++) {
				const struct tarm *a = &c->arms[j];
				if (r >= a->nlegs || !tally_bad(&a->legs[r]))
					continue;
				if (n++ == 0 && total == 0 && first)
					*first = (struct tally_failure){ c->name,
					    a->name, (int)r };
			}
		if (n > 0 && len < wlen)
			len += (size_t)snprintf(where + len, wlen - len,
			    "%scell %s %zu", len ? ", " : "", c->name, n);
		total += n;
	}
	return total;
}

void
tally_set_stats(struct tally *t, double level, double margin)
{
	t->level = level;
	t->margin = margin;
	t->stats_set = true;
	tally_reshape(t);
}

/* Whether a round event's counters were the machine's default: marked
 * so, or an older log's default of cycles and instructions. */
static bool
tally_round_default(const json_t *ev)
{
	const json_t *ctr = json_object_get(ev, "counters");
	const char *a = json_string_value(json_array_get(ctr, 0));
	const char *b = json_string_value(json_array_get(ctr, 1));

	if (json_is_true(json_object_get(ev, "counters_default")))
		return true;
	return json_object_get(ev, "counters_default") == NULL &&
	    json_array_size(ctr) == 2 && a && b &&
	    strcmp(a, "cycles") == 0 && strcmp(b, "instructions") == 0;
}

/* A "round" event: the name, the planned reps and, in a bare log, the
 * level and margin. */
static void
tally_feed_round(struct tally *t, const json_t *ev)
{
	const json_t *reps = json_object_get(ev, "reps");

	tally_reshape(t);
	if (t->name == NULL && json_is_string(json_object_get(ev, "name")))
		t->name = xstrdup(json_string_value(
		    json_object_get(ev, "name")));
	if (json_is_integer(reps) && json_integer_value(reps) > 0 &&
	    json_integer_value(reps) <= TALLY_MAX_REP)
		t->log_reps = (int)json_integer_value(reps);
	/* A bare log's named counters: the round event's, unless they were
	 * the machine's default (an older log's default was cycles and
	 * instructions, unmarked). */
	if (!t->named_set && json_is_array(json_object_get(ev, "counters")))
		tally_named_set(t, NULL, 0, tally_round_default(ev) ? NULL :
		    json_object_get(ev, "counters"));
	/* A bare log carries its gate's thresholds here. */
	if (!t->have_spec) {
		const json_t *q = json_object_get(ev, "quiet");
		double c = tally_num(json_object_get(q, "max_client_busy"));
		double v = tally_num(json_object_get(q, "max_server_busy"));

		if (c >= 0)
			t->max_client_busy = c;
		if (v >= 0)
			t->max_server_busy = v;
	}
	/* A bare log carries its round's level, margin and estimator
	 * here. */
	if (!t->stats_set) {
		double l = tally_num(json_object_get(ev, "level"));
		double m = tally_num(json_object_get(ev, "margin"));
		const char *e = json_string_value(json_object_get(ev,
		    "estimator"));
		if (l > 0 && l < 1)
			t->level = l;
		if (m >= 0)
			t->margin = m;
		if (e != NULL && spec_estimator_parse(e) >= 0)
			t->estimator = (enum spec_estimator)
			    spec_estimator_parse(e);
	}
}

/* A "look" event: kept for the report, and where it decided the cell. */
static void
tally_feed_look(struct tally *t, const json_t *ev)
{
	const char *cn = json_string_value(json_object_get(ev, "cell"));
	struct tcell *c = cn ? tally_cell(t, cn, !t->have_spec) : NULL;
	const json_t *rep = json_object_get(ev, "rep");

	if (c == NULL)
		return;
	json_decref(c->look);
	c->look = json_incref((json_t *)ev);
	c->ver = ++t->clock;
	if (json_is_true(json_object_get(ev, "decided")) &&
	    json_is_integer(rep) && json_integer_value(rep) > 0 &&
	    json_integer_value(rep) <= TALLY_MAX_REP)
		c->stopped_rep = (int)json_integer_value(rep);
}

/* Whether a profile event names a cell and arm of the spec (any, for a
 * bare log); one that does not is counted and named in the warnings,
 * as a leg line of it would be, and not shown. */
static bool
tally_profile_known(struct tally *t, const json_t *ev)
{
	const char *cell = json_string_value(json_object_get(ev, "cell"));
	const char *arm = json_string_value(json_object_get(ev, "arm"));
	const char *kind = json_string_value(json_object_get(ev, "kind"));
	struct tcell *c;

	if (!t->have_spec || cell == NULL || arm == NULL)
		return true;
	if ((c = tally_cell(t, cell, false)) != NULL &&
	    tally_arm(t, c, arm, false) != NULL)
		return true;
	if (t->prof_ignored < TALLY_WARN_CAP)
		t->prof_ignored_names[t->prof_ignored] = xasprintf("%.60s "
		    "%.60s %.20s", cell, arm, kind ? kind : "?");
	t->prof_ignored++;
	return false;
}

void
tally_feed(struct tally *t, const json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "t"));

	t->clock++;  /* any event may change the report (see tally_int.h) */
	if (type == NULL) {
		/* An earlier harness's row, if logread did not tag it. */
		if (json_object_get(ev, "cell") && json_object_get(ev, "arm") &&
		    json_object_get(ev, "rep"))
			tally_feed_leg(t, ev);
		return;
	}
	/* A warm-up leg ("warmup": K, rep 0) is never counted. */
	if (strcmp(type, "leg") == 0 &&
	    json_object_get(ev, "warmup") == NULL)
		tally_feed_leg(t, ev);
	else if (strcmp(type, "round") == 0)
		tally_feed_round(t, ev);
	else if (strcmp(type, "look") == 0)
		tally_feed_look(t, ev);
	else if (strcmp(type, "profile") == 0) {
		if (!tally_profile_known(t, ev))
			return;
		if (t->prof == NULL)
			t->prof = profdiff_create();
		profdiff_feed(t->prof, ev);
	} else if (strcmp(type, "gate") == 0) {
		const char *k = json_string_value(json_object_get(ev, "kind"));
		const char *sc = json_string_value(json_object_get(ev, "scope"));

		if (k != NULL && strcmp(k, "budget") == 0)
			t->gate_budget_spent = true;
		/* The load that stays, named once: the report says it. */
		if (k != NULL && strcmp(k, "staying") == 0 &&
		    t->gate_staying == NULL && json_is_string(json_object_get(ev,
		    "msg")))
			t->gate_staying = xstrdup(json_string_value(
			    json_object_get(ev, "msg")));
		if (k != NULL && strcmp(k, "release") == 0 && sc != NULL &&
		    strcmp(sc, "round") == 0)
			t->gate_released = true;
	} else if (strcmp(type, "quiet") == 0 &&
	    json_is_number(json_object_get(ev, "threshold")))
		t->quiet_threshold = json_number_value(
		    json_object_get(ev, "threshold"));
}

enum tally_line
tally_feed_line(struct tally *t, const char *line, size_t len)
{
	bool fed;

	if (!tally_line_scan(line, len, &t->rec, &t->scratch, &t->scap, &fed))
		return TALLY_LINE_PASS;
	if (fed) {
		t->clock++;
		tally_feed_rec(t, &t->rec);
	}
	return TALLY_LINE_LEG;
}

double
tally_gate_waited(const struct tally *t)
{
	return t->gate_wait_s;
}

double
tally_gate_legs(const struct tally *t)
{
	return t->gate_legs_s;
}

const struct profdiff *
tally_profiles(const struct tally *t)
{
	return t->prof;
}

void
tally_destroy(struct tally *t)
{
	if (t == NULL)
		return;
	tally_cache_destroy(t->cache);
	profdiff_destroy(t->prof);
	free(t->gate_staying);
	for (size_t i = 0; i < TALLY_WARN_CAP; i++) {
		free(t->ignored_names[i]);
		free(t->prof_ignored_names[i]);
		free(t->implausible[i]);
	}
	for (size_t i = 0; i < t->ncells; i++) {
		for (size_t j = 0; j < t->cells[i].narms; j++)
			tally_arm_free(&t->cells[i].arms[j]);
		free(t->cells[i].arms);
		free(t->cells[i].name);
		json_decref(t->cells[i].look);
	}
	free(t->cells);
	for (size_t i = 0; i < t->nmetrics; i++)
		free(t->metrics[i]);
	free(t->metrics);
	for (size_t i = 0; i < t->nhosts; i++)
		free(t->hosts[i]);
	free(t->hosts);
	tally_named_free(t);
	for (size_t i = 0; i < t->naa; i++) {
		free(t->aa[i].name);
		free(t->aa[i].aa_of);
	}
	free(t->aa);
	tally_spec_arms_free(t);
	free(t->baseline);
	free(t->name);
	free(t->rec.ctr.v);
	free(t->rec.server_ctr.v);
	free(t->rec.mets.v);
	free(t->scratch);
	free(t);
}
