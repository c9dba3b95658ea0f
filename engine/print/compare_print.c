/* Printing a compare object (see compare.h) in the four formats.  Every
 * format reads the same object, so none can disagree with --format json.
 * The text fits 80 columns. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "csvout.h"
#include "escape.h"
#include "xalloc.h"

#define COMPARE_WIDTH 80

static int compare_print_to(const json_t *cmp, const json_t *notes,
    enum report_format fmt, FILE *out);
#define COMPARE_NAME 16     /* the text's arm/metric column */

static const char *
compare_print_str(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

/* An environment value as a reader wants it: a string as it is, a
 * number as %g, null as "(none)", anything else as compact json.
 * malloc'd. */
static char *
compare_print_value(const json_t *v)
{
	char *s;

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	if (json_is_number(v))
		return xasprintf("%g", json_number_value(v));
	if (v == NULL || json_is_null(v))
		return xstrdup("(none)");
	s = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
	return s ? s : xstrdup("?");
}

/* An arm's own median: seconds for wall and cpu (s, ms, us), else a count
 * with an SI prefix from 1e4 up; 9 characters at most. */
static const char *
compare_print_abs(char *buf, size_t len, const char *metric, const json_t *x)
{
	static const char *const si[] = { "k", "M", "G", "T", "P" };
	double v = json_number_value(x);
	int k = -1;

	if (!json_is_number(x))
		return "n/a";
	if (strcmp(metric, "wall") == 0 || strcmp(metric, "cpu") == 0 ||
	    strcmp(metric, "server_cpu") == 0) {
		if (v >= 1)
			snprintf(buf, len, "%.4g s", v);
		else if (v >= 1e-3)
			snprintf(buf, len, "%.4g ms", v * 1e3);
		else
			snprintf(buf, len, "%.4g us", v * 1e6);
		return buf;
	}
	while (fabs(v) >= 1e4 && k < 4)
		v /= 1000, k++;
	if (k < 0)
		snprintf(buf, len, "%.4g", v);
	else
		snprintf(buf, len, "%.4g %s", v, si[k]);
	return buf;
}

/* A ratio: 3 decimals in [0.001, 10), else 3 significant digits. */
static const char *
compare_print_ratio(char *buf, size_t len, const json_t *x)
{
	double v = json_number_value(x);

	if (!json_is_number(x))
		return "n/a";
	snprintf(buf, len, v >= 0.001 && v < 10 ? "%.3f" : "%.3g", v);
	return buf;
}

/* "lo-hi", or "none" without an interval. */
static const char *
compare_print_ci(char *buf, size_t len, const json_t *m)
{
	const json_t *ci = json_object_get(m, "ci");
	char lo[32], hi[32];

	if (!json_is_array(ci))
		return "none";
	snprintf(buf, len, "%s-%s", compare_print_ratio(lo, sizeof lo,
	    json_array_get(ci, 0)), compare_print_ratio(hi, sizeof hi,
	    json_array_get(ci, 1)));
	return buf;
}

/* "95" for level 0.95. */
static const char *
compare_print_level(char *buf, size_t len, const json_t *cmp)
{
	snprintf(buf, len, "%g", 100 * json_number_value(json_object_get(cmp,
	    "level")));
	return buf;
}

/* The environments: what both share on a few wrapped lines, then each
 * difference with A's value and B's on lines of their own (a sha256 is
 * 64 characters). */
static void
compare_print_env(const json_t *env, FILE *out)
{
	const json_t *same = json_object_get(env, "same");
	const json_t *differ = json_object_get(env, "differ"), *v;
	struct xbuf line = { 0 };
	const char *key;

	xbuf_printf(&line, "same:");
	json_object_foreach((json_t *)same, key, v) {
		char *s = compare_print_value(v);
		/* A sha256 both share is known by its first 12 digits here
		 * (json has it whole). */
		xbuf_printf(&line, "%s %s %.*s%s", line.len > 5 ? ";" : "", key,
		    strlen(s) == 64 ? 12 : (int)strlen(s), s,
		    strlen(s) == 64 ? "..." : "");
		free(s);
	}
	if (json_object_size(same) == 0)
		xbuf_printf(&line, " nothing");
	report_wrap_at(out, COMPARE_WIDTH, 2, line.p);
	free(line.p);
	if (json_object_size(differ) == 0) {
		fputs("  differ: nothing\n", out);
		return;
	}
	fputs("  differ:\n", out);
	json_object_foreach((json_t *)differ, key, v) {
		char *a = compare_print_value(json_array_get(v, 0));
		char *b = compare_print_value(json_array_get(v, 1));
		fprintf(out, "    %s\n      A %s\n      B %s\n", key, a, b);
		free(a);
		free(b);
	}
}

/* "only in A: x, y" wrapped, when the list is not empty. */
static void
compare_print_only(FILE *out, const char *what, const json_t *list)
{
	struct xbuf line = { 0 };
	const json_t *v;
	size_t i;

	if (json_array_size(list) == 0)
		return;
	xbuf_printf(&line, "%s:", what);
	json_array_foreach(list, i, v)
		xbuf_printf(&line, " %s%s", compare_print_str(v),
		    i + 1 < json_array_size(list) ? "," : "");
	report_wrap_at(out, COMPARE_WIDTH, 0, line.p);
	free(line.p);
}

/* "A is partial: 20 of 32 planned legs counted", NULL when it is not;
 * malloc'd. */
static char *
compare_print_partial(const json_t *cmp, int side)
{
	const json_t *r = json_object_get(json_object_get(cmp, "rounds"),
	    side ? "b" : "a");

	if (!json_is_true(json_object_get(r, "partial")))
		return NULL;
	return xasprintf("%c is partial: %lld of %lld planned legs counted",
	    'A' + side, (long long)json_integer_value(json_object_get(r,
	    "legs_counted")), (long long)json_integer_value(json_object_get(r,
	    "legs_total")));
}

/* A round's warnings (report's, see compare_round_facts). */
static const json_t *
compare_print_warnings(const json_t *cmp, int side)
{
	return json_object_get(json_object_get(json_object_get(cmp,
	    "rounds"), side ? "b" : "a"), "warnings");
}

/* Each round's partial line and warnings, wrapped, under the notes. */
static void
compare_print_text_rounds(const json_t *cmp, FILE *out)
{
	const json_t *v;
	size_t i;

	for (int side = 0; side < 2; side++) {
		char *s = compare_print_partial(cmp, side);
		const json_t *w = compare_print_warnings(cmp, side);
		if (s != NULL)
			report_wrap_at(out, COMPARE_WIDTH, 0, s);
		free(s);
		if (json_array_size(w) > 0)
			fprintf(out, "warnings of %c (as report gives them):\n",
			    'A' + side);
		json_array_foreach(w, i, v) {
			s = xasprintf("- %s", compare_print_str(v));
			report_wrap_at(out, COMPARE_WIDTH, 2, s);
			free(s);
		}
	}
}

/* One text row: "arm/metric  n A/B  A  B  B/A  interval  verdict"; a name
 * too long for its column gets a line of its own. */
static void
compare_print_row(FILE *out, const char *arm, const char *metric,
    const json_t *m, bool abs)
{
	char name[256], n[48], a[32], b[32], r[32], ci[80];

	snprintf(name, sizeof name, "%s/%s", arm, metric);
	snprintf(n, sizeof n, "%lld/%lld",
	    (long long)json_integer_value(json_object_get(m, "n_a")),
	    (long long)json_integer_value(json_object_get(m, "n_b")));
	if (strlen(name) > COMPARE_NAME) {
		fprintf(out, "  %s\n", name);
		name[0] = '\0';
	}
	fprintf(out, "  %-*s %9s %9s %9s %6s  %-11s  %s\n", COMPARE_NAME, name,
	    n, abs ? compare_print_abs(a, sizeof a, metric,
	    json_object_get(m, "abs_a")) : "",
	    abs ? compare_print_abs(b, sizeof b, metric,
	    json_object_get(m, "abs_b")) : "",
	    compare_print_ratio(r, sizeof r, json_object_get(m, "estimate")),
	    compare_print_ci(ci, sizeof ci, m),
	    compare_print_str(json_object_get(m, "verdict")));
}

static void
compare_print_cell(FILE *out, const char *cname, const json_t *cell,
    const char *lvl)
{
	const json_t *arms = json_object_get(cell, "arms"), *arm, *m;
	const char *aname, *metric;
	char ci[48];
	bool effects = false;

	snprintf(ci, sizeof ci, "%s%% CI", lvl);
	fprintf(out, "\ncell %s\n  %-*s %9s %9s %9s %6s  %-11s  %s\n", cname,
	    COMPARE_NAME, "arm/metric", "n A/B", "A", "B", "B/A", ci,
	    "verdict");
	json_object_foreach((json_t *)arms, aname, arm) {
		json_object_foreach(json_object_get(arm, "metrics"), metric, m)
			compare_print_row(out, aname, metric, m, true);
		if (json_object_size(json_object_get(arm, "effect")) > 0)
			effects = true;
	}
	if (!effects)
		return;
	fputs("  effect: each arm's ratio to its comparison arm, B's against "
	    "A's\n", out);
	json_object_foreach((json_t *)arms, aname, arm)
		json_object_foreach(json_object_get(arm, "effect"), metric, m) {
			const json_t *h;
			const char *host;

			compare_print_row(out, aname, metric, m, false);
			json_object_foreach(json_object_get(m, "hosts"), host,
			    h) {
				char *at = xasprintf("%s@%s", metric, host);
				compare_print_row(out, aname, at, h, false);
				free(at);
			}
		}
}

static void
compare_print_text(const json_t *cmp, const json_t *notes, FILE *out)
{
	const json_t *cell, *v;
	const char *cname;
	char lvl[32];
	size_t i;

	compare_print_level(lvl, sizeof lvl, cmp);
	fprintf(out, "B against A (B/A): intervals at %s%%, margin %g%%\n"
	    "  A %s\n  B %s\n\nenvironment\n", lvl, 100 * json_number_value(
	    json_object_get(cmp, "margin")), compare_print_str(json_object_get(
	    cmp, "a")), compare_print_str(json_object_get(cmp, "b")));
	compare_print_env(json_object_get(cmp, "env"), out);
	json_array_foreach(notes, i, v) {
		char *s = xasprintf("note: %s", compare_print_str(v));
		report_wrap_at(out, COMPARE_WIDTH, 0, s);
		free(s);
	}
	compare_print_text_rounds(cmp, out);
	compare_print_only(out, "only in A (not compared)",
	    json_object_get(cmp, "only_a"));
	compare_print_only(out, "only in B (not compared)",
	    json_object_get(cmp, "only_b"));
	json_object_foreach(json_object_get(cmp, "cells"), cname, cell)
		compare_print_cell(out, cname, cell, lvl);
}

/* One csv row; m NULL for a name only one round has. */
static void
compare_print_csv_row(FILE *out, const json_t *cmp, const char *cell,
    const char *arm, const char *metric, const char *kind, const json_t *m)
{
	static const char *const nums[] = { "n_a", "n_b", "abs_a", "abs_b",
	    "estimate" };
	const json_t *ci = json_object_get(m, "ci");

	csvout_str(out, compare_print_str(json_object_get(cmp, "a")), false);
	csvout_str(out, compare_print_str(json_object_get(cmp, "b")), true);
	csvout_str(out, cell, true);
	csvout_str(out, arm, true);
	csvout_str(out, metric, true);
	csvout_str(out, kind, true);
	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		csvout_num(out, json_object_get(m, nums[i]));
	csvout_num(out, json_array_get(ci, 0));
	csvout_num(out, json_array_get(ci, 1));
	csvout_num(out, json_object_get(cmp, "level"));
	csvout_num(out, json_object_get(cmp, "margin"));
	csvout_str(out, json_string_value(json_object_get(m, "verdict")),
	    true);
	csvout_str(out, json_string_value(json_object_get(m, "note")), true);
	fputc('\n', out);
}

/* A row of kind partial_a or warning_a (_b) for each round's partial
 * seal and warnings, the text under "note". */
static void
compare_print_csv_rounds(FILE *out, const json_t *cmp)
{
	const json_t *v;
	size_t i;

	for (int side = 0; side < 2; side++) {
		char *s = compare_print_partial(cmp, side), kind[16];
		json_t *m = json_object();
		if (s != NULL) {
			snprintf(kind, sizeof kind, "partial_%c", 'a' + side);
			json_object_set_new(m, "note", json_string(s));
			compare_print_csv_row(out, cmp, NULL, NULL, NULL, kind,
			    m);
		}
		free(s);
		snprintf(kind, sizeof kind, "warning_%c", 'a' + side);
		json_array_foreach(compare_print_warnings(cmp, side), i, v) {
			json_object_set(m, "note", (json_t *)v);
			compare_print_csv_row(out, cmp, NULL, NULL, NULL, kind,
			    m);
		}
		json_decref(m);
	}
}

/* The rows of what only one round has: "CELL/ARM/METRIC" split (a cell
 * and an arm name hold no '/'; a metric's may). */
static void
compare_print_csv_only(FILE *out, const json_t *cmp, const char *kind)
{
	const json_t *v;
	size_t i;

	json_array_foreach(json_object_get(cmp, kind), i, v) {
		char *s = xstrdup(compare_print_str(v)), *arm, *metric;
		if ((arm = strchr(s, '/')) != NULL)
			*arm++ = '\0';
		if (arm != NULL && (metric = strchr(arm, '/')) != NULL)
			*metric++ = '\0';
		else
			metric = NULL;
		compare_print_csv_row(out, cmp, s, arm, metric, kind, NULL);
		free(s);
	}
}

static void
compare_print_csv(const json_t *cmp, FILE *out)
{
	const json_t *cell, *arm, *m;
	const char *cname, *aname, *metric;

	fputs("a,b,cell,arm,metric,kind,n_a,n_b,abs_a,abs_b,estimate,ci_lo,"
	    "ci_hi,level,margin,verdict,note\n", out);
	json_object_foreach(json_object_get(cmp, "cells"), cname, cell)
	json_object_foreach(json_object_get(cell, "arms"), aname, arm) {
		json_object_foreach(json_object_get(arm, "metrics"), metric, m)
			compare_print_csv_row(out, cmp, cname, aname, metric,
			    "metric", m);
		json_object_foreach(json_object_get(arm, "effect"), metric, m) {
			const json_t *h;
			const char *host;

			compare_print_csv_row(out, cmp, cname, aname, metric,
			    "effect", m);
			json_object_foreach(json_object_get(m, "hosts"), host,
			    h) {
				char *at = xasprintf("%s@%s", metric, host);
				compare_print_csv_row(out, cmp, cname, aname, at,
				    "effect", h);
				free(at);
			}
		}
	}
	compare_print_csv_only(out, cmp, "only_a");
	compare_print_csv_only(out, cmp, "only_b");
	compare_print_csv_rounds(out, cmp);
}

/* One markdown row of a metric (abs) or an effect. */
static void
compare_print_md_row(FILE *out, const char *aname, const char *metric,
    const json_t *m, bool abs)
{
	char a[32], b[32], r[32], ci[80];
	const char *v = compare_print_str(json_object_get(m, "verdict"));
	bool strong = strcmp(v, "above") == 0 || strcmp(v, "below") == 0;

	fprintf(out, "| %s | %s | %lld | %lld |", aname, metric,
	    (long long)json_integer_value(json_object_get(m, "n_a")),
	    (long long)json_integer_value(json_object_get(m, "n_b")));
	if (abs)
		fprintf(out, " %s | %s |", compare_print_abs(a, sizeof a,
		    metric, json_object_get(m, "abs_a")),
		    compare_print_abs(b, sizeof b, metric,
		    json_object_get(m, "abs_b")));
	fprintf(out, " %s | %s | %s%s%s |\n", compare_print_ratio(r,
	    sizeof r, json_object_get(m, "estimate")),
	    compare_print_ci(ci, sizeof ci, m), strong ? "**" : "", v,
	    strong ? "**" : "");
}

/* One markdown table of a cell's metrics (abs) or effects (each host's
 * after the pooled one, as METRIC@HOST). */
static void
compare_print_md_table(FILE *out, const json_t *arms, bool abs,
    const char *lvl)
{
	const json_t *arm, *m, *h;
	const char *aname, *metric, *host;

	fprintf(out, "| arm | metric | n A | n B |%s B/A | CI %s%% | verdict "
	    "|\n|---|---|--:|--:|%s--:|---|---|\n", abs ? " A | B |" : "", lvl,
	    abs ? "--:|--:|" : "");
	json_object_foreach((json_t *)arms, aname, arm)
	json_object_foreach(json_object_get(arm, abs ? "metrics" : "effect"),
	    metric, m) {
		compare_print_md_row(out, aname, metric, m, abs);
		json_object_foreach(json_object_get(m, "hosts"), host, h) {
			char *at = xasprintf("%s@%s", metric, host);
			compare_print_md_row(out, aname, at, h, abs);
			free(at);
		}
	}
}

/* s as a markdown code span: fenced by one backtick more than its
 * longest run of them, padded with a space when it begins or ends with
 * one (CommonMark), so a backtick in a folder's name cannot end the span
 * early; a '|' escaped, for a table cell. */
static void
compare_print_md_code(FILE *out, const char *s)
{
	size_t run = 0, longest = 0, n = strlen(s);
	bool pad;

	for (const char *p = s; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		longest = run > longest ? run : longest;
	}
	pad = n > 0 && (s[0] == '`' || s[n - 1] == '`');
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
	if (pad)
		fputc(' ', out);
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			fputc('\\', out);
		fputc(*p, out);
	}
	if (pad)
		fputc(' ', out);
	for (size_t i = 0; i <= longest; i++)
		fputc('`', out);
}

