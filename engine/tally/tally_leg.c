/* Tally: what a leg line means (see tally_int.h).
 *
 * A leg line reaches the tally as a struct tally_legrec, filled either
 * from a json_t (tally_rec_from_json: the live round, replay, resume) or
 * straight from the line's text (tally_line.c: report).  Everything that
 * gives the fields a meaning is here, once: the status rule, which
 * metrics a line names, where each value comes from, and what is not a
 * value a leg can have. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tally_int.h"
#include "xalloc.h"

/* A server block's metrics are server_cpu and server_CTR per counter. */
#define TALLY_SERVER_PREFIX "server_"
#define TALLY_BYTES "bytes"

double
tally_num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

void
tally_kv_add(struct tally_kvlist *l, const char *name, double val)
{
	if (l->n == l->cap) {
		l->cap = xgrow(l->cap, l->n + 1, 8);
		l->v = xreallocarray(l->v, l->cap, sizeof *l->v);
	}
	l->v[l->n].name = name;
	l->v[l->n].val = val;
	l->n++;
}

/* The value of name in l, NAN when absent.  A line that repeats a name
 * (which jansson reads as its last value) has it twice in the list: the
 * last one is the one. */
static double
tally_kv_get(const struct tally_kvlist *l, const char *name)
{
	for (size_t i = l->n; i-- > 0;)
		if (strcmp(l->v[i].name, name) == 0)
			return l->v[i].val;
	return NAN;
}

static void
tally_kv_clear(struct tally_kvlist *l)
{
	l->n = 0;
	l->present = false;
}

void
tally_rec_clear(struct tally_legrec *r)
{
	struct tally_kvlist ctr = r->ctr, sctr = r->server_ctr, mets = r->mets;

	memset(r, 0, sizeof *r);
	r->rep = r->foreign = r->threshold = r->max_foreign_cores = NAN;
	r->wait_s = r->client_busy = r->server_busy = NAN;
	r->utime = r->stime = r->server_cpu = r->bytes = NAN;
	for (size_t m = 0; m < M_FIXED; m++)
		r->fixed[m] = NAN;
	r->ctr = ctr;
	r->server_ctr = sctr;
	r->mets = mets;
	tally_kv_clear(&r->ctr);
	tally_kv_clear(&r->server_ctr);
	tally_kv_clear(&r->mets);
}

enum tally_leg_status
tally_rec_status(const struct tally_legrec *r)
{
	if (r->status != NULL) {
		if (strcmp(r->status, "ok") == 0)
			return TALLY_LEG_OK;
		if (strcmp(r->status, "timed_out") == 0)
			return TALLY_LEG_TIMED_OUT;
		if (strcmp(r->status, "aborted") == 0)
			return TALLY_LEG_ABORTED;
		return TALLY_LEG_FAILED;
	}
	if (r->timed_out)
		return TALLY_LEG_TIMED_OUT;
	if (r->rc_kind == TALLY_RC_INT)
		return r->rc == 0 ? TALLY_LEG_OK : TALLY_LEG_FAILED;
	/* No rc at all: only a signal says it failed. */
	if (r->signalled)
		return TALLY_LEG_FAILED;
	return r->rc_kind == TALLY_RC_ABSENT ? TALLY_LEG_OK : TALLY_LEG_FAILED;
}

static const char *const tally_gate_names[] = {
	[TALLY_GATE_NONE] = "", [TALLY_GATE_QUIET] = "quiet",
	[TALLY_GATE_WAIVED] = "waived", [TALLY_GATE_TIMEOUT] = "timeout",
	[TALLY_GATE_BUDGET] = "budget",
};

const char *
tally_gate_name(enum tally_gate g)
{
	return (size_t)g < sizeof tally_gate_names / sizeof tally_gate_names[0] ?
	    tally_gate_names[g] : "";
}

