/* The top band: quiet box, current leg, plan grid. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "theme.h"
#include "words.h"

/* The gate's state: the countdown while it holds a leg (to timeout_s, or
 * to the end of the round's budget when that comes first), else whether
 * it waits at all. */
static void
pane_top_gate_line(struct render *r, WINDOW *w, struct model *m, double now,
    int y, int cw)
{
	char buf[160];

	if (m->gate_wait_since > 0 && m->cur_active == false &&
	    (m->state == MODEL_RUNNING)) {
		double base = r->replay ? m->last_ts : now;
		double waited = base > m->gate_wait_since ? base -
		    m->gate_wait_since : 0;

		/* From the samples' own clock when they carry one. */
		if (!isnan(m->gate_waited) && !isnan(m->gate_limit)) {
			double left = m->gate_limit - m->gate_waited -
			    (base - m->last_ts > 0 && !r->replay ?
			    base - m->last_ts : 0);

			snprintf(buf, sizeof buf, "held, %.0f s left%s",
			    left > 0 ? left : 0, r->replay ? "" :
			    " (g: go, G: all)");
		} else {
			snprintf(buf, sizeof buf, "waiting %.0f s for quiet",
			    waited);
		}
		render_put(w, y, 1, cw, THEME_WARN, buf);
	} else if (m->gate_released_all) {
		render_put(w, y, 1, cw, THEME_WARN,
		    "gate: released (G), no waits");
	} else if (m->gate_budget_spent) {
		render_put(w, y, 1, cw, THEME_WARN,
		    "gate: budget spent, no waits");
	} else
		render_put(w, y, 1, cw, THEME_OK, m->quiet_ok ? "gate: quiet" :
		    "gate: noisy");
}

/* The pinned cpus' own foreign work ("pinned: client 0.00, server
 * 0.31"), warned when over its threshold; false when none are pinned. */
static bool
pane_top_pinned_line(WINDOW *w, struct model *m, int y, int cw)
{
	char buf[160];
	size_t n = 0;
	bool over = m->client_busy > m->client_max ||
	    m->server_busy > m->server_max;

	if (isnan(m->client_busy) && isnan(m->server_busy))
		return false;
	n = (size_t)snprintf(buf, sizeof buf, "pinned:");
	if (!isnan(m->client_busy))
		n += (size_t)snprintf(buf + n, sizeof buf - n, " client %.2f",
		    m->client_busy);
	if (!isnan(m->server_busy) && n < sizeof buf)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s server %.2f",
		    isnan(m->client_busy) ? "" : ",", m->server_busy);
	if (!isnan(m->client_max) && n < sizeof buf)
		snprintf(buf + n, sizeof buf - n, ", max %.2f", m->client_max);
	render_put(w, y, 1, cw, over ? THEME_WARN : THEME_OK, buf);
	return true;
}

/* Per arm, the legs that ran on a box that was not quiet, from the
 * report (the one count the report prints too): "not quiet: base 2/6,
 * fast 3/6".  false when every leg so far ran on a quiet one. */
static bool
pane_top_unquiet_line(WINDOW *w, const struct model *m, int y, int cw)
{
	/* The last complete report: a draw never builds one (see
	 * model_ratios_advance). */
	const json_t *arms = json_object_get(json_object_get(
	    model_ratios_shown(m), "gate"), "arms"), *o;
	const char *arm;
	char buf[256];
	size_t n = 0;

	json_object_foreach((json_t *)arms, arm, o) {
		json_int_t k = json_integer_value(json_object_get(o,
		    "not_quiet"));

		if (k == 0 || n >= sizeof buf)
			continue;
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s %s %lld/%lld",
		    n == 0 ? "not quiet:" : ",", arm, (long long)k,
		    (long long)json_integer_value(json_object_get(o, "legs")));
	}
	if (n == 0)
		return false;
	render_put(w, y, 1, cw, THEME_WARN, buf);
	return true;
}

/* A server's host's line, what its gate does first (a narrow box cuts
 * the rest): "HOST: holds 2 s, busy 0.03, cpus 0.95/0.10, probe
 * 1.50/1.01" while its gate holds a leg; else how it let the last leg
 * go when the host was not quiet ("budget", "waived", "timeout") or
 * "noisy", then the figures. */
