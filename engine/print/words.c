/* Words: a report's numbers as a reader takes them in (see words.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"
#include "stats.h"
#include "words.h"

#define WORDS_WIDTH 100

/* What a metric's absolute values are, from its name. */
enum words_unit { U_S, U_MS, U_US, U_NS, U_BYTES, U_KIB, U_RPS, U_COUNT };

static bool
words_ends(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && strcmp(s + n - k, suffix) == 0;
}

static enum words_unit
words_unit(const char *m)
{
	static const char *const secs[] = { "wall", "cpu", "utime", "stime",
	    "server_cpu", NULL };
	static const char *const nsecs[] = { "task-clock", "cpu-clock",
	    "server_task-clock", "server_cpu-clock", NULL };

	for (size_t i = 0; secs[i] != NULL; i++)
		if (strcmp(m, secs[i]) == 0)
			return U_S;
	for (size_t i = 0; nsecs[i] != NULL; i++)
		if (strcmp(m, nsecs[i]) == 0)
			return U_NS;
	if (words_ends(m, "_ms"))
		return U_MS;
	if (words_ends(m, "_us"))
		return U_US;
	if (words_ends(m, "_ns"))
		return U_NS;
	if (words_ends(m, "_s") || words_ends(m, "_secs"))
		return U_S;
	if (strcmp(m, "bytes") == 0 || words_ends(m, "_bytes"))
		return U_BYTES;
	if (words_ends(m, "_kb") || words_ends(m, "_kib"))
		return U_KIB;
	if (strcmp(m, "rps") == 0 || words_ends(m, "_rps"))
		return U_RPS;
	return U_COUNT;
}

/* v (under 999.5) in three significant digits, then the unit. */
static const char *
words_fmt3(char *buf, size_t len, double v, const char *unit)
{
	double a = fabs(v);

	snprintf(buf, len, a < 9.995 ? "%.2f%s" : a < 99.95 ? "%.1f%s" :
	    "%.0f%s", v, unit);
	return buf;
}

const char *
words_secs(char *buf, size_t len, double s)
{
	static const struct { double scale; const char *unit; } u[] = {
		{ 1e9, "ns" }, { 1e6, "us" }, { 1e3, "ms" },
	};

	if (isnan(s))
		return snprintf(buf, len, "n/a"), buf;
	if (s == 0)
		return snprintf(buf, len, "0s"), buf;
	for (size_t i = 0; i < sizeof u / sizeof u[0]; i++)
		if (fabs(s * u[i].scale) < 999.5)
			return words_fmt3(buf, len, s * u[i].scale, u[i].unit);
	if (fabs(s) < 999.5)
		return words_fmt3(buf, len, s, "s");
	snprintf(buf, len, "%.0fs", s);
	return buf;
}

/* v past 999.5 divided by step until it is not (or the units run out),
 * with the unit it reached. */
static const char *
words_scaled(char *buf, size_t len, double v, double step,
    const char *const *unit, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		v /= step;
		if (fabs(v) < 999.5 || i + 1 == n)
			return words_fmt3(buf, len, v, unit[i]);
	}
	return buf;
}

const char *
words_bytes(char *buf, size_t len, double b)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB",
	    "PiB" };

	if (isnan(b))
		return snprintf(buf, len, "n/a"), buf;
	if (fabs(b) < 999.5)
		return snprintf(buf, len, "%.0fB", b), buf;
	return words_scaled(buf, len, b, 1024, unit, sizeof unit /
	    sizeof unit[0]);
}

const char *
words_count(char *buf, size_t len, double v)
{
	static const char *const unit[] = { "k", "M", "G", "T", "P", "E" };

	if (isnan(v))
		return snprintf(buf, len, "n/a"), buf;
	if (fabs(v) < 999.5)
		return v == floor(v) ? (snprintf(buf, len, "%.0f", v), buf) :
		    words_fmt3(buf, len, v, "");
	return words_scaled(buf, len, v, 1000, unit, sizeof unit /
	    sizeof unit[0]);
}