enum tally_gate
tally_rec_gate(const struct tally_legrec *r)
{
	if (r->gate != NULL) {
		for (size_t g = TALLY_GATE_QUIET; g < sizeof tally_gate_names /
		    sizeof tally_gate_names[0]; g++)
			if (strcmp(r->gate, tally_gate_names[g]) == 0)
				return (enum tally_gate)g;
		return TALLY_GATE_NONE;
	}
	if (r->quiet_override)
		return TALLY_GATE_WAIVED;
	if (r->quiet_timeout)
		return TALLY_GATE_TIMEOUT;
	return TALLY_GATE_NONE;
}

/* The gate rule's inputs from a json_t. */
static void
tally_rec_gate_json(struct tally_legrec *r, const json_t *ev)
{
	r->gate = json_string_value(json_object_get(ev, "gate"));
	r->quiet_timeout = json_is_true(json_object_get(ev, "quiet_timeout"));
	r->quiet_override = json_is_true(json_object_get(ev,
	    "quiet_override"));
}

enum tally_gate
tally_leg_gate(const json_t *ev)
{
	struct tally_legrec r;

	if (!json_is_object(ev))
		return TALLY_GATE_NONE;
	memset(&r, 0, sizeof r);
	tally_rec_gate_json(&r, ev);
	return tally_rec_gate(&r);
}

/* The status rule's inputs from a json_t. */
static void
tally_rec_status_json(struct tally_legrec *r, const json_t *ev)
{
	const json_t *rc = json_object_get(ev, "rc");
	const json_t *sig = json_object_get(ev, "signal");

	r->status = json_string_value(json_object_get(ev, "status"));
	r->timed_out = json_is_true(json_object_get(ev, "timed_out"));
	r->rc_kind = rc == NULL ? TALLY_RC_ABSENT : json_is_integer(rc) ?
	    TALLY_RC_INT : TALLY_RC_OTHER;
	r->rc = json_integer_value(rc);
	r->signalled = (json_is_integer(sig) && json_integer_value(sig) != 0) ||
	    json_is_string(sig);
}

enum tally_leg_status
tally_leg_status(const json_t *ev)
{
	struct tally_legrec r;

	if (!json_is_object(ev))
		return TALLY_LEG_NONE;
	memset(&r, 0, sizeof r);
	tally_rec_status_json(&r, ev);
	return tally_rec_status(&r);
}

static void
tally_kv_json(struct tally_kvlist *l, const json_t *o)
{
	const char *key;
	json_t *val;

	tally_kv_clear(l);
	l->present = json_is_object(o);
	if (l->present)
		json_object_foreach((json_t *)o, key, val)
			tally_kv_add(l, key, tally_num(val));
}

void
tally_rec_from_json(const struct tally *t, struct tally_legrec *r,
    const json_t *ev)
{
	const json_t *mux = json_object_get(ev, "multiplexed");
	const json_t *srv = json_object_get(ev, "server");

	tally_rec_clear(r);
	r->cell = json_string_value(json_object_get(ev, "cell"));
	r->arm = json_string_value(json_object_get(ev, "arm"));
	r->rep = tally_num(json_object_get(ev, "rep"));
	r->host = json_string_value(json_object_get(ev, "host"));
	tally_rec_status_json(r, ev);
	r->multiplexed = json_is_true(mux) ||
	    (json_is_array(mux) && json_array_size(mux) > 0);
	r->foreign = tally_num(json_object_get(ev, "foreign"));
	r->threshold = tally_num(json_object_get(ev, "threshold"));
	r->max_foreign_cores = tally_num(json_object_get(ev,
	    "max_foreign_cores"));
	tally_rec_gate_json(r, ev);
	r->wait_s = tally_num(json_object_get(ev, "wait_s"));
	r->client_busy = tally_num(json_object_get(ev, "client_busy"));
	r->server_busy = tally_num(json_object_get(ev, "server_busy"));
	for (size_t m = 0; m < M_FIXED; m++) {
		const json_t *x = json_object_get(ev, t->metrics[m]);

		r->fixed[m] = tally_num(x);
		if (x != NULL && !json_is_number(x) && !json_is_null(x))
			r->badtype[m] = json_is_string(x) ? "a string" :
			    json_is_boolean(x) ? "a boolean" : json_is_array(x) ?
			    "an array" : "an object";
	}
	r->utime = tally_num(json_object_get(ev, "utime"));
	r->stime = tally_num(json_object_get(ev, "stime"));
	r->bytes = tally_num(json_object_get(ev, "bytes"));
	r->server = json_is_object(srv);
	r->server_cpu = tally_num(json_object_get(srv, "cpu"));
	tally_kv_json(&r->ctr, json_object_get(ev, "counters"));
	tally_kv_json(&r->server_ctr, json_object_get(srv, "counters"));
	tally_kv_json(&r->mets, json_object_get(ev, "metrics"));
}

