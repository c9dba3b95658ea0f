/* The legs table and the ratios pane. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "stats.h"
#include "theme.h"
#include "words.h"

enum col { C_CELL, C_ARM, C_REP, C_HOST, C_MARK, C_RC, C_WALL, C_CPU, C_VAL,
	C_IPC, C_RSS, C_FOR };

/* The table's columns for this draw: the fixed ones, then one per counter
 * or metric some leg has a value for (a counter the machine lacks, n/a in
 * every leg, takes no room), IPC when cycles and instructions both count.
 * At a narrow width the least useful go first (highest prio; the later of
 * equals first): foreign, IPC, metrics, the counters after the first,
 * rc, the first counter, cpu, maxrss. */
#define LEGS_COLS_MAX (C_FOR + MODEL_COLS_MAX + 1)
struct lcol {
	enum col kind;
	const struct model_col *mc;   /* C_VAL */
	char head[16];
	int width, prio;
	bool on;
};

static void
pane_legs_col_add(struct lcol *c, size_t *n, enum col kind, const char *head,
    int width, int prio, const struct model_col *mc)
{
	c[*n] = (struct lcol){ .kind = kind, .mc = mc, .width = width,
	    .prio = prio, .on = true };
	snprintf(c[*n].head, sizeof c[*n].head, "%s", head);
	(*n)++;
}

static size_t
pane_legs_columns(const struct model *m, int cw, struct lcol *c, int *namew)
{
	bool cyc = false, ins = false;
	size_t n = 0, nctr = 0;
	int total = 0;

	*namew = cw >= 120 ? 16 : cw >= 100 ? 12 : 9;
	pane_legs_col_add(c, &n, C_CELL, "cell", *namew, 0, NULL);
	pane_legs_col_add(c, &n, C_ARM, "arm", *namew, 0, NULL);
	pane_legs_col_add(c, &n, C_REP, "rep", 3, 0, NULL);
	if (m->several_hosts)
		pane_legs_col_add(c, &n, C_HOST, "host", 14, 1, NULL);
	pane_legs_col_add(c, &n, C_MARK, "", 1, 0, NULL);
	pane_legs_col_add(c, &n, C_RC, "rc", 4, 4, NULL);
	pane_legs_col_add(c, &n, C_WALL, "wall", 7, 0, NULL);
	pane_legs_col_add(c, &n, C_CPU, "cpu", 7, 2, NULL);
	for (size_t i = 0; i < m->ncols; i++) {
		const struct model_col *mc = &m->cols[i];
		const char *head = mc->name;

		if (!mc->seen)
			continue;
		cyc |= !mc->metric && strcmp(mc->name, "cycles") == 0;
		ins |= !mc->metric && strcmp(mc->name, "instructions") == 0;
		head = words_head(head);
		pane_legs_col_add(c, &n, C_VAL, head, 8, mc->metric ? 6 :
		    nctr++ == 0 ? 3 : 5, mc);
	}
	if (cyc && ins)
		pane_legs_col_add(c, &n, C_IPC, "IPC", 5, 7, NULL);
	pane_legs_col_add(c, &n, C_RSS, "maxrss", 7, 1, NULL);
	pane_legs_col_add(c, &n, C_FOR, "foreign", 7, 8, NULL);
	for (size_t i = 0; i < n; i++)
		total += c[i].width + 1;
	for (int p = 8; p > 0 && total > cw; p--)
		for (size_t i = n; i-- > 0 && total > cw;)
			if (c[i].on && c[i].prio == p) {
				c[i].on = false;
				total -= c[i].width + 1;
			}
	return n;
}

static const char *
pane_legs_mark(const struct model_leg *l, int *role)
{
	if (strcmp(l->status, "failed") == 0) { *role = THEME_BAD; return "!"; }
	if (strcmp(l->status, "timed_out") == 0) { *role = THEME_BAD; return "T"; }
	if (strcmp(l->status, "aborted") == 0) { *role = THEME_DIM; return "A"; }
	if (l->unquiet) { *role = THEME_WARN; return "~"; }
	*role = THEME_OK;
	return " ";
}

