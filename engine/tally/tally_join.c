/* Tally: the report put together from its pieces (tally_piece.h): a
 * cell's object from its arms' pieces and its floor, the report's from
 * the cells', with what belongs to the whole round (the gate, the log's
 * warnings, the plan).  Nothing here computes a ratio: tally_report.c
 * builds the pieces, tally_cache.c decides which. */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "profdiff.h"
#include "tally_int.h"
#include "tally_piece.h"
#include "xalloc.h"

static const char *const warn_kind[W_KINDS] = {
	"too few paired reps for an interval", "failed legs", "timed-out legs",
	"multiplexed counters", "legs with foreign CPU above the threshold",
	"duplicate counted leg lines", "leg lines outside the plan",
	"legs of one rep on different hosts", "other",
};

static size_t
tally_unquiet_n(const struct tally_unquiet *q)
{
	return q->waived + q->timeout + q->budget + q->noisy;
}

/* Add q to arm's entry of the report's gate.arms (made at its first
 * cell). */
static void
tally_unquiet_json(json_t *arms, const char *arm, const struct tally_unquiet *q)
{
	static const char *const keys[] = { "legs", "not_quiet", "waived",
	    "timeout", "budget", "noisy" };
	size_t v[] = { q->legs, tally_unquiet_n(q), q->waived, q->timeout,
	    q->budget, q->noisy };
	json_t *o = json_object_get(arms, arm);

	if (o == NULL) {
		o = json_object();
		json_object_set_new(arms, arm, o);
	}
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		json_object_set_new(o, keys[k], json_integer((json_int_t)
		    (json_integer_value(json_object_get(o, keys[k])) +
		    (json_int_t)v[k])));
}

/* The gate's warnings: it stopped waiting (its budget was spent, or the
 * operator released the rest of the round), with how many legs ran on a
 * box that was not quiet. */
static void
tally_gate_warnings(const struct tally *t, const json_t *arms,
    struct warns *w)
{
	const char *name;
	json_t *o;
	json_int_t n = 0;

	json_object_foreach((json_t *)arms, name, o)
		n += json_integer_value(json_object_get(o, "not_quiet"));
	if (t->gate_budget_spent)
		tally_warn(w, W_OTHER, "the quiet gate spent its budget_s of "
		    "waiting: the rest of the round did not wait for a quiet "
		    "box (%lld legs in all ran on a busy one; see gate)",
		    (long long)n);
	if (t->gate_staying != NULL)
		tally_warn(w, W_OTHER, "%s", t->gate_staying);
	if (t->gate_released)
		tally_warn(w, W_OTHER, "the operator let the rest of the round "
		    "past the quiet gate (G): %lld legs in all ran on a busy "
		    "box (see gate)", (long long)n);
}

/* The report's "gate": what the quiet gate did over the whole round. */
static json_t *
tally_gate_json(const struct tally *t, json_t *arms)
{
	json_t *g = json_object();

	json_object_set_new(g, "waited_s", json_real(round(t->gate_wait_s *
	    1000.0) / 1000.0));
	json_object_set_new(g, "budget_spent", json_boolean(t->gate_budget_spent));
	json_object_set_new(g, "released", json_boolean(t->gate_released));
	json_object_set_new(g, "arms", arms);
	return g;
}

/* The biased metrics' names, sorted, as the report promises. */
static json_t *
tally_biased_json(const struct tally *t, const bool *bias)
{
	size_t *idx = xreallocarray(NULL, t->nmetrics + 1, sizeof *idx), nb = 0;
	json_t *biased = json_array();

	for (size_t m = 0; m < t->nmetrics; m++)
		if (bias[m]) {
			size_t k = nb++;
			while (k > 0 && strcmp(t->metrics[idx[k - 1]],
			    t->metrics[m]) > 0) {
				idx[k] = idx[k - 1];
				k--;
			}
			idx[k] = m;
		}
	for (size_t k = 0; k < nb; k++)
		json_array_append_new(biased, json_string(t->metrics[idx[k]]));
	free(idx);
	return biased;
}

/* The cell's last look, the keys a reader needs. */
static json_t *
tally_look_json(const json_t *look)
{
	static const char *const keys[] = { "rep", "look", "looks", "level",
	    "decided", "verdicts" };
	json_t *lk = json_object();

	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		json_t *v = json_object_get(look, keys[k]);
		if (v != NULL)
			json_object_set(lk, keys[k], v);
	}
	return lk;
}

json_t *
tally_cell_json(const struct tally *t, const struct tcell *c,
    const struct tally_piece *pieces, const double *floor, const bool *bias,
    const bool *shown)
{
	json_t *cj = json_object(), *floors = json_object(), *arms = json_object();
	json_t *legs = json_object(), *ipcs = json_object();
	size_t counted = 0, failed = 0, tout = 0, unquiet = 0;

	for (size_t m = 0; m < t->nmetrics; m++)
		if (shown[m])
			json_object_set_new(floors, t->metrics[m],
			    tally_real(floor[m]));
	json_object_set_new(cj, "floor", floors);
	json_object_set_new(cj, "biased", tally_biased_json(t, bias));
	for (size_t i = 0; i < c->narms; i++) {
		const struct tally_piece *p = &pieces[i];

		json_object_set_new(ipcs, c->arms[i].name, tally_real(p->ipc));
		counted += p->counted;
		failed += p->failed;
		tout += p->timed_out;
		unquiet += tally_unquiet_n(&p->uq);
		if (p->arm != NULL)
			json_object_set(arms, c->arms[i].name, p->arm);
	}
	json_object_set_new(cj, "arms", arms);
	json_object_set_new(legs, "counted", json_integer((json_int_t)counted));
	json_object_set_new(legs, "failed", json_integer((json_int_t)failed));
	json_object_set_new(legs, "timed_out", json_integer((json_int_t)tout));
	json_object_set_new(legs, "aborted_seen",
	    json_integer((json_int_t)c->aborted_seen));
	json_object_set_new(legs, "not_quiet", json_integer((json_int_t)unquiet));
	json_object_set_new(cj, "legs", legs);
	json_object_set_new(cj, "ipc", ipcs);
	if (c->look != NULL)
		json_object_set_new(cj, "look", tally_look_json(c->look));
	return cj;
}