void
tally_feed_leg(struct tally *t, const json_t *ev)
{
	tally_rec_from_json(t, &t->rec, ev);
	tally_feed_rec(t, &t->rec);
}

/* Whether l[i] is the first entry of its name. */
static bool
tally_kv_first(const struct tally_kvlist *l, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (strcmp(l->v[j].name, l->v[i].name) == 0)
			return false;
	return true;
}

/* The same list as tally_rec_metrics and tally_kv_get read it: the names
 * in the order they first appear, each with its last value (bit for bit).
 * A repeated name is in the scanner's list twice, in jansson's once. */
static bool
tally_kv_same(const struct tally_kvlist *a, const struct tally_kvlist *b)
{
	size_t i = 0, j = 0;

	if (a->present != b->present)
		return false;
	for (;; i++, j++) {
		double x, y;

		while (i < a->n && !tally_kv_first(a, i))
			i++;
		while (j < b->n && !tally_kv_first(b, j))
			j++;
		if (i == a->n || j == b->n)
			return i == a->n && j == b->n;
		if (strcmp(a->v[i].name, b->v[j].name) != 0)
			return false;
		x = tally_kv_get(a, a->v[i].name);
		y = tally_kv_get(b, b->v[j].name);
		if (memcmp(&x, &y, sizeof x) != 0)
			return false;
	}
}

static bool
tally_str_same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

const char *
tally_rec_diff(const struct tally_legrec *a, const struct tally_legrec *b)
{
	/* Doubles by their bits: -0.0 is not 0.0, and NAN is NAN. */
#define TALLY_SAME(f) (memcmp(&a->f, &b->f, sizeof a->f) == 0)
#define TALLY_DIFF(same, f) do { if (!(same)) return #f; } while (0)
	TALLY_DIFF(tally_str_same(a->cell, b->cell), cell);
	TALLY_DIFF(tally_str_same(a->arm, b->arm), arm);
	TALLY_DIFF(tally_str_same(a->status, b->status), status);
	TALLY_DIFF(TALLY_SAME(rep), rep);
	TALLY_DIFF(tally_str_same(a->host, b->host), host);
	TALLY_DIFF(a->timed_out == b->timed_out, timed_out);
	TALLY_DIFF(a->rc_kind == b->rc_kind && a->rc == b->rc, rc);
	TALLY_DIFF(a->signalled == b->signalled, signalled);
	TALLY_DIFF(a->multiplexed == b->multiplexed, multiplexed);
	TALLY_DIFF(TALLY_SAME(foreign), foreign);
	TALLY_DIFF(TALLY_SAME(threshold), threshold);
	TALLY_DIFF(TALLY_SAME(max_foreign_cores), max_foreign_cores);
	TALLY_DIFF(tally_str_same(a->gate, b->gate), gate);
	TALLY_DIFF(a->quiet_timeout == b->quiet_timeout, quiet_timeout);
	TALLY_DIFF(a->quiet_override == b->quiet_override, quiet_override);
	TALLY_DIFF(TALLY_SAME(wait_s), wait_s);
	TALLY_DIFF(TALLY_SAME(client_busy), client_busy);
	TALLY_DIFF(TALLY_SAME(server_busy), server_busy);
	TALLY_DIFF(TALLY_SAME(fixed), fixed);
	TALLY_DIFF(TALLY_SAME(utime), utime);
	TALLY_DIFF(TALLY_SAME(stime), stime);
	TALLY_DIFF(TALLY_SAME(bytes), bytes);
	TALLY_DIFF(a->server == b->server, server);
	TALLY_DIFF(TALLY_SAME(server_cpu), server_cpu);
	TALLY_DIFF(tally_kv_same(&a->ctr, &b->ctr), ctr);
	TALLY_DIFF(tally_kv_same(&a->server_ctr, &b->server_ctr), server_ctr);
	TALLY_DIFF(tally_kv_same(&a->mets, &b->mets), mets);
	return NULL;
#undef TALLY_SAME
#undef TALLY_DIFF
}