const char *
words_value(char *buf, size_t len, const char *metric, double v, bool tight)
{
	char num[32];

	switch (words_unit(metric)) {
	case U_S:     return words_secs(buf, len, v);
	case U_MS:    return words_secs(buf, len, v / 1e3);
	case U_US:    return words_secs(buf, len, v / 1e6);
	case U_NS:    return words_secs(buf, len, v / 1e9);
	case U_BYTES: return words_bytes(buf, len, v);
	case U_KIB:   return words_bytes(buf, len, v * 1024);
	case U_RPS:
		if (isnan(v))
			return snprintf(buf, len, "n/a"), buf;
		snprintf(buf, len, "%s%s", words_count(num, sizeof num, v),
		    tight ? "/s" : " req/s");
		return buf;
	case U_COUNT: break;
	}
	return words_count(buf, len, v);
}

static const struct {
	const char *metric, *label, *head;
} words_names[] = {
	{ "rps", "requests/s", "req/s" },
	{ "lat_p50_ms", "p50 latency", "p50" },
	{ "lat_p90_ms", "p90 latency", "p90" },
	{ "lat_p99_ms", "p99 latency", "p99" },
	{ "lat_max_ms", "max latency", "lat-max" },
	{ "server_cpu", "server cpu", "srv-cpu" },
	{ "instructions", "instructions", "instr" },
	{ "task-clock", "task-clock", "task-clk" },
	{ "page-faults", "page-faults", "faults" },
	{ "context-switches", "context-switches", "ctx-sw" },
	{ "cpu-migrations", "cpu-migrations", "migr" },
	{ "branch-misses", "branch-misses", "br-miss" },
	{ "cache-misses", "cache-misses", "$-miss" },
	{ "cache-references", "cache-references", "$-refs" },
	{ "branch-instructions", "branch-instructions", "branches" },
};

/* metric's entry in words_names, or the count when it has none. */
static size_t
words_name_at(const char *metric)
{
	size_t i = 0;

	while (i < sizeof words_names / sizeof words_names[0] &&
	    strcmp(metric, words_names[i].metric) != 0)
		i++;
	return i;
}

const char *
words_label(const char *metric)
{
	size_t i = words_name_at(metric);

	return i < sizeof words_names / sizeof words_names[0] ?
	    words_names[i].label : metric;
}

const char *
words_head(const char *metric)
{
	size_t i = words_name_at(metric);

	return i < sizeof words_names / sizeof words_names[0] ?
	    words_names[i].head : metric;
}

const char *
words_cut(char *buf, size_t len, const char *s, int width)
{
	size_t n = strlen(s), keep;
	const char *dot;

	if (width < 2 || n <= (size_t)width)
		return s;
	keep = (size_t)width - 1;
	/* A short part after a dot, cut, reads as an extension (".c",
	 * ".con"): drop it and the dot. */
	dot = memrchr(s, '.', keep);
	if (dot != NULL && dot > s && s[keep] != '.' &&
	    keep - (size_t)(dot - s) <= 5)
		keep = (size_t)(dot - s);
	while (keep > 1 && strchr("._-:", s[keep - 1]) != NULL)
		keep--;
	snprintf(buf, len, "%.*s~", (int)keep, s);
	return buf;
}

const char *
words_pct(char *buf, size_t len, double frac)
{
	double p = 100 * frac, a = fabs(p);

	if (isnan(frac))
		return snprintf(buf, len, "n/a"), buf;
	snprintf(buf, len, a < 0.995 ? "%.2f%%" : a < 99.95 ? "%.1f%%" :
	    "%.0f%%", p);
	return buf;
}

/* "+0.6%", "-0.4%": a signed difference. */
static const char *
words_spct(char *buf, size_t len, double frac)
{
	size_t k = frac >= 0 && len > 1;

	if (k)
		buf[0] = '+';
	words_pct(buf + k, len - k, frac);
	return buf;
}

