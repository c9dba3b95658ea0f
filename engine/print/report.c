/* Printing a report object (see report.h).
 *
 * Every format reads the same object tally_report built, so text, csv,
 * markdown and the summary files can never disagree with --format json. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "escape.h"
#include "report_int.h"
#include "profdiff.h"
#include "csvout.h"
#include "profile.h"
#include "rfile.h"
#include "words.h"

#define REPORT_WIDTH 100
#define REPORT_JSON_FLAGS (JSON_INDENT(2) | JSON_REAL_PRECISION(17))

/* A string field for printing: the report object comes from a tally, but
 * report_print also takes hand-made objects, and %s of NULL is undefined. */
static const char *
report_str(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

static const char *const report_formats[] = { "text", "json", "csv",
    "markdown", NULL };

const char *const *
report_format_names(void)
{
	return report_formats;
}

int
report_format_parse(const char *name)
{
	for (size_t i = 0; name && report_formats[i] != NULL; i++)
		if (strcmp(name, report_formats[i]) == 0)
			return (int)i;
	return -1;
}

const char *
report_ratio(char *buf, size_t len, const json_t *x)
{
	double v;

	if (!json_is_number(x))
		return "n/a";
	v = json_number_value(x);
	if (fabs(v) < 10)
		snprintf(buf, len, "%.4f", v);
	else if (fabs(v) < 10000)
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.2g", v);
	return buf;
}

const char *
report_range(char *buf, size_t len, const json_t *lo, const json_t *hi)
{
	char a[32], b[32];

	if (!json_is_number(lo) || !json_is_number(hi))
		return "n/a";
	snprintf(buf, len, "[%s, %s]", report_ratio(a, sizeof a, lo),
	    report_ratio(b, sizeof b, hi));
	return buf;
}

static const char *
report_percent(char *buf, size_t len, const json_t *x)
{
	if (!json_is_number(x))
		return "n/a";
	snprintf(buf, len, "%.2f%%", 100.0 * json_number_value(x));
	return buf;
}

/* report_wrap_at at the report's own width. */
static void
report_wrap(FILE *out, int indent, const char *text)
{
	report_wrap_at(out, REPORT_WIDTH, indent, text);
}

void
report_wrap_at(FILE *out, int width, int indent, const char *text)
{
	int col = 0, first = 1;
	const char *p = text;

	while (*p) {
		size_t w = strcspn(p, " ");
		if (first) {
			col = fprintf(out, "%*s%.*s", indent, "", (int)w, p);
			first = 0;
		} else if (col + 1 + (int)w > width) {
			col = fprintf(out, "\n%*s%.*s", indent + 2, "", (int)w,
			    p) - 1;
		} else
			col += fprintf(out, " %.*s", (int)w, p);
		p += w;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* Truncate a name to width with '~' so columns stay aligned. */
static const char *
report_fit(char *buf, size_t len, const char *s, int width)
{
	if ((int)strlen(s) <= width)
		return s;
	snprintf(buf, len, "%.*s~", width - 1, s);
	return buf;
}

/* The interval of a metric: "[lo, hi]", or "n<K: none" when there is
 * none (too few reps for the level). */
static const char *
report_ci(char *buf, size_t len, const json_t *m)
{
	const json_t *ci = json_object_get(m, "ci");

	if (json_is_array(ci))
		return report_range(buf, len, json_array_get(ci, 0),
		    json_array_get(ci, 1));
	if (json_integer_value(json_object_get(m, "n")) > 0)
		return "none (few n)";
	return "n/a";
}

/* The verdict in short ("undecided +-3.4%": what its interval can see),
 * with SUSPECT when the cell's A/A arms disagree. */
static const char *
report_verdict(char *buf, size_t len, const json_t *m)
{
	char v[64];

	snprintf(buf, len, "%s%s", words_verdict_short(v, sizeof v, m),
	    json_is_true(json_object_get(m, "suspect")) ? " SUSPECT" : "");
	return buf;
}

/* The other estimator's "alt", when its verdict differs from the
 * chosen one's (the reports show both only then), else NULL. */
static const json_t *
report_alt(const json_t *m)
{
	const json_t *alt = json_object_get(m, "alt");
	const char *v = json_string_value(json_object_get(m, "verdict"));
	const char *av = json_string_value(json_object_get(alt, "verdict"));

	if (v == NULL || av == NULL || strcmp(v, av) == 0)
		return NULL;
	return alt;
}

/* The alt's interval, or "none" (an alt has no n of its own). */
static const char *
report_alt_ci(char *buf, size_t len, const json_t *alt)
{
	const json_t *ci = json_object_get(alt, "ci");

	if (!json_is_array(ci))
		return "none";
	return report_range(buf, len, json_array_get(ci, 0),
	    json_array_get(ci, 1));
}

/* Text: the alt's own row under the metric's, its name where the
 * metric's is, its estimate, interval and verdict in their columns. */
static void
report_text_alt(FILE *out, const json_t *m)
{
	const json_t *alt = report_alt(m);
	char name[32], b1[32], b2[64];

	if (alt == NULL)
		return;
	snprintf(name, sizeof name, "  (%s)",
	    report_str(json_object_get(alt, "estimator")));
	fprintf(out, "    %-16s %4s  %7s  %-18s  %7s  %-18s  %s\n", name, "",
	    "", "", report_ratio(b1, sizeof b1, json_object_get(alt,
	    "estimate")), report_alt_ci(b2, sizeof b2, alt),
	    report_str(json_object_get(alt, "verdict")));
}

/* Which estimator decides, and which is shown below a metric whose
 * verdict it does not share. */
static void
report_text_estimator(FILE *out, const json_t *rep)
{
	const char *e = json_string_value(json_object_get(rep, "estimator"));

	if (e != NULL)
		fprintf(out, "estimator %s (a \"(%s)\" row: the other "
		    "estimator, where its verdict differs)\n", e,
		    strcmp(e, "floor") == 0 ? "paired" : "floor");
}

/* Markdown: the alt after the verdict, in the same cell. */
static void
report_markdown_alt(FILE *out, const json_t *m)
{
	const json_t *alt = report_alt(m);
	char b1[32], b2[64];

	if (alt == NULL)
		return;
	fprintf(out, " (%s: %s %s %s)",
	    report_str(json_object_get(alt, "estimator")),
	    report_str(json_object_get(alt, "verdict")),
	    report_ratio(b1, sizeof b1, json_object_get(alt, "estimate")),
	    report_alt_ci(b2, sizeof b2, alt));
}

/* "the level as a percentage": 95, 99.5 */
static const char *
report_level(char *buf, size_t len, const json_t *rep)
{
	const json_t *l = json_object_get(rep, "level");

	if (!json_is_number(l))
		return "?";
	snprintf(buf, len, "%g", 100.0 * json_number_value(l));
	return buf;
}

static void
report_text_cell(FILE *out, const char *cname, const json_t *cell,
    const char *level)
{
	const json_t *floors = json_object_get(cell, "floor");
	const json_t *legs = json_object_get(cell, "legs");
	const json_t *arms = json_object_get(cell, "arms");
	const json_t *biased = json_object_get(cell, "biased");
	const char *metric, *aname;
	const json_t *f, *arm, *b;
	char line[4096], buf[64], cih[48];
	size_t len, i;

	fprintf(out, "cell %s\n", cname);
	fprintf(out, "  legs: %lld counted, %lld failed, %lld timed out, "
	    "%lld aborted lines\n",
	    (long long)json_integer_value(json_object_get(legs, "counted")),
	    (long long)json_integer_value(json_object_get(legs, "failed")),
	    (long long)json_integer_value(json_object_get(legs, "timed_out")),
	    (long long)json_integer_value(json_object_get(legs, "aborted_seen")));
	len = (size_t)snprintf(line, sizeof line, "A/A floor (largest spread):");
	json_object_foreach((json_t *)floors, metric, f)
		if (len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len,
			    " %s %s", metric, report_percent(buf, sizeof buf, f));
	report_wrap(out, 2, line);
	if (json_array_size(biased) > 0) {
		len = (size_t)snprintf(line, sizeof line, "BIASED: the A/A arms "
		    "differ on");
		json_array_foreach(biased, i, b)
			if (len < sizeof line)
				len += (size_t)snprintf(line + len,
				    sizeof line - len, "%s %s", i ? "," : "",
				    report_str(b));
		if (len < sizeof line)
			snprintf(line + len, sizeof line - len, "; every verdict "
			    "on %s is suspect", json_array_size(biased) > 1 ?
			    "them" : "it");
		report_wrap(out, 2, line);
	}
	snprintf(cih, sizeof cih, "CI %s%%", level);
	json_object_foreach((json_t *)arms, aname, arm) {
		const json_t *metrics = json_object_get(arm, "metrics"), *m;

		len = (size_t)snprintf(line, sizeof line, "%s vs %s%s", aname,
		    report_str(json_object_get(arm, "vs")),
		    json_is_string(json_object_get(arm, "aa_of")) ? " (A/A)" : "");
		if (json_is_number(json_object_get(arm, "ipc")) && len < sizeof line)
			snprintf(line + len, sizeof line - len, ", IPC %.3f",
			    json_number_value(json_object_get(arm, "ipc")));
		report_wrap(out, 2, line);
		fprintf(out, "    %-16s %4s  %7s  %-18s  %7s  %-18s  %s\n",
		    "metric", "n", "median", "range [min, max]", "estim.",
		    cih, "verdict");
		json_object_foreach((json_t *)metrics, metric, m) {
			char nb[64], b1[32], b2[32], b3[64], b4[64], b5[64];

			fprintf(out,
			    "    %-16s %4lld  %7s  %-18s  %7s  %-18s  %s\n",
			    report_fit(nb, sizeof nb, metric, 16),
			    (long long)json_integer_value(json_object_get(m, "n")),
			    report_ratio(b1, sizeof b1, json_object_get(m, "median")),
			    report_range(b3, sizeof b3, json_object_get(m, "min"),
				json_object_get(m, "max")),
			    report_ratio(b2, sizeof b2, json_object_get(m, "estimate")),
			    report_ci(b4, sizeof b4, m),
			    report_verdict(b5, sizeof b5, m));
			report_text_alt(out, m);
			report_text_hosts(out, metric, m);
		}
	}
}

/* The quiet gate's line: per arm, the legs that ran on a box that was
 * not quiet, and why; nothing when every leg ran on a quiet one and the
 * gate never waited. */
static void
report_text_gate(const json_t *rep, FILE *out)
{
	static const char *const why[] = { "waived", "timeout", "budget",
	    "noisy" };
	const json_t *g = json_object_get(rep, "gate"), *o;
	const json_t *arms = json_object_get(g, "arms");
	double waited = json_number_value(json_object_get(g, "waited_s"));
	json_int_t any = 0;
	char line[4096];
	const char *arm;
	size_t len;

	json_object_foreach((json_t *)arms, arm, o)
		any += json_integer_value(json_object_get(o, "not_quiet"));
	if (any == 0 && !(waited > 0))
		return;
	len = (size_t)snprintf(line, sizeof line, "quiet gate: waited %.1f s%s; "
	    "legs on a box that was not quiet:", waited,
	    json_is_true(json_object_get(g, "budget_spent")) ?
	    " (its budget_s, all of it)" : "");
	json_object_foreach((json_t *)arms, arm, o) {
		const char *sep = " (";

		if (len >= sizeof line)
			break;
		len += (size_t)snprintf(line + len, sizeof line - len,
		    " %s %lld of %lld", arm, (long long)json_integer_value(
		    json_object_get(o, "not_quiet")), (long long)
		    json_integer_value(json_object_get(o, "legs")));
		for (size_t k = 0; k < 4 && len < sizeof line; k++) {
			json_int_t n = json_integer_value(json_object_get(o,
			    why[k]));

			if (n == 0)
				continue;
			len += (size_t)snprintf(line + len, sizeof line - len,
			    "%s%s %lld", sep, why[k], (long long)n);
			sep = ", ";
		}
		if (*sep == ',' && len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len,
			    ")");
		if (len < sizeof line)
			len += (size_t)snprintf(line + len, sizeof line - len,
			    ",");
	}
	if (len > 0 && len < sizeof line && line[len - 1] == ',')
		line[len - 1] = '\0';
	report_wrap(out, 0, line);
}

static void
report_text(const json_t *rep, FILE *out)
{
	const json_t *cells = json_object_get(rep, "cells"), *cell, *w;
	const json_t *total = json_object_get(rep, "legs_total");
	const char *name = json_string_value(json_object_get(rep, "round"));
	const char *cname;
	char lvl[32], cih_buf[32];
	size_t i;

	report_level(lvl, sizeof lvl, rep);
	fprintf(out, "round %s: %lld legs counted", name ? name : "(unnamed)",
	    (long long)json_integer_value(json_object_get(rep, "legs_counted")));
	if (json_is_integer(total))
		fprintf(out, " of %lld planned", (long long)json_integer_value(total));
	if (json_is_true(json_object_get(rep, "partial")))
		fputs(" (PARTIAL)", out);
	fputc('\n', out);
	fprintf(out, "intervals at %s%%, margin %s, %lld comparisons\n", lvl,
	    report_percent(cih_buf, sizeof cih_buf, json_object_get(rep,
	    "margin")), (long long)json_integer_value(json_object_get(rep,
	    "comparisons")));
	report_text_estimator(out, rep);
	report_text_gate(rep, out);
	fputc('\n', out);
	words_summary(rep, out, WORDS_TEXT);
	if (json_object_size(cells) > 0)
		fputs("\ndetails: every metric's paired ratios (arm / its "
		    "comparison arm)\n", out);
	json_object_foreach((json_t *)cells, cname, cell) {
		fputc('\n', out);
		report_text_cell(out, cname, cell, lvl);
	}
	if (json_array_size(json_object_get(rep, "warnings")) > 0) {
		fputs("\nwarnings:\n", out);
		json_array_foreach(json_object_get(rep, "warnings"), i, w) {
			char line[1024];
			snprintf(line, sizeof line, "- %s", report_str(w));
			report_wrap(out, 2, line);
		}
	}
}

/* A metric's ratios, ';'-separated: from the report, or from lists where
 * the report left them out. */
static void
report_csv_ratios(FILE *out, const json_t *m, const char *cell,
    const char *arm, const char *metric, const struct report_lists *lists)
{
	const json_t *list = json_object_get(m, "ratios"), *r;
	const double *v;
	size_t i, n;

	if (json_is_null(list) && lists != NULL) {
		n = lists->get(lists->arg, cell, arm, metric, &v);
		for (i = 0; i < n; i++)
			fprintf(out, "%s%.17g", i ? ";" : "", v[i]);
		return;
	}
	json_array_foreach(list, i, r)
		fprintf(out, "%s%.17g", i ? ";" : "", json_number_value(r));
}

static void
report_csv(const json_t *rep, FILE *out, const struct report_lists *lists)
{
	const char *round = json_string_value(json_object_get(rep, "round"));
	const char *cname, *aname, *metric;
	const json_t *cell, *arm, *m;
	bool hosts = report_has_hosts(rep);

	fputs("round,cell,arm,vs,metric,n,median,min,max,geomean,abs,vs_abs,"
	    "estimate,ci_lo,ci_hi,level,margin,spread,floor,verdict,suspect,"
	    "ratios", out);
	fputs(hosts ? ",host,differs\n" : "\n", out);
	json_object_foreach(json_object_get(rep, "cells"), cname, cell)
	json_object_foreach(json_object_get(cell, "arms"), aname, arm)
	json_object_foreach(json_object_get(arm, "metrics"), metric, m) {
		const json_t *ci = json_object_get(m, "ci");

		csvout_str(out, round, false);
		csvout_str(out, cname, true);
		csvout_str(out, aname, true);
		csvout_str(out, json_string_value(json_object_get(arm, "vs")),
		    true);
		csvout_str(out, metric, true);
		csvout_num(out, json_object_get(m, "n"));
		csvout_num(out, json_object_get(m, "median"));
		csvout_num(out, json_object_get(m, "min"));
		csvout_num(out, json_object_get(m, "max"));
		csvout_num(out, json_object_get(m, "geomean"));
		csvout_num(out, json_object_get(m, "abs"));
		csvout_num(out, json_object_get(m, "vs_abs"));
		csvout_num(out, json_object_get(m, "estimate"));
		csvout_num(out, json_array_get(ci, 0));
		csvout_num(out, json_array_get(ci, 1));
		csvout_num(out, json_object_get(rep, "level"));
		csvout_num(out, json_object_get(rep, "margin"));
		csvout_num(out, json_object_get(m, "spread"));
		csvout_num(out, json_object_get(json_object_get(cell, "floor"),
		    metric));
		csvout_str(out, json_string_value(json_object_get(m,
		    "verdict")), true);
		csvout_str(out, json_is_true(json_object_get(m, "suspect")) ?
		    "true" : "false", true);
		fputc(',', out);
		report_csv_ratios(out, m, cname, aname, metric, lists);
		if (hosts)
			report_csv_hosts(out, rep, cname, aname, json_string_value(
			    json_object_get(arm, "vs")), metric, m);
		else
			fputc('\n', out);
	}
}

static void
report_markdown(const json_t *rep, FILE *out)
{
	const char *round = json_string_value(json_object_get(rep, "round"));
	const json_t *cell, *arm, *m, *f, *w, *b;
	const char *cname, *aname, *metric;
	char b1[64], b2[64], b3[64], b4[64], lvl[32];
	size_t i;

	report_level(lvl, sizeof lvl, rep);
	fprintf(out, "# benchtui round `%s`\n\n", round ? round : "(unnamed)");
	if (json_is_true(json_object_get(rep, "partial")))
		fputs("> **PARTIAL ROUND**: it was aborted before every planned "
		    "leg ran; the numbers below cover only the legs that did.\n\n",
		    out);
	fprintf(out, "%lld legs counted",
	    (long long)json_integer_value(json_object_get(rep, "legs_counted")));
	if (json_is_integer(json_object_get(rep, "legs_total")))
		fprintf(out, " of %lld planned", (long long)json_integer_value(
		    json_object_get(rep, "legs_total")));
	fprintf(out, ". Intervals at %s%%, margin %s, %lld comparisons.\n", lvl,
	    report_percent(b1, sizeof b1, json_object_get(rep, "margin")),
	    (long long)json_integer_value(json_object_get(rep, "comparisons")));
	fputc('\n', out);
	words_summary(rep, out, WORDS_MARKDOWN);
	if (json_object_size(json_object_get(rep, "cells")) > 0)
		fputs("## Details\n\nEvery metric's paired ratios (arm / its "
		    "comparison arm).\n", out);
	json_object_foreach(json_object_get(rep, "cells"), cname, cell) {
		const json_t *biased = json_object_get(cell, "biased");

		fprintf(out, "\n### Cell `%s`\n\nA/A floor (largest spread):",
		    cname);
		i = 0;
		json_object_foreach(json_object_get(cell, "floor"), metric, f)
			fprintf(out, "%s %s %s", i++ ? "," : "", metric,
			    report_percent(b1, sizeof b1, f));
		fputs(".\n\n", out);
		if (json_array_size(biased) > 0) {
			fputs("> **BIASED**: the A/A arms differ on", out);
			json_array_foreach(biased, i, b)
				fprintf(out, "%s %s", i ? "," : "",
				    report_str(b));
			fputs("; every verdict there is **suspect**.\n\n", out);
		}
		fprintf(out, "| arm | vs | metric | n | median | range [min, max] "
		    "| estimate | CI %s%% | verdict |\n"
		    "|---|---|---|--:|--:|---|--:|---|---|\n", lvl);
		json_object_foreach(json_object_get(cell, "arms"), aname, arm)
		json_object_foreach(json_object_get(arm, "metrics"), metric, m) {
			const char *v = json_string_value(json_object_get(m,
			    "verdict"));
			bool strong = v && (strcmp(v, "above") == 0 ||
			    strcmp(v, "below") == 0);
			char vb[64];

			fprintf(out, "| %s | %s | %s | %lld | %s | ", aname,
			    report_str(json_object_get(arm, "vs")), metric,
			    (long long)json_integer_value(json_object_get(m, "n")),
			    report_ratio(b1, sizeof b1, json_object_get(m, "median")));
			fprintf(out, "%s | %s | %s | %s%s%s%s",
			    report_range(b2, sizeof b2, json_object_get(m, "min"),
				json_object_get(m, "max")),
			    report_ratio(b3, sizeof b3, json_object_get(m, "estimate")),
			    report_ci(b4, sizeof b4, m),
			    strong ? "**" : "", words_verdict_short(vb, sizeof vb,
			    m), strong ? "**" : "",
			    json_is_true(json_object_get(m, "suspect")) ?
			    " **SUSPECT**" : "");
			report_markdown_alt(out, m);
			fputs(" |\n", out);
		}
		report_markdown_hosts(out, cell);
	}
	if (json_array_size(json_object_get(rep, "warnings")) > 0) {
		fputs("\n## Warnings\n\n", out);
		json_array_foreach(json_object_get(rep, "warnings"), i, w)
			fprintf(out, "- %s\n", report_str(w));
	}
}

/* The json format with the ratio lists printed from report_lists: the
 * report object walked down to each metric, and everything else printed
 * by jansson itself, so the bytes are json_dumpf's. */
struct report_json {
	FILE *out;
	const struct report_lists *lists;
	const char *path[7];      /* the keys on the way down */
	json_t *real;             /* one ratio, printed as jansson does */
};

/* The way from the root to a metric's "ratios": the key at each depth,
 * NULL for any (a cell, an arm, a metric). */
static const char *const report_json_route[7] = { "cells", NULL, "arms",
    NULL, "metrics", NULL, "ratios" };

/* v as json_dumpf prints it depth levels down: jansson's own text, every
 * line indented depth levels more (JSON_INDENT's newlines are the only
 * raw ones; one inside a string is escaped). */
static int
report_json_plain(FILE *out, const json_t *v, int depth)
{
	char *text = json_dumps(v, REPORT_JSON_FLAGS | JSON_ENCODE_ANY);

	if (text == NULL)
		return -1;
	for (const char *p = text; *p; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", 2 * depth, "");
	}
	free(text);
	return 0;
}

/* One metric's ratios, depth levels down. */
static int
report_json_ratios(struct report_json *j, int depth)
{
	const double *v;
	size_t n = j->lists->get(j->lists->arg, j->path[1], j->path[3],
	    j->path[5], &v);
	char buf[64];

	if (n == 0)
		return fputs("[]", j->out) < 0 ? -1 : 0;
	fputc('[', j->out);
	for (size_t i = 0; i < n; i++) {
		size_t len;
		/* A ratio JSON cannot hold is null, as jansson would have
		 * no number for it. */
		if (!isfinite(v[i])) {
			fprintf(j->out, "\n%*snull%s", 2 * (depth + 1), "",
			    i + 1 < n ? "," : "");
			continue;
		}
		if (json_real_set(j->real, v[i]) != 0 ||
		    (len = json_dumpb(j->real, buf, sizeof buf,
		    REPORT_JSON_FLAGS | JSON_ENCODE_ANY)) == 0 ||
		    len >= sizeof buf)
			return -1;
		fprintf(j->out, "\n%*s%.*s%s", 2 * (depth + 1), "", (int)len,
		    buf, i + 1 < n ? "," : "");
	}
	fprintf(j->out, "\n%*s]", 2 * depth, "");
	return 0;
}

static int report_json_object(struct report_json *j, const json_t *o,
    int depth);

/* The value of key in an object depth - 1 levels down. */
static int
report_json_value(struct report_json *j, const char *key, const json_t *v,
    int depth)
{
	size_t d = (size_t)depth - 1;

	if (d < sizeof report_json_route / sizeof report_json_route[0] &&
	    (report_json_route[d] == NULL ||
	    strcmp(report_json_route[d], key) == 0)) {
		j->path[d] = key;
		if (d + 1 == sizeof report_json_route /
		    sizeof report_json_route[0]) {
			if (json_is_null(v))
				return report_json_ratios(j, depth);
		} else if (json_is_object(v))
			return report_json_object(j, v, depth);
	}
	return report_json_plain(j->out, v, depth);
}

static int
report_json_object(struct report_json *j, const json_t *o, int depth)
{
	size_t i = 0, n = json_object_size(o);
	const char *key;
	json_t *v;

	if (n == 0)
		return fputs("{}", j->out) < 0 ? -1 : 0;
	fputc('{', j->out);
	json_object_foreach((json_t *)o, key, v) {
		json_t *k = json_string(key);
		int rc;

		fprintf(j->out, "\n%*s", 2 * (depth + 1), "");
		rc = k ? report_json_plain(j->out, k, 0) : -1;
		json_decref(k);
		if (rc != 0 || fputs(": ", j->out) < 0 ||
		    report_json_value(j, key, v, depth + 1) != 0)
			return -1;
		if (++i < n)
			fputc(',', j->out);
	}
	fprintf(j->out, "\n%*s}", 2 * depth, "");
	return 0;
}

static int
report_json_lists(const json_t *rep, FILE *out,
    const struct report_lists *lists)
{
	struct report_json j = { .out = out, .lists = lists,
	    .real = json_real(0) };
	int rc;

	if (lists == NULL || !json_is_object(rep))
		rc = json_dumpf(rep, out, REPORT_JSON_FLAGS);
	else
		rc = j.real ? report_json_object(&j, rep, 0) : -1;
	json_decref(j.real);
	return rc;
}

int
report_print(const json_t *rep, enum report_format fmt, FILE *out)
{
	return report_print_lists(rep, fmt, out, NULL);
}

/* The formats a person reads (text, csv, markdown) into out through the
 * one escape rule (escape.h): names, warnings and symbols come from a log
 * anyone may have crafted.  json needs none (jansson escapes control
 * bytes itself). */
static int
report_print_human(const json_t *rep, enum report_format fmt, FILE *out,
    const struct report_lists *lists)
{
	FILE *esc = escape_stream(out);
	FILE *to = esc != NULL ? esc : out;
	int rc;

	switch (fmt) {
	case REPORT_TEXT:
		report_text(rep, to);
		profdiff_print(json_object_get(rep, "profiles"), PROFDIFF_TEXT,
		    PROFILE_TOP, to);
		break;
	case REPORT_CSV:
		report_csv(rep, to, lists);
		profdiff_print(json_object_get(rep, "profiles"), PROFDIFF_CSV,
		    0, to);
		break;
	default:
		report_markdown(rep, to);
		profdiff_print(json_object_get(rep, "profiles"),
		    PROFDIFF_MARKDOWN, PROFILE_TOP, to);
		break;
	}
	rc = ferror(to) ? -1 : 0;
	if (esc != NULL && fclose(esc) != 0)
		rc = -1;
	return rc;
}

int
report_print_lists(const json_t *rep, enum report_format fmt, FILE *out,
    const struct report_lists *lists)
{
	switch (fmt) {
	case REPORT_TEXT:
	case REPORT_CSV:
	case REPORT_MARKDOWN:
		if (report_print_human(rep, fmt, out, lists) != 0)
			return -1;
		break;
	case REPORT_JSON:
		if (report_json_lists(rep, out, lists) != 0)
			return -1;
		fputc('\n', out);
		break;
	default:
		return -1;
	}
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}

/* Write path through a temporary file and rename, so a crash never leaves
 * a half-written summary for the seal to hash. */
static int
report_write_file(const char *dir, const char *name, const json_t *rep,
    bool json, char *err, size_t errlen)
{
	char *path = NULL, *tmp = NULL;
	int rc = -1;
	FILE *f = NULL;

	if (asprintf(&path, "%s/%s", dir, name) < 0 ||
	    asprintf(&tmp, "%s/.%s.tmp", dir, name) < 0) {
		snprintf(err, errlen, "%s/%s: out of memory", dir, name);
		path = tmp = NULL;
		goto out;
	}
	{
		/* Never through a link a leg planted under the temp name. */
		int fd = rfile_create(tmp, 0, 0644);

		if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
			snprintf(err, errlen, "%s: cannot create: %s", tmp,
			    rfile_strerror(errno));
			if (fd >= 0)
				close(fd);
			goto out;
		}
	}
	if (json) {
		if (json_dumpf(rep, f, REPORT_JSON_FLAGS) != 0)
			goto werr;
		fputc('\n', f);
	} else if (report_print_human(rep, REPORT_MARKDOWN, f, NULL) != 0) {
		goto werr;
	}
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0)
		goto werr;
	if (fclose(f) != 0) {
		f = NULL;
		goto werr;
	}
	f = NULL;
	if (rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: cannot rename into place: %s", path,
		    strerror(errno));
		goto out;
	}
	rc = 0;
	goto out;
werr:
	snprintf(err, errlen, "%s: write failed: %s", tmp, strerror(errno));
out: {
	int e = errno;  /* a failure's, for the caller (a full disk) */

	if (f)
		fclose(f);
	if (rc != 0 && tmp)
		unlink(tmp);
	free(path);
	free(tmp);
	errno = e;
	return rc;
}
}

int
report_write_summary(const char *dir, const json_t *rep, bool partial,
    char *err, size_t errlen)
{
	json_t *copy = json_deep_copy(rep);
	int rc;

	if (copy == NULL) {
		snprintf(err, errlen, "%s/summary.json: out of memory", dir);
		return -1;
	}
	json_object_set_new(copy, "partial", json_boolean(partial));
	rc = report_write_file(dir, "summary.json", copy, true, err, errlen);
	if (rc == 0)
		rc = report_write_file(dir, "summary.md", copy, false, err,
		    errlen);
	json_decref(copy);
	return rc;
}