/* A float for the per-leg warning fields; NAN for what a float cannot hold
 * (converting it would be undefined behaviour). */
static float
tally_f32(double x)
{
	return isfinite(x) && fabs(x) < 1e30 ? (float)x : NAN;
}

/* Whether x can be metric m of a leg: finite, not negative, not a
 * subnormal (no clock, counter or byte count yields one: 5e-324 is a
 * forged line), and for the seconds (wall, cpu) under a year, a wall of
 * at least a nanosecond (the clock's unit).  Anything else is a broken or
 * forged line, left out of every figure (never used in the medians but
 * not the ratios, or the other way round): a wall of 5e-324 would make
 * every ratio against it infinite. */
static bool
tally_plausible(size_t m, double x)
{
	if (!isfinite(x) || x < 0 || (x != 0 && x < DBL_MIN))
		return false;
	if (m == M_WALL || m == M_CPU)
		return x < 3.2e7 && (m != M_WALL || x >= 1e-9);
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
	return xstrdup(buf);
}

/* Register the metric names the line carries: counters first, then the
 * server's (server_cpu, server_CTR; SPEC.md "Server rounds"), bytes when
 * the leg left any, and the leg's own metrics. */
static void
tally_rec_metrics(struct tally *t, const struct tally_legrec *r)
{
	char name[128];

	for (size_t i = 0; i < r->ctr.n; i++)
		if (t->nmetrics < TALLY_MAX_METRICS)
			(void)tally_metric(t, r->ctr.v[i].name);
	if (r->server && t->nmetrics < TALLY_MAX_METRICS)
		(void)tally_metric(t, TALLY_SERVER_PREFIX "cpu");
	for (size_t i = 0; i < r->server_ctr.n; i++) {
		snprintf(name, sizeof name, TALLY_SERVER_PREFIX "%s",
		    r->server_ctr.v[i].name);
		if (t->nmetrics < TALLY_MAX_METRICS)
			(void)tally_metric(t, name);
	}
	if (r->bytes > 0 && t->nmetrics < TALLY_MAX_METRICS)
		(void)tally_metric(t, TALLY_BYTES);
	for (size_t i = 0; i < r->mets.n; i++)
		if (t->nmetrics < TALLY_MAX_METRICS)
			(void)tally_metric(t, r->mets.v[i].name);
}

/* Metric m (named name) of the line: a fixed one from its top-level field,
 * else the counter of that name; past the fixed ones, then the leg's own
 * metric, then the server block's server_cpu / server_CTR. */