/* The word for "more of metric" (up) or "less of it": time is slower,
 * requests/s faster, bytes larger, anything else higher. */
static const char *
words_dir(const char *metric, bool up)
{
	switch (words_unit(metric)) {
	case U_S: case U_MS: case U_US: case U_NS:
		return up ? "slower" : "faster";
	case U_RPS:
		return up ? "faster" : "slower";
	case U_BYTES: case U_KIB:
		return up ? "larger" : "smaller";
	case U_COUNT:
		break;
	}
	return up ? "higher" : "lower";
}

static double
words_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* above or below: "A is 21.1% slower than B in wall [7.3%, 46.3%]", or
 * past a factor of 2 "A is 2.50x slower ... [2.10x, 3.00x]". */
static void
words_moved(char *buf, size_t len, const char *arm, const char *vs,
    const char *metric, double est, double lo, double hi)
{
	bool up = est > 1;
	char e[32], a[32], b[32];

	if (up ? est >= 2 : est <= 0.5) {
		snprintf(buf, len, "%s is %.2fx %s than %s in %s [%.2fx, %.2fx]",
		    arm, up ? est : 1 / est, words_dir(metric, up), vs,
		    words_label(metric), up ? lo : 1 / hi, up ? hi : 1 / lo);
		return;
	}
	snprintf(buf, len, "%s is %s %s than %s in %s [%s, %s]", arm,
	    words_pct(e, sizeof e, up ? est - 1 : 1 - est),
	    words_dir(metric, up), vs, words_label(metric),
	    words_pct(a, sizeof a, up ? lo - 1 : 1 - hi),
	    words_pct(b, sizeof b, up ? hi - 1 : 1 - lo));
}

/* "about 113 would", or past a million "more than a million would". */
static void
words_reps(char *buf, size_t len, const json_t *mo)
{
	const json_t *r = json_object_get(mo, "reps_for_margin");

	if (!json_is_integer(r))
		snprintf(buf, len, "more reps would");
	else if (json_integer_value(r) > 1000000)
		snprintf(buf, len, "more than a million would");
	else
		snprintf(buf, len, "about %lld would",
		    (long long)json_integer_value(r));
}

/* A round on several hosts whose hosts' effects differ: "; depends on
 * the machine (hB differs)" after the verdict, the pooled figure not
 * being the whole story. */
static void
words_depends(char *buf, size_t len, const json_t *mo)
{
	const json_t *list = json_object_get(mo, "hosts_differ"), *h;
	size_t k = strlen(buf), i, n = json_array_size(list);

	if (!json_is_true(json_object_get(mo, "depends_on_machine")) ||
	    k >= len)
		return;
	k += (size_t)snprintf(buf + k, len - k, "; depends on the machine (");
	json_array_foreach(list, i, h)
		if (k < len)
			k += (size_t)snprintf(buf + k, len - k, "%s%.40s",
			    i ? ", " : "", json_string_value(h) ?
			    json_string_value(h) : "");
	if (k < len)
		snprintf(buf + k, len - k, " differ%s)", n == 1 ? "s" : "");
}

