/* The ratios pane's profiles view: each profiled arm beside its comparison
 * arm, from the report's "profiles" (profdiff.h) -- symbol samples and
 * shares, the move in points and in ms per run, largest first, noise
 * marked "~" and what moved in the A/A pair too "!"; the callers of the symbols that moved most; syscalls per
 * request side by side with their ratio.  It scrolls (j/k) and shows its
 * position like the ratios it replaces. */
#include <stdio.h>
#include <string.h>

#include "render.h"
#include "words.h"
#include "theme.h"

/* Rows shown per profile; the report has them all. */
#define PANE_PROF_ROWS 12

int
pane_prof_headlines(struct model *m, char (*lines)[160], int n)
{
	const json_t *profiles = json_object_get(model_ratios_shown(m),
	    "profiles");
	const json_t *c, *a, *p;
	const char *cell, *arm, *kind;
	int k = 0;

	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p) {
		const char *vs = json_string_value(json_object_get(p, "vs"));
		const json_t *top = json_array_get(json_object_get(p,
		    strcmp(kind, "perf") == 0 ? "symbols" : "syscalls"), 0);
		const char *name = json_string_value(json_object_get(top,
		    strcmp(kind, "perf") == 0 ? "symbol" : "syscall"));
		const json_t *d = json_object_get(top, "diff");

		if (k >= n || vs == NULL || name == NULL || !json_is_number(d))
			continue;
		snprintf(lines[k++], 160, "%s %s vs %s: %s %+.1f %s", cell, arm,
		    vs, name, json_number_value(d), strcmp(kind, "perf") == 0 ?
		    "pts" : "calls/req");
	}
	return k;
}

static double
pane_prof_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : -1;
}

/* The name column: what the numbers leave, within 12..48. */
static int
pane_prof_namew(int cw)
{
	int n = cw - 44;

	return n < 12 ? 12 : n > 48 ? 48 : n;
}

/* A perf row: name, samples and share of each arm, the move in points
 * and in ms per run, "~" where the move is noise. */
static void
pane_prof_perf_row(WINDOW *w, int y, int cw, const json_t *row, bool vs)
{
	const char *name = json_string_value(json_object_get(row, "symbol"));
	double d = pane_prof_num(row, "diff");
	bool noise = json_is_true(json_object_get(row, "noise"));
	/* moved in the cell's A/A pair too: "!" beside the move */
	const char *aa = json_is_true(json_object_get(row, "unstable")) ?
	    "!" : "";
	int x = 2 + pane_prof_namew(cw);
	char buf[80], cut[256];

	/* Cut so that a symbol never passes for a file name. */
	render_put(w, y, 2, pane_prof_namew(cw), THEME_NORMAL, words_cut(cut,
	    sizeof cut, name ? name : "?", pane_prof_namew(cw)));
	snprintf(buf, sizeof buf, "%6.0f %5.1f", pane_prof_num(row, "samples"),
	    pane_prof_num(row, "share"));
	render_put(w, y, x, 12, json_is_true(json_object_get(row, "unstable")) ?
	    THEME_WARN : THEME_NORMAL, buf);
	if (!vs)
		return;
	snprintf(buf, sizeof buf, "%6.0f %5.1f", pane_prof_num(row,
	    "vs_samples"), pane_prof_num(row, "vs_share"));
	render_put(w, y, x + 13, 12, THEME_LABEL, buf);
	if (json_is_number(json_object_get(row, "time_moved_ms")))
		snprintf(buf, sizeof buf, "%+6.1f %+7.2f%s%s", d,
		    pane_prof_num(row, "time_moved_ms"), noise ? " ~" : " ", aa);
	else
		snprintf(buf, sizeof buf, "%+6.1f %7s%s%s", d, "", noise ? " ~" :
		    " ", aa);
	render_put(w, y, x + 26, 17, noise ? THEME_DIM : d > 0 ? THEME_ABOVE :
	    d < 0 ? THEME_BELOW : THEME_NORMAL, buf);
}

static void
pane_prof_sys_row(WINDOW *w, int y, int cw, const json_t *row, bool vs)
{
	const char *name = json_string_value(json_object_get(row, "syscall"));
	double x = pane_prof_num(row, "per_request"),
	    v = pane_prof_num(row, "vs_per_request"),
	    q = pane_prof_num(row, "ratio");
	int col = 2 + pane_prof_namew(cw);
	char buf[80];

	if (x < 0) {
		x = pane_prof_num(row, "calls");
		v = pane_prof_num(row, "vs_calls");
	}
	render_put(w, y, 2, pane_prof_namew(cw), THEME_NORMAL, name ? name :
	    "?");
	snprintf(buf, sizeof buf, "%8.0f %9.4g", pane_prof_num(row, "calls"),
	    x);
	render_put(w, y, col, 18, THEME_NORMAL, buf);
	if (vs) {
		snprintf(buf, sizeof buf, "%9.4g %6.3f", v, q);
		render_put(w, y, col + 19, 16, q > 1 ? THEME_ABOVE : q < 1 &&
		    q >= 0 ? THEME_BELOW : THEME_NORMAL, buf);
	}
}