static void
pane_top_host_line(const struct model_host *o, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "%s: ", o->name);

	/* One of several hosts: its leg and its count first. */
	if (o->leg[0] != '\0' || o->legs > 0) {
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%d legs",
		    o->leg[0] != '\0' ? "runs " : "", o->leg, o->leg[0] !=
		    '\0' ? ", " : "", o->legs);
		if (isnan(o->foreign) || n + 2 >= len)
			return;
		n += (size_t)snprintf(buf + n, len - n, ", ");
	}
	if (isnan(o->foreign)) {
		snprintf(buf + n, len - n, "no samples yet");
		return;
	}
	if (o->holding && !isnan(o->limit) && !isnan(o->waited))
		n += (size_t)snprintf(buf + n, len - n, "holds %.0f s, ",
		    o->limit > o->waited ? o->limit - o->waited : 0);
	else if (o->holding)
		n += (size_t)snprintf(buf + n, len - n, "holds, ");
	else if (o->last_gate[0] != '\0' && strcmp(o->last_gate, "quiet") != 0)
		n += (size_t)snprintf(buf + n, len - n, "%s, ", o->last_gate);
	else if (!o->ok)
		n += (size_t)snprintf(buf + n, len - n, "noisy, ");
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "busy %.2f", o->foreign);
	if (!isnan(o->server_busy) && n < len)
		n += (size_t)snprintf(buf + n, len - n, ", cpus %.2f/%.2f",
		    o->server_busy, o->server_max);
	if (!isnan(o->probe) && n < len)
		snprintf(buf + n, len - n, ", probe %.2f/%.2f", o->probe,
		    o->probe_max);
}

/* One line per server's host, under this machine's gate, from row y down
 * as rows allow.  The row after them. */
static int
pane_top_hosts_draw(WINDOW *w, const struct model *m, int y, int h, int cw)
{
	char buf[256];

	for (size_t i = 0; i < m->nhosts && y <= h; i++, y++) {
		const struct model_host *o = &m->hosts[i];
		bool calm = o->ok && (o->last_gate[0] == '\0' ||
		    strcmp(o->last_gate, "quiet") == 0);

		pane_top_host_line(o, buf, sizeof buf);
		render_put(w, y, 1, cw, isnan(o->foreign) ? THEME_DIM :
		    calm ? THEME_OK : THEME_WARN, buf);
	}
	return y;
}

static void
pane_top_quiet_draw(struct render *r, WINDOW *w, struct model *m, double now)
{
	int h = getmaxy(w) - 2, cw = getmaxx(w) - 2, y = 3;
	char buf[160], thr[32];
	double hi;

	if (!m->quiet_seen) {
		render_put(w, 1, 1, cw, THEME_DIM, m->gate_off ?
		    "gate off (\"quiet\": false)" : "no quiet samples yet");
		y = pane_top_hosts_draw(w, m, 2, h, cw);
		goto server;
	}
	if (isnan(m->quiet_threshold))
		snprintf(thr, sizeof thr, "?");
	else
		snprintf(thr, sizeof thr, "%.2f", m->quiet_threshold);
	/* With servers elsewhere, each host has a line: this one is here. */
	snprintf(buf, sizeof buf, cw >= 30 ? "%sbusy %.2f cores, max %s" :
	    "%sbusy %.2f / max %s", m->nhosts > 0 ? "here: " : "",
	    m->quiet_now, thr);
	render_put(w, 1, 1, cw, m->quiet_ok ? THEME_OK : THEME_WARN, buf);

	/* The last minute, oldest on the left, one column per time slot. */
	hi = isnan(m->quiet_threshold) ? 1 : 2 * m->quiet_threshold;
	for (size_t i = 0; i < m->nquiet; i++)
		if (m->quiet[i].foreign > hi)
			hi = m->quiet[i].foreign;
	wmove(w, 2, 1);
	for (int x = 0; x < cw; x++) {
		double t0 = m->last_ts - MODEL_QUIET_SPAN * (cw - x) / cw;
		double t1 = m->last_ts - MODEL_QUIET_SPAN * (cw - x - 1) / cw;
		double v = NAN;
		bool ok = true;
		for (size_t i = 0; i < m->nquiet; i++)
			if (m->quiet[i].ts > t0 && m->quiet[i].ts <= t1 &&
			    (isnan(v) || m->quiet[i].foreign > v)) {
				v = m->quiet[i].foreign;
				ok = m->quiet[i].ok;
			}
		wattrset(w, theme_attr(isnan(v) ? THEME_DIM : ok ? THEME_SPARK :
		    THEME_WARN));
		waddstr(w, isnan(v) ? (r->utf8 ? "\u00b7" : ".") :
		    render_spark(r, v, 0, hi));
	}
	wattrset(w, theme_attr(THEME_NORMAL));
	pane_top_gate_line(r, w, m, now, y++, cw);
	y = pane_top_hosts_draw(w, m, y, h, cw);
	if (y <= h && pane_top_pinned_line(w, m, y, cw))
		y++;
	if (y <= h && pane_top_unquiet_line(w, m, y, cw))
		y++;
server:
	if (y <= h && m->server[0]) {
		snprintf(buf, sizeof buf, "server %s", m->server);
		render_put(w, y++, 1, cw, THEME_LABEL, buf);
	}
}