const char *
words_verdict(char *buf, size_t len, const char *arm, const char *vs,
    const char *metric, const json_t *mo, double level, double margin)
{
	const char *v = json_string_value(json_object_get(mo, "verdict"));
	const json_t *ci = json_object_get(mo, "ci");
	double lo = json_is_number(json_array_get(ci, 0)) ?
	    json_number_value(json_array_get(ci, 0)) : NAN;
	double hi = json_is_number(json_array_get(ci, 1)) ?
	    json_number_value(json_array_get(ci, 1)) : NAN;
	double est = words_num(mo, "estimate");
	long long n = (long long)json_integer_value(json_object_get(mo, "n"));
	char a[32], b[32], m[32], more[48];
	size_t k;

	if (v == NULL || isnan(lo) || isnan(hi) || isnan(est) ||
	    strcmp(v, "unknown") == 0) {
		if (n == 0)
			snprintf(buf, len, "unknown: no pair of ok legs");
		else
			snprintf(buf, len, "unknown: %lld reps, an interval "
			    "needs %zu", n, stats_min_n(level));
	} else if (strcmp(v, "above") == 0 || strcmp(v, "below") == 0)
		words_moved(buf, len, arm, vs, metric, est, lo, hi);
	else if (strcmp(v, "same") == 0) {
		snprintf(m, sizeof m, "%g%%", 100 * margin);
		snprintf(buf, len, "same within %s [%s, %s]", m,
		    words_spct(a, sizeof a, lo - 1),
		    words_spct(b, sizeof b, hi - 1));
	} else {
		words_reps(more, sizeof more, mo);
		snprintf(buf, len, "undecided: can't see less than %s with %lld "
		    "reps; %s [%s, %s]", words_pct(m, sizeof m, words_num(mo,
		    "mde")), n, more, words_spct(a, sizeof a, lo - 1),
		    words_spct(b, sizeof b, hi - 1));
	}
	k = strlen(buf);
	if (json_is_true(json_object_get(mo, "suspect")) && k < len)
		snprintf(buf + k, len - k, " SUSPECT (the A/A arms differ)");
	words_depends(buf, len, mo);
	return buf;
}

const char *
words_verdict_short(char *buf, size_t len, const json_t *mo)
{
	const char *v = json_string_value(json_object_get(mo, "verdict"));
	char m[32];

	if (v == NULL)
		v = "unknown";
	if (strcmp(v, "undecided") == 0 && !isnan(words_num(mo, "mde")))
		snprintf(buf, len, "undecided +-%s", words_pct(m, sizeof m,
		    words_num(mo, "mde")));
	else
		snprintf(buf, len, "%s", v);
	return buf;
}

/* The metrics a summary leads with, in this order, where a round has
 * them; then the leg's own metrics; then bytes. */
static const char *const words_first[] = { "rps", "lat_p50_ms",
    "lat_p99_ms", "server_cpu", "wall", "cpu" };
#define WORDS_NFIRST (sizeof words_first / sizeof words_first[0])

bool
words_is_lead(const char *m)
{
	for (size_t i = 0; i < WORDS_NFIRST; i++)
		if (strcmp(m, words_first[i]) == 0)
			return true;
	/* A counter, the server's counters, and a load's request count (its
	 * rate says it) are the full table's. */
	if (counters_known(m) || strcmp(m, "requests") == 0 ||
	    strcmp(m, "instructions") == 0 || strcmp(m, "cycles") == 0)
		return false;
	if (strncmp(m, "server_", 7) == 0 && counters_known(m + 7))
		return false;
	return true;
}

size_t
words_lead(const json_t *metrics, const char **names, size_t cap)
{
	size_t n = 0;
	const char *k;
	json_t *v;
	bool first;

	for (size_t i = 0; i < WORDS_NFIRST && n < cap; i++)
		if (json_object_get(metrics, words_first[i]) != NULL)
			names[n++] = json_object_iter_key(json_object_iter_at(
			    (json_t *)metrics, words_first[i]));
	json_object_foreach((json_t *)metrics, k, v) {
		first = false;
		for (size_t i = 0; i < WORDS_NFIRST; i++)
			first = first || strcmp(k, words_first[i]) == 0;
		if (!first && strcmp(k, "bytes") != 0 && words_is_lead(k) &&
		    n < cap)
			names[n++] = k;
	}
	if (json_object_get(metrics, "bytes") != NULL && n < cap)
		names[n++] = json_object_iter_key(json_object_iter_at(
		    (json_t *)metrics, "bytes"));
	return n;
}

/* Print line wrapped at WORDS_WIDTH: its first keep characters as they
 * are (aligned columns), the rest by words, each continuation indented
 * by indent. */