/* What moved in the cell's A/A pair, shown beside the real profile: its
 * symbols are marked "!" (unstable) in every profile of the kind. */
static void
pane_prof_aa(const json_t *aa, char *line)
{
	const json_t *moved = json_object_get(aa, "moved"), *m;
	size_t i, k;

	k = (size_t)snprintf(line, 200, "%s A/A pair (%s vs %s): ",
	    json_array_size(moved) > 0 ? "!" : " ", json_string_value(
	    json_object_get(aa, "arm")), json_string_value(json_object_get(aa,
	    "vs")));
	if (k >= 150)
		return;  /* long arm names: the line ends with them */
	if (json_array_size(moved) == 0)
		snprintf(line + k, 200 - k, "nothing moved");
	json_array_foreach(moved, i, m) {
		if (k >= 150) {
			snprintf(line + k, 200 - k, ", ...");
			break;
		}
		k += (size_t)snprintf(line + k, 200 - k, "%s%s %+.1f", i ? ", " :
		    "", json_string_value(json_object_get(m, "symbol")),
		    pane_prof_num(m, "diff"));
		if (k >= 200)
			return;  /* cut where the line ends */
	}
	if (json_array_size(moved) > 0 && k < 170)
		snprintf(line + k, 200 - k, " (marked ! unstable)");
}

/* A profile's title and what to know before its rows: samples and runs,
 * the software clock, under min_samples, a failure's reason. */
static void
pane_prof_head(const char *cell, const char *arm, const char *kind,
    const json_t *p, char (*lines)[200], int *n)
{
	const char *vs = json_string_value(json_object_get(p, "vs")),
	    *st = json_string_value(json_object_get(p, "status"));

	snprintf(lines[(*n)++], 200, "%s  %s%s%s  %s", cell, arm, vs ? " vs " :
	    "", vs ? vs : "", kind);
	if (st != NULL && strcmp(st, "ok") != 0) {
		snprintf(lines[(*n)++], 200, "! %s: %s", st, json_string_value(
		    json_object_get(p, "reason")) ?: "");
		return;
	}
	if (strcmp(kind, "syscalls") != 0) {
		char runs[32] = "", more[64] = "";

		if (pane_prof_num(p, "runs") > 0)
			snprintf(runs, sizeof runs, " from %.0f runs",
			    pane_prof_num(p, "runs"));
		if (vs != NULL)
			snprintf(more, sizeof more, "; %s %.0f", vs,
			    pane_prof_num(p, "vs_samples"));
		snprintf(lines[(*n)++], 200, "  %.0f samples%s%s%s",
		    pane_prof_num(p, "samples"), runs, more, json_is_true(
		    json_object_get(p, "software_clock")) ?
		    "  (software clock: no PMU)" : "");
	}
	if (json_is_string(json_object_get(p, "unwind")))
		snprintf(lines[(*n)++], 200, "  call chains: %s; no caller "
		    "%.1f%%%s", json_string_value(json_object_get(p, "unwind")),
		    pane_prof_num(p, "samples") > 0 ? 100 * pane_prof_num(p,
		    "no_caller") / pane_prof_num(p, "samples") : 0,
		    strcmp(json_string_value(json_object_get(p, "unwind")),
		    "fp") == 0 ? " (frame pointers: a leaf's caller may be "
		    "skipped; --call-graph dwarf gets it right)" : "");
	if (json_object_get(p, "aa") != NULL)
		pane_prof_aa(json_object_get(p, "aa"), lines[(*n)++]);
	if (json_is_true(json_object_get(p, "under_min_samples")) ||
	    json_is_true(json_object_get(p, "vs_under_min_samples")))
		snprintf(lines[(*n)++], 200, "! under min_samples (%.0f): the "
		    "shares are rough", pane_prof_num(p, "min_samples"));
	if (json_is_true(json_object_get(p, "contaminated")))
		snprintf(lines[(*n)++], 200, "! contaminated: the server's "
		    "processes changed during the profile");
}

