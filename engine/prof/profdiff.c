/* Profiles side by side: each profiled arm against its comparison arm.
 * The printing is profdiff_print.c. */
#include "profdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "profdiff_runs.h"
#include "xalloc.h"

/* Rows a profile keeps in the report, and the most-moved symbols whose
 * callers it lists. */
#define PROFDIFF_ROWS 50
#define PROFDIFF_CALLERS_OF 5
/* The normal quantile of a two-sided 95% interval. */
#define PROFDIFF_Z 1.959963984540054

struct profdiff {
	json_t *byid;   /* "CELL/ARM/KIND" -> the profile event (names hold
	                 * no '/') */
	json_t *warnings;
};

struct profdiff *
profdiff_create(void)
{
	struct profdiff *d = xcalloc(1, sizeof *d);

	d->byid = json_object();
	d->warnings = json_array();
	return d;
}

void
profdiff_destroy(struct profdiff *d)
{
	if (d == NULL)
		return;
	json_decref(d->byid);
	json_decref(d->warnings);
	free(d);
}

static const char *
profdiff_str(const json_t *ev, const char *key)
{
	return json_string_value(json_object_get(ev, key));
}

static double
profdiff_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static bool
profdiff_perf_kind(const char *kind)
{
	return strcmp(kind, "perf") == 0 || strcmp(kind, "server_perf") == 0;
}

/* What no profile can say: a share outside 0..100, negative counts, a
 * top list whose samples exceed the profile's.  NULL when the event is
 * sound. */
static const char *
profdiff_impossible(const json_t *ev, const char *kind)
{
	double n = profdiff_num(ev, "samples"), sum = 0, share_sum = 0;
	const json_t *r;
	size_t i;

	if (!profdiff_perf_kind(kind) && strcmp(kind, "syscalls") != 0)
		return "an unknown kind of profile";
	if (json_object_get(ev, "top") != NULL &&
	    !json_is_array(json_object_get(ev, "top")))
		return "its top is not a list";
	json_array_foreach(json_object_get(ev, "top"), i, r) {
		double s = profdiff_num(r, "share"), k = profdiff_num(r,
		    "samples"), c = profdiff_num(r, "calls");

		if ((!isnan(s) && (s < 0 || s > 100)) || k < 0 || c < 0)
			return "a row with a share outside 0..100 or a negative "
			    "count";
		sum += isnan(k) ? 0 : k;
		share_sum += isnan(s) ? 0 : s;
	}
	if (share_sum > 100.5)
		return "its shares add up to more than 100%";
	if (!isnan(n) && (n < 0 || sum > n))
		return "its rows hold more samples than the profile";
	return NULL;
}

void
profdiff_feed(struct profdiff *d, const json_t *ev)
{
	const char *cell = profdiff_str(ev, "cell"), *arm = profdiff_str(ev,
	    "arm"), *kind = profdiff_str(ev, "kind"),
	    *status = profdiff_str(ev, "status"), *why;
	char id[256];

	if (d == NULL || cell == NULL || arm == NULL || kind == NULL ||
	    status == NULL || strcmp(status, "aborted") == 0)
		return;
	snprintf(id, sizeof id, "%s/%s/%s", cell, arm, kind);
	if (json_object_get(d->byid, id) != NULL)
		json_array_append_new(d->warnings, json_sprintf("the log holds "
		    "two %s profiles of cell %s, arm %s (a profile is taken "
		    "once): the later one is shown", kind, cell, arm));
	if ((why = profdiff_impossible(ev, kind)) != NULL)
		json_array_append_new(d->warnings, json_sprintf("the %s profile "
		    "of cell %s, arm %s cannot be right (%s): its rows are "
		    "not shown", kind, cell, arm, why));
	/* a shallow copy: the mark is ours, the event the caller's */
	json_object_set_new(d->byid, id, json_copy((json_t *)ev));
	if (why != NULL)
		json_object_set_new(json_object_get(d->byid, id), "impossible",
		    json_string(why));
}

