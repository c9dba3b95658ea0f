/* Profiles side by side: each profiled arm against its comparison arm. */
#include "profdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

struct profdiff {
	json_t *byid;   /* "CELL/ARM/KIND" -> the profile event (names hold
	                 * no '/') */
};

struct profdiff *
profdiff_create(void)
{
	struct profdiff *d = xcalloc(1, sizeof *d);

	d->byid = json_object();
	return d;
}

void
profdiff_destroy(struct profdiff *d)
{
	if (d == NULL)
		return;
	json_decref(d->byid);
	free(d);
}

static const char *
profdiff_str(const json_t *ev, const char *key)
{
	return json_string_value(json_object_get(ev, key));
}

void
profdiff_feed(struct profdiff *d, const json_t *ev)
{
	const char *cell = profdiff_str(ev, "cell"), *arm = profdiff_str(ev,
	    "arm"), *kind = profdiff_str(ev, "kind"),
	    *status = profdiff_str(ev, "status");
	char id[256];

	if (d == NULL || cell == NULL || arm == NULL || kind == NULL ||
	    status == NULL || strcmp(status, "aborted") == 0)
		return;
	snprintf(id, sizeof id, "%s/%s/%s", cell, arm, kind);
	json_object_set(d->byid, id, (json_t *)ev);
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

static double
profdiff_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static json_t *
profdiff_real(double x)
{
	return isfinite(x) ? json_real(round(x * 1000.0) / 1000.0) :
	    json_null();
}

/* Largest |diff| first; then by name, so the order is stable. */
static int
profdiff_cmp(const void *pa, const void *pb)
{
	const json_t *a = *(json_t *const *)pa, *b = *(json_t *const *)pb;
	double da = fabs(profdiff_num(a, "diff")), db = fabs(profdiff_num(b,
	    "diff"));

	/* compared with nothing: the largest share (or calls) first */
	if (isnan(da) && isnan(db)) {
		da = profdiff_num(a, "share");
		db = profdiff_num(b, "share");
		if (isnan(da) && isnan(db)) {
			da = profdiff_num(a, "calls");
			db = profdiff_num(b, "calls");
		}
	}
	const char *na = json_string_value(json_object_get(a, "name")),
	    *nb = json_string_value(json_object_get(b, "name"));

	if (isnan(da))
		da = -1;
	if (isnan(db))
		db = -1;
	if (da != db)
		return da < db ? 1 : -1;
	return strcmp(na != NULL ? na : "", nb != NULL ? nb : "");
}

/* a's top and b's top (b may be NULL) by their key: NAME -> {a: row or
 * null, b: row or null}, the first row of each name. */
static json_t *
profdiff_byname(const json_t *a, const json_t *b, const char *key)
{
	const json_t *ta = json_object_get(a, "top"),
	    *tb = b != NULL ? json_object_get(b, "top") : NULL;
	json_t *byname = json_object(), *v, *e;
	size_t i;

	json_array_foreach(ta, i, v) {
		const char *k = json_string_value(json_object_get(v, key));

		if (k != NULL && json_object_get(byname, k) == NULL)
			json_object_set_new(byname, k, json_pack("{s:O,s:n}",
			    "a", v, "b"));
	}
	json_array_foreach(tb, i, v) {
		const char *k = json_string_value(json_object_get(v, key));

		if (k == NULL)
			continue;
		if ((e = json_object_get(byname, k)) == NULL)
			json_object_set_new(byname, k, json_pack("{s:n,s:O}",
			    "a", "b", v));
		else if (json_is_null(json_object_get(e, "b")))
			json_object_set(e, "b", v);
	}
	return byname;
}

/* One joined row of a perf profile: the shares and their difference. */
static void
profdiff_row_perf(json_t *row, const json_t *ra, const json_t *rb,
    bool has_b)
{
	/* Not in a top list: below its last share, read as 0. */
	double x = json_is_null(ra) ? 0 : profdiff_num(ra, "share"),
	    y = json_is_null(rb) ? 0 : profdiff_num(rb, "share");

	json_object_set_new(row, "share", profdiff_real(x));
	json_object_set_new(row, "vs_share", has_b ? profdiff_real(y) :
	    json_null());
	json_object_set_new(row, "diff", has_b ? profdiff_real(x - y) :
	    json_null());
}

/* One joined row of a syscalls profile: calls, calls per request (of
 * a's and b's events) and their difference. */
static void
profdiff_row_sys(json_t *row, const json_t *ra, const json_t *rb,
    const json_t *a, const json_t *b)
{
	double ca = json_is_null(ra) ? 0 : profdiff_num(ra, "calls"),
	    cb = json_is_null(rb) ? 0 : profdiff_num(rb, "calls"),
	    ra_n = profdiff_num(a, "requests"),
	    rb_n = b != NULL ? profdiff_num(b, "requests") : NAN,
	    x = ra_n > 0 ? ca / ra_n : NAN, y = rb_n > 0 ? cb / rb_n : NAN;

	json_object_set_new(row, "calls", json_integer((json_int_t)ca));
	json_object_set_new(row, "per_request", profdiff_real(x));
	json_object_set_new(row, "vs_calls", b != NULL ?
	    json_integer((json_int_t)cb) : json_null());
	json_object_set_new(row, "vs_per_request", profdiff_real(y));
	if (!isfinite(x) || !isfinite(y)) {
		/* no requests to divide by: raw calls */
		x = ca;
		y = cb;
	}
	json_object_set_new(row, "diff", b != NULL ? profdiff_real(x - y) :
	    json_null());
}

/* The rows of a's top and b's top (b may be NULL), joined on key. */
static json_t *
profdiff_join(const json_t *a, const json_t *b, const char *key,
    bool perf)
{
	json_t *byname = profdiff_byname(a, b, key), *rows = json_array(), *v;
	json_t **sorted = xcalloc(json_object_size(byname) + 1,
	    sizeof *sorted);
	const char *name;
	size_t i, n = 0;

	json_object_foreach(byname, name, v) {
		const json_t *ra = json_object_get(v, "a"),
		    *rb = json_object_get(v, "b");
		json_t *row = json_object();

		json_object_set_new(row, "name", json_string(name));
		if (perf)
			profdiff_row_perf(row, ra, rb, b != NULL);
		else
			profdiff_row_sys(row, ra, rb, a, b);
		sorted[n++] = row;
	}
	qsort(sorted, n, sizeof *sorted, profdiff_cmp);
	for (i = 0; i < n; i++) {
		json_t *nm = json_object_get(sorted[i], "name");

		/* "name" was the join key: give it its own field name back */
		json_object_set(sorted[i], perf ? "symbol" : "syscall", nm);
		json_object_del(sorted[i], "name");
		json_array_append_new(rows, sorted[i]);
	}
	free(sorted);
	json_decref(byname);
	return rows;
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
		    "arm"), *kind = profdiff_str(ev, "kind"), *vs;
		const json_t *vsev = NULL;
		bool perf = strcmp(kind, "perf") == 0, ok;
		json_t *c, *a, *p;
		char vid[256];
		static const char *const keep[] = { "status", "reason", "event",
			"software_clock", "files", "requests", "total",
			"contaminated", NULL };

		vs = json_string_value(json_object_get(json_object_get(
		    json_object_get(json_object_get(cells, cell), "arms"), arm),
		    "vs"));
		ok = strcmp(profdiff_str(ev, "status"), "ok") == 0;
		if (vs != NULL) {
			snprintf(vid, sizeof vid, "%s/%s/%s", cell, vs, kind);
			vsev = json_object_get(d->byid, vid);
			if (vsev != NULL && strcmp(profdiff_str(vsev, "status"),
			    "ok") != 0)
				vsev = NULL;
		}
		if ((c = json_object_get(out, cell)) == NULL)
			json_object_set_new(out, cell, c = json_object());
		if ((a = json_object_get(c, arm)) == NULL)
			json_object_set_new(c, arm, a = json_object());
		p = json_object();
		for (int i = 0; keep[i] != NULL; i++)
			if (json_object_get(ev, keep[i]) != NULL)
				json_object_set(p, keep[i],
				    json_object_get(ev, keep[i]));
		json_object_set_new(p, "vs", vsev != NULL && ok ?
		    json_string(vs) : json_null());
		if (vsev != NULL && json_object_get(vsev, "requests") != NULL)
			json_object_set(p, "vs_requests",
			    json_object_get(vsev, "requests"));
		json_object_set_new(p, perf ? "symbols" : "syscalls", ok ?
		    profdiff_join(ev, vsev, perf ? "symbol" : "syscall", perf) :
		    json_array());
		json_object_set_new(a, kind, p);
	}
	(void)id;
	return out;
}