static void
pane_top_current_draw(struct render *r, WINDOW *w, struct model *m, double now)
{
	int cw = getmaxx(w) - 2, h = getmaxy(w) - 2;
	char buf[256], el[32], med[32];
	double base = r->replay ? m->last_ts : now, e, md;

	if (!m->cur_active && m->profiling[0] != '\0' &&
	    m->state == MODEL_RUNNING) {
		snprintf(buf, sizeof buf, "profiling %s", m->profiling);
		render_put(w, 1, 1, cw, THEME_RUNNING, buf);
		render_put(w, 2, 1, cw, THEME_DIM, "after the cell's timed legs; "
		    "not in the ratios");
		return;
	}
	if (!m->cur_active && m->hook[0] != '\0' &&
	    m->state == MODEL_RUNNING) {
		snprintf(buf, sizeof buf, "running %s", m->hook);
		render_put(w, 1, 1, cw, THEME_RUNNING, buf);
		render_put(w, 2, 1, cw, THEME_DIM, "a cell's setup or cleanup; "
		    "not measured");
		return;
	}
	if (!m->cur_active) {
		const char *what = m->state == MODEL_PAUSED ? "paused between legs" :
		    m->state == MODEL_COMPLETE || m->state == MODEL_SEALED ?
		    "round complete" : m->state == MODEL_ABORTED ? "aborted" :
		    m->gate_wait_since > 0 ? "waiting for quiet" : "no leg running";
		render_put(w, 1, 1, cw, THEME_DIM, what);
		/* The round is over: each differential profile's largest move,
		 * a pointer to the whole view. */
		if (m->state == MODEL_COMPLETE || m->state == MODEL_SEALED ||
		    m->state == MODEL_ABORTED) {
			char lines[4][160];
			int n = pane_prof_headlines(m, lines, h - 2 < 4 ? h - 2 : 4);

			if (n > 0)
				render_put(w, 2, 1, cw, THEME_LABEL,
				    "profiles (f shows them all):");
			for (int i = 0; i < n; i++)
				render_put(w, 3 + i, 1, cw, THEME_NORMAL, lines[i]);
		}
		return;
	}
	snprintf(buf, sizeof buf, "%s / %s / rep %d", m->cur_cell, m->cur_arm,
	    m->cur_rep);
	render_put(w, 1, 1, cw, THEME_RUNNING, buf);
	e = base > m->cur_start_ts ? base - m->cur_start_ts : 0;
	md = model_arm_median_wall(m, m->cur_cell, m->cur_arm);
	words_secs(el, sizeof el, e);
	words_secs(med, sizeof med, md);
	snprintf(buf, sizeof buf, "pid %ld  seq %d", m->cur_pid, m->cur_seq);
	render_put(w, 2, 1, cw, THEME_LABEL, buf);
	snprintf(buf, sizeof buf, "%s of median %s", el, med);
	if (m->cur_stopped[0] != '\0')
		snprintf(buf, sizeof buf, "stopped (%s): a abort ends it",
		    m->cur_stopped);
	render_put(w, 3, 1, cw, m->cur_stopped[0] != '\0' || (!isnan(md) &&
	    e > 1.5 * md) ? THEME_WARN : THEME_NORMAL, buf);
	if (h >= 4) {
		snprintf(buf, sizeof buf, "> %s", r->out_tail);
		render_put(w, 4, 1, cw, THEME_DIM, buf);
	}
	if (h >= 5 && m->state == MODEL_PAUSED)
		render_put(w, 5, 1, cw, THEME_WARN, "pauses after this leg");
}

static const char *
pane_top_grid_mark(const struct render *r, enum model_cell_state s, int *role)
{
	switch (s) {
	case MODEL_DONE: *role = THEME_OK; return r->utf8 ? "\u25a0" : "#";
	case MODEL_RUN: *role = THEME_RUNNING; return r->utf8 ? "\u25b6" : ">";
	case MODEL_BAD: *role = THEME_BAD; return "x";
	default: *role = THEME_PENDING; return r->utf8 ? "\u00b7" : ".";
	}
}

/* Arms down, cells across, one mark per rep: "base  ■■■ ■▶·".  When the
 * cells do not fit across, one line per cell and arm, which scrolls. */