bool
profdiff_has(const struct profdiff *d, const char *cell, const char *arm,
    const char *kind)
{
	char id[256];

	if (d == NULL)
		return false;
	snprintf(id, sizeof id, "%s/%s/%s", cell, arm, kind);
	return json_object_get(d->byid, id) != NULL;
}

bool
profdiff_any(const struct profdiff *d)
{
	return d != NULL && json_object_size(d->byid) > 0;
}

const json_t *
profdiff_warnings(const struct profdiff *d)
{
	return d != NULL ? d->warnings : NULL;
}

void
profdiff_wilson(long long k, long long n, double *lo, double *hi)
{
	double p, z2 = PROFDIFF_Z * PROFDIFF_Z, den, mid, half;

	if (n <= 0) {
		*lo = *hi = 0;
		return;
	}
	p = (double)k / (double)n;
	den = 1 + z2 / (double)n;
	mid = (p + z2 / (2.0 * (double)n)) / den;
	half = PROFDIFF_Z * sqrt(p * (1 - p) / (double)n + z2 /
	    (4.0 * (double)n * (double)n)) / den;
	*lo = k <= 0 ? 0 : fmax(0, mid - half);
	*hi = k >= n ? 1 : fmin(1, mid + half);
}

void
profdiff_newcombe(long long k1, long long n1, long long k2, long long n2,
    double *lo, double *hi)
{
	double p1 = n1 > 0 ? (double)k1 / (double)n1 : 0,
	    p2 = n2 > 0 ? (double)k2 / (double)n2 : 0, l1, u1, l2, u2;

	profdiff_wilson(k1, n1, &l1, &u1);
	profdiff_wilson(k2, n2, &l2, &u2);
	*lo = p1 - p2 - sqrt((p1 - l1) * (p1 - l1) + (u2 - p2) * (u2 - p2));
	*hi = p1 - p2 + sqrt((u1 - p1) * (u1 - p1) + (p2 - l2) * (p2 - l2));
}

static json_t *
profdiff_real(double x, double scale)
{
	return isfinite(x) ? json_real(round(x * scale) / scale) :
	    json_null();
}

/* The arm's median of metric from the report's cells: its own entry, or
 * vs_abs of an arm compared with it (the comparison arm has no entry of
 * its own).  NAN when unknown. */
static double
profdiff_median(const json_t *cells, const char *cell, const char *arm,
    const char *metric)
{
	const json_t *arms = json_object_get(json_object_get(cells, cell),
	    "arms"), *a;
	const char *name;
	double v = profdiff_num(json_object_get(json_object_get(
	    json_object_get(arms, arm), "metrics"), metric), "abs");

	if (!isnan(v))
		return v;
	json_object_foreach((json_t *)arms, name, a) {
		const json_t *m = json_object_get(json_object_get(a, "metrics"),
		    metric);

		if (strcmp(profdiff_str(a, "vs") ? profdiff_str(a, "vs") : "",
		    arm) == 0 && !isnan(profdiff_num(m, "vs_abs")))
			return profdiff_num(m, "vs_abs");
	}
	return NAN;
}

/* An event's counts: "OBJECT\tSYMBOL" (or "\t[OBJECT]" for an object's
 * sum) -> samples, from its top, its further symbols and its objects. */
static json_t *
profdiff_counts(const json_t *ev)
{
	json_t *m = json_object(), *r;
	char key[1200];
	size_t i;

	json_array_foreach(json_object_get(ev, "top"), i, r) {
		snprintf(key, sizeof key, "%s\t%s", profdiff_str(r, "object") ?
		    profdiff_str(r, "object") : "", profdiff_str(r, "symbol") ?
		    profdiff_str(r, "symbol") : "?");
		json_object_set(m, key, json_object_get(r, "samples") ?
		    json_object_get(r, "samples") : json_null());
	}
	json_array_foreach(json_object_get(ev, "symbols"), i, r) {
		snprintf(key, sizeof key, "%s\t%s", json_string_value(
		    json_array_get(r, 1)) ? json_string_value(json_array_get(r,
		    1)) : "", json_string_value(json_array_get(r, 0)) ?
		    json_string_value(json_array_get(r, 0)) : "?");
		json_object_set(m, key, json_array_get(r, 2));
	}
	json_array_foreach(json_object_get(ev, "objects"), i, r) {
		snprintf(key, sizeof key, "\t%s", profdiff_str(r, "object") ?
		    profdiff_str(r, "object") : "?");
		json_object_set(m, key, json_object_get(r, "samples"));
	}
	return m;
}