/* The callers of the symbols that moved most, one line each. */
static void
pane_prof_callers(const json_t *p, const char *arm, char (*lines)[200],
    int *n, int max)
{
	const json_t *c;
	size_t i;

	json_array_foreach(json_object_get(p, "callers"), i, c) {
		const json_t *a = json_array_get(json_object_get(c, "callers"), 0),
		    *b = json_array_get(json_object_get(c, "vs_callers"), 0),
		    *m = json_array_get(json_object_get(c, "split"), 0),
		    *ci = json_object_get(m, "diff_ci");

		if (*n >= max || i >= 3)
			break;
		/* which caller moved it: the one that moved most */
		if (m != NULL) {
			snprintf(lines[(*n)++], 200, "  %s <- %s: %+.1f pts [%+.1f, "
			    "%+.1f]%s (the caller that moved most)",
			    json_string_value(json_object_get(c, "symbol")),
			    json_string_value(json_object_get(m, "caller")),
			    pane_prof_num(m, "diff"), json_number_value(
			    json_array_get(ci, 0)), json_number_value(
			    json_array_get(ci, 1)), json_is_true(
			    json_object_get(m, "noise")) ? " ~" : "");
			continue;
		}
		snprintf(lines[(*n)++], 200, "  %s <- %s: %s (%.0f)%s%s", json_string_value(
		    json_object_get(c, "symbol")), arm, a ? json_string_value(
		    json_object_get(a, "caller")) : "-", a ? pane_prof_num(a,
		    "samples") : 0, b ? "; vs: " : "", b ? json_string_value(
		    json_object_get(b, "caller")) : "");
	}
}

void
pane_prof_draw(struct render *r, WINDOW *w, struct model *m)
{
	const json_t *profiles = json_object_get(model_ratios_shown(m),
	    "profiles");
	const json_t *c, *a, *p, *row;
	const char *cell, *arm, *kind;
	int h = getmaxy(w) - 2, cw = getmaxx(w) - 2, line = 0, y = 1;
	size_t i;

	if (json_object_size(profiles) == 0) {
		render_put(w, 1, 1, cw, THEME_DIM, m->profiling[0] != '\0' ?
		    "profiling; the first profile comes in when it ends" :
		    "no profiles (the round file's \"profile\" asks for them)");
		r->ratio_lines = 0;
		return;
	}
	if (r->scroll[PANE_RATIOS] > r->ratio_lines - h)
		r->scroll[PANE_RATIOS] = r->ratio_lines - h;
	if (r->scroll[PANE_RATIOS] < 0)
		r->scroll[PANE_RATIOS] = 0;
#define EMIT(code) do { if (line++ >= r->scroll[PANE_RATIOS] && y <= h) { code; y++; } } while (0)
	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p) {
		bool perf = strcmp(kind, "syscalls") != 0,
		    vs = json_string_value(json_object_get(p, "vs")) != NULL;
		const json_t *rows = json_object_get(p, perf ? "symbols" :
		    "syscalls");
		char head[8][200];
		int nh = 0;

		pane_prof_head(cell, arm, kind, p, head, &nh);
		for (int k = 0; k < nh; k++)
			EMIT(render_put(w, y, 1, cw, k == 0 ? THEME_TITLE :
			    head[k][0] == '!' ? THEME_WARN : THEME_DIM, head[k]));
		if (json_array_size(rows) == 0)
			continue;
		EMIT(render_put(w, y, 2, cw - 1, THEME_LABEL, perf ? "symbol" :
		    "syscall");
		    render_put(w, y, 2 + pane_prof_namew(cw), cw - 1 -
		    pane_prof_namew(cw), THEME_LABEL, perf ? (vs ?
		    " smpl share   smpl    vs   diff ms/run" : " smpl share") :
		    (vs ? "   calls   per req    vs req  ratio" :
		    "   calls   per req")));
		json_array_foreach(rows, i, row) {
			if (i >= PANE_PROF_ROWS)
				break;
			if (perf)
				EMIT(pane_prof_perf_row(w, y, cw, row, vs));
			else
				EMIT(pane_prof_sys_row(w, y, cw, row, vs));
		}
		/* every call counted, whatever trace narrowed the rows to */
		if (!perf && (row = json_object_get(p, "syscalls_total")) !=
		    NULL)
			EMIT(pane_prof_sys_row(w, y, cw, row, vs));
		nh = 0;
		pane_prof_callers(p, arm, head, &nh, 8);
		for (int k = 0; k < nh; k++)
			EMIT(render_put(w, y, 1, cw, THEME_DIM, head[k]));
	}
#undef EMIT
	r->ratio_lines = line;
	if (line > h && h > 0) {
		char pos[48];
		int last = r->scroll[PANE_RATIOS] + h;

		snprintf(pos, sizeof pos, " %d-%d/%d ", r->scroll[PANE_RATIOS] + 1,
		    last < line ? last : line, line);
		render_put(w, h + 1, cw - (int)strlen(pos), (int)strlen(pos),
		    THEME_BORDER, pos);
	}
}