/* Signed points, or the empty cell. */
static const char *
profdiff_fmt(char *buf, size_t len, const json_t *v, bool sign)
{
	if (!json_is_number(v))
		return "";
	snprintf(buf, len, sign ? "%+.1f" : "%.1f", json_number_value(v));
	return buf;
}

static const char *
profdiff_fmt2(char *buf, size_t len, const json_t *v)
{
	if (!json_is_number(v))
		return "";
	snprintf(buf, len, "%.2f", json_number_value(v));
	return buf;
}

/* A profile's heading line: whose, against whom, and what to know before
 * reading its rows.  false when the profile failed (the line says why). */
static bool
profdiff_print_head(const char *cell, const char *arm, const char *kind,
    const json_t *p, bool md, FILE *out)
{
	const char *vs = json_string_value(json_object_get(p, "vs")),
	    *status = json_string_value(json_object_get(p, "status")),
	    *event = json_string_value(json_object_get(p, "event"));

	fprintf(out, md ? "\n**%s** %s %s%s%s" : "\n  %s  %s  %s%s%s", cell,
	    kind, arm, vs != NULL ? " vs " : "", vs != NULL ? vs : "");
	if (status != NULL && strcmp(status, "ok") != 0) {
		const char *why = json_string_value(json_object_get(p,
		    "reason"));

		fprintf(out, ": %s%s%s\n", status, why ? " -- " : "",
		    why ? why : "");
		return false;
	}
	if (event != NULL)
		fprintf(out, " (sampled %s%s)", event,
		    json_is_true(json_object_get(p, "software_clock")) ?
		    ", the software clock: no hardware PMU" : "");
	if (json_is_true(json_object_get(p, "contaminated")))
		fprintf(out, " CONTAMINATED: the server's processes changed "
		    "during the trace");
	if (strcmp(kind, "perf") != 0 &&
	    !json_is_number(json_object_get(p, "requests")))
		fprintf(out, " (the leg reported no metrics.requests: raw "
		    "calls)");
	fputc('\n', out);
	return true;
}

