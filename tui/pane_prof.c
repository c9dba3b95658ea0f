/* The ratios pane's profiles view: each profiled arm beside its comparison
 * arm, from the report's "profiles" (profdiff.h) -- symbol shares and the
 * move in points, largest first; syscalls per request side by side. */
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
	const json_t *profiles = json_object_get(model_ratios(m), "profiles");
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
	int n = cw - 26;

	return n < 12 ? 12 : n > 48 ? 48 : n;
}

static void
pane_prof_row(WINDOW *w, int y, int cw, bool perf, const json_t *row,
    bool compared)
{
	const char *name = json_string_value(json_object_get(row, perf ?
	    "symbol" : "syscall"));
	const json_t *d = json_object_get(row, "diff");
	double x, v;
	char buf[64];
	int namew = pane_prof_namew(cw);

	char cut[256];

	/* Cut so that a symbol never passes for a file name. */
	render_put(w, y, 3, namew, THEME_NORMAL, words_cut(cut, sizeof cut,
	    name != NULL ? name : "?", namew));
	if (perf) {
		x = pane_prof_num(row, "share");
		v = pane_prof_num(row, "vs_share");
	} else {
		x = pane_prof_num(row, "per_request");
		v = pane_prof_num(row, "vs_per_request");
		if (x < 0) {
			x = pane_prof_num(row, "calls");
			v = pane_prof_num(row, "vs_calls");
		}
	}
	snprintf(buf, sizeof buf, "%7.*f", perf ? 1 : 2, x);
	render_put(w, y, 3 + namew, 8, THEME_NORMAL, buf);
	if (compared) {
		snprintf(buf, sizeof buf, "%7.*f", perf ? 1 : 2, v);
		render_put(w, y, 3 + namew + 8, 8, THEME_LABEL, buf);
	}
	if (json_is_number(d)) {
		double dv = json_number_value(d);

		snprintf(buf, sizeof buf, perf ? "%+7.1f" : "%+7.2f", dv);
		render_put(w, y, 3 + namew + 16, 8, dv > 0 ? THEME_ABOVE :
		    dv < 0 ? THEME_BELOW : THEME_NORMAL, buf);
	}
}

void
pane_prof_draw(struct render *r, WINDOW *w, struct model *m)
{
	const json_t *profiles = json_object_get(model_ratios(m), "profiles");
	const json_t *c, *a, *p, *row;
	const char *cell, *arm, *kind;
	int h = getmaxy(w) - 2, cw = getmaxx(w) - 2, line = 0, y = 1;
	char buf[256];
	size_t i;

	if (json_object_size(profiles) == 0) {
		render_put(w, 1, 1, cw, THEME_DIM, m->profiling[0] != '\0' ?
		    "profiling; the first profile comes in when it ends" :
		    "no profiles (the round file's \"profile\" asks for them)");
		r->ratio_lines = 0;
		return;
	}
#define EMIT(code) do { if (line++ >= r->scroll[PANE_RATIOS] && y <= h) { code; y++; } } while (0)
	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p) {
		const char *vs = json_string_value(json_object_get(p, "vs")),
		    *st = json_string_value(json_object_get(p, "status")),
		    *ev = json_string_value(json_object_get(p, "event"));
		bool perf = strcmp(kind, "perf") == 0;
		const json_t *rows = json_object_get(p, perf ? "symbols" :
		    "syscalls");

		snprintf(buf, sizeof buf, "%s  %s%s%s  %s%s%s%s", cell, arm,
		    vs ? " vs " : "", vs ? vs : "", kind, ev ? " (" : "",
		    ev ? ev : "", ev ? json_is_true(json_object_get(p,
		    "software_clock")) ? ", software clock: no PMU)" : ")" : "");
		EMIT(render_put(w, y, 1, cw, THEME_TITLE, buf));
		if (st != NULL && strcmp(st, "ok") != 0) {
			const char *why = json_string_value(json_object_get(p,
			    "reason"));

			snprintf(buf, sizeof buf, "  %s: %s", st, why ? why : "");
			EMIT(render_put(w, y, 1, cw, THEME_WARN, buf));
			continue;
		}
		if (json_is_true(json_object_get(p, "contaminated")))
			EMIT(render_put(w, y, 1, cw, THEME_WARN, "  contaminated: "
			    "the server's processes changed during the trace"));
		snprintf(buf, sizeof buf, "%s", perf ? "share %" : "per request");
		EMIT(
		    render_put(w, y, 3, cw - 2, THEME_LABEL, perf ? "symbol" :
		    "syscall");
		    render_put(w, y, 3 + pane_prof_namew(cw), 24,
		    THEME_LABEL, vs ? (perf ? "  share    vs    diff" :
		    "  /req    vs    diff") : buf));
		json_array_foreach(rows, i, row) {
			if (i >= PANE_PROF_ROWS)
				break;
			EMIT(pane_prof_row(w, y, cw, perf, row, vs != NULL));
		}
	}
#undef EMIT
	r->ratio_lines = line;
}