static double
tally_rec_value(const struct tally_legrec *r, size_t m, const char *name)
{
	const size_t plen = strlen(TALLY_SERVER_PREFIX);
	double x = m < M_FIXED ? r->fixed[m] : NAN;

	if (isnan(x))
		x = tally_kv_get(&r->ctr, name);
	if (!isnan(x) || m < M_FIXED)
		return x;
	/* The leg line's own bytes, when it left any, before a metrics
	 * file's bytes (what a load received). */
	if (r->bytes > 0 && strcmp(name, TALLY_BYTES) == 0)
		return r->bytes;
	x = tally_kv_get(&r->mets, name);
	if (!isnan(x) || !r->server || strncmp(name, TALLY_SERVER_PREFIX,
	    plen) != 0)
		return x;
	name += plen;
	if (strcmp(name, "cpu") == 0)
		return r->server_cpu;
	return tally_kv_get(&r->server_ctr, name);
}

/* The line's values into v (room for t->nmetrics), leaving out (NAN) and
 * naming in the warnings what no leg can have. */
static void
tally_rec_values(struct tally *t, const struct tally_legrec *r, double *v,
    size_t rep)
{
	for (size_t m = 0; m < t->nmetrics; m++)
		v[m] = tally_rec_value(r, m, t->metrics[m]);
	if (isnan(v[M_CPU]))
		v[M_CPU] = r->utime + r->stime;
	for (size_t m = 0; m < t->nmetrics; m++)
		if (!isnan(v[m]) && !tally_plausible(m, v[m])) {
			if (t->nimplausible < TALLY_WARN_CAP)
				t->implausible[t->nimplausible] = tally_name_leg(
				    r->cell, r->arm, rep, t->metrics[m], v[m]);
			t->nimplausible++;
			v[m] = NAN;
		}
	/* A field of the wrong type is left out as loudly. */
	for (size_t m = 0; m < M_FIXED; m++)
		if (r->badtype[m] != NULL) {
			if (t->nimplausible < TALLY_WARN_CAP)
				t->implausible[t->nimplausible] = xasprintf(
				    "%.60s %.60s rep %zu: %s (%s, not a number)",
				    r->cell, r->arm, rep, t->metrics[m],
				    r->badtype[m]);
			t->nimplausible++;
		}
}

/* The record of rep r in a, grown (zeroed) as needed. */
static struct tleg *
tally_leg_slot(struct tarm *a, size_t r)
{
	if (r >= a->nlegs) {
		size_t n = xgrow(a->nlegs, r + 1, 8);

		a->legs = xreallocarray(a->legs, n, sizeof *a->legs);
		memset(a->legs + a->nlegs, 0, (n - a->nlegs) * sizeof *a->legs);
		a->nlegs = n;
	}
	return &a->legs[r];
}

/* Room for n more values at the end of a's. */
static double *
tally_vals_slot(struct tarm *a, size_t n)
{
	double *v;

	if (a->nvals + n > a->capvals) {
		a->capvals = xgrow(a->capvals, a->nvals + n, 64);
		a->vals = xreallocarray(a->vals, a->capvals, sizeof *a->vals);
	}
	v = a->vals + a->nvals;
	a->nvals += n;
	return v;
}

/* The host's number in the tally (1 + its index; 0 for a line without
 * one), a new host added: a change of shape, since every multi-host
 * piece lists the round's hosts.  -1 past TALLY_MAX_HOSTS. */
static int
tally_host_index(struct tally *t, const char *host)
{
	if (host == NULL)
		return 0;
	for (size_t i = 0; i < t->nhosts; i++)
		if (strcmp(t->hosts[i], host) == 0)
			return (int)i + 1;
	if (t->nhosts == TALLY_MAX_HOSTS)
		return -1;
	t->hosts = xreallocarray(t->hosts, t->nhosts + 1, sizeof *t->hosts);
	t->hosts[t->nhosts++] = xstrdup(host);
	tally_reshape(t);
	return (int)t->nhosts;
}

/* Record leg r's host h in a: the host array made at the first leg
 * with a host, and grown as legs is (old: nlegs before it grew). */