/* value of the first of an event's top rows whose field is name (0 when
 * none is). */
static double
profdiff_top_find(const json_t *ev, const char *field, const char *name,
    const char *value)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(ev, "top"), i, r)
		if (profdiff_str(r, field) != NULL &&
		    strcmp(profdiff_str(r, field), name) == 0)
			return profdiff_num(r, value);
	return 0;
}

/* A legacy event's share of a symbol (no sample counts), or 0. */
static double
profdiff_legacy_share(const json_t *ev, const char *sym)
{
	return profdiff_top_find(ev, "symbol", sym, "share");
}

/* One side of a row: share and interval in %, time per run in ms. */
static void
profdiff_side(json_t *row, const char *pre, const json_t *ev, long long k,
    long long n, double cpu, const char *sym)
{
	char key[32];
	double lo, hi, share;

	if (n > 0) {
		profdiff_wilson(k, n, &lo, &hi);
		share = 100.0 * (double)k / (double)n;
		snprintf(key, sizeof key, "%ssamples", pre);
		json_object_set_new(row, key, json_integer(k));
		snprintf(key, sizeof key, "%sci", pre);
		json_object_set_new(row, key, json_pack("[o,o]", profdiff_real(
		    100 * lo, 1000), profdiff_real(100 * hi, 1000)));
	} else {
		share = profdiff_legacy_share(ev, sym);
	}
	snprintf(key, sizeof key, "%sshare", pre);
	json_object_set_new(row, key, profdiff_real(share, 1000));
	snprintf(key, sizeof key, "%stime_ms", pre);
	json_object_set_new(row, key, profdiff_real(share / 100.0 * cpu *
	    1000.0, 1000));
}

/* One side's interval from its runs (the per-run counts), in place of
 * the one from the sample count; an object's sum has none (its share
 * keeps the count's). */
static void
profdiff_runs_side(json_t *row, const char *pre, const json_t *ev,
    const char *key)
{
	struct profdiff_share sh;
	char k[32];
	double lo, hi;

	if (key[0] == '\t' || !profdiff_runs_share(ev, "symbols", key, &sh))
		return;
	profdiff_runs_ci(&sh, &lo, &hi);
	snprintf(k, sizeof k, "%sci", pre);
	json_object_set_new(row, k, json_pack("[o,o]", profdiff_real(100 * lo,
	    1000), profdiff_real(100 * hi, 1000)));
	snprintf(k, sizeof k, "%sruns", pre);
	json_object_set_new(row, k, json_integer(sh.runs));
}