static void
words_wrap(FILE *out, const char *line, int keep, int indent)
{
	int col = fprintf(out, "%.*s", keep, line);
	const char *p = line + (col > 0 ? col : 0);
	bool first = true;

	while (*p) {
		size_t w = strcspn(p, " ");

		if (!first && col + 1 + (int)w > WORDS_WIDTH)
			col = fprintf(out, "\n%*s%.*s", indent, "", (int)w, p) - 1;
		else
			col += fprintf(out, "%s%.*s", first ? "" : " ", (int)w, p);
		first = false;
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* "A/A floor: wall 2.1%, cpu 1.3%" (the largest spread), of the lead metrics
 * with a floor; empty when none has one. */
static void
words_floor(char *buf, size_t len, const json_t *cell)
{
	const json_t *floors = json_object_get(cell, "floor"), *f;
	const char *k;
	size_t n = 0;
	char p[32];

	buf[0] = '\0';
	json_object_foreach((json_t *)floors, k, f)
		if (json_is_number(f) && words_is_lead(k) && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s%s %s",
			    n ? ", " : "A/A floor: ",
			    words_label(k), words_pct(p, sizeof p,
			    json_number_value(f)));
}

/* "BIASED: the A/A arms differ on wall, cpu; every verdict on them is
 * suspect", or empty. */
static void
words_biased(char *buf, size_t len, const json_t *cell)
{
	const json_t *biased = json_object_get(cell, "biased"), *b;
	size_t i, n = 0;

	buf[0] = '\0';
	if (json_array_size(biased) == 0)
		return;
	n = (size_t)snprintf(buf, len, "BIASED: the A/A arms differ on");
	json_array_foreach(biased, i, b)
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s %s",
			    i ? "," : "", json_string_value(b));
	if (n < len)
		snprintf(buf + n, len - n, "; every verdict on %s is suspect",
		    json_array_size(biased) > 1 ? "them" : "it");
}

/* What one arm's block prints, per lead metric. */
#define WORDS_LEAD_MAX 32
struct words_arm {
	const char *name, *vs;
	bool aa;
	long long reps;
	size_t n, hosts;
	const char *metric[WORDS_LEAD_MAX];
	char abs[WORDS_LEAD_MAX][32], vs_abs[WORDS_LEAD_MAX][32];
	char verdict[WORDS_LEAD_MAX][256];
};

static void
words_arm_fill(struct words_arm *w, const char *name, const json_t *arm,
    double level, double margin)
{
	const json_t *metrics = json_object_get(arm, "metrics");

	w->name = name;
	w->vs = json_string_value(json_object_get(arm, "vs"));
	w->vs = w->vs ? w->vs : "?";
	w->aa = json_is_string(json_object_get(arm, "aa_of"));
	w->n = words_lead(metrics, w->metric, WORDS_LEAD_MAX);
	w->reps = 0;
	w->hosts = 0;
	for (size_t i = 0; i < w->n; i++) {
		const json_t *mo = json_object_get(metrics, w->metric[i]);
		long long n = (long long)json_integer_value(json_object_get(mo,
		    "n"));
		size_t nh = json_object_size(json_object_get(mo, "hosts"));

		w->hosts = nh > w->hosts ? nh : w->hosts;

		w->reps = n > w->reps ? n : w->reps;
		words_value(w->abs[i], sizeof w->abs[i], w->metric[i],
		    words_num(mo, "abs"), false);
		words_value(w->vs_abs[i], sizeof w->vs_abs[i], w->metric[i],
		    words_num(mo, "vs_abs"), false);
		words_verdict(w->verdict[i], sizeof w->verdict[i], name, w->vs,
		    w->metric[i], mo, level, margin);
	}
}

static void
words_arm_text(FILE *out, const struct words_arm *w)
{
	int lw = 6, aw = 4, bw = 4;
	char line[512], on[32] = "";

	if (w->hosts > 1)
		snprintf(on, sizeof on, " on %zu hosts", w->hosts);
	snprintf(line, sizeof line, "  %s vs %s%s, %lld paired reps%s",
	    w->name, w->vs, w->aa ? " (A/A)" : "", w->reps, on);
	words_wrap(out, line, 2, 4);
	for (size_t i = 0; i < w->n; i++) {
		int l = (int)strlen(words_label(w->metric[i]));
		lw = l > lw ? l : lw;
		aw = (int)strlen(w->abs[i]) > aw ? (int)strlen(w->abs[i]) : aw;
		bw = (int)strlen(w->vs_abs[i]) > bw ? (int)strlen(w->vs_abs[i]) :
		    bw;
	}
	for (size_t i = 0; i < w->n; i++) {
		int col = snprintf(line, sizeof line, "    %-*s  %*s vs %-*s  ",
		    lw, words_label(w->metric[i]), aw, w->abs[i], bw,
		    w->vs_abs[i]);

		snprintf(line + col, sizeof line - (size_t)col, "%s",
		    w->verdict[i]);
		words_wrap(out, line, col, col);
	}
}

static void
words_arm_markdown(FILE *out, const struct words_arm *w)
{
	char on[32] = "";

	if (w->hosts > 1)
		snprintf(on, sizeof on, " on %zu hosts", w->hosts);
	fprintf(out, "**`%s` vs `%s`**%s, %lld paired reps%s\n\n"
	    "| metric | `%s` | `%s` | verdict |\n|---|--:|--:|---|\n", w->name,
	    w->vs, w->aa ? " (A/A)" : "", w->reps, on, w->name, w->vs);
	for (size_t i = 0; i < w->n; i++)
		fprintf(out, "| %s | %s | %s | %s |\n", words_label(w->metric[i]),
		    w->abs[i], w->vs_abs[i], w->verdict[i]);
	fputc('\n', out);
}

static void
words_cell(FILE *out, const char *cname, const json_t *cell, double level,
    double margin, enum words_style style)
{
	static struct words_arm w;  /* 24 KB: not on the stack */
	const json_t *arm;
	const char *aname;
	char floor[512], biased[512];

	words_floor(floor, sizeof floor, cell);
	words_biased(biased, sizeof biased, cell);
	if (style == WORDS_MARKDOWN) {
		fprintf(out, "### Cell `%s`\n\n", cname);
		if (floor[0])
			fprintf(out, "%s.\n\n", floor);
		if (biased[0])
			fprintf(out, "> **%s**\n\n", biased);
	} else {
		char line[1200];

		snprintf(line, sizeof line, "cell %s%s%s%s", cname, floor[0] ?
		    " (" : "", floor, floor[0] ? ")" : "");
		words_wrap(out, line, 0, 2);
		if (biased[0]) {
			snprintf(line, sizeof line, "  %s", biased);
			words_wrap(out, line, 2, 4);
		}
	}
	json_object_foreach((json_t *)json_object_get(cell, "arms"), aname,
	    arm) {
		words_arm_fill(&w, aname, arm, level, margin);
		if (style == WORDS_MARKDOWN)
			words_arm_markdown(out, &w);
		else
			words_arm_text(out, &w);
	}
}

void
words_summary(const json_t *rep, FILE *out, enum words_style style)
{
	const json_t *cells = json_object_get(rep, "cells"), *cell;
	double level = words_num(rep, "level"), margin = words_num(rep,
	    "margin");
	const char *cname;
	char lv[32], mg[32];

	snprintf(lv, sizeof lv, "%g%%", 100 * level);
	snprintf(mg, sizeof mg, "%g%%", 100 * margin);
	if (style == WORDS_MARKDOWN)
		fprintf(out, "## Summary\n\nEach verdict with its %s interval "
		    "of the difference; within the %s margin is the same.\n\n",
		    lv, mg);
	else
		fprintf(out, "summary: each verdict with its %s interval of the "
		    "difference; within the %s margin is the same\n", lv, mg);
	if (json_object_size(cells) == 0)
		fputs(style == WORDS_MARKDOWN ? "No comparisons yet.\n\n" :
		    "  no comparisons yet\n", out);
	json_object_foreach((json_t *)cells, cname, cell)
		words_cell(out, cname, cell, level, margin, style);
}
