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

/* Out of memory is xalloc's one policy (exit 1 after the front end gave
 * the terminal back), not abort(). */
void *
tally_xrealloc(void *p, size_t n)
{
	return xrealloc(p, n);
}

static char *
tally_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(tally_xrealloc(NULL, n), s, n);
}

struct tally *
tally_create(void)
{
	struct tally *t = tally_xrealloc(NULL, sizeof *t);

	memset(t, 0, sizeof *t);
	t->quiet_threshold = NAN;
	t->spec_threshold = NAN;
	t->level = TALLY_LEVEL;
	t->margin = TALLY_MARGIN;
	for (size_t i = 0; i < M_FIXED; i++) {
		t->metrics = tally_xrealloc(t->metrics,
		    (t->nmetrics + 1) * sizeof *t->metrics);
		t->metrics[t->nmetrics++] = tally_xstrdup(fixed_metrics[i]);
	}
	return t;
}

static struct tcell *
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
	t->cells = tally_xrealloc(t->cells, (t->ncells + 1) * sizeof *t->cells);
	c = &t->cells[t->ncells];
	memset(c, 0, sizeof *c);
	c->name = tally_xstrdup(name);
	t->last_cell = t->ncells++;
	return c;
}

static struct tarm *
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
	c->arms = tally_xrealloc(c->arms, (c->narms + 1) * sizeof *c->arms);
	a = &c->arms[c->narms];
	memset(a, 0, sizeof *a);
	a->name = tally_xstrdup(name);
	t->last_arm = c->narms++;
	return a;
}

