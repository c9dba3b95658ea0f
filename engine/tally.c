/* Tally: legs in, comparisons out (see tally.h).
 *
 * A round of a million legs must fit comfortably in memory, so no json_t is
 * kept per leg: each (cell, arm) holds a small fixed record per rep and its
 * metric values in one growing array of doubles (NAN where absent).  All
 * arithmetic is done in tally_report through stats.h. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "tally.h"

/* The fixed metrics come first, in this order; counters follow as seen. */
enum { M_WALL, M_CPU, M_CYCLES, M_INSTRUCTIONS, M_FIXED };
static const char *const fixed_metrics[M_FIXED] = {
	"wall", "cpu", "cycles", "instructions",
};

#define TALLY_MAX_REP 10000000   /* a rep beyond this is a broken line */
#define TALLY_MAX_METRICS 256  /* counters beyond this are ignored */
#define TALLY_WARN_CAP 10        /* warnings of one kind listed one by one */
#define TALLY_CI_WANT 0.95

enum { LEG_NONE, LEG_OK, LEG_FAILED, LEG_TIMED_OUT };
enum { TLEG_MULTIPLEXED = 1, TLEG_DUP = 2 };

struct tleg {
	uint32_t off;     /* first value in the arm's vals */
	uint16_t nvals;   /* metrics known when the line was read */
	uint8_t status;   /* LEG_*; LEG_NONE: no counted line yet */
	uint8_t flags;    /* TLEG_* */
	float foreign;    /* foreign cores during the leg, NAN if unknown */
	float threshold;  /* the gate's threshold the leg saw, NAN if unknown */
};

struct tarm {
	char *name;
	struct tleg *legs;  /* indexed by rep */
	size_t nlegs;
	double *vals;
	size_t nvals, capvals;
};

struct tcell {
	char *name;
	struct tarm *arms;
	size_t narms;
	size_t aborted_seen;
};

struct tspec_arm {
	char *name, *vs, *aa_of;
};

struct tally {
	char *name;
	char **metrics;
	size_t nmetrics;
	struct tcell *cells;
	size_t ncells;
	size_t last_cell, last_arm;  /* lookup cache: lines come in runs */

	char *baseline;              /* --baseline */
	struct tspec_arm *aa;        /* --aa pairs (vs unused) */
	size_t naa;
	double quiet_threshold;      /* from the last "quiet" event */

	bool have_spec;
	struct tspec_arm *sarms;
	size_t nsarms;
	int reps;
	double spec_threshold;       /* NAN when the gate is off */
	size_t ignored;              /* legs of cells/arms not in the spec */
	size_t unusable;             /* leg lines without cell, arm or rep */
};

static void *
tally_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fputs("benchtui: out of memory\n", stderr);
		abort();
	}
	return q;
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

/* The leg's status; SPEC.md's field, or for an earlier harness's row
 * (no status) its rc and timed_out.  -1 for "aborted". */
static int
tally_status(const json_t *ev)
{
	const char *s = json_string_value(json_object_get(ev, "status"));
	const json_t *rc;

	if (s != NULL) {
		if (strcmp(s, "ok") == 0)
			return LEG_OK;
		if (strcmp(s, "timed_out") == 0)
			return LEG_TIMED_OUT;
		if (strcmp(s, "aborted") == 0)
			return -1;
		return LEG_FAILED;
	}
	if (json_is_true(json_object_get(ev, "timed_out")))
		return LEG_TIMED_OUT;
	rc = json_object_get(ev, "rc");
	if (json_is_integer(rc))
		return json_integer_value(rc) == 0 ? LEG_OK : LEG_FAILED;
	/* No rc at all: only a signal says it failed. */
	if (json_is_integer(json_object_get(ev, "signal")) &&
	    json_integer_value(json_object_get(ev, "signal")) != 0)
		return LEG_FAILED;
	return rc == NULL ? LEG_OK : LEG_FAILED;
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
		t->ignored++;
		return;
	}
	if ((status = tally_status(ev)) < 0) {
		c->aborted_seen++;
		return;
	}
	/* Counters first, so the metric list is complete for this line. */
	if (json_is_object(ctr))
		json_object_foreach((json_t *)ctr, key, val)
			if (t->nmetrics < TALLY_MAX_METRICS)
				(void)tally_metric(t, key);
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
		v[m] = x;
	}
	if (isnan(v[M_CPU]))
		v[M_CPU] = tally_num(json_object_get(ev, "utime")) +
		    tally_num(json_object_get(ev, "stime"));
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
	if (strcmp(type, "leg") == 0)
		tally_feed_leg(t, ev);
	else if (strcmp(type, "round") == 0 && t->name == NULL &&
	    json_is_string(json_object_get(ev, "name")))
		t->name = tally_xstrdup(json_string_value(
		    json_object_get(ev, "name")));
	else if (strcmp(type, "quiet") == 0 &&
	    json_is_number(json_object_get(ev, "threshold")))
		t->quiet_threshold = json_number_value(
		    json_object_get(ev, "threshold"));
}