/* The row of one symbol (or object sum) in a and b (b may be NULL). */
static json_t *
profdiff_row(const char *key, const json_t *a, const json_t *b,
    const json_t *ca, const json_t *cb, double cpu_a, double cpu_b)
{
	const char *tab = strchr(key, '\t'), *sym = tab + 1;
	long long na = (long long)profdiff_num(a, "samples"),
	    nb = b != NULL ? (long long)profdiff_num(b, "samples") : 0,
	    ka = json_integer_value(json_object_get(ca, key)),
	    kb = json_integer_value(json_object_get(cb, key));
	json_t *row = json_object();
	double lo, hi, d, t;

	json_object_set_new(row, "symbol", json_string(sym));
	json_object_set_new(row, "object", json_stringn(key, (size_t)(tab -
	    key)));
	if (tab == key)
		json_object_set_new(row, "kind", json_string("object"));
	profdiff_side(row, "", a, ka, na, cpu_a, sym);
	if (profdiff_runs_has(a))
		profdiff_runs_side(row, "", a, key);
	if (b == NULL)
		return row;
	profdiff_side(row, "vs_", b, kb, nb, cpu_b, sym);
	if (profdiff_runs_has(a) && profdiff_runs_has(b)) {
		struct profdiff_share sa, sb;

		profdiff_runs_side(row, "vs_", b, key);
		profdiff_runs_share(a, "symbols", key, &sa);
		profdiff_runs_share(b, "symbols", key, &sb);
		profdiff_runs_diff(&sa, &sb, &lo, &hi);
		d = profdiff_num(row, "share") - profdiff_num(row, "vs_share");
		json_object_set_new(row, "diff", profdiff_real(d, 1000));
		t = profdiff_num(row, "time_ms") - profdiff_num(row, "vs_time_ms");
		json_object_set_new(row, "time_moved_ms", profdiff_real(t, 1000));
		json_object_set_new(row, "diff_ci", json_pack("[o,o]",
		    profdiff_real(100 * lo, 1000), profdiff_real(100 * hi,
		    1000)));
		json_object_set_new(row, "noise", json_boolean(lo <= 0 &&
		    hi >= 0));
		return row;
	}
	d = profdiff_num(row, "share") - profdiff_num(row, "vs_share");
	json_object_set_new(row, "diff", profdiff_real(d, 1000));
	t = profdiff_num(row, "time_ms") - profdiff_num(row, "vs_time_ms");
	json_object_set_new(row, "time_moved_ms", profdiff_real(t, 1000));
	if (na > 0 && nb > 0) {
		profdiff_newcombe(ka, na, kb, nb, &lo, &hi);
		json_object_set_new(row, "diff_ci", json_pack("[o,o]",
		    profdiff_real(100 * lo, 1000), profdiff_real(100 * hi,
		    1000)));
		json_object_set_new(row, "noise", json_boolean(lo <= 0 &&
		    hi >= 0));
	}
	return row;
}

/* Largest time moved first (points where the time is unknown, the share
 * where nothing is compared); then by name, so the order is stable. */
static int
profdiff_cmp(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	static const char *const keys[] = { "time_moved_ms", "diff", "share",
	    "calls" };
	const char *na, *nb;

	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		double da = fabs(profdiff_num(a, keys[i])),
		    db = fabs(profdiff_num(b, keys[i]));

		if (isnan(da) && isnan(db))
			continue;
		da = isnan(da) ? -1 : da;
		db = isnan(db) ? -1 : db;
		if (da != db)
			return da < db ? 1 : -1;
	}
	na = profdiff_str(a, "symbol") ? profdiff_str(a, "symbol") :
	    profdiff_str(a, "syscall");
	nb = profdiff_str(b, "symbol") ? profdiff_str(b, "symbol") :
	    profdiff_str(b, "syscall");
	return strcmp(na != NULL ? na : "", nb != NULL ? nb : "");
}