static void
tally_arm_free(struct tarm *a)
{
	free(a->name);
	free(a->legs);
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
	struct tcell *cells = tally_xrealloc(NULL, s->ncells * sizeof *cells);

	for (size_t i = 0; i < s->ncells; i++) {
		struct tcell *old = NULL, *c = &cells[i];
		for (size_t k = 0; k < t->ncells && !old; k++)
			if (t->cells[k].name &&
			    strcmp(t->cells[k].name, s->cells[i].name) == 0)
				old = &t->cells[k];
		memset(c, 0, sizeof *c);
		c->name = tally_xstrdup(s->cells[i].name);
		c->arms = tally_xrealloc(NULL, s->narms * sizeof *c->arms);
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
				a->name = tally_xstrdup(s->arms[j].name);
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
}

void
tally_set_spec(struct tally *t, const struct spec *s)
{
	free(t->name);
	t->name = tally_xstrdup(s->name);
	t->have_spec = true;
	t->reps = s->reps;
	t->spec_threshold = s->quiet.enabled ? s->quiet.max_foreign_cores : NAN;
	/* An adaptive round's report uses its looks' level (Bonferroni). */
	tally_set_stats(t, s->adaptive.on ? stats_look_level(s->confidence,
	    spec_looks(s, NULL, 0)) : s->confidence, s->margin);
	tally_spec_arms_free(t);
	t->sarms = tally_xrealloc(NULL, s->narms * sizeof *t->sarms);
	t->nsarms = s->narms;
	for (size_t i = 0; i < s->narms; i++) {
		t->sarms[i].name = tally_xstrdup(s->arms[i].name);
		t->sarms[i].vs = s->arms[i].vs ? tally_xstrdup(s->arms[i].vs) : NULL;
		t->sarms[i].aa_of = s->arms[i].aa_of ?
		    tally_xstrdup(s->arms[i].aa_of) : NULL;
	}
	tally_spec_order(t, s);
}

void
tally_set_name(struct tally *t, const char *name)
{
	if (t->name == NULL && name != NULL)
		t->name = tally_xstrdup(name);
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
	t->baseline = tally_xstrdup(arm);
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
	t->aa = tally_xrealloc(t->aa, (t->naa + 1) * sizeof *t->aa);
	t->aa[t->naa].name = tally_xstrdup(arm);
	t->aa[t->naa].aa_of = tally_xstrdup(of);
	t->aa[t->naa].vs = NULL;
	t->naa++;
	return 0;
}

static size_t
tally_metric(struct tally *t, const char *name)
{
	for (size_t i = 0; i < t->nmetrics; i++)
		if (strcmp(t->metrics[i], name) == 0)
			return i;
	t->metrics = tally_xrealloc(t->metrics,
	    (t->nmetrics + 1) * sizeof *t->metrics);
	t->metrics[t->nmetrics] = tally_xstrdup(name);
	return t->nmetrics++;
}

static double
tally_num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

enum tally_leg_status
tally_leg_status(const json_t *ev)
{
	const char *s = json_string_value(json_object_get(ev, "status"));
	const json_t *rc, *sig;

	if (!json_is_object(ev))
		return TALLY_LEG_NONE;
	if (s != NULL) {
		if (strcmp(s, "ok") == 0)
			return TALLY_LEG_OK;
		if (strcmp(s, "timed_out") == 0)
			return TALLY_LEG_TIMED_OUT;
		if (strcmp(s, "aborted") == 0)
			return TALLY_LEG_ABORTED;
		return TALLY_LEG_FAILED;
	}
	if (json_is_true(json_object_get(ev, "timed_out")))
		return TALLY_LEG_TIMED_OUT;
	rc = json_object_get(ev, "rc");
	if (json_is_integer(rc))
		return json_integer_value(rc) == 0 ? TALLY_LEG_OK :
		    TALLY_LEG_FAILED;
	/* No rc at all: only a signal says it failed. */
	sig = json_object_get(ev, "signal");
	if ((json_is_integer(sig) && json_integer_value(sig) != 0) ||
	    json_is_string(sig))
		return TALLY_LEG_FAILED;
	return rc == NULL ? TALLY_LEG_OK : TALLY_LEG_FAILED;
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

bool
tally_first_failed(const struct tally *t, const char *cell, const char *arm,
    int n)
{
	const struct tcell *c = NULL;
	const struct tarm *a = NULL;

	for (size_t i = 0; i < t->ncells && !c; i++)
		if (strcmp(t->cells[i].name, cell) == 0)
			c = &t->cells[i];
	for (size_t i = 0; c && i < c->narms && !a; i++)
		if (strcmp(c->arms[i].name, arm) == 0)
			a = &c->arms[i];
	if (a == NULL || n < 1 || (size_t)n >= a->nlegs)
		return false;
	for (int r = 1; r <= n; r++)
		if (!tally_bad(&a->legs[r]))
			return false;
	return true;
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
}

/* A float for the per-leg warning fields; NAN for what a float cannot hold
 * (converting it would be undefined behaviour). */
static float
tally_f32(double x)
{
	return isfinite(x) && fabs(x) < 1e30 ? (float)x : NAN;
}

static bool
tally_multiplexed(const json_t *ev)
{
	const json_t *m = json_object_get(ev, "multiplexed");

	return json_is_true(m) || (json_is_array(m) && json_array_size(m) > 0);
}

/* Whether x can be metric m of a leg: finite, not negative, and for the
 * seconds (wall, cpu) under a year, a wall above zero.  Anything else is
 * a broken or forged line, left out of every figure (never used in the
 * medians but not the ratios, or the other way round). */
static bool
tally_plausible(size_t m, double x)
{
	if (!isfinite(x) || x < 0)
		return false;
	if (m == M_WALL || m == M_CPU)
		return x < 3.2e7 && (m != M_WALL || x > 0);
	return x < 1.8e19;
}

/* "CELL ARM rep R" (with ": METRIC X"), for a warning. */
static char *
tally_name_leg(const char *cell, const char *arm, size_t r,
    const char *metric, double x)
{
	char buf[256];

	if (metric != NULL)
		snprintf(buf, sizeof buf, "%.60s %.60s rep %zu: %.60s %g", cell,
		    arm, r, metric, x);
	else
		snprintf(buf, sizeof buf, "%.60s %.60s rep %zu", cell, arm, r);
	return tally_xstrdup(buf);
}

/* A server block's metrics are server_cpu and server_CTR per counter. */
#define TALLY_SERVER_PREFIX "server_"

/* Register the names of the leg line's "server" block and its "metrics"
 * (SPEC.md "Server rounds"). */
static void
tally_extra_metrics(struct tally *t, const json_t *ev)
{
	const json_t *srv = json_object_get(ev, "server");
	const json_t *sctr = json_object_get(srv, "counters");
	const json_t *mets = json_object_get(ev, "metrics");
	const char *key;
	json_t *val;
	char name[128];

	if (json_is_object(srv) && t->nmetrics < TALLY_MAX_METRICS)
		(void)tally_metric(t, TALLY_SERVER_PREFIX "cpu");
	if (json_is_object(sctr))
		json_object_foreach((json_t *)sctr, key, val) {
			snprintf(name, sizeof name, TALLY_SERVER_PREFIX "%s", key);
			if (t->nmetrics < TALLY_MAX_METRICS)
				(void)tally_metric(t, name);
		}
	if (json_is_object(mets))
		json_object_foreach((json_t *)mets, key, val)
			if (t->nmetrics < TALLY_MAX_METRICS)
				(void)tally_metric(t, key);
}

/* The value of a metric that is not a fixed one or a leg counter: the
 * leg's own metrics, or the server block's server_cpu / server_CTR. */
static double
tally_extra_value(const json_t *ev, const char *name)
{
	const json_t *srv = json_object_get(ev, "server");
	double x = tally_num(json_object_get(json_object_get(ev, "metrics"),
	    name));

	if (!isnan(x) || !json_is_object(srv) ||
	    strncmp(name, TALLY_SERVER_PREFIX, strlen(TALLY_SERVER_PREFIX)) != 0)
		return x;
	name += strlen(TALLY_SERVER_PREFIX);
	if (strcmp(name, "cpu") == 0)
		return tally_num(json_object_get(srv, "cpu"));
	return tally_num(json_object_get(json_object_get(srv, "counters"),
	    name));
}

static void
tally_feed_leg(struct tally *t, const json_t *ev)
{
	const char *cname = json_string_value(json_object_get(ev, "cell"));
	const char *aname = json_string_value(json_object_get(ev, "arm"));
	const json_t *jrep = json_object_get(ev, "rep");
	const json_t *ctr = json_object_get(ev, "counters");
	double rep = tally_num(jrep), *v, thr;
	struct tcell *c;
	struct tarm *a;
	struct tleg *l;
	int status;
	const char *key;
	json_t *val;
	size_t r;

	if (cname == NULL || aname == NULL || isnan(rep) || rep < 0 ||
	    rep > TALLY_MAX_REP || rep != floor(rep)) {
		t->unusable++;
		return;
	}
	r = (size_t)rep;
	if ((c = tally_cell(t, cname, !t->have_spec)) == NULL ||
	    (a = tally_arm(t, c, aname, !t->have_spec)) == NULL) {
		if (t->ignored < TALLY_WARN_CAP)
			t->ignored_names[t->ignored] = tally_name_leg(cname,
			    aname, r, NULL, NAN);
		t->ignored++;
		return;
	}
	if ((status = tally_leg_status(ev)) == TALLY_LEG_ABORTED) {
		c->aborted_seen++;
		return;
	}
	/* Counters first, so the metric list is complete for this line;
	 * then the server's (server_cpu, server_CTR) and the leg's own
	 * metrics. */
	if (json_is_object(ctr))
		json_object_foreach((json_t *)ctr, key, val)
			if (t->nmetrics < TALLY_MAX_METRICS)
				(void)tally_metric(t, key);
	tally_extra_metrics(t, ev);
	/* The values' offsets are 32-bit to keep a leg at 16 bytes. */
	if (a->nvals + t->nmetrics > UINT32_MAX) {
		t->unusable++;
		return;
	}
	if (r >= a->nlegs) {
		size_t n = a->nlegs ? a->nlegs : 8;
		while (n <= r)
			n *= 2;
		a->legs = tally_xrealloc(a->legs, n * sizeof *a->legs);
		memset(a->legs + a->nlegs, 0, (n - a->nlegs) * sizeof *a->legs);
		a->nlegs = n;
	}
	l = &a->legs[r];
	if (l->status != LEG_NONE)
		l->flags |= TLEG_DUP;
	l->flags &= TLEG_DUP;
	l->status = (uint8_t)status;
	if (tally_multiplexed(ev))
		l->flags |= TLEG_MULTIPLEXED;
	l->foreign = tally_f32(tally_num(json_object_get(ev, "foreign")));
	thr = tally_num(json_object_get(ev, "threshold"));
	if (isnan(thr))
		thr = tally_num(json_object_get(ev, "max_foreign_cores"));
	l->threshold = tally_f32(isnan(thr) ? t->quiet_threshold : thr);

	if (a->nvals + t->nmetrics > a->capvals) {
		a->capvals = a->capvals ? a->capvals * 2 : 64;
		while (a->capvals < a->nvals + t->nmetrics)
			a->capvals *= 2;
		a->vals = tally_xrealloc(a->vals, a->capvals * sizeof *a->vals);
	}
	l->off = (uint32_t)a->nvals;
	l->nvals = (uint16_t)t->nmetrics;
	v = a->vals + a->nvals;
	a->nvals += t->nmetrics;
	for (size_t m = 0; m < t->nmetrics; m++) {
		double x = NAN;
		if (m < M_FIXED)
			x = tally_num(json_object_get(ev, t->metrics[m]));
		if (isnan(x) && json_is_object(ctr))
			x = tally_num(json_object_get(ctr, t->metrics[m]));
		if (isnan(x) && m >= M_FIXED)
			x = tally_extra_value(ev, t->metrics[m]);
		v[m] = x;
	}
	if (isnan(v[M_CPU]))
		v[M_CPU] = tally_num(json_object_get(ev, "utime")) +
		    tally_num(json_object_get(ev, "stime"));
	for (size_t m = 0; m < t->nmetrics; m++)
		if (!isnan(v[m]) && !tally_plausible(m, v[m])) {
			if (t->nimplausible < TALLY_WARN_CAP)
				t->implausible[t->nimplausible] = tally_name_leg(
				    cname, aname, r, t->metrics[m], v[m]);
			t->nimplausible++;
			v[m] = NAN;
		}
}

void
tally_feed(struct tally *t, const json_t *ev)
{
	const char *type = json_string_value(json_object_get(ev, "t"));

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
	else if (strcmp(type, "round") == 0) {
		if (t->name == NULL &&
		    json_is_string(json_object_get(ev, "name")))
			t->name = tally_xstrdup(json_string_value(
			    json_object_get(ev, "name")));
		if (json_is_integer(json_object_get(ev, "reps")) &&
		    json_integer_value(json_object_get(ev, "reps")) > 0 &&
		    json_integer_value(json_object_get(ev, "reps")) <=
		    TALLY_MAX_REP)
			t->log_reps = (int)json_integer_value(
			    json_object_get(ev, "reps"));
		/* A bare log carries its round's level and margin here. */
		if (!t->stats_set) {
			double l = tally_num(json_object_get(ev, "level"));
			double m = tally_num(json_object_get(ev, "margin"));
			if (l > 0 && l < 1)
				t->level = l;
			if (m >= 0)
				t->margin = m;
		}
	} else if (strcmp(type, "look") == 0) {
		const char *cn = json_string_value(json_object_get(ev, "cell"));
		struct tcell *c = cn ? tally_cell(t, cn, !t->have_spec) : NULL;
		const json_t *rep = json_object_get(ev, "rep");
		if (c == NULL)
			return;
		json_decref(c->look);
		c->look = json_incref((json_t *)ev);
		if (json_is_true(json_object_get(ev, "decided")) &&
		    json_is_integer(rep) && json_integer_value(rep) > 0 &&
		    json_integer_value(rep) <= TALLY_MAX_REP)
			c->stopped_rep = (int)json_integer_value(rep);
	} else if (strcmp(type, "profile") == 0) {
		if (t->prof == NULL)
			t->prof = profdiff_create();
		profdiff_feed(t->prof, ev);
	} else if (strcmp(type, "quiet") == 0 &&
	    json_is_number(json_object_get(ev, "threshold")))
		t->quiet_threshold = json_number_value(
		    json_object_get(ev, "threshold"));
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
	profdiff_destroy(t->prof);
	for (size_t i = 0; i < TALLY_WARN_CAP; i++) {
		free(t->ignored_names[i]);
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
	for (size_t i = 0; i < t->naa; i++) {
		free(t->aa[i].name);
		free(t->aa[i].aa_of);
	}
	free(t->aa);
	tally_spec_arms_free(t);
	free(t->baseline);
	free(t->name);
	free(t);
}