static void
tally_host_set(struct tarm *a, size_t old, size_t r, int h)
{
	if (a->host == NULL) {
		if (h == 0)
			return;
		a->host = xcalloc(a->nlegs, sizeof *a->host);
	} else if (old < a->nlegs) {
		a->host = xreallocarray(a->host, a->nlegs, sizeof *a->host);
		memset(a->host + old, 0, (a->nlegs - old) * sizeof *a->host);
	}
	a->host[r] = (uint16_t)h;
}

/* The cell and arm a line names, or NULL (counted, and named in the
 * warnings) when the spec has neither. */
static struct tarm *
tally_rec_arm(struct tally *t, const struct tally_legrec *r, size_t rep,
    struct tcell **cp)
{
	struct tcell *c;
	struct tarm *a = NULL;

	if ((c = tally_cell(t, r->cell, !t->have_spec)) != NULL)
		a = tally_arm(t, c, r->arm, !t->have_spec);
	if (a == NULL) {
		if (t->ignored < TALLY_WARN_CAP)
			t->ignored_names[t->ignored] = tally_name_leg(r->cell,
			    r->arm, rep, NULL, NAN);
		t->ignored++;
	}
	*cp = c;
	return a;
}

void
tally_feed_rec(struct tally *t, const struct tally_legrec *r)
{
	struct tcell *c;
	struct tarm *a;
	struct tleg *l;
	double *v, thr;
	int status, host;
	size_t rep, old;

	if (r->cell == NULL || r->arm == NULL || isnan(r->rep) || r->rep < 0 ||
	    r->rep > TALLY_MAX_REP || r->rep != floor(r->rep)) {
		t->unusable++;
		return;
	}
	rep = (size_t)r->rep;
	/* The gate waited before every leg that ran, aborted or not. */
	if (isfinite(r->wait_s) && r->wait_s > 0)
		t->gate_wait_s += r->wait_s;
	if (isfinite(r->fixed[M_WALL]) && r->fixed[M_WALL] > 0)
		t->gate_legs_s += r->fixed[M_WALL];
	if ((host = tally_host_index(t, r->host)) < 0) {
		t->unusable++;
		return;
	}
	if ((a = tally_rec_arm(t, r, rep, &c)) == NULL)
		return;
	if ((status = tally_rec_status(r)) == TALLY_LEG_ABORTED) {
		c->aborted_seen++;
		c->ver = ++t->clock;
		return;
	}
	tally_rec_metrics(t, r);
	/* The values' offsets are 32-bit to keep a leg at 16 bytes. */
	if (a->nvals + t->nmetrics > UINT32_MAX) {
		t->unusable++;
		return;
	}
	old = a->nlegs;
	l = tally_leg_slot(a, rep);
	tally_host_set(a, old, rep, host);
	a->ver = ++t->clock;
	a->change_ver[a->nchanges % TALLY_RECENT] = a->ver;
	a->change_rep[a->nchanges % TALLY_RECENT] = (uint32_t)rep;
	a->nchanges++;
	if (l->status != LEG_NONE)
		l->flags |= TLEG_DUP;
	l->flags &= TLEG_DUP;
	l->status = (uint8_t)status;
	if (r->multiplexed)
		l->flags |= TLEG_MULTIPLEXED;
	l->flags |= (uint8_t)((unsigned)tally_rec_gate(r) << TLEG_GATE_SHIFT);
	if (r->client_busy > t->max_client_busy ||
	    r->server_busy > t->max_server_busy)
		l->flags |= TLEG_PINNED_BUSY;
	l->foreign = tally_f32(r->foreign);
	thr = isnan(r->threshold) ? r->max_foreign_cores : r->threshold;
	l->threshold = tally_f32(isnan(thr) ? t->quiet_threshold : thr);
	v = tally_vals_slot(a, t->nmetrics);
	l->off = (uint32_t)(v - a->vals);
	l->nvals = (uint16_t)t->nmetrics;
	tally_rec_values(t, r, v, rep);
}