/* rows sorted (profdiff_cmp), at most max kept.  Takes rows. */
static json_t *
profdiff_sort(json_t *rows, size_t max)
{
	size_t n = json_array_size(rows);
	json_t **v = xcalloc(n + 1, sizeof *v), *out = json_array();

	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(rows, i);
	qsort(v, n, sizeof *v, profdiff_cmp);
	for (size_t i = 0; i < n && (max == 0 || i < max); i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(rows);
	return out;
}

/* The callers (event's top rows) of symbol sym, or an empty list. */
static json_t *
profdiff_callers_of(const json_t *ev, const char *sym, const char *obj)
{
	const json_t *r;
	size_t i;

	json_array_foreach(json_object_get(ev, "top"), i, r)
		if (strcmp(profdiff_str(r, "symbol") ? profdiff_str(r, "symbol") :
		    "", sym) == 0 && strcmp(profdiff_str(r, "object") ?
		    profdiff_str(r, "object") : "", obj) == 0 &&
		    json_is_array(json_object_get(r, "callers")))
			return json_incref(json_object_get(r, "callers"));
	return json_array();
}

/* The callers of the symbols that moved most (noise left out) in a and
 * b: [{"symbol", "object", "callers", "vs_callers"}]. */
static json_t *
profdiff_callers(const json_t *rows, const json_t *a, const json_t *b)
{
	json_t *out = json_array();
	const json_t *r;
	size_t i;

	json_array_foreach(rows, i, r) {
		const char *sym = profdiff_str(r, "symbol"),
		    *obj = profdiff_str(r, "object");

		if (json_array_size(out) >= PROFDIFF_CALLERS_OF)
			break;
		if (json_is_true(json_object_get(r, "noise")) ||
		    json_object_get(r, "kind") != NULL)
			continue;
		json_t *c = json_pack("{s:s,s:s,s:o,s:o}", "symbol", sym,
		    "object", obj, "callers", profdiff_callers_of(a, sym, obj),
		    "vs_callers", b != NULL ? profdiff_callers_of(b, sym, obj) :
		    json_null());
		char key[1400];

		/* which caller moved it: its samples split by immediate
		 * caller, each with an interval over runs */
		snprintf(key, sizeof key, "%s\t%s", obj, sym);
		if (b != NULL && profdiff_runs_has(a) && profdiff_runs_has(b)) {
			json_t *split = profdiff_runs_callers(a, b, key);

			/* the first is the one that moved most, if any did */
			if (json_is_false(json_object_get(json_array_get(split,
			    0), "noise")) && json_string_value(json_object_get(
			    json_array_get(split, 0), "caller"))[0] != '(')
				json_object_set(c, "moved_most", json_object_get(
				    json_array_get(split, 0), "caller"));
			json_object_set_new(c, "split", split);
		}
		json_array_append_new(out, c);
	}
	return out;
}

/* A perf or server_perf profile's rows and callers into p. */
static void
profdiff_perf(json_t *p, const json_t *a, const json_t *b,
    const json_t *cells, const char *kind)
{
	const char *cell = profdiff_str(a, "cell"), *metric =
	    strcmp(kind, "server_perf") == 0 ? "server_cpu" : "cpu";
	json_t *ca = profdiff_counts(a), *cb = b != NULL ? profdiff_counts(b) :
	    json_object(), *rows = json_array(), *v;
	double cpu_a = profdiff_median(cells, cell, profdiff_str(a, "arm"),
	    metric), cpu_b = b != NULL ? profdiff_median(cells, cell,
	    profdiff_str(b, "arm"), metric) : NAN;
	const char *key;

	json_object_set_new(p, "cpu", profdiff_real(cpu_a, 1e6));
	json_object_foreach(ca, key, v)
		json_array_append_new(rows, profdiff_row(key, a, b, ca, cb, cpu_a,
		    cpu_b));
	json_object_foreach(cb, key, v)
		if (json_object_get(ca, key) == NULL)
			json_array_append_new(rows, profdiff_row(key, a, b, ca, cb,
			    cpu_a, cpu_b));
	rows = profdiff_sort(rows, PROFDIFF_ROWS);
	json_object_set_new(p, "callers", profdiff_callers(rows, a, b));
	json_object_set_new(p, "symbols", rows);
	if (b != NULL)
		json_object_set_new(p, "vs_cpu", profdiff_real(cpu_b, 1e6));
	json_decref(ca);
	json_decref(cb);
}

/* One syscalls row: name's calls in a (ca) and b (cb; b absent: none),
 * per request (qa, qb requests), their difference and ratio. */
static json_t *
profdiff_sys_row(const char *name, double ca, double cb, double qa,
    double qb, bool b)
{
	json_t *row = json_pack("{s:s}", "syscall", name);
	double x = qa > 0 ? ca / qa : NAN, y = qb > 0 ? cb / qb : NAN;

	json_object_set_new(row, "calls", json_integer((json_int_t)ca));
	json_object_set_new(row, "per_request", profdiff_real(x, 1e4));
	if (!b)
		return row;
	json_object_set_new(row, "vs_calls", json_integer((json_int_t)cb));
	json_object_set_new(row, "vs_per_request", profdiff_real(y, 1e4));
	if (!isfinite(x) || !isfinite(y)) {
		/* no requests to divide by: raw calls */
		x = ca;
		y = cb;
	}
	json_object_set_new(row, "diff", profdiff_real(x - y, 1e4));
	json_object_set_new(row, "ratio", y > 0 ? profdiff_real(x / y, 1e4) :
	    json_null());
	return row;
}

/* The calls of name in an event's rows (0 when absent). */
static double
profdiff_sys_calls(const json_t *ev, const char *name)
{
	return profdiff_top_find(ev, "syscall", name, "calls");
}

/* The syscalls of a and b (b may be NULL), joined by name: calls, calls
 * per request, their difference and ratio; and the same of every call
 * counted (the events' totals) as "syscalls_total". */
static void
profdiff_sys(json_t *p, const json_t *a, const json_t *b)
{
	json_t *byname = json_object(), *rows = json_array(), *v;
	double qa = profdiff_num(a, "requests"), qb = b != NULL ?
	    profdiff_num(b, "requests") : NAN,
	    ta = profdiff_num(json_object_get(a, "total"), "calls"),
	    tb = b != NULL ? profdiff_num(json_object_get(b, "total"),
	    "calls") : NAN;
	const char *name;
	const json_t *r;
	size_t i;

	for (int side = 0; side < (b != NULL ? 2 : 1); side++)
		json_array_foreach(json_object_get(side ? b : a, "top"), i, r)
			if (profdiff_str(r, "syscall") != NULL &&
			    json_object_get(byname, profdiff_str(r, "syscall")) ==
			    NULL)
				json_object_set_new(byname, profdiff_str(r,
				    "syscall"), json_true());
	json_object_foreach(byname, name, v)
		json_array_append_new(rows, profdiff_sys_row(name,
		    profdiff_sys_calls(a, name), b != NULL ?
		    profdiff_sys_calls(b, name) : 0, qa, qb, b != NULL));
	json_object_set_new(p, "syscalls", profdiff_sort(rows, 0));
	if (!isnan(ta) && (b == NULL || !isnan(tb)))
		json_object_set_new(p, "syscalls_total", profdiff_sys_row(
		    "total", ta, b != NULL ? tb : 0, qa, qb, b != NULL));
	json_decref(byname);
}

/* The comparison arm's profile of the same kind, when it is usable. */
static const json_t *
profdiff_vs(const struct profdiff *d, const json_t *ev, const json_t *cells,
    const char **vs)
{
	const char *cell = profdiff_str(ev, "cell"), *kind = profdiff_str(ev,
	    "kind");
	const json_t *vsev;
	char vid[256];

	*vs = json_string_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(cells, cell), "arms"),
	    profdiff_str(ev, "arm")), "vs"));
	if (*vs == NULL)
		return NULL;
	snprintf(vid, sizeof vid, "%s/%s/%s", cell, *vs, kind);
	vsev = json_object_get(d->byid, vid);
	return vsev;
}