/* The markdown environment: a table of the differences, then what both
 * share. */
static void
compare_print_md_env(const json_t *env, FILE *out)
{
	const json_t *v;
	const char *key;
	size_t i = 0;

	fputs("\n## Environment\n\n", out);
	if (json_object_size(json_object_get(env, "differ")) > 0)
		fputs("| differs | A | B |\n|---|---|---|\n", out);
	json_object_foreach(json_object_get(env, "differ"), key, v) {
		char *a = compare_print_value(json_array_get(v, 0));
		char *b = compare_print_value(json_array_get(v, 1));
		fprintf(out, "| %s | ", key);
		compare_print_md_code(out, a);
		fputs(" | ", out);
		compare_print_md_code(out, b);
		fputs(" |\n", out);
		free(a);
		free(b);
	}
	fputs("\nThe same in both:", out);
	json_object_foreach(json_object_get(env, "same"), key, v) {
		char *s = compare_print_value(v);
		fprintf(out, "%s %s ", i++ ? "," : "", key);
		compare_print_md_code(out, s);
		free(s);
	}
	fputs(i ? ".\n" : " nothing.\n", out);
}

static void
compare_print_markdown(const json_t *cmp, const json_t *notes, FILE *out)
{
	const json_t *cell, *v, *arm;
	const char *cname, *aname;
	char lvl[32];
	size_t i;

	compare_print_level(lvl, sizeof lvl, cmp);
	fputs("# benchtui compare\n\nB ", out);
	compare_print_md_code(out, compare_print_str(json_object_get(cmp,
	    "b")));
	fputs(" against A ", out);
	compare_print_md_code(out, compare_print_str(json_object_get(cmp,
	    "a")));
	fprintf(out, " (B/A): intervals at %s%%, margin %g%%.\n", lvl, 100 *
	    json_number_value(json_object_get(cmp, "margin")));
	compare_print_md_env(json_object_get(cmp, "env"), out);
	json_array_foreach(notes, i, v)
		fprintf(out, "%s> %s\n", i ? "" : "\n", compare_print_str(v));
	for (int side = 0; side < 2; side++) {
		char *s = compare_print_partial(cmp, side);
		if (s != NULL)
			fprintf(out, "\n> **%s**\n", s);
		free(s);
		if (json_array_size(compare_print_warnings(cmp, side)) > 0)
			fprintf(out, "\nWarnings of %c (as report gives them):"
			    "\n\n", 'A' + side);
		json_array_foreach(compare_print_warnings(cmp, side), i, v)
			fprintf(out, "- %s\n", compare_print_str(v));
	}
	for (int side = 0; side < 2; side++) {
		const json_t *list = json_object_get(cmp, side ? "only_b" :
		    "only_a");
		if (json_array_size(list) == 0)
			continue;
		fprintf(out, "\nOnly in %c (not compared):", side ? 'B' : 'A');
		json_array_foreach(list, i, v)
		{
			fprintf(out, "%s ", i ? "," : "");
			compare_print_md_code(out, compare_print_str(v));
		}
		fputs(".\n", out);
	}
	json_object_foreach(json_object_get(cmp, "cells"), cname, cell) {
		bool effects = false;
		fputs("\n## Cell ", out);
		compare_print_md_code(out, cname);
		fputs("\n\n", out);
		compare_print_md_table(out, json_object_get(cell, "arms"), true,
		    lvl);
		json_object_foreach(json_object_get(cell, "arms"), aname, arm)
			effects |= json_object_size(json_object_get(arm,
			    "effect")) > 0;
		if (!effects)
			continue;
		fputs("\nEffect: each arm's ratio to its comparison arm, B's "
		    "against A's.\n\n", out);
		compare_print_md_table(out, json_object_get(cell, "arms"), false,
		    lvl);
	}
}

int
compare_print(const json_t *cmp, const json_t *notes, enum report_format fmt,
    FILE *out)
{
	/* Every string here came from a round folder or a far host (names,
	 * paths, environment.json's facts): the human formats reach the
	 * terminal through the one escape rule (escape.h). */
	FILE *esc = fmt != REPORT_JSON ? escape_stream(out) : NULL;
	int rc;

	rc = compare_print_to(cmp, notes, fmt, esc != NULL ? esc : out);
	if (esc != NULL && fclose(esc) != 0)
		rc = -1;
	return fflush(out) == 0 && !ferror(out) && rc == 0 ? 0 : -1;
}

static int
compare_print_to(const json_t *cmp, const json_t *notes,
    enum report_format fmt, FILE *out)
{
	switch (fmt) {
	case REPORT_JSON:
		if (json_dumpf(cmp, out, JSON_INDENT(2) |
		    JSON_REAL_PRECISION(17)) != 0)
			return -1;
		fputc('\n', out);
		break;
	case REPORT_CSV:
		compare_print_csv(cmp, out);
		break;
	case REPORT_MARKDOWN:
		compare_print_markdown(cmp, notes, out);
		break;
	case REPORT_TEXT:
		compare_print_text(cmp, notes, out);
		break;
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