/* A row's three figures: shares in points for perf, calls per request
 * (raw calls without requests) for syscalls. */
static void
profdiff_print_row(const json_t *r, bool perf, bool md, FILE *out)
{
	const char *name = json_string_value(json_object_get(r,
	    perf ? "symbol" : "syscall")), *x, *y, *dd;
	char b1[32], b2[32], b3[32];

	if (perf) {
		x = profdiff_fmt(b1, sizeof b1, json_object_get(r, "share"),
		    false);
		y = profdiff_fmt(b2, sizeof b2, json_object_get(r, "vs_share"),
		    false);
		dd = profdiff_fmt(b3, sizeof b3, json_object_get(r, "diff"),
		    true);
	} else {
		const json_t *pr = json_object_get(r, "per_request");

		x = json_is_number(pr) ? profdiff_fmt2(b1, sizeof b1, pr) :
		    profdiff_fmt2(b1, sizeof b1, json_object_get(r, "calls"));
		pr = json_object_get(r, "vs_per_request");
		y = json_is_number(pr) ? profdiff_fmt2(b2, sizeof b2, pr) :
		    profdiff_fmt2(b2, sizeof b2, json_object_get(r,
		    "vs_calls"));
		dd = json_is_number(json_object_get(r, "diff")) ?
		    (snprintf(b3, sizeof b3, "%+.3f", json_number_value(
		    json_object_get(r, "diff"))), b3) : "";
	}
	if (md)
		fprintf(out, "| `%s` | %s | %s | %s |\n", name ? name : "?", x,
		    y, dd);
	else
		fprintf(out, "    %-40.40s %10s %10s %8s\n", name ? name : "?",
		    x, y, dd);
}

static void
profdiff_print_one(const char *cell, const char *arm, const char *kind,
    const json_t *p, bool md, size_t limit, FILE *out)
{
	const char *vs = json_string_value(json_object_get(p, "vs"));
	bool perf = strcmp(kind, "perf") == 0;
	const json_t *rows = json_object_get(p, perf ? "symbols" : "syscalls"),
	    *r;
	size_t i;

	if (!profdiff_print_head(cell, arm, kind, p, md, out))
		return;
	if (md) {
		fprintf(out, "\n| %s | %s | %s | diff |\n|---|---:|---:|---:|\n",
		    perf ? "symbol" : "syscall", perf ? arm : "calls/req",
		    vs != NULL ? vs : "-");
	} else {
		fprintf(out, "    %-40s %10s %10s %8s\n", perf ? "symbol" :
		    "syscall", perf ? "share%" : "per req", vs != NULL ?
		    (perf ? "vs share%" : "vs per req") : "", vs != NULL ?
		    "diff" : "");
	}
	json_array_foreach(rows, i, r) {
		if (limit > 0 && i >= limit)
			break;
		profdiff_print_row(r, perf, md, out);
	}
}

void
profdiff_print(const json_t *profiles, bool md, size_t limit, FILE *out)
{
	const char *cell, *arm, *kind;
	const json_t *c, *a, *p;

	if (json_object_size(profiles) == 0)
		return;
	fprintf(out, md ? "\n### Profiles\n" : "\nprofiles (not in the "
	    "ratios; shares in %% of samples, diff in points)\n");
	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p)
				profdiff_print_one(cell, arm, kind, p, md, limit,
				    out);
}