/* The column heads on row 1. */
static void
pane_legs_head(WINDOW *w, int cw, const struct lcol *col, size_t ncol)
{
	char buf[64];
	int x = 1;

	for (size_t c = 0; c < ncol; c++) {
		if (!col[c].on)
			continue;
		/* Cut to the column: heads never run into each other. */
		snprintf(buf, sizeof buf, col[c].kind <= C_ARM ? "%-*.*s" :
		    "%*.*s", col[c].width, col[c].width, col[c].head);
		render_put(w, 1, x, cw + 1 - x, THEME_LABEL, buf);
		x += col[c].width + 1;
	}
}

/* One cell of leg l's row into buf, right-aligned to the column; returns
 * its role (base, or dim for a value not measured). */
static int
pane_legs_cell(const struct model_leg *l, const struct lcol *c, bool sel,
    int base, char *buf, size_t len)
{
	int cwid = c->width, role = base;
	char d[32];
	double v;

	switch (c->kind) {
	case C_CELL: case C_ARM:
		snprintf(buf, len, "%-*.*s", cwid, cwid, c->kind == C_CELL ?
		    l->cell : l->arm);
		break;
	case C_HOST: {
		/* Its end: hosts on one network differ there (a port). */
		size_t hl = strlen(l->host);

		snprintf(buf, len, "%*.*s", cwid, cwid, l->host + (hl >
		    (size_t)cwid ? hl - (size_t)cwid : 0));
		break;
	}
	case C_REP:
		if (l->warmup > 0) /* a warm-up leg: wK */
			snprintf(buf, len, "%*s%d", cwid - 1 - (l->warmup > 9),
			    "w", l->warmup);
		else
			snprintf(buf, len, "%*d", cwid, l->rep);
		break;
	case C_MARK:
		snprintf(buf, len, "%s", pane_legs_mark(l, &role));
		role = sel ? base : role;
		break;
	case C_RC:
		if (l->has_rc)
			snprintf(buf, len, "%*d", cwid, l->rc);
		else if (l->signal[0])
			snprintf(buf, len, "%*.*s", cwid, cwid, strncmp(l->signal,
			    "SIG", 3) == 0 ? l->signal + 3 : l->signal);
		else
			snprintf(buf, len, "%*s", cwid, "-");
		break;
	case C_WALL: case C_CPU:
		/* The units every view uses: a 12.7 ms leg is 12.7ms. */
		words_secs(d, sizeof d, c->kind == C_WALL ? l->wall : l->cpu);
		snprintf(buf, len, "%*s", cwid, d);
		break;
	case C_VAL: case C_RSS:
		v = c->kind == C_RSS ? l->maxrss_kb : model_leg_value(l, c->mc);
		if (c->kind == C_RSS)
			words_bytes(d, sizeof d, v * 1024);
		else
			words_value(d, sizeof d, c->mc->name, v, true);
		snprintf(buf, len, "%*.*s", cwid, cwid, d);
		if (isnan(v) && !sel)
			role = THEME_DIM;
		break;
	case C_IPC:
		if (isnan(l->cycles) || isnan(l->instructions) ||
		    l->cycles <= 0) {
			snprintf(buf, len, "%*s", cwid, "n/a");
			role = sel ? base : THEME_DIM;
		} else
			snprintf(buf, len, "%*.2f", cwid, l->instructions /
			    l->cycles);
		break;
	case C_FOR:
		if (isnan(l->foreign))
			snprintf(buf, len, "%*s", cwid, "-");
		else
			snprintf(buf, len, "%*.2f", cwid, l->foreign);
		break;
	}
	return role;
}