/* One profile's entry of profdiff_json. */
static json_t *
profdiff_one(const struct profdiff *d, const json_t *ev, const json_t *cells)
{
	static const char *const keep[] = { "status", "reason", "event",
		"software_clock", "files", "requests", "total", "contaminated",
		"runs", "samples", "min_samples", "under_min_samples", "attach",
		"detach", "impossible", "unwind", "unwind_fallback",
		"no_caller", "min_runs", "under_min_runs", "order", NULL };
	const char *kind = profdiff_str(ev, "kind"), *vs;
	const json_t *vsev = profdiff_vs(d, ev, cells, &vs);
	bool ok = strcmp(profdiff_str(ev, "status"), "ok") == 0 &&
	    json_object_get(ev, "impossible") == NULL;
	json_t *p = json_object();

	for (int i = 0; keep[i] != NULL; i++)
		if (json_object_get(ev, keep[i]) != NULL)
			json_object_set(p, keep[i], json_object_get(ev, keep[i]));
	if (vsev != NULL && (strcmp(profdiff_str(vsev, "status"), "ok") != 0 ||
	    json_object_get(vsev, "impossible") != NULL)) {
		json_object_set_new(p, "vs_status", json_string(
		    profdiff_str(vsev, "status")));
		json_object_set(p, "vs_reason", json_object_get(vsev, "reason"));
		vsev = NULL;
	}
	json_object_set_new(p, "vs", vsev != NULL && ok ? json_string(vs) :
	    json_null());
	if (vsev != NULL && ok) {
		static const char *const vkeep[] = { "requests", "runs",
			"samples", "under_min_samples", "no_caller", "unwind",
			"under_min_runs", NULL };
		char key[64];

		for (int i = 0; vkeep[i] != NULL; i++)
			if (json_object_get(vsev, vkeep[i]) != NULL) {
				snprintf(key, sizeof key, "vs_%s", vkeep[i]);
				json_object_set(p, key, json_object_get(vsev,
				    vkeep[i]));
			}
	}
	if (!ok)
		json_object_set_new(p, profdiff_perf_kind(kind) ? "symbols" :
		    "syscalls", json_array());
	else if (profdiff_perf_kind(kind))
		profdiff_perf(p, ev, vsev != NULL && ok ? vsev : NULL, cells,
		    kind);
	else
		profdiff_sys(p, ev, vsev != NULL && ok ? vsev : NULL);
	return p;
}