static void
pane_top_plan_draw(struct render *r, WINDOW *w, struct model *m, double now)
{
	int h = getmaxy(w) - 2, cw = getmaxx(w) - 2, y = 1, line = 0, namew = 0;
	int colw = m->reps, across;
	char buf[160];

	(void)now;
	if (!m->ncells) {
		render_put(w, 1, 1, cw, THEME_DIM, "no plan yet");
		return;
	}
	for (size_t a = 0; a < m->narms; a++)
		if ((int)strlen(m->arms[a]) > namew)
			namew = (int)strlen(m->arms[a]);
	if (namew > 12)
		namew = 12;
	for (size_t c = 0; c < m->ncells; c++)
		if ((int)strlen(m->cells[c]) > colw)
			colw = (int)strlen(m->cells[c]);
	if (colw > 12)
		colw = m->reps > 12 ? m->reps : 12;
	across = namew + 1 + (int)m->ncells * (colw + 1) <= cw &&
	    (int)m->narms + 1 <= h + 2;
	if (across) {
		r->plan_lines = (int)m->narms + 1;
		/* The cell names stay on row 1; arms scroll under them. */
		if (r->scroll[PANE_PLAN] > (int)m->narms - (h - 1))
			r->scroll[PANE_PLAN] = (int)m->narms - (h - 1) > 0 ?
			    (int)m->narms - (h - 1) : 0;
		for (size_t c = 0; c < m->ncells; c++) {
			snprintf(buf, sizeof buf, "%-*.*s", colw, colw, m->cells[c]);
			render_put(w, 1, 1 + namew + 1 + (int)c * (colw + 1), colw,
			    THEME_TITLE, buf);
		}
		for (size_t a = 0; a < m->narms; a++) {
			int row = 2 + (int)a - r->scroll[PANE_PLAN];
			if (row < 2 || row > h)
				continue;
			snprintf(buf, sizeof buf, "%-*.*s", namew, namew, m->arms[a]);
			render_put(w, row, 1, cw, THEME_LABEL, buf);
			for (size_t c = 0; c < m->ncells; c++) {
				wmove(w, row, 1 + namew + 1 + (int)c * (colw + 1));
				for (int rep = 1; rep <= m->reps; rep++) {
					int role;
					const char *mk = pane_top_grid_mark(r,
					    model_grid_at(m, c, a, rep), &role);
					wattrset(w, theme_attr(role));
					waddstr(w, mk);
				}
			}
			wattrset(w, theme_attr(THEME_NORMAL));
		}
		return;
	}
	r->plan_lines = (int)(m->ncells * m->narms);
	if (r->scroll[PANE_PLAN] > r->plan_lines - h)
		r->scroll[PANE_PLAN] = r->plan_lines - h > 0 ? r->plan_lines - h : 0;
	for (size_t c = 0; c < m->ncells; c++)
		for (size_t a = 0; a < m->narms; a++, line++) {
			if (line < r->scroll[PANE_PLAN] || y > h)
				continue;
			snprintf(buf, sizeof buf, "%s/%s", m->cells[c], m->arms[a]);
			render_put(w, y, 1, cw / 2, THEME_LABEL, buf);
			wmove(w, y, 1 + cw / 2);
			for (int rep = 1; rep <= m->reps && getcurx(w) <= cw; rep++) {
				int role;
				const char *mk = pane_top_grid_mark(r,
				    model_grid_at(m, c, a, rep), &role);
				wattrset(w, theme_attr(role));
				waddstr(w, mk);
			}
			wattrset(w, theme_attr(THEME_NORMAL));
			y++;
		}
}

static int
pane_top_plan_key(struct render *r, struct model *m, int key)
{
	(void)m;
	if (key == 'j' || key == KEY_DOWN || key == KEY_NPAGE)
		r->scroll[PANE_PLAN] += key == KEY_NPAGE ? 5 : 1;
	else if (key == 'k' || key == KEY_UP || key == KEY_PPAGE)
		r->scroll[PANE_PLAN] -= key == KEY_PPAGE ? 5 : 1;
	else
		return RENDER_KEY_UNHANDLED;
	if (r->scroll[PANE_PLAN] < 0)
		r->scroll[PANE_PLAN] = 0;
	return RENDER_KEY_HANDLED;
}

const struct render_pane_ops pane_quiet_ops = {
	.title = "Quiet box", .draw = pane_top_quiet_draw,
};
const struct render_pane_ops pane_current_ops = {
	.title = "Current leg", .draw = pane_top_current_draw,
};
const struct render_pane_ops pane_plan_ops = {
	.title = "Plan", .draw = pane_top_plan_draw, .key = pane_top_plan_key,
	.focusable = true,
};
