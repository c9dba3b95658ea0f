/* render: layout, header, footer, overlays; the panes are in pane_*.c. */
#include <langinfo.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render.h"
#include "legcmd.h"
#include "theme.h"
#include "words.h"

static const struct render_pane_ops *const pane_ops[PANE_COUNT] = {
	[PANE_QUIET] = &pane_quiet_ops,
	[PANE_CURRENT] = &pane_current_ops,
	[PANE_PLAN] = &pane_plan_ops,
	[PANE_LEGS] = &pane_legs_ops,
	[PANE_RATIOS] = &pane_ratios_ops,
};

void
render_fmt_duration(char *buf, size_t len, double s)
{
	if (isnan(s) || s < 0)
		snprintf(buf, len, "--");
	else if (s < 10)
		snprintf(buf, len, "%.2fs", s);
	else if (s < 100)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 3600)
		snprintf(buf, len, "%dm%02ds", (int)s / 60, (int)s % 60);
	else
		snprintf(buf, len, "%dh%02dm", (int)s / 3600, (int)s / 60 % 60);
}

void
render_fmt_ratio(char *buf, size_t len, double v)
{
	/* At most 5 columns, the width the ratios pane gives a ratio. */
	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (v >= 99999.5)
		snprintf(buf, len, ">1e5");
	else if (v >= 99.995)
		snprintf(buf, len, "%.0f", v);
	else if (v >= 9.9995)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

void
render_put(WINDOW *w, int y, int x, int width, int role, const char *s)
{
	if (width <= 0)
		return;
	wattrset(w, theme_attr(role));
	mvwaddnstr(w, y, x, s, width);
	wattrset(w, theme_attr(THEME_NORMAL));
}

const char *
render_spark(const struct render *r, double v, double lo, double hi)
{
	static const char *const blocks[] = { "\u2581", "\u2582", "\u2583",
	    "\u2584", "\u2585", "\u2586", "\u2587", "\u2588" };
	static const char *const ascii[] = { "_", ".", "-", "~", "=", "+",
	    "*", "#" };
	int i;

	if (isnan(v))
		return " ";
	i = hi > lo ? (int)((v - lo) / (hi - lo) * 7 + 0.5) : 3;
	i = i < 0 ? 0 : i > 7 ? 7 : i;
	return r->utf8 ? blocks[i] : ascii[i];
}

void
render_init(struct render *r)
{
	const char *cs = nl_langinfo(CODESET);

	memset(r, 0, sizeof *r);
	r->utf8 = cs && strcmp(cs, "UTF-8") == 0;
	r->focus = PANE_LEGS;
	r->replay_speed = 1;
	render_layout(r);
}

void
render_finish(struct render *r)
{
	for (int i = 0; i < PANE_COUNT; i++)
		if (r->win[i])
			delwin(r->win[i]);
	if (r->overlay_win)
		delwin(r->overlay_win);
	memset(r->win, 0, sizeof r->win);
	r->overlay_win = NULL;
}

static WINDOW *
render_make_win(int h, int w, int y, int x)
{
	WINDOW *win;

	if (h < 1 || w < 1)
		return NULL;
	win = newwin(h, w, y, x);
	if (win)
		leaveok(win, TRUE);
	return win;
}

/* Header 2 rows, footer 1, a top band of quiet | current | plan, then the
 * legs table and the ratios, which get every extra row. */
void
render_layout(struct render *r)
{
	int rows = LINES, cols = COLS, top, body, legs, wq, wc;

	render_finish(r);
	r->rows = rows;
	r->cols = cols;
	top = rows >= 40 ? 8 : rows >= 28 ? 7 : 6;
	body = rows - 3 - top;
	if (body < 4) {
		top = 4;
		body = rows - 3 - top;
	}
	legs = (body + 1) / 2;
	wq = cols * 30 / 100;
	wc = cols * 38 / 100;
	r->win[PANE_HEADER] = render_make_win(2, cols, 0, 0);
	r->win[PANE_QUIET] = render_make_win(top, wq, 2, 0);
	r->win[PANE_CURRENT] = render_make_win(top, wc, 2, wq);
	r->win[PANE_PLAN] = render_make_win(top, cols - wq - wc, 2, wq + wc);
	r->win[PANE_LEGS] = render_make_win(legs, cols, 2 + top, 0);
	r->win[PANE_RATIOS] = render_make_win(body - legs, cols, 2 + top + legs,
	    0);
	r->win[PANE_FOOTER] = render_make_win(1, cols, rows - 1, 0);
	r->dirty = ~0u;
}

void
render_touch_all(struct render *r)
{
	r->dirty = ~0u;
}

/* The clocks: the header's elapsed time and ETA, the running leg's; the
 * quiet box counts the gate's wait. */
void
render_touch_clock(struct render *r, const struct model *m)
{
	r->dirty |= 1u << PANE_HEADER | 1u << PANE_CURRENT;
	if (m->gate_wait_since > 0)
		r->dirty |= 1u << PANE_QUIET;
}

#define PANE_BIT(p) (1u << (p))

void
render_touch_replay(struct render *r)
{
	r->dirty |= PANE_BIT(PANE_HEADER);
}

/* Which panes show each enum model_change bit, in bit order. */
static const unsigned render_change_panes[] = {
	/* STATE: the header's state and totals, the keys in the footer, the
	 * current leg pane's "paused", "complete"; the gate's line. */
	PANE_BIT(PANE_HEADER) | PANE_BIT(PANE_FOOTER) | PANE_BIT(PANE_CURRENT) |
	    PANE_BIT(PANE_QUIET),
	PANE_BIT(PANE_HEADER),   /* PROGRESS: legs n/N, failed, ETA, the bar */
	PANE_BIT(PANE_QUIET),    /* QUIET */
	PANE_BIT(PANE_CURRENT),  /* CURRENT */
	PANE_BIT(PANE_PLAN),     /* PLAN */
	PANE_BIT(PANE_LEGS),     /* LEGS */
	PANE_BIT(PANE_RATIOS),   /* RATIOS (and the profiles view) */
	PANE_BIT(PANE_FOOTER),   /* LOG: the newest warning and the count */
	0,                       /* CLOCK: see render_touch_changes */
};

_Static_assert(MODEL_CHANGE_ALL == (1u << sizeof render_change_panes /
    sizeof render_change_panes[0]) - 1, "one entry per enum model_change bit");

void
render_touch_changes(struct render *r, unsigned changes)
{
	for (size_t i = 0; i < sizeof render_change_panes /
	    sizeof render_change_panes[0]; i++)
		if (changes & (1u << i))
			r->dirty |= render_change_panes[i];
	/* A replay's clocks are the log's: they move with its events. */
	if ((changes & MODEL_CHANGE_CLOCK) && r->replay)
		r->dirty |= PANE_BIT(PANE_HEADER) | PANE_BIT(PANE_CURRENT);
}

static int
render_state_role(enum model_state s)
{
	switch (s) {
	case MODEL_RUNNING: return THEME_RUNNING;
	case MODEL_PAUSED: case MODEL_ABORTING: return THEME_WARN;
	case MODEL_ABORTED: case MODEL_FAILED: return THEME_BAD;
	case MODEL_COMPLETE: case MODEL_SEALED: return THEME_OK;
	default: return THEME_HEADER;
	}
}

static void
render_draw_header(struct render *r, WINDOW *w, struct model *m, double now)
{
	char line[512], el[32], eta[32], state[48];

	(void)r;
	int cols = getmaxx(w), x, barw;
	double frac, e = model_eta(m);

	wbkgdset(w, (chtype)theme_attr(THEME_HEADER) | ' ');
	werase(w);
	render_fmt_duration(el, sizeof el, model_elapsed(m, now));
	if (e < 0 || (m->legs_total && m->legs_done >= m->legs_total))
		snprintf(eta, sizeof eta, "--");
	else
		render_fmt_duration(eta, sizeof eta, e);
	snprintf(state, sizeof state, " %s ", model_state_name(m->state));
	snprintf(line, sizeof line, " benchtui  %s ", m->name[0] ? m->name :
	    "(no round yet)");
	render_put(w, 0, 0, cols, THEME_HEADER, line);
	x = (int)strlen(line) < cols ? (int)strlen(line) : cols;
	render_put(w, 0, x, cols - x, render_state_role(m->state), state);
	x += (int)strlen(state);
	if (m->state == MODEL_ABORTED && m->abort_reason[0]) {
		snprintf(line, sizeof line, "(%s) ", m->abort_reason);
		render_put(w, 0, x, cols - x, THEME_HEADER, line);
		x += (int)strlen(line);
	}
	if (m->legs_total)
		snprintf(line, sizeof line, " %s%s  legs %zu/%zu  ETA %s",
		    cols >= 90 ? "elapsed " : "", el, m->legs_done, m->legs_total, eta);
	else
		snprintf(line, sizeof line, " %s%s  legs %zu",
		    cols >= 90 ? "elapsed " : "", el,
		    m->legs_done);
	if (m->legs_failed)
		snprintf(line + strlen(line), sizeof line - strlen(line),
		    "  failed %zu", m->legs_failed);
	render_put(w, 0, x, cols - x, THEME_HEADER, line);

	/* Row 2: folder (or the replay's state) and progress bar. */
	barw = cols / 3;
	if (r->replay)
		snprintf(line, sizeof line, " replay %s x%g  event %zu/%zu  %s",
		    r->replay_playing ? "playing" : "stopped", r->replay_speed,
		    r->replay_pos, r->replay_len, m->dir ? m->dir : "");
	else if (r->hunt[0])
		snprintf(line, sizeof line, " %s", r->hunt);
	else
		snprintf(line, sizeof line, " %s", m->dir ? m->dir : "");
	render_put(w, 1, 0, cols - barw - 7, THEME_HEADER, line);
	frac = m->legs_total ? (double)m->legs_done / (double)m->legs_total : 0;
	if (frac > 1)
		frac = 1;
	x = cols - barw - 6;
	if (x < 0 || barw < 4)
		return;
	wattrset(w, theme_attr(THEME_HEADER));
	mvwaddch(w, 1, x, '[');
	for (int i = 0; i < barw; i++) {
		bool full = i < (int)(frac * barw + 0.5);
		wattrset(w, theme_attr(full ? THEME_BAR : THEME_HEADER));
		waddstr(w, full ? (r->utf8 ? "\u2588" : "#") : (r->utf8 ? "\u00b7" : "."));
	}
	snprintf(line, sizeof line, "]%3d%%", (int)(frac * 100 + 0.5));
	render_put(w, 1, x + 1 + barw, 5, THEME_HEADER, line);
}

/* The footer's keys in the order they show, each with the rank it keeps
 * when the width runs out (0 first): quitting, help and steering before
 * the keys the help lists too. */
struct render_key_hint {
	const char *key, *what;
	int rank;
};

/* Which of keys[0..n) fit in width columns, by rank: keep[i]. */
static void
render_footer_fit(const struct render_key_hint *keys, size_t n, int width,
    bool *keep)
{
	int used = 0;

	for (size_t i = 0; i < n; i++)
		keep[i] = false;
	for (int rank = 0; rank < 16; rank++)
		for (size_t i = 0; i < n; i++) {
			int w = (int)(strlen(keys[i].key) + strlen(keys[i].what)) + 3;

			if (keys[i].rank == rank && used + w <= width) {
				keep[i] = true;
				used += w;
			}
		}
}

static void
render_draw_footer(struct render *r, WINDOW *w, struct model *m)
{
	static const struct render_key_hint live[] = {
		{ "p", "pause", 2 }, { "a", "abort", 3 }, { "q", "quit", 0 },
		{ "?", "help", 1 }, { "w", "messages", 6 }, { "Tab", "pane", 7 },
		{ "Enter", "leg", 8 }, { "j/k", "scroll", 9 },
		{ "f", "profiles", 4 }, { "t", "theme", 5 },
	};
	/* Only keys replay_key and the panes really take. */
	static const struct render_key_hint replay[] = {
		{ "space", "play", 2 }, { "+/-", "speed", 4 }, { "h/l", "step", 3 },
		{ "Home/End", "ends", 5 }, { "q", "quit", 0 }, { "?", "help", 1 },
		{ "w", "messages", 7 }, { "Tab", "pane", 8 }, { "Enter", "leg", 9 },
		{ "f", "profiles", 6 },
	};
	const struct render_key_hint *keys = r->replay ? replay : live;
	size_t n = r->replay ? sizeof replay / sizeof replay[0] :
	    sizeof live / sizeof live[0];
	int cols = getmaxx(w), x = 0;
	bool keep[16], warn = r->message[0] || model_last_warning(m)[0];
	char buf[200];

	wbkgdset(w, (chtype)theme_attr(THEME_FOOTER) | ' ');
	werase(w);
	if (!r->replay && (m->state == MODEL_COMPLETE || m->state == MODEL_SEALED ||
	    m->state == MODEL_ABORTED || m->state == MODEL_FAILED)) {
		/* The round is over: only quitting and looking remain. */
		keys = live + 2;
		n -= 2;
	}
	/* Whole hints only, the most useful first, and room left for the
	 * newest warning: the rest are in the help. */
	render_footer_fit(keys, n, warn && cols >= 60 ? cols - 24 : cols, keep);
	for (size_t i = 0; i < n && x < cols; i++) {
		if (!keep[i])
			continue;
		snprintf(buf, sizeof buf, " %s", keys[i].key);
		render_put(w, 0, x, cols - x, THEME_KEY, buf);
		x += (int)strlen(buf);
		snprintf(buf, sizeof buf, " %s ", strcmp(keys[i].key, "p") == 0 &&
		    m->state == MODEL_PAUSED ? "resume" : keys[i].what);
		render_put(w, 0, x, cols - x, THEME_FOOTER, buf);
		x += (int)strlen(buf);
	}
	if (warn) {
		/* The newest warning, cut (at 159 bytes, then the width);
		 * w shows them all, whole. */
		if (r->message[0])
			snprintf(buf, sizeof buf, " %s", r->message);
		else
			snprintf(buf, sizeof buf, " [%zu] %.159s", m->nlog +
			    m->log_dropped, model_last_warning(m));
		if (x + 4 < cols)
			render_put(w, 0, x + 1, cols - x - 1, THEME_WARN, buf);
	}
}

static void
render_draw_pane(struct render *r, int p, struct model *m, double now)
{
	WINDOW *w = r->win[p];
	const struct render_pane_ops *ops = pane_ops[p];
	char title[96];

	werase(w);
	wattrset(w, theme_attr(r->focus == p ? THEME_FOCUS : THEME_BORDER));
	box(w, 0, 0);
	snprintf(title, sizeof title, " %s ", p == PANE_RATIOS &&
	    r->show_profiles ? "Profiles beside the comparison arm (f: "
	    "ratios)" : ops->title);
	render_put(w, 0, 2, getmaxx(w) - 4, r->focus == p ? THEME_FOCUS :
	    THEME_TITLE, title);
	ops->draw(r, w, m, now);
}

static const char *const help_text[] = {
	"Keys   p pause/resume   a abort (y/n, resumable)   g run the held leg now",
	"       G let the rest of the round past the quiet gate (no more waits)",
	"       q quit (Ctrl-C; twice: abort and quit at once)   w messages",
	"       t theme   ? help   Tab pane   j/k PgUp/PgDn scroll   f profiles",
	"       Enter the leg: command, env, counters, output",
	"Replay space play/stop   + - speed   h l step a leg   Home End ends",
	"Plan   # done   > running   x failed   . to run",
	"Legs   ~ not quiet: other programs used more CPU than the gate allows,",
	"       or the gate let the leg go anyway (g/G, timeout, budget)",
	"       ! failed   T timed out   A aborted (runs again on resume)",
	"       w1 a warm-up leg (never counted)   n/a: not measured here",
	"cores  foreign CPU use: 1.00 = one whole CPU busy outside the round",
	"Ratios arm/its comparison arm, paired rep by rep; estimate [interval]",
	"floor  the A/A noise floor: how far two identical arms differ",
	"Verdicts  same: within the margin   above / below: the interval is",
	"       wholly above / below 1   undecided: more reps would tell",
	"       unknown: too few reps for an interval   SUSPECT/BIASED: the",
	"       A/A arms differ, so the round measures something else too",
	"       BY HOST: the hosts differ; the effect depends on the machine",
	"",
	"Any key closes this help.",
};

static void
render_draw_box(struct render *r, const char *title, const char *const *lines,
    size_t n, int width)
{
	int h = (int)n + 2, w = width + 4;
	WINDOW *win;

	if (h > r->rows)
		h = r->rows;
	if (w > r->cols)
		w = r->cols;
	if (r->overlay_win)
		delwin(r->overlay_win);
	win = r->overlay_win = newwin(h, w, (r->rows - h) / 2, (r->cols - w) / 2);
	if (!win)
		return;
	wbkgdset(win, (chtype)theme_attr(THEME_OVERLAY) | ' ');
	werase(win);
	wattrset(win, theme_attr(THEME_FOCUS));
	box(win, 0, 0);
	render_put(win, 0, 2, w - 4, THEME_FOCUS, title);
	for (size_t i = 0; i < n && (int)i < h - 2; i++)
		render_put(win, (int)i + 1, 2, w - 4, THEME_OVERLAY, lines[i]);
	wnoutrefresh(win);
}

/* The leg pop-up's lines: every one cut to the box's width, long ones
 * wrapped onto more lines (indented), so a long command or output line is
 * read whole. */
#define DETAIL_LINES 64
struct detail {
	char buf[DETAIL_LINES][256];
	const char *lines[DETAIL_LINES];
	size_t n;
	int width;
};

static void
render_detail_add(struct detail *d, const char *text)
{
	size_t len = strlen(text), off = 0, w = (size_t)(d->width > 8 ?
	    d->width : 8);

	do {
		size_t take = len - off, ind = off > 0 ? 4 : 0;

		if (d->n >= DETAIL_LINES)
			return;
		if (take > w - ind)
			take = w - ind;
		if (take > sizeof d->buf[0] - 1 - ind)
			take = sizeof d->buf[0] - 1 - ind;
		/* Never split a UTF-8 sequence; break at a space when there
		 * is one near the end. */
		while (off + take < len && take > 1 &&
		    ((unsigned char)text[off + take] & 0xc0) == 0x80)
			take--;
		if (off + take < len) {
			size_t sp = take;

			while (sp > take * 3 / 4 && text[off + sp] != ' ')
				sp--;
			if (text[off + sp] == ' ')
				take = sp + 1;
		}
		snprintf(d->buf[d->n], sizeof d->buf[0], "%*s%.*s", (int)ind, "",
		    (int)take, text + off);
		d->lines[d->n] = d->buf[d->n];
		d->n++;
		off += take;
	} while (off < len);
}

static void __attribute__((format(printf, 2, 3)))
render_detail_addf(struct detail *d, const char *fmt, ...)
{
	char line[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	render_detail_add(d, line);
}

/* "name value" pairs of a leg's counters or metrics on one line. */
static void
render_detail_values(struct detail *d, const char *label, const json_t *o)
{
	char line[2048];
	size_t len = 0;
	const char *key;
	json_t *v;

	if (!json_is_object(o) || json_object_size(o) == 0)
		return;
	len = (size_t)snprintf(line, sizeof line, "%s:", label);
	json_object_foreach((json_t *)o, key, v) {
		char num[96];

		char w[32];

		/* In the units of every view, the count itself beside. */
		words_value(w, sizeof w, key, json_is_number(v) ?
		    json_number_value(v) : NAN, false);
		if (json_is_integer(v) && json_integer_value(v) >= 1000)
			snprintf(num, sizeof num, "%s (%lld)", w,
			    (long long)json_integer_value(v));
		else
			snprintf(num, sizeof num, "%s", w);
		if (len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len,
			    "  %s %s", key, num);
	}
	render_detail_add(d, line);
}

/* The command as it ran: the argv and env the engine built for this leg,
 * from its leg_start event. */
static void
render_detail_command(struct detail *d, const struct model_leg *l)
{
	const json_t *start = l->start, *v;

	v = start != NULL ? json_object_get(start, "argv") : NULL;
	if (json_is_array(v)) {
		char *argv[256], *line;
		size_t k = 0, i;
		json_t *a;

		json_array_foreach(v, i, a)
			if (k < 255 && json_is_string(a))
				argv[k++] = (char *)json_string_value(a);
		argv[k] = NULL;
		line = legcmd_argv_line(argv);
		render_detail_addf(d, "command: %s", line != NULL ? line : "?");
		free(line);
	} else {
		v = json_object_get(l->ev, "bin");
		render_detail_addf(d, "command: not in this log (bin %s)",
		    json_is_string(v) ? json_string_value(v) : "?");
	}
	v = start != NULL ? json_object_get(start, "env") : NULL;
	if (json_is_object(v) && json_object_size(v) > 0) {
		char env[1024] = "";
		const char *key;
		json_t *val;

		json_object_foreach((json_t *)v, key, val)
			snprintf(env + strlen(env), sizeof env - strlen(env),
			    "%s=%s ", key, json_is_string(val) ?
			    json_string_value(val) : "?");
		render_detail_addf(d, "env overrides: %s", env);
	} else if (json_is_object(v)) {
		render_detail_add(d, "env overrides: (none)");
	}
}

/* Where its output went, how much of it, and its tail. */
static void
render_detail_output(struct detail *d, const struct render *r,
    const struct model_leg *l)
{
	const json_t *v = json_object_get(l->start ? l->start : l->ev, "out");
	const json_t *ob = json_object_get(l->ev, "output_bytes");
	char size[64] = "";

	/* A leg that wrote nothing has no file (it is made at the first
	 * byte). */
	if (json_is_integer(ob) && json_integer_value(ob) == 0) {
		render_detail_addf(d, "output: none (the leg wrote nothing)");
		return;
	}
	if (json_is_integer(ob))
		snprintf(size, sizeof size, " (%lld bytes%s)", (long long)
		    json_integer_value(ob), json_is_true(json_object_get(
		    l->ev, "output_truncated")) ? ", cut at max_bytes" : "");
	render_detail_addf(d, "output %s%s:", json_is_string(v) ?
	    json_string_value(v) : "(not logged)", size);
	for (int i = 0; i < RENDER_TAIL_LINES; i++)
		if (r->detail_tail[i][0])
			render_detail_addf(d, "  %s", r->detail_tail[i]);
}

/* Enter on a leg: the command and env it ran with (its leg_start), its
 * result with every counter and metric, and the tail of its output (read
 * and escaped by the console into detail_tail). */
static void
render_draw_leg_detail(struct render *r, struct model *m)
{
	static struct detail d;
	char rcs[16], rep[32], wall[32], cpu[32], rss[32];
	const struct model_leg *l;
	const json_t *v;

	if (r->detail_leg >= m->nlegs)
		return;
	d.n = 0;
	d.width = r->cols - 8;
	l = &m->legs[r->detail_leg];
	if (l->warmup > 0)
		snprintf(rep, sizeof rep, "warm-up %d", l->warmup);
	else
		snprintf(rep, sizeof rep, "rep %d", l->rep);
	render_detail_addf(&d, "%s / %s / %s   seq %d   status %s", l->cell,
	    l->arm, rep, l->seq, l->status);
	render_detail_command(&d, l);
	if (l->has_rc)
		snprintf(rcs, sizeof rcs, "%d", l->rc);
	render_detail_addf(&d, "rc %s  signal %s  wall %s  cpu %s  maxrss %s",
	    l->has_rc ? rcs : "null", l->signal[0] ? l->signal : "none",
	    words_secs(wall, sizeof wall, l->wall), words_secs(cpu, sizeof cpu,
	    l->cpu), words_bytes(rss, sizeof rss, l->maxrss_kb * 1024));
	render_detail_values(&d, "counters", json_object_get(l->ev,
	    "counters"));
	render_detail_values(&d, "metrics", json_object_get(l->ev, "metrics"));
	v = json_object_get(l->ev, "prepare_rc");
	if (json_is_integer(v))
		render_detail_addf(&d, "prepare exited %lld", (long long)
		    json_integer_value(v));
	render_detail_output(&d, r, l);
	render_detail_add(&d, "");
	render_detail_add(&d, "Esc or Enter closes.");
	render_draw_box(r, " leg ", d.lines, d.n, r->cols - 8);
}

/* The message log (w): every warning, newest at the bottom, wrapped;
 * j/k and PgUp/PgDn scroll it. */
static void
render_draw_log(struct render *r, struct model *m)
{
	static struct detail d;
	size_t end, start, first;
	int h = r->rows - 4;
	char title[64];

	d.n = 0;
	d.width = r->cols - 8;
	if (h < 1)
		h = 1;
	if (r->log_back >= m->nlog)
		r->log_back = m->nlog > 0 ? m->nlog - 1 : 0;
	end = m->nlog - (m->nlog > 0 ? r->log_back : 0);
	start = end > (size_t)h ? end - (size_t)h : 0;
	if (m->nlog == 0)
		render_detail_add(&d, "No warnings so far.");
	if (start == 0 && m->log_dropped > 0)
		render_detail_addf(&d, "(%zu older messages dropped)",
		    m->log_dropped);
	for (size_t i = start; i < end; i++)
		render_detail_add(&d, m->log[i]);
	/* Wrapped entries take more than one line: keep the newest. */
	first = d.n > (size_t)h ? d.n - (size_t)h : 0;
	snprintf(title, sizeof title, " messages %zu/%zu  (j/k scroll, w or Esc "
	    "closes) ", end, m->nlog);
	render_draw_box(r, title, d.lines + first, d.n - first, r->cols - 8);
}

void
render_draw(struct render *r, struct model *m, double now)
{
	if (r->rows != LINES || r->cols != COLS)
		render_layout(r);
	if (LINES < RENDER_MIN_ROWS || COLS < RENDER_MIN_COLS) {
		/* Too small for the panes: one line that says so, not a
		 * broken layout.  The round runs on; q still quits. */
		char line[160];

		snprintf(line, sizeof line, "terminal %dx%d too small: needs "
		    "%dx%d (q quits)", COLS, LINES, RENDER_MIN_COLS,
		    RENDER_MIN_ROWS);
		werase(stdscr);
		mvaddnstr(0, 0, line, COLS);
		wnoutrefresh(stdscr);
		doupdate();
		r->dirty = ~0u;
		return;
	}
	/* An overlay is drawn again over whatever panes changed under it
	 * (doupdate sends only the cells that differ); opening and closing
	 * one redraws every pane (render_touch_all). */
	for (int p = 0; p < PANE_COUNT; p++) {
		if (!(r->dirty & (1u << p)) || !r->win[p])
			continue;
		if (p == PANE_HEADER)
			render_draw_header(r, r->win[p], m, now);
		else if (p == PANE_FOOTER)
			render_draw_footer(r, r->win[p], m);
		else
			render_draw_pane(r, p, m, now);
		wnoutrefresh(r->win[p]);
	}
	r->dirty = 0;
	switch (r->overlay) {
	case OVERLAY_HELP:
	{
		/* The plan's symbols as this terminal shows them. */
		const char *lines[sizeof help_text / sizeof help_text[0]];

		for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
			lines[i] = help_text[i];
		if (r->utf8)
			lines[5] = "Plan   \u25a0 done   \u25b6 running   x failed   "
			    "\u00b7 to run";
		render_draw_box(r, " help ", lines, sizeof lines / sizeof lines[0],
		    70);
	}
		break;
	case OVERLAY_CONFIRM_ABORT: {
		const char *l[] = { "Abort the round?  The leg running now is ended;",
		    "the round stays resumable (benchtui resume DIR).", "",
		    "y: abort     n: carry on" };
		render_draw_box(r, " abort ", l, 4, 50);
		break;
	}
	case OVERLAY_CONFIRM_QUIT: {
		const char *l[] = { "The round is still running.",
		    "Abort it (resumable) and quit?", "",
		    "y: abort and quit     n: carry on" };
		render_draw_box(r, " quit ", l, 4, 50);
		break;
	}
	case OVERLAY_LEG:
		render_draw_leg_detail(r, m);
		break;
	case OVERLAY_LOG:
		render_draw_log(r, m);
		break;
	case OVERLAY_NONE:
		break;
	}
	doupdate();
}

int
render_key(struct render *r, struct model *m, int key)
{
	static const int order[] = { PANE_LEGS, PANE_RATIOS, PANE_PLAN };
	const struct render_pane_ops *ops;

	if (r->overlay == OVERLAY_LOG) {
		switch (key) {
		case 'k': case KEY_UP: r->log_back++; break;
		case 'j': case KEY_DOWN: if (r->log_back) r->log_back--; break;
		case KEY_PPAGE: r->log_back += 10; break;
		case KEY_NPAGE: r->log_back = r->log_back > 10 ?
		    r->log_back - 10 : 0; break;
		case KEY_HOME: r->log_back = m->nlog; break;
		case KEY_END: r->log_back = 0; break;
		default: r->overlay = OVERLAY_NONE; break;
		}
		render_touch_all(r);
		return RENDER_KEY_HANDLED;
	}
	if (r->overlay == OVERLAY_LEG || r->overlay == OVERLAY_HELP) {
		r->overlay = OVERLAY_NONE;
		render_touch_all(r);
		return RENDER_KEY_HANDLED;
	}
	if (key == 'f' || key == 'F') {
		/* the ratios pane: ratios or profiles */
		r->show_profiles = !r->show_profiles;
		r->scroll[PANE_RATIOS] = 0;
		r->dirty |= 1u << PANE_RATIOS;
		return RENDER_KEY_HANDLED;
	}
	if (key == '\t' || key == KEY_BTAB) {
		size_t i = 0, n = sizeof order / sizeof order[0];
		while (i < n && order[i] != r->focus)
			i++;
		r->focus = order[(i + (key == '\t' ? 1 : n - 1)) % n];
		render_touch_all(r);
		return RENDER_KEY_HANDLED;
	}
	ops = pane_ops[r->focus];
	if (ops && ops->key) {
		int rc = ops->key(r, m, key);
		if (rc)
			r->dirty |= 1u << r->focus;
		return rc;
	}
	return RENDER_KEY_UNHANDLED;
}