/* ---- the report ---------------------------------------------------- */

static double
tally_val(const struct tarm *a, const struct tleg *l, size_t m)
{
	return m < l->nvals ? a->vals[l->off + m] : NAN;
}

static json_t *
tally_real(double x)
{
	return isnan(x) || isinf(x) ? json_null() : json_real(x);
}

/* Warnings, with each kind listed one by one up to TALLY_WARN_CAP and then
 * counted, so a million failed legs do not make a million lines. */
enum { W_FEW, W_FAILED, W_TIMEOUT, W_MUX, W_FOREIGN, W_DUP, W_OTHER, W_KINDS };
static const char *const warn_kind[W_KINDS] = {
	"paired reps below 3", "failed legs", "timed-out legs",
	"multiplexed counters", "legs with foreign CPU above the threshold",
	"duplicate counted leg lines", "other",
};

struct warns {
	json_t *list;
	size_t count[W_KINDS];
};

static void __attribute__((format(printf, 3, 4)))
tally_warn(struct warns *w, int kind, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	if (++w->count[kind] > TALLY_WARN_CAP && kind != W_OTHER)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	json_array_append_new(w->list, json_string(buf));
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

/* The comparison arm of arm a in cell c, or NULL for a baseline. */
static const char *
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

static const struct tarm *
tally_find_arm(const struct tcell *c, const char *name)
{
	for (size_t i = 0; name && i < c->narms; i++)
		if (strcmp(c->arms[i].name, name) == 0)
			return &c->arms[i];
	return NULL;
}

/* Paired ratios of metric m, a against b, in rep order into out (room for
 * max(a, b) reps); returns n. */
static size_t
tally_pair(const struct tarm *a, const struct tarm *b, size_t m,
    double *out, double *va, double *vb, bool *ok)
{
	size_t n = a->nlegs < b->nlegs ? a->nlegs : b->nlegs;

	for (size_t r = 0; r < n; r++) {
		const struct tleg *la = &a->legs[r], *lb = &b->legs[r];
		ok[r] = la->status == LEG_OK && lb->status == LEG_OK;
		va[r] = ok[r] ? tally_val(a, la, m) : NAN;
		vb[r] = ok[r] ? tally_val(b, lb, m) : NAN;
	}
	return stats_ratios(va, vb, ok, n, out);
}

static json_t *
tally_metric_json(const double *ratios, size_t n, double floor, bool lists)
{
	json_t *o = json_object(), *list = json_array(), *ci;
	double lo, hi, level, median = stats_median(ratios, n);

	json_object_set_new(o, "n", json_integer((json_int_t)n));
	json_object_set_new(o, "median", tally_real(median));
	json_object_set_new(o, "min", tally_real(stats_min(ratios, n)));
	json_object_set_new(o, "max", tally_real(stats_max(ratios, n)));
	json_object_set_new(o, "geomean", tally_real(stats_geomean(ratios, n)));
	for (size_t i = 0; lists && i < n; i++)
		json_array_append_new(list, json_real(ratios[i]));
	if (lists)
		json_object_set_new(o, "ratios", list);
	else
		json_decref(list);
	json_object_set_new(o, "verdict", json_string(stats_verdict_name(
	    stats_verdict(ratios, n, floor))));
	if (stats_median_ci(ratios, n, TALLY_CI_WANT, &lo, &hi, &level)) {
		ci = json_object();
		json_object_set_new(ci, "lo", json_real(lo));
		json_object_set_new(ci, "hi", json_real(hi));
		json_object_set_new(ci, "level", json_real(level));
	} else
		ci = json_null();
	json_object_set_new(o, "ci", ci);
	json_object_set_new(o, "signal", tally_real(stats_signal(median, floor)));
	return o;
}

static double
tally_arm_ipc(const struct tarm *a, double *buf)
{
	size_t n = 0;

	for (size_t r = 0; r < a->nlegs; r++) {
		const struct tleg *l = &a->legs[r];
		double ipc;
		if (l->status != LEG_OK)
			continue;
		ipc = stats_ipc(tally_val(a, l, M_INSTRUCTIONS),
		    tally_val(a, l, M_CYCLES));
		if (!isnan(ipc))
			buf[n++] = ipc;
	}
	return stats_median(buf, n);
}

/* Per-leg warnings and counts of one arm. */
static void
tally_arm_legs(const struct tally *t, const struct tcell *c,
    const struct tarm *a, struct warns *w, size_t *counted, size_t *failed,
    size_t *timed_out, size_t *planned)
{
	for (size_t r = 0; r < a->nlegs; r++) {
		const struct tleg *l = &a->legs[r];
		double thr;
		if (l->status == LEG_NONE)
			continue;
		(*counted)++;
		if (t->have_spec && r >= 1 && r <= (size_t)t->reps)
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
	}
}

static json_t *
tally_cell_json(const struct tally *t, const struct tcell *c,
    struct warns *w, size_t *planned, bool lists)
{
	json_t *cj = json_object(), *floors = json_object(), *arms = json_object();
	json_t *legs = json_object(), *ipcs = json_object();
	size_t maxreps = 0, nm = t->nmetrics, counted = 0, failed = 0, tout = 0;
	double *fl = NULL, *ratios = NULL, *va = NULL, *vb = NULL;
	const char *of;
	bool *ok = NULL;

	for (size_t i = 0; i < c->narms; i++)
		if (c->arms[i].nlegs > maxreps)
			maxreps = c->arms[i].nlegs;
	fl = tally_xrealloc(NULL, nm * sizeof *fl);
	ratios = tally_xrealloc(NULL, (maxreps + 1) * sizeof *ratios);
	va = tally_xrealloc(NULL, (maxreps + 1) * sizeof *va);
	vb = tally_xrealloc(NULL, (maxreps + 1) * sizeof *vb);
	ok = tally_xrealloc(NULL, (maxreps + 1) * sizeof *ok);

	/* The floor first: every arm's verdict needs it. */
	for (size_t m = 0; m < nm; m++) {
		fl[m] = NAN;
		for (size_t i = 0; i < c->narms; i++) {
			const struct tarm *b;
			size_t n;
			double f;
			if (!tally_is_aa(t, c->arms[i].name, &of) ||
			    (b = tally_find_arm(c, of)) == NULL)
				continue;
			n = tally_pair(&c->arms[i], b, m, ratios, va, vb, ok);
			f = stats_floor(ratios, n);
			if (!isnan(f) && (isnan(fl[m]) || f > fl[m]))
				fl[m] = f;
		}
		json_object_set_new(floors, t->metrics[m], tally_real(fl[m]));
	}
	json_object_set_new(cj, "floor", floors);

	for (size_t i = 0; i < c->narms; i++) {
		const struct tarm *a = &c->arms[i], *b;
		const char *vs = tally_vs(t, c, a->name, w);
		json_t *aj, *mj;
		double ipc = tally_arm_ipc(a, ratios);
		size_t maxn = 0;

		json_object_set_new(ipcs, a->name, tally_real(ipc));
		tally_arm_legs(t, c, a, w, &counted, &failed, &tout, planned);
		if (vs == NULL)
			continue;
		aj = json_object();
		mj = json_object();
		json_object_set_new(aj, "vs", json_string(vs));
		if (tally_is_aa(t, a->name, &of))
			json_object_set_new(aj, "aa_of", json_string(of));
		b = tally_find_arm(c, vs);
		for (size_t m = 0; m < nm; m++) {
			size_t n = b ? tally_pair(a, b, m, ratios, va, vb, ok) : 0;
			if (n > maxn)
				maxn = n;
			json_object_set_new(mj, t->metrics[m],
			    tally_metric_json(ratios, n, fl[m], lists));
		}
		json_object_set_new(aj, "metrics", mj);
		json_object_set_new(aj, "ipc", tally_real(ipc));
		json_object_set_new(arms, a->name, aj);
		if (maxn < 3)
			tally_warn(w, W_FEW, "%s %s vs %s: only %zu paired reps "
			    "(n < 3); treat its verdicts with care", c->name,
			    a->name, vs, maxn);
	}
	json_object_set_new(cj, "arms", arms);
	json_object_set_new(legs, "counted", json_integer((json_int_t)counted));
	json_object_set_new(legs, "failed", json_integer((json_int_t)failed));
	json_object_set_new(legs, "timed_out", json_integer((json_int_t)tout));
	json_object_set_new(legs, "aborted_seen",
	    json_integer((json_int_t)c->aborted_seen));
	json_object_set_new(cj, "legs", legs);
	json_object_set_new(cj, "ipc", ipcs);
	free(fl);
	free(ratios);
	free(va);
	free(vb);
	free(ok);
	return cj;
}

static json_t *
tally_report_lists(const struct tally *t, bool lists)
{
	json_t *rep = json_object(), *cells = json_object();
	struct warns w = { .list = json_array() };
	size_t planned = 0, counted = 0;

	json_object_set_new(rep, "round",
	    t->name ? json_string(t->name) : json_null());
	for (size_t i = 0; i < t->ncells; i++) {
		const struct tcell *c = &t->cells[i];
		json_t *cj;
		if (c->narms == 0)
			continue;
		cj = tally_cell_json(t, c, &w, &planned, lists);
		counted += (size_t)json_integer_value(json_object_get(
		    json_object_get(cj, "legs"), "counted"));
		json_object_set_new(cells, c->name, cj);
	}
	json_object_set_new(rep, "cells", cells);
	if (t->ignored)
		tally_warn(&w, W_OTHER, "%zu leg lines name a cell or arm that "
		    "is not in round.json and were ignored", t->ignored);
	if (t->unusable)
		tally_warn(&w, W_OTHER, "%zu leg lines without a usable cell, "
		    "arm or rep were ignored", t->unusable);
	for (size_t k = 0; k < W_OTHER; k++)
		if (w.count[k] > TALLY_WARN_CAP)
			tally_warn(&w, W_OTHER, "... and %zu more warnings of "
			    "the same kind (%s)", w.count[k] - TALLY_WARN_CAP,
			    warn_kind[k]);
	json_object_set_new(rep, "warnings", w.list);
	if (t->have_spec) {
		size_t total = (size_t)t->reps * t->nsarms * t->ncells;
		json_object_set_new(rep, "partial", json_boolean(planned < total));
		json_object_set_new(rep, "legs_total",
		    json_integer((json_int_t)total));
	} else {
		json_object_set_new(rep, "partial", json_null());
		json_object_set_new(rep, "legs_total", json_null());
	}
	json_object_set_new(rep, "legs_counted", json_integer((json_int_t)counted));
	return rep;
}

json_t *
tally_report(const struct tally *t)
{
	return tally_report_lists(t, true);
}

json_t *
tally_report_brief(const struct tally *t)
{
	return tally_report_lists(t, false);
}

void
tally_destroy(struct tally *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->ncells; i++) {
		for (size_t j = 0; j < t->cells[i].narms; j++)
			tally_arm_free(&t->cells[i].arms[j]);
		free(t->cells[i].arms);
		free(t->cells[i].name);
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