/* Leg l's row at y: coloured by its status, or as the selection. */
static void
pane_legs_row(WINDOW *w, int y, int cw, const struct model_leg *l, bool sel,
    const struct lcol *col, size_t ncol)
{
	int base, x = 1;
	char buf[64];

	base = sel ? THEME_SELECTED : strcmp(l->status, "ok") == 0 ?
	    (l->unquiet ? THEME_WARN : THEME_NORMAL) :
	    strcmp(l->status, "aborted") == 0 ? THEME_DIM : THEME_BAD;
	for (size_t c = 0; c < ncol; c++) {
		int role;

		if (!col[c].on)
			continue;
		role = pane_legs_cell(l, &col[c], sel, base, buf, sizeof buf);
		render_put(w, y, x, cw + 1 - x, role, buf);
		x += col[c].width + 1;
	}
}

static void
pane_legs_draw(struct render *r, WINDOW *w, struct model *m, double now)
{
	int h = getmaxy(w) - 2, cw = getmaxx(w) - 2, namew, rows;
	struct lcol col[LEGS_COLS_MAX];
	size_t ncol;
	char buf[64];

	(void)now;
	ncol = pane_legs_columns(m, cw, col, &namew);
	pane_legs_head(w, cw, col, ncol);
	rows = h - 1;
	if (m->nlegs == 0) {
		render_put(w, 2, 1, cw, THEME_DIM, "no legs finished yet");
		return;
	}
	/* Newest first; the selection stays in view. */
	if (r->sel_leg >= m->nlegs)
		r->sel_leg = m->nlegs - 1;
	if ((int)r->sel_leg < r->scroll[PANE_LEGS])
		r->scroll[PANE_LEGS] = (int)r->sel_leg;
	if (rows > 0 && (int)r->sel_leg >= r->scroll[PANE_LEGS] + rows)
		r->scroll[PANE_LEGS] = (int)r->sel_leg - rows + 1;
	for (int k = 0; k < rows; k++) {
		size_t idx = (size_t)(r->scroll[PANE_LEGS] + k);

		if (idx >= m->nlegs)
			break;
		pane_legs_row(w, 2 + k, cw, &m->legs[m->nlegs - 1 - idx],
		    r->focus == PANE_LEGS && idx == r->sel_leg, col, ncol);
	}
	if (m->nlegs > (size_t)rows && rows > 0) {
		snprintf(buf, sizeof buf, " %zu/%zu ", r->sel_leg + 1, m->nlegs);
		render_put(w, h + 1, cw - (int)strlen(buf), (int)strlen(buf),
		    THEME_BORDER, buf);
	}
}

static int
pane_legs_key(struct render *r, struct model *m, int key)
{
	long sel = (long)r->sel_leg;

	switch (key) {
	case 'j': case KEY_DOWN: sel++; break;
	case 'k': case KEY_UP: sel--; break;
	case KEY_NPAGE: sel += 10; break;
	case KEY_PPAGE: sel -= 10; break;
	case '\n': case '\r': case KEY_ENTER:
		if (m->nlegs == 0)
			return RENDER_KEY_HANDLED;
		r->overlay = OVERLAY_LEG;
		r->detail_leg = m->nlegs - 1 - r->sel_leg;
		return RENDER_KEY_HANDLED | RENDER_KEY_DETAIL;
	default:
		return RENDER_KEY_UNHANDLED;
	}
	if (sel >= (long)m->nlegs)
		sel = (long)m->nlegs - 1;
	if (sel < 0)
		sel = 0;
	r->sel_leg = (size_t)sel;
	return RENDER_KEY_HANDLED;
}

static int
pane_legs_verdict_role(const char *v)
{
	if (!v) return THEME_UNKNOWN;
	if (strcmp(v, "above") == 0) return THEME_ABOVE;
	if (strcmp(v, "below") == 0) return THEME_BELOW;
	if (strcmp(v, "same") == 0) return THEME_WITHIN;
	if (strcmp(v, "undecided") == 0) return THEME_NORMAL;
	return THEME_UNKNOWN;
}

