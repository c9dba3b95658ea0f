/* model: the reducer from events to what the console shows.  No curses, no
 * I/O: the same events always build the same model. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "event.h"
#include "model.h"
#include "model_int.h"
#include "spec.h"
#include "stats.h"
#include "tally.h"
#include "xalloc.h"

void
model_copy_name(char dst[MODEL_NAME], const char *src)
{
	snprintf(dst, MODEL_NAME, "%s", src ? src : "");
}

const char *
model_get_str(const json_t *ev, const char *key)
{
	const json_t *v = json_object_get(ev, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* A number, or NAN when missing or null. */
double
model_get_num(const json_t *ev, const char *key)
{
	const json_t *v = json_object_get(ev, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

int
model_get_int(const json_t *ev, const char *key, int dflt)
{
	const json_t *v = json_object_get(ev, key);
	double d = json_is_real(v) ? json_real_value(v) : 0;

	/* Out of int's range is dflt: converting such a real is undefined
	 * (found by fuzz/fuzz_logread.c: "rep": 99999e99). */
	if (json_is_integer(v))
		return json_integer_value(v) >= INT_MIN &&
		    json_integer_value(v) <= INT_MAX ?
		    (int)json_integer_value(v) : dflt;
	return json_is_real(v) && d >= INT_MIN && d <= INT_MAX ? (int)d : dflt;
}

double
model_parse_ts(const char *ts)
{
	struct tm tm;
	int y, mo, d, h, mi, n = 0;
	double s;

	if (!ts || sscanf(ts, "%d-%d-%dT%d:%d:%lf%n", &y, &mo, &d, &h, &mi, &s,
	    &n) != 6)
		return 0;
	memset(&tm, 0, sizeof tm);
	tm.tm_year = y - 1900;
	tm.tm_mon = mo - 1;
	tm.tm_mday = d;
	tm.tm_hour = h;
	tm.tm_min = mi;
	return (double)timegm(&tm) + s;
}

void
model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	m->quiet_threshold = NAN;
	m->quiet_now = NAN;
	m->gate_waited = m->gate_timeout = m->gate_limit = NAN;
	m->gate_budget_s = NAN;
	m->client_busy = m->server_busy = m->client_max = m->server_max = NAN;
	m->tally = tally_create();
}

void
model_finish(struct model *m)
{
	for (size_t i = 0; i < m->nlegs; i++) {
		json_decref(m->legs[i].ev);
		json_decref(m->legs[i].start);
	}
	free(m->legs);
	free(m->log);
	free(m->dir);
	free(m->cur_out);
	json_decref(m->cur_start);
	free(m->cells);
	free(m->arms);
	free(m->grid);
	tally_destroy(m->tally);
	json_decref(m->report);
	memset(m, 0, sizeof *m);
}

/* Whether a plan grid from a log (not from a round file) is too big to
 * hold: a corrupt log's rep 99999999, or thousands of names, would make it
 * gigabytes (fuzz/fuzz_logread.c found it). */
static bool
model_grid_too_big(size_t ncells, size_t narms, int reps)
{
	return reps > 100000 || (ncells > 0 && narms > 0 && reps > 0 &&
	    ncells * narms > ((size_t)1 << 24) / (size_t)reps);
}

/* Resize the plan grid, keeping what it holds. */
static void
model_grid_resize(struct model *m, size_t ncells, size_t narms, int reps)
{
	unsigned char *g;

	if (ncells == 0 || narms == 0 || reps <= 0) {
		m->reps = reps;
		return;
	}
	g = xcalloc(ncells * narms, (size_t)reps);
	if (m->grid)
		for (size_t c = 0; c < m->ncells && c < ncells; c++)
			for (size_t a = 0; a < m->narms && a < narms; a++)
				for (int r = 0; r < m->reps && r < reps; r++)
					g[(c * narms + a) * (size_t)reps + (size_t)r] =
					    m->grid[(c * m->narms + a) * (size_t)m->reps + (size_t)r];
	free(m->grid);
	m->grid = g;
	m->reps = reps;
}

static int
model_name_index(char (*names)[MODEL_NAME], size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

static int
model_add_name(char (**names)[MODEL_NAME], size_t *n, const char *name)
{
	char (*p)[MODEL_NAME] = xreallocarray(*names, *n + 1, sizeof **names);

	*names = p;
	model_copy_name(p[*n], name);
	return (int)(*n)++;
}

/* The grid slot of a leg, growing the plan when it is not fixed; NULL for a
 * leg outside a fixed plan. */
static unsigned char *
model_grid_slot(struct model *m, const char *cell, const char *arm, int rep)
{
	int c, a;

	if (!cell || !arm || !*cell || !*arm || rep < 1)
		return NULL;
	c = model_name_index(m->cells, m->ncells, cell);
	a = model_name_index(m->arms, m->narms, arm);
	if (!m->plan_fixed) {
		size_t oc = m->ncells, oa = m->narms;
		int oreps = m->reps;
		unsigned char *old = m->grid;

		if ((c < 0 && (c = model_add_name(&m->cells, &m->ncells,
		    cell)) < 0) ||
		    (a < 0 && (a = model_add_name(&m->arms, &m->narms,
		    arm)) < 0))
			return NULL;
		if (oc != m->ncells || oa != m->narms || rep > oreps) {
			/* model_grid_resize reads the old dimensions from m. */
			size_t nc = m->ncells, na = m->narms;
			int nr = rep > oreps ? rep : oreps;

			/* Too big: the leg goes ungridded and its new
			 * names are dropped again. */
			if (model_grid_too_big(nc, na, nr)) {
				m->ncells = oc;
				m->narms = oa;
				return NULL;
			}
			m->ncells = oc;
			m->narms = oa;
			if (!old)
				m->reps = 0;
			model_grid_resize(m, nc, na, rep > oreps ? rep : oreps);
			m->ncells = nc;
			m->narms = na;
		}
	}
	if (c < 0 || a < 0 || rep > m->reps || !m->grid)
		return NULL;
	return &m->grid[((size_t)c * m->narms + (size_t)a) * (size_t)m->reps +
	    (size_t)(rep - 1)];
}

enum model_cell_state
model_grid_at(const struct model *m, size_t cell, size_t arm, int rep)
{
	if (!m->grid || cell >= m->ncells || arm >= m->narms || rep < 1 ||
	    rep > m->reps)
		return MODEL_PENDING;
	return m->grid[(cell * m->narms + arm) * (size_t)m->reps +
	    (size_t)(rep - 1)];
}

/* A plan to be named anew: no cells, no arms, no grid. */
static void
model_plan_clear(struct model *m)
{
	free(m->cells);
	free(m->arms);
	free(m->grid);
	m->cells = NULL;
	m->arms = NULL;
	m->grid = NULL;
	m->ncells = m->narms = 0;
	m->reps = 0;
}

/* The plan named (cells and arms): its grid of reps, and it is fixed. */
static void
model_plan_fix(struct model *m, int reps)
{
	model_grid_resize(m, m->ncells, m->narms, reps);
	m->plan_fixed = true;
	m->legs_total = m->ncells * m->narms * (size_t)reps;
}

void
model_set_spec(struct model *m, const struct spec *s)
{
	model_plan_clear(m);
	for (size_t i = 0; i < s->ncells; i++)
		model_add_name(&m->cells, &m->ncells, s->cells[i].name);
	for (size_t i = 0; i < s->narms; i++)
		model_add_name(&m->arms, &m->narms, s->arms[i].name);
	model_plan_fix(m, s->reps);
	m->gate_off = !s->quiet.enabled;
	tally_set_spec(m->tally, s);
	if (!m->name[0])
		model_copy_name(m->name, s->name);
	m->changed |= MODEL_CHANGE_ALL;
}

static void
model_clear_current(struct model *m)
{
	m->cur_active = false;
	m->cur_stopped[0] = '\0';
	free(m->cur_out);
	m->cur_out = NULL;
	json_decref(m->cur_start);
	m->cur_start = NULL;
}

/* The round event lists cells, arms and reps (an extra over SPEC.md):
 * the plan of a bare log. */
static void
model_plan_from_round(struct model *m, const json_t *ev)
{
	const json_t *cells = json_object_get(ev, "cells");
	const json_t *arms = json_object_get(ev, "arms"), *v;
	int reps = model_get_int(ev, "reps", 0);
	size_t i;

	if (!json_is_array(cells) || !json_is_array(arms) || reps < 1 ||
	    json_array_size(cells) == 0 || json_array_size(arms) == 0 ||
	    model_grid_too_big(json_array_size(cells), json_array_size(arms),
	    reps))
		return;
	model_plan_clear(m);
	json_array_foreach(cells, i, v)
		model_add_name(&m->cells, &m->ncells, json_string_value(v));
	json_array_foreach(arms, i, v)
		model_add_name(&m->arms, &m->narms, json_string_value(v));
	model_plan_fix(m, reps);
}

/* The column of that name, added when new (and there is room). */
static struct model_col *
model_col_get(struct model *m, const char *name, bool metric)
{
	for (size_t i = 0; i < m->ncols; i++)
		if (m->cols[i].metric == metric &&
		    strcmp(m->cols[i].name, name) == 0)
			return &m->cols[i];
	if (m->ncols == MODEL_COLS_MAX || strlen(name) >= sizeof m->cols[0].name)
		return NULL;
	snprintf(m->cols[m->ncols].name, sizeof m->cols[0].name, "%s", name);
	m->cols[m->ncols].metric = metric;
	m->cols[m->ncols].seen = false;
	return &m->cols[m->ncols++];
}

double
model_leg_value(const struct model_leg *l, const struct model_col *c)
{
	const json_t *o = json_object_get(l->ev, c->metric ? "metrics" :
	    "counters"), *v = json_object_get(o, c->name);

	/* A legacy row has cycles and instructions at the top only. */
	if (v == NULL && !c->metric)
		v = json_object_get(l->ev, c->name);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Which columns this leg has values for. */
static void
model_cols_feed_leg(struct model *m, const json_t *ev)
{
	static const char *const groups[] = { "counters", "metrics" };
	const char *key;
	json_t *v;

	for (int g = 0; g < 2; g++)
		json_object_foreach(json_object_get(ev, groups[g]), key, v) {
			struct model_col *c = model_col_get(m, key, g == 1);

			if (c != NULL && json_is_number(v))
				c->seen = true;
		}
	if (!json_is_object(json_object_get(ev, "counters")))
		for (int i = 0; i < 2; i++) {
			const char *name = i ? "instructions" : "cycles";
			struct model_col *c = model_col_get(m, name, false);

			if (c != NULL && json_is_number(json_object_get(ev, name)))
				c->seen = true;
		}
}

static void model_log(struct model *m, const json_t *ev, const char *msg);

static void
model_feed_round(struct model *m, const json_t *ev, double ts)
{
	const char *dir = model_get_str(ev, "dir");
	const json_t *total = json_object_get(ev, "legs_total");

	model_copy_name(m->name, model_get_str(ev, "name"));
	{
		const json_t *ctrs = json_object_get(ev, "counters"), *v;
		size_t i;

		json_array_foreach(ctrs, i, v)
			if (json_is_string(v))
				(void)model_col_get(m, json_string_value(v),
				    false);
	}
	if (dir && !m->dir_fixed) {
		free(m->dir);
		m->dir = xstrdup(dir);
	}
	if (!m->plan_fixed)
		model_plan_from_round(m, ev);
	if (json_is_integer(total) && json_integer_value(total) > 0)
		m->legs_total = (size_t)json_integer_value(total);
	if (m->start_ts == 0)
		m->start_ts = ts;
	/* Several hosts: each has its line in the quiet box. */
	{
		const json_t *hosts = json_object_get(ev, "hosts"), *v;
		size_t i;

		m->several_hosts = json_array_size(hosts) > 1;
		json_array_foreach(hosts, i, v)
			if (m->several_hosts && json_is_string(v))
				(void)model_host(m, json_string_value(v));
	}
	model_gate_round(m, ev);
	m->state = MODEL_RUNNING;
}

/* Whether a gate holds the next leg: this machine's or a host's. */
bool
model_holding(const struct model *m)
{
	for (size_t i = 0; i < m->nhosts; i++)
		if (m->hosts[i].holding)
			return true;
	return m->quiet_seen && !m->quiet_ok;
}

static void
model_feed_leg_start(struct model *m, const json_t *ev, double ts)
{
	const char *out = model_get_str(ev, "out");
	unsigned char *slot;

	model_clear_current(m);
	m->cur_active = true;
	model_copy_name(m->cur_cell, model_get_str(ev, "cell"));
	model_copy_name(m->cur_arm, model_get_str(ev, "arm"));
	m->cur_rep = model_get_int(ev, "rep", 0);
	m->cur_seq = model_get_int(ev, "seq", 0);
	m->cur_pid = model_get_int(ev, "pid", 0);
	m->cur_start_ts = ts;
	m->cur_out = out ? xstrdup(out) : NULL;
	m->cur_start = json_incref((json_t *)ev);
	m->gate_wait_since = 0;
	if (m->several_hosts && model_get_str(ev, "host") != NULL) {
		struct model_host *h = model_host(m, model_get_str(ev, "host"));

		if (h != NULL)
			snprintf(h->leg, sizeof h->leg, "%.20s %.20s r%d",
			    m->cur_cell, m->cur_arm, m->cur_rep);
	}
	/* A leg runs: no gate holds, here or on a server's host. */
	for (size_t i = 0; i < m->nhosts; i++)
		m->hosts[i].holding = false;
	if (m->state == MODEL_WAITING)
		m->state = MODEL_RUNNING;
	slot = model_grid_slot(m, m->cur_cell, m->cur_arm, m->cur_rep);
	if (slot)
		*slot = MODEL_RUN;
}

static int
model_append_leg(struct model *m, struct model_leg *l)
{
	if (m->nlegs == m->legs_cap) {
		m->legs_cap = xgrow(m->legs_cap, m->nlegs + 1, 64);
		m->legs = xreallocarray(m->legs, m->legs_cap, sizeof *m->legs);
	}
	m->legs[m->nlegs++] = *l;
	return 0;
}

static void
model_feed_leg(struct model *m, const json_t *ev, double ts)
{
	struct model_leg l;
	const char *status;
	const json_t *rc = json_object_get(ev, "rc");
	const json_t *noisy = json_object_get(ev, "noisy"), *sig;
	unsigned char *slot;
	bool aborted, bad;

	memset(&l, 0, sizeof l);
	model_copy_name(l.cell, model_get_str(ev, "cell"));
	model_copy_name(l.arm, model_get_str(ev, "arm"));
	l.rep = model_get_int(ev, "rep", 0);
	l.seq = model_get_int(ev, "seq", 0);
	l.warmup = model_get_int(ev, "warmup", 0);
	model_copy_name(l.host, model_get_str(ev, "host"));
	if (m->several_hosts && l.host[0] != '\0') {
		struct model_host *h = model_host(m, l.host);

		if (h != NULL) {
			h->leg[0] = '\0';
			h->legs++;
		}
	}
	/* A legacy row has no status field: the one rule gives it. */
	status = tally_leg_status_name(tally_leg_status(ev));
	snprintf(l.status, sizeof l.status, "%s", status);
	l.has_rc = json_is_integer(rc);
	l.rc = l.has_rc ? (int)json_integer_value(rc) : 0;
	sig = json_object_get(ev, "signal");
	if (json_is_string(sig))
		snprintf(l.signal, sizeof l.signal, "%s", json_string_value(sig));
	else if (json_is_integer(sig))
		snprintf(l.signal, sizeof l.signal, "%d", (int)json_integer_value(sig));
	l.wall = model_get_num(ev, "wall");
	l.cpu = model_get_num(ev, "cpu");
	if (isnan(l.cpu))
		l.cpu = model_get_num(ev, "utime") + model_get_num(ev, "stime");
	l.cycles = model_get_num(ev, "cycles");
	l.instructions = model_get_num(ev, "instructions");
	l.maxrss_kb = model_get_num(ev, "maxrss_kb");
	l.foreign = model_get_num(ev, "foreign");
	l.noisy = json_is_true(noisy) ||
	    (!isnan(l.foreign) && !isnan(m->quiet_threshold) &&
	    l.foreign > m->quiet_threshold);
	l.end_ts = ts;
	l.ev = json_incref((json_t *)ev);
	model_cols_feed_leg(m, ev);
	model_gate_leg(m, &l, ev, l.warmup == 0 &&
	    strcmp(l.status, "aborted") != 0);
	if (m->cur_active && strcmp(m->cur_cell, l.cell) == 0 &&
	    strcmp(m->cur_arm, l.arm) == 0 && m->cur_rep == l.rep)
		l.start = json_incref(m->cur_start);
	if (model_append_leg(m, &l) < 0) {
		json_decref(l.ev);
		json_decref(l.start);
		return;
	}

	aborted = strcmp(l.status, "aborted") == 0;
	bad = !aborted && strcmp(l.status, "ok") != 0;
	if (l.warmup > 0) {
		/* Listed, never counted: not a leg of the plan. */
		if (m->cur_active && m->cur_rep == 0 &&
		    strcmp(m->cur_cell, l.cell) == 0 &&
		    strcmp(m->cur_arm, l.arm) == 0)
			model_clear_current(m);
		m->mark_ts = ts;
		return;
	}
	if (!aborted) {
		m->legs_done++;
		if (bad)
			m->legs_failed++;
		if (m->mark_ts > 0 && ts >= m->mark_ts)
			m->busy_s += ts - m->mark_ts;
		else if (!isnan(l.wall))
			m->busy_s += l.wall;
	}
	m->mark_ts = ts;
	slot = model_grid_slot(m, l.cell, l.arm, l.rep);
	if (slot)
		*slot = aborted ? MODEL_PENDING : bad ? MODEL_BAD : MODEL_DONE;
	if (m->cur_active && strcmp(m->cur_cell, l.cell) == 0 &&
	    strcmp(m->cur_arm, l.arm) == 0 && m->cur_rep == l.rep)
		model_clear_current(m);
}

/* Keep msg in the message log, with the time of ev (NULL: now unknown). */
static void
model_log(struct model *m, const json_t *ev, const char *msg)
{
	const char *ts = model_get_str(ev, "ts");

	if (m->log == NULL)
		m->log = xcalloc(MODEL_LOG_MAX, sizeof *m->log);
	if (m->nlog == MODEL_LOG_MAX) {
		memmove(m->log, m->log + 1, (MODEL_LOG_MAX - 1) * sizeof *m->log);
		m->nlog--;
		m->log_dropped++;
	}
	/* "15:04:05 msg": the time of day is enough to place it. */
	snprintf(m->log[m->nlog++], sizeof m->log[0], "%.8s %s",
	    ts != NULL && strlen(ts) >= 19 ? ts + 11 : "--:--:--", msg);
}

const char *
model_last_warning(const struct model *m)
{
	/* Past model_log's "15:04:05 ", always 9 bytes. */
	return m->nlog > 0 ? m->log[m->nlog - 1] + 9 : "";
}

/* Lines the panes derive from more than one field: the quiet box says the
 * gate holds, and the current leg pane that it waits for quiet, only
 * between legs.  Compared before and after an event, for its changes. */
static unsigned
model_derived(const struct model *m)
{
	bool between = !m->cur_active && m->gate_wait_since > 0;

	return (between && m->state == MODEL_RUNNING ? MODEL_CHANGE_QUIET : 0) |
	    (between ? MODEL_CHANGE_CURRENT : 0);
}

/* One piece: the reducer is one dispatch on the event's type, a few
 * lines per type (the long ones have their model_feed_* functions); split up,
 * a reader would look in several places for what one event does.  Returns
 * the event's enum model_change bits, or 0 for a type it ignores. */
static unsigned
model_apply(struct model *m, const char *t, const json_t *ev, double ts)
{
	if (strcmp(t, "round") == 0) {
		model_feed_round(m, ev, ts);
		m->mark_ts = ts;
		return MODEL_CHANGE_STATE | MODEL_CHANGE_PLAN;
	} else if (strcmp(t, "quiet") == 0) {
		const char *host = model_get_str(ev, "host");

		/* A server's host's gate has its own line. */
		if (host != NULL) {
			struct model_host *h = model_host(m, host);

			if (h != NULL)
				model_feed_host_quiet(m, h, ev, ts);
		} else
			model_feed_quiet(m, ev, ts);
		return MODEL_CHANGE_QUIET;
	} else if (strcmp(t, "gate") == 0) {
		return model_feed_gate(m, ev);
	} else if (strcmp(t, "leg_start") == 0) {
		model_feed_leg_start(m, ev, ts);
		return MODEL_CHANGE_CURRENT | MODEL_CHANGE_PLAN |
		    (m->several_hosts ? MODEL_CHANGE_QUIET : 0);
	} else if (strcmp(t, "leg_state") == 0 && m->cur_active &&
	    model_get_int(ev, "seq", -1) == m->cur_seq) {
		const char *st = model_get_str(ev, "state");
		const char *sig = model_get_str(ev, "signal");

		snprintf(m->cur_stopped, sizeof m->cur_stopped, "%s",
		    st == NULL || strcmp(st, "stopped") != 0 ? "" :
		    sig != NULL ? sig : "SIGSTOP");
		return MODEL_CHANGE_CURRENT;
	} else if (strcmp(t, "leg") == 0) {
		/* A warm-up leg is listed only; the current leg pane's median
		 * of the arm moves with the leg's. */
		model_feed_leg(m, ev, ts);
		/* The quiet box counts legs that were not quiet, and a
		 * server's host's line says how its gate let the leg go. */
		return MODEL_CHANGE_LEGS | MODEL_CHANGE_CURRENT |
		    ((m->nlegs > 0 && m->legs[m->nlegs - 1].unquiet) ||
		    m->several_hosts ||
		    model_get_str(json_object_get(ev, "server"), "gate") !=
		    NULL ? MODEL_CHANGE_QUIET : 0) |
		    (model_get_int(ev, "warmup", 0) > 0 ? 0 :
		    MODEL_CHANGE_PROGRESS | MODEL_CHANGE_PLAN);
	} else if (strcmp(t, "pause") == 0) {
		m->state = MODEL_PAUSED;
		return MODEL_CHANGE_STATE;
	} else if (strcmp(t, "resume") == 0) {
		m->state = MODEL_RUNNING;
		m->end_ts = 0;
		m->mark_ts = ts;
		m->abort_reason[0] = '\0';
		return MODEL_CHANGE_STATE;
	} else if (strcmp(t, "abort") == 0) {
		const char *why = model_get_str(ev, "reason");
		char msg[MODEL_LOG_LINE];

		m->state = MODEL_ABORTED;
		m->end_ts = ts;
		snprintf(m->abort_reason, sizeof m->abort_reason, "%s",
		    why ? why : "");
		model_clear_current(m);
		/* The header holds its first words; a reason longer than that
		 * (a host's failure, ssh's words, the command) is the message
		 * log's and the footer's too, whole. */
		if (why == NULL || strlen(why) < sizeof m->abort_reason)
			return MODEL_CHANGE_STATE;
		snprintf(msg, sizeof msg, "stopped: %s", why);
		model_log(m, ev, msg);
		return MODEL_CHANGE_STATE | MODEL_CHANGE_LOG;
	} else if (strcmp(t, "done") == 0) {
		m->state = MODEL_COMPLETE;
		m->end_ts = ts;
		model_clear_current(m);
		return MODEL_CHANGE_STATE;
	} else if (strcmp(t, "seal") == 0) {
		m->state = MODEL_SEALED;
		if (m->end_ts == 0)
			m->end_ts = ts;
		return MODEL_CHANGE_STATE;
	} else if (strcmp(t, "warning") == 0) {
		const char *msg = model_get_str(ev, "msg");
		model_log(m, ev, msg ? msg : "");
		return MODEL_CHANGE_LOG;
	} else if (strcmp(t, "log_cut") == 0) {
		char msg[160];

		snprintf(msg, sizeof msg,
		    "resume cut a torn last line from the log (%.0f bytes)",
		    model_get_num(ev, "bytes"));
		model_log(m, ev, msg);
		return MODEL_CHANGE_LOG;
	} else if (strcmp(t, "hook_start") == 0) {
		snprintf(m->hook, sizeof m->hook, "cell %s %s, at most %g s",
		    model_get_str(ev, "cell") ?: "?", model_get_str(ev,
		    "hook") ?: "?", model_get_num(ev, "timeout_s"));
		return MODEL_CHANGE_CURRENT;
	} else if (strcmp(t, "hook") == 0) {
		m->hook[0] = '\0';
		return MODEL_CHANGE_CURRENT;
	} else if (strcmp(t, "profile_start") == 0) {
		const char *cell = model_get_str(ev, "cell");
		const char *arm = model_get_str(ev, "arm");
		const char *kind = model_get_str(ev, "kind");
		snprintf(m->profiling, sizeof m->profiling, "%s / %s / %s",
		    cell ? cell : "?", arm ? arm : "?", kind ? kind : "?");
		return MODEL_CHANGE_CURRENT;
	} else if (strcmp(t, "profile") == 0) {
		const char *st = model_get_str(ev, "status");
		char msg[640];

		m->profiling[0] = '\0';
		if (st == NULL || strcmp(st, "failed") != 0)
			return MODEL_CHANGE_CURRENT;
		/* a failed profile never fails the round: the log says why */
		snprintf(msg, sizeof msg, "profile %s %s %s failed: %s",
		    model_get_str(ev, "cell") ?: "?", model_get_str(ev, "arm") ?:
		    "?", model_get_str(ev, "kind") ?: "?",
		    model_get_str(ev, "reason") ?: "no reason given");
		model_log(m, ev, msg);
		return MODEL_CHANGE_CURRENT | MODEL_CHANGE_LOG;
	} else if (strcmp(t, "look") == 0) {
		return 0; /* the tally's alone: its bit is added by the caller */
	} else if (strcmp(t, "server") == 0) {
		const char *cell = model_get_str(ev, "cell");
		const char *st = model_get_str(ev, "state");
		const char *arm = model_get_str(ev, "arm");
		double pid = model_get_num(ev, "pid");
		char who[96] = "";

		/* A server per leg names its leg; the pid comes with ready. */
		if (arm != NULL)
			snprintf(who, sizeof who, " %s r%.0f", arm,
			    model_get_num(ev, "rep"));
		snprintf(m->server, sizeof m->server, "%s%s: %s",
		    cell ? cell : "?", who, st ? st : "?");
		/* A server elsewhere: its host gets its line now. */
		if (model_get_str(ev, "host") != NULL)
			(void)model_host(m, model_get_str(ev, "host"));
		if (pid > 0)
			snprintf(m->server + strlen(m->server),
			    sizeof m->server - strlen(m->server), " pid %.0f",
			    pid);
		return MODEL_CHANGE_QUIET;
	}
	return 0;
}

void
model_feed(struct model *m, const json_t *ev)
{
	const char *t = event_type(ev);
	double ts = model_parse_ts(model_get_str(ev, "ts"));
	unsigned ch = 0, derived = model_derived(m);
	enum model_state state = m->state;

	if (!t)
		return;
	/* The tally takes the round's name and the legs; it skips the rest. */
	if (strcmp(t, "round") == 0 || strcmp(t, "leg") == 0 ||
	    strcmp(t, "profile") == 0 || strcmp(t, "look") == 0 ||
	    strcmp(t, "gate") == 0) {
		tally_feed(m->tally, ev);
		ch |= MODEL_CHANGE_RATIOS;
	}
	if (ts > m->last_ts) {
		/* The quiet history is drawn against the log's clock. */
		m->last_ts = ts;
		ch |= MODEL_CHANGE_CLOCK | (m->nquiet > 0 ? MODEL_CHANGE_QUIET : 0);
	}
	ch |= model_apply(m, t, ev, ts);
	ch |= model_derived(m) ^ derived;
	if (m->state != state)
		ch |= MODEL_CHANGE_STATE;
	m->changed |= ch;
}

unsigned
model_take_changes(struct model *m)
{
	unsigned ch = m->changed;

	m->changed = 0;
	return ch;
}

void
model_set_aborting(struct model *m)
{
	if (m->state == MODEL_RUNNING || m->state == MODEL_PAUSED ||
	    m->state == MODEL_WAITING) {
		m->state = MODEL_ABORTING;
		m->changed |= MODEL_CHANGE_STATE;
	}
}

void
model_set_failed(struct model *m, const char *why)
{
	char msg[160];  /* the reason, cut as it always was */

	m->state = MODEL_FAILED;
	snprintf(msg, sizeof msg, "%s", why ? why : "");
	model_log(m, NULL, msg);
	model_clear_current(m);
	m->changed |= MODEL_CHANGE_STATE | MODEL_CHANGE_LOG |
	    MODEL_CHANGE_CURRENT | MODEL_CHANGE_QUIET;
}

void
model_set_aborted(struct model *m)
{
	if (m->state == MODEL_ABORTED)
		return;
	m->state = MODEL_ABORTED;
	m->changed |= MODEL_CHANGE_STATE;
}

void
model_set_replay(struct model *m)
{
	m->replay = true;
	m->changed |= MODEL_CHANGE_STATE;
}

void
model_restart(struct model *m, const struct spec *s)
{
	bool replay = m->replay, fixed = m->dir_fixed;
	char *dir = fixed && m->dir ? xstrdup(m->dir) : NULL;

	model_finish(m);
	model_init(m);
	m->replay = replay;
	if (fixed)
		model_set_dir(m, dir);
	free(dir);
	if (s != NULL)
		model_set_spec(m, s);
	m->changed = MODEL_CHANGE_ALL;
}

void
model_set_dir(struct model *m, const char *dir)
{
	free(m->dir);
	m->dir = dir != NULL ? xstrdup(dir) : NULL;
	m->dir_fixed = dir != NULL;
	m->changed |= MODEL_CHANGE_STATE;
}

const json_t *
model_ratios(struct model *m)
{
	if (m->report == NULL || tally_report_stale(m->tally)) {
		json_decref(m->report);
		m->report = tally_report_cached(m->tally);
	}
	return m->report;
}

bool
model_ratios_advance(struct model *m, double deadline)
{
	json_t *rep;

	if (m->report != NULL && !tally_report_stale(m->tally))
		return true;
	if ((rep = tally_report_advance(m->tally, deadline)) == NULL)
		return false;
	json_decref(m->report);
	m->report = rep;
	/* The quiet pane's "not quiet" line is drawn from the report too. */
	m->changed |= MODEL_CHANGE_RATIOS | MODEL_CHANGE_QUIET;
	return !tally_report_stale(m->tally);
}

const json_t *
model_ratios_shown(const struct model *m)
{
	return m->report;
}

double
model_elapsed(const struct model *m, double now)
{
	double end = m->end_ts > 0 ? m->end_ts : now;

	if (m->start_ts == 0 || end < m->start_ts)
		return 0;
	return end - m->start_ts;
}

double
model_arm_median_wall(const struct model *m, const char *cell,
    const char *arm)
{
	double *w, med;
	size_t n = 0;

	w = xreallocarray(NULL, m->nlegs + 1, sizeof *w);
	for (size_t i = 0; i < m->nlegs; i++)
		if (strcmp(m->legs[i].cell, cell) == 0 &&
		    strcmp(m->legs[i].arm, arm) == 0 &&
		    strcmp(m->legs[i].status, "ok") == 0 &&
		    !isnan(m->legs[i].wall))
			w[n++] = m->legs[i].wall;
	med = stats_median(w, n);
	free(w);
	return med;
}

const char *
model_state_name(enum model_state s)
{
	switch (s) {
	case MODEL_WAITING: return "waiting";
	case MODEL_RUNNING: return "running";
	case MODEL_PAUSED: return "paused";
	case MODEL_ABORTING: return "aborting";
	case MODEL_ABORTED: return "aborted";
	case MODEL_COMPLETE: return "complete";
	case MODEL_SEALED: return "sealed";
	case MODEL_FAILED: return "failed";
	}
	return "?";
}