/* Where a cell's A/A arm was profiled beside its original: what moved in
 * that pair (it cannot have: the arms are one) shown beside every other
 * profile of the kind in the cell, and each such symbol marked unstable
 * wherever it appears. */
static void
profdiff_aa(json_t *out, const json_t *cells)
{
	const char *cell, *arm, *kind, *other;
	json_t *c, *a, *p, *oa, *op, *r;
	size_t i;

	json_object_foreach(out, cell, c)
		json_object_foreach(c, arm, a)
			json_object_foreach(a, kind, p) {
		const char *of = json_string_value(json_object_get(
		    json_object_get(json_object_get(json_object_get(cells, cell),
		    "arms"), arm), "aa_of"));
		json_t *moved;

		if (of == NULL || !json_is_string(json_object_get(p, "vs")) ||
		    !profdiff_perf_kind(kind))
			continue;
		moved = json_array();
		json_array_foreach(json_object_get(p, "symbols"), i, r)
			if (json_is_false(json_object_get(r, "noise")) &&
			    json_object_get(r, "kind") == NULL)
				json_array_append_new(moved, json_pack("{s:O,s:O,s:O,"
				    "s:O}", "symbol", json_object_get(r, "symbol"),
				    "object", json_object_get(r, "object"), "diff",
				    json_object_get(r, "diff"), "diff_ci",
				    json_object_get(r, "diff_ci")));
		json_object_foreach(c, other, oa) {
			if ((op = json_object_get(oa, kind)) == NULL)
				continue;
			if (strcmp(other, arm) != 0)
				json_object_set_new(op, "aa", json_pack("{s:s,s:s,"
				    "s:O}", "arm", arm, "vs", of, "moved", moved));
			json_array_foreach(json_object_get(op, "symbols"), i, r) {
				const json_t *m;
				size_t j;

				json_array_foreach(moved, j, m)
					if (strcmp(profdiff_str(m, "symbol"),
					    profdiff_str(r, "symbol")) == 0 &&
					    strcmp(profdiff_str(m, "object"),
					    profdiff_str(r, "object")) == 0)
						json_object_set_new(r, "unstable",
						    json_true());
			}
		}
		json_decref(moved);
	}
}

json_t *
profdiff_json(const struct profdiff *d, const json_t *cells)
{
	json_t *out = json_object(), *ev;
	const char *id;

	if (d == NULL)
		return out;
	/* O(profiles), a handful per cell. */
	json_object_foreach(d->byid, id, ev) {
		const char *cell = profdiff_str(ev, "cell"), *arm = profdiff_str(ev,
		    "arm");
		json_t *c, *a;

		if ((c = json_object_get(out, cell)) == NULL)
			json_object_set_new(out, cell, c = json_object());
		if ((a = json_object_get(c, arm)) == NULL)
			json_object_set_new(c, arm, a = json_object());
		json_object_set_new(a, profdiff_str(ev, "kind"), profdiff_one(d,
		    ev, cells));
	}
	profdiff_aa(out, cells);
	return out;
}