static double
pane_legs_num(const json_t *o, const char *k)
{
	const json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The columns of a ratio line after the label and metric: estimate,
 * interval, verdict (with SUSPECT), the ratios' range, then the strip. */
#define RATIO_EST_W 6
#define RATIO_CI_W 19
#define RATIO_VERDICT_W 18
#define RATIO_RANGE_W 18

/* One metric of one arm: estimate [interval] verdict range strip. */
static void
pane_legs_ratio_line(struct render *r, WINDOW *w, int y, int cw,
    const char *label, int labelw, const char *metric, int metricw,
    const json_t *mo, size_t min_n, bool show_range)
{
	char buf[200], est[16], lo[16], hi[16];
	const json_t *ratios = json_object_get(mo, "ratios"), *v;
	const json_t *ci = json_object_get(mo, "ci");
	const char *verdict = json_string_value(json_object_get(mo, "verdict"));
	bool none = json_integer_value(json_object_get(mo, "n")) == 0;
	bool suspect = json_is_true(json_object_get(mo, "suspect"));
	bool byhost = json_is_true(json_object_get(mo, "depends_on_machine"));
	int x = 1, strip;
	size_t i;

	/* A name too long for its column takes its short head (ctx-sw),
	 * not a cut. */
	snprintf(buf, sizeof buf, "%-*.*s %-*.*s", labelw, labelw, label,
	    metricw, metricw, (int)strlen(words_label(metric)) > metricw ?
	    words_head(metric) : words_label(metric));
	render_put(w, y, x, cw, none ? THEME_DIM : THEME_NORMAL, buf);
	x += (int)strlen(buf) + 1;
	render_fmt_ratio(est, sizeof est, pane_legs_num(mo, "estimate"));
	render_put(w, y, x, cw + 1 - x, none ? THEME_DIM :
	    pane_legs_verdict_role(verdict), est);
	x += RATIO_EST_W;
	if (json_is_array(ci)) {
		render_fmt_ratio(lo, sizeof lo, json_number_value(
		    json_array_get(ci, 0)));
		render_fmt_ratio(hi, sizeof hi, json_number_value(
		    json_array_get(ci, 1)));
		snprintf(buf, sizeof buf, "[%s, %s]", lo, hi);
		render_put(w, y, x, cw + 1 - x, THEME_NORMAL, buf);
	} else if (!none) {
		snprintf(buf, sizeof buf, "n < %zu: no interval", min_n);
		render_put(w, y, x, cw + 1 - x, THEME_DIM, buf);
	}
	x += RATIO_CI_W;
	/* Beside undecided, what its interval can see (words_verdict_short);
	 * a suspect verdict, or one whose hosts differ (BY HOST: the effect
	 * depends on the machine), says so instead. */
	if (suspect || byhost)
		snprintf(buf, sizeof buf, "%s", verdict ? verdict : "unknown");
	else
		words_verdict_short(buf, sizeof buf, mo);
	render_put(w, y, x, cw + 1 - x, pane_legs_verdict_role(verdict), buf);
	if (suspect || byhost)
		render_put(w, y, x + (int)strlen(buf) + 1, cw - x -
		    (int)strlen(buf), THEME_BAD, suspect && byhost ?
		    "SUSPECT HOST" : suspect ? "SUSPECT" : "BY HOST");
	x += RATIO_VERDICT_W;
	if (!show_range)
		goto strip;
	if (!none) {
		char a[32], b[32];

		/* The values, not a ratio: the arm's median and its
		 * comparison arm's, in the units every view uses. */
		words_value(a, sizeof a, metric, pane_legs_num(mo, "abs"), true);
		words_value(b, sizeof b, metric, pane_legs_num(mo, "vs_abs"),
		    true);
		snprintf(buf, sizeof buf, "%s vs %s", a, b);
		render_put(w, y, x, RATIO_RANGE_W - 1, THEME_LABEL, buf);
	}
	x += RATIO_RANGE_W;
strip:
	/* The per-rep ratios, scaled over their own range, coloured by the
	 * side of 1 they fall on. */
	strip = cw + 1 - x;
	if (strip <= 0)
		return;
	wmove(w, y, x);
	json_array_foreach(ratios, i, v) {
		double rv = json_is_number(v) ? json_number_value(v) : NAN;
		int role = isnan(rv) ? THEME_DIM : rv > 1 ? THEME_ABOVE :
		    rv < 1 ? THEME_BELOW : THEME_SPARK;
		if ((int)i >= strip)
			break;
		wattrset(w, theme_attr(role));
		waddstr(w, render_spark(r, rv, pane_legs_num(mo, "min"),
		    pane_legs_num(mo, "max")));
	}
	wattrset(w, theme_attr(THEME_NORMAL));
}

/* An adaptive cell's last look: decided, or how many of its arms are. */
static void
pane_legs_cell_look(WINDOW *w, int y, int *x, int cw, const json_t *look)
{
	const json_t *v;
	const char *arm;
	size_t n = 0, done = 0;
	char buf[160];

	if (!json_is_object(look))
		return;
	json_object_foreach((json_t *)json_object_get(look, "verdicts"), arm, v) {
		const char *s = json_string_value(v);
		n++;
		done += s && (strcmp(s, "above") == 0 || strcmp(s, "below") == 0 ||
		    strcmp(s, "same") == 0);
	}
	if (json_is_true(json_object_get(look, "decided")))
		snprintf(buf, sizeof buf, "decided at rep %lld (look %lld/%lld)",
		    (long long)json_integer_value(json_object_get(look, "rep")),
		    (long long)json_integer_value(json_object_get(look, "look")),
		    (long long)json_integer_value(json_object_get(look, "looks")));
	else
		snprintf(buf, sizeof buf, "look %lld/%lld at rep %lld: %zu of "
		    "%zu arms decided",
		    (long long)json_integer_value(json_object_get(look, "look")),
		    (long long)json_integer_value(json_object_get(look, "looks")),
		    (long long)json_integer_value(json_object_get(look, "rep")),
		    done, n);
	render_put(w, y, *x, cw + 1 - *x, THEME_WARN, buf);
	*x += (int)strlen(buf) + 2;
}

/* The cell's title line: its name, the A/A floor of wall and cpu, and
 * BIASED in the alarm colour when identical arms read differently. */
static void
pane_legs_cell_title(WINDOW *w, int y, int cw, const char *cname,
    const json_t *cell)
{
	const json_t *floor = json_object_get(cell, "floor");
	const json_t *biased = json_object_get(cell, "biased"), *b;
	char buf[256];
	size_t len, i;
	int x = 1;

	render_put(w, y, x, cw, THEME_TITLE, cname);
	x += (int)strlen(cname) + 2;
	len = 0;
	buf[0] = '\0';
	for (int i = 0; i < 2; i++) {
		const char *mk = i ? "cpu" : "wall";
		double f = pane_legs_num(floor, mk);
		if (isnan(f) || len >= sizeof buf)
			continue;
		/* Past 999% the number says nothing more. */
		len += (size_t)snprintf(buf + len, sizeof buf - len,
		    f >= 9.995 ? "%s%s >999%%" : "%s%s %.1f%%",
		    len ? ", " : "A/A floor: ", mk, 100 * f);
	}
	if (len > 0) {
		render_put(w, y, x, cw + 1 - x, THEME_LABEL, buf);
		x += (int)strlen(buf) + 2;
	}
	pane_legs_cell_look(w, y, &x, cw, json_object_get(cell, "look"));
	if (json_array_size(biased) == 0)
		return;
	len = (size_t)snprintf(buf, sizeof buf, "BIASED:");
	json_array_foreach(biased, i, b)
		if (len < sizeof buf)
			len += (size_t)snprintf(buf + len, sizeof buf - len,
			    "%s %s", i ? "," : "", json_string_value(b));
	if (len < sizeof buf)
		snprintf(buf + len, sizeof buf - len, " (A/A arms differ: "
		    "verdicts suspect)");
	render_put(w, y, x, cw + 1 - x, THEME_BAD, buf);
}

/* The ratios pane's lines as they are emitted: the widths for this draw,
 * the line count and the row drawn next, the cell being emitted. */
struct pane_legs_ratios {
	struct render *r;
	WINDOW *w;
	int h, cw, labelw, metricw;
	size_t min_n;
	bool show_range;
	int line, y;
	const char *cname;
	const json_t *cell;
};

/* Column widths from what there is to show, within what fits; the range
 * column only where the names keep their room. */
static void
pane_legs_ratio_widths(struct pane_legs_ratios *v, const json_t *cells)
{
	const json_t *cell;
	const char *cname;
	int room;

	v->labelw = 8;
	v->metricw = 6;
	json_object_foreach((json_t *)cells, cname, cell) {
		const json_t *arms = json_object_get(cell, "arms"), *arm, *mo;
		const char *aname, *mname;
		json_object_foreach((json_t *)arms, aname, arm) {
			const char *vs = json_string_value(json_object_get(arm,
			    "vs"));
			int l = (int)(strlen(aname) + strlen(vs ? vs : "?") + 5);

			v->labelw = l > v->labelw ? l : v->labelw;
			json_object_foreach(json_object_get(arm, "metrics"),
			    mname, mo) {
				int ml = (int)strlen(words_label(mname));
				v->metricw = ml > v->metricw ? ml : v->metricw;
			}
		}
	}
	room = v->cw - RATIO_EST_W - RATIO_CI_W - RATIO_VERDICT_W - 2;
	v->show_range = room - RATIO_RANGE_W >= v->labelw + (v->metricw < 12 ?
	    v->metricw : 12);
	if (v->show_range)
		room -= RATIO_RANGE_W;
	if (v->metricw > 16)
		v->metricw = 16;
	if (v->labelw + v->metricw > room) {
		/* Cut the metric names only as far as the labels need. */
		v->metricw = room - v->labelw > 7 ? room - v->labelw : 7;
		if (v->labelw > room - v->metricw)
			v->labelw = room - v->metricw > 10 ? room - v->metricw :
			    10;
	}
}

/* Count a line; whether it is in view.  A row scrolled to the top keeps
 * its cell's name above it. */
static bool
pane_legs_ratio_slot(struct pane_legs_ratios *v, bool title)
{
	if (v->line++ < v->r->scroll[PANE_RATIOS] || v->y > v->h)
		return false;
	if (v->y == 1 && !title && v->h > 1) {
		pane_legs_cell_title(v->w, v->y, v->cw, v->cname, v->cell);
		v->y++;
	}
	return true;
}

/* An arm's lines of one pass: its lead metrics (words_lead: requests/s,
 * latency, server cpu, wall, cpu, the leg's own metrics, bytes) in the
 * first, every other metric in the second. */
static void
pane_legs_ratio_arm(struct pane_legs_ratios *v, const char *aname,
    const json_t *arm, bool lead)
{
	const json_t *metrics = json_object_get(arm, "metrics"), *mo;
	const char *vs = json_string_value(json_object_get(arm, "vs"));
	const char *names[64], *mname;
	size_t n = 0;
	char label[160];

	snprintf(label, sizeof label, " %s vs %s", aname, vs ? vs : "?");
	if (lead)
		n = words_lead(metrics, names, sizeof names / sizeof names[0]);
	else
		json_object_foreach((json_t *)metrics, mname, mo)
			if (!words_is_lead(mname) &&
			    n < sizeof names / sizeof names[0])
				names[n++] = mname;
	for (size_t i = 0; i < n; i++) {
		mo = json_object_get(metrics, names[i]);
		if (pane_legs_ratio_slot(v, false))
			pane_legs_ratio_line(v->r, v->w, v->y++, v->cw, label,
			    v->labelw, names[i], v->metricw, mo, v->min_n,
			    v->show_range);
	}
}

/* A cell's lines in the order that matters at any height: the lead
 * metrics of every arm (the A/A copies after the others), then every
 * other metric. */
static void
pane_legs_ratio_cell(struct pane_legs_ratios *v)
{
	const json_t *arms = json_object_get(v->cell, "arms"), *arm;
	const char *aname;

	for (int pass = 0; pass < 3; pass++)
		json_object_foreach((json_t *)arms, aname, arm) {
			bool aa = json_is_string(json_object_get(arm, "aa_of"));

			if (pass < 2 ? aa == (pass == 1) : true)
				pane_legs_ratio_arm(v, aname, arm, pass < 2);
		}
}

static void
pane_legs_ratios_draw(struct render *r, WINDOW *w, struct model *m,
    double now)
{
	/* What the last complete report says: the console's loop brings it
	 * up to date in slices (model_ratios_advance), never a draw. */
	const json_t *rep = model_ratios_shown(m);
	const json_t *cells = json_object_get(rep, "cells");
	struct pane_legs_ratios v = { .r = r, .w = w, .h = getmaxy(w) - 2,
	    .cw = getmaxx(w) - 2, .y = 1 };

	(void)now;
	if (r->show_profiles) {
		pane_prof_draw(r, w, m);
		return;
	}
	if (!json_is_object(cells) || json_object_size(cells) == 0) {
		render_put(w, 1, 1, v.cw, THEME_DIM, rep == NULL && m->nlegs > 0 ?
		    "computing the ratios" : "no ratios yet (they need a leg of "
		    "each arm)");
		return;
	}
	v.min_n = stats_min_n(pane_legs_num(rep, "level"));
	pane_legs_ratio_widths(&v, cells);
	/* A taller window shows more: never scroll past the last line (the
	 * count of the previous draw; it changes only with new legs). */
	if (r->scroll[PANE_RATIOS] > r->ratio_lines - v.h)
		r->scroll[PANE_RATIOS] = r->ratio_lines - v.h;
	if (r->scroll[PANE_RATIOS] < 0)
		r->scroll[PANE_RATIOS] = 0;
	json_object_foreach((json_t *)cells, v.cname, v.cell) {
		if (pane_legs_ratio_slot(&v, true))
			pane_legs_cell_title(w, v.y++, v.cw, v.cname, v.cell);
		pane_legs_ratio_cell(&v);
	}
	r->ratio_lines = v.line;
	if (v.line > v.h && v.h > 0) {
		char pos[48];
		int last = r->scroll[PANE_RATIOS] + v.h;

		snprintf(pos, sizeof pos, " %d-%d/%d ", r->scroll[PANE_RATIOS] + 1,
		    last < v.line ? last : v.line, v.line);
		render_put(w, v.h + 1, v.cw - (int)strlen(pos), (int)strlen(pos),
		    THEME_BORDER, pos);
	}
}

static int
pane_legs_ratios_key(struct render *r, struct model *m, int key)
{
	int h = r->win[PANE_RATIOS] ? getmaxy(r->win[PANE_RATIOS]) - 2 : 1;

	(void)m;
	if (key == 'j' || key == KEY_DOWN || key == KEY_NPAGE)
		r->scroll[PANE_RATIOS] += key == KEY_NPAGE ? h : 1;
	else if (key == 'k' || key == KEY_UP || key == KEY_PPAGE)
		r->scroll[PANE_RATIOS] -= key == KEY_PPAGE ? h : 1;
	else
		return RENDER_KEY_UNHANDLED;
	if (r->scroll[PANE_RATIOS] > r->ratio_lines - h)
		r->scroll[PANE_RATIOS] = r->ratio_lines - h;
	if (r->scroll[PANE_RATIOS] < 0)
		r->scroll[PANE_RATIOS] = 0;
	return RENDER_KEY_HANDLED;
}

const struct render_pane_ops pane_legs_ops = {
	.title = "Legs (newest first)", .draw = pane_legs_draw,
	.key = pane_legs_key, .focusable = true,
};
const struct render_pane_ops pane_ratios_ops = {
	.title = "Ratios vs comparison arm", .draw = pane_legs_ratios_draw,
	.key = pane_legs_ratios_key, .focusable = true,
};