/* The warnings of the whole log, after the cells' own. */
static void
tally_log_warnings(const struct tally *t, struct warns *w)
{
	const json_t *pw;
	size_t i;

	if (t->ignored)
		tally_warn(w, W_OTHER, "%zu leg lines name a cell or arm that "
		    "is not in round.json and were ignored", t->ignored);
	for (size_t i = 0; i < t->ignored && i < TALLY_WARN_CAP; i++)
		tally_warn(w, W_OTHER, "%s: a leg line of a cell or arm that is "
		    "not in round.json; not counted", t->ignored_names[i]);
	for (size_t i = 0; i < t->nimplausible && i < TALLY_WARN_CAP; i++)
		tally_warn(w, W_OTHER, "%s is not a value a leg can have; left "
		    "out of every figure", t->implausible[i]);
	if (t->nimplausible > TALLY_WARN_CAP)
		tally_warn(w, W_OTHER, "... and %zu more values no leg can have",
		    t->nimplausible - TALLY_WARN_CAP);
	if (t->unusable)
		tally_warn(w, W_OTHER, "%zu leg lines without a usable cell, "
		    "arm or rep were ignored", t->unusable);
	for (size_t i = 0; i < t->prof_ignored && i < TALLY_WARN_CAP; i++)
		tally_warn(w, W_OTHER, "%s: a profile of a cell or arm that is "
		    "not in round.json; not shown", t->prof_ignored_names[i]);
	if (t->prof_ignored > TALLY_WARN_CAP)
		tally_warn(w, W_OTHER, "... and %zu more profiles of cells or "
		    "arms not in round.json", t->prof_ignored - TALLY_WARN_CAP);
	json_array_foreach(profdiff_warnings(t->prof), i, pw)
		tally_warn(w, W_OTHER, "%s", json_string_value(pw));
	for (size_t k = 0; k < W_OTHER; k++)
		if (w->count[k] > TALLY_WARN_CAP)
			tally_warn(w, W_OTHER, "... and %zu more warnings of "
			    "the same kind (%s)", w->count[k] - TALLY_WARN_CAP,
			    warn_kind[k]);
}

/* "partial" and "legs_total": known with a round file. */
static void
tally_plan_json(const struct tally *t, json_t *rep, size_t planned)
{
	size_t total = 0;

	if (!t->have_spec) {
		json_object_set_new(rep, "partial", json_null());
		json_object_set_new(rep, "legs_total", json_null());
		return;
	}
	/* An adaptive cell decided at a look plans no reps past it. */
	for (size_t i = 0; i < t->ncells; i++)
		total += (size_t)(t->cells[i].stopped_rep ?
		    t->cells[i].stopped_rep : t->reps) * t->nsarms;
	json_object_set_new(rep, "partial", json_boolean(planned < total));
	json_object_set_new(rep, "legs_total", json_integer((json_int_t)total));
}

json_t *
tally_report_json(const struct tally *t, json_t *const *cells,
    struct tally_piece *const *pieces)
{
	json_t *rep = json_object(), *cj = json_object();
	struct warns w = { .list = json_array() };
	size_t planned = 0, counted = 0, ncmp = 0;
	json_t *gate_arms = json_object();

	json_object_set_new(rep, "round",
	    t->name ? json_string(t->name) : json_null());
	json_object_set_new(rep, "level", json_real(t->level));
	json_object_set_new(rep, "margin", json_real(t->margin));
	json_object_set_new(rep, "estimator", json_string(
	    spec_estimator_name(t->estimator)));
	for (size_t i = 0; i < t->ncells; i++) {
		if (cells[i] == NULL)
			continue;
		for (size_t j = 0; j < t->cells[i].narms; j++) {
			const struct tally_piece *p = &pieces[i][j];
			planned += p->planned;
			counted += p->counted;
			ncmp += p->ncmp;
			tally_warns_add(&w, &p->w);
			tally_unquiet_json(gate_arms, t->cells[i].arms[j].name,
			    &p->uq);
		}
		json_object_set(cj, t->cells[i].name, cells[i]);
	}
	json_object_set_new(rep, "comparisons", json_integer((json_int_t)ncmp));
	json_object_set_new(rep, "cells", cj);
	json_object_set_new(rep, "gate", tally_gate_json(t, gate_arms));
	tally_gate_warnings(t, gate_arms, &w);
	/* Profiles explain a ratio but are never in one: beside the cells. */
	if (profdiff_any(t->prof))
		json_object_set_new(rep, "profiles", profdiff_json(t->prof,
		    cj));
	tally_log_warnings(t, &w);
	json_object_set(rep, "warnings", w.list);
	tally_warns_clear(&w);
	tally_plan_json(t, rep, planned);
	json_object_set_new(rep, "legs_counted", json_integer((json_int_t)counted));
	return rep;
}
