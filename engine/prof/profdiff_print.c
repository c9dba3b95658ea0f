/* The differential view printed: text, markdown and csv (profdiff.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csvout.h"
#include "profdiff.h"
#include "profile.h"

static const char *
profdiff_print_str(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static double
profdiff_print_num(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "49.6 [47.5, 51.7]" (signed when sign), or "" where there is nothing;
 * the interval only where there is one. */
static const char *
profdiff_print_ci(char *buf, size_t len, const json_t *r, const char *v,
    const char *ci, bool sign)
{
	double x = profdiff_print_num(r, v);
	const json_t *c = json_object_get(r, ci);

	if (isnan(x))
		return "";
	if (json_array_size(c) == 2)
		snprintf(buf, len, sign ? "%+.1f [%+.1f, %+.1f]" :
		    "%.1f [%.1f, %.1f]", x, json_number_value(json_array_get(c,
		    0)), json_number_value(json_array_get(c, 1)));
	else
		snprintf(buf, len, sign ? "%+.1f" : "%.1f", x);
	return buf;
}

/* How the call chains were unwound, and the share of samples with no
 * caller recorded in each arm; what frame pointers get wrong. */
static void
profdiff_print_unwind(const json_t *p, bool md, FILE *out)
{
	const char *u = profdiff_print_str(p, "unwind"),
	    *vs = profdiff_print_str(p, "vs");
	double n = profdiff_print_num(p, "samples"),
	    k = profdiff_print_num(p, "no_caller"),
	    vn = profdiff_print_num(p, "vs_samples"),
	    vk = profdiff_print_num(p, "vs_no_caller");

	if (u == NULL)
		return;
	fprintf(out, "%scall chains: %s", md ? "; " : "\n    ", u);
	if (!isnan(k) && n > 0)
		fprintf(out, "; no caller recorded: %.1f%%", 100 * k / n);
	if (vs != NULL && !isnan(vk) && vn > 0)
		fprintf(out, " (%s %.1f%%)", vs, 100 * vk / vn);
	if (profdiff_print_str(p, "unwind_fallback") != NULL)
		fprintf(out, "%sNOTE: %s", md ? "; " : "\n    ",
		    profdiff_print_str(p, "unwind_fallback"));
	if (strcmp(u, "fp") == 0 || (profdiff_print_str(p, "vs_unwind") &&
	    strcmp(profdiff_print_str(p, "vs_unwind"), "fp") == 0))
		fprintf(out, "%sNOTE: %s", md ? "; " : "\n    ",
		    PROFILE_FP_NOTE);
}

/* The head of a perf profile: samples and runs of each arm, and what to
 * know before reading the rows. */
static void
profdiff_print_counts(const json_t *p, bool md, FILE *out)
{
	const char *vs = profdiff_print_str(p, "vs");
	const char *ev = profdiff_print_str(p, "event");
	double n = profdiff_print_num(p, "samples"), runs =
	    profdiff_print_num(p, "runs");

	if (!isnan(n)) {
		fprintf(out, " (%.0f samples", n);
		if (!isnan(runs))
			fprintf(out, " from %.0f run%s", runs, runs == 1 ? "" : "s");
		if (vs != NULL && !isnan(profdiff_print_num(p, "vs_samples"))) {
			fprintf(out, "; %s %.0f", vs, profdiff_print_num(p,
			    "vs_samples"));
			if (!isnan(profdiff_print_num(p, "vs_runs")))
				fprintf(out, " from %.0f", profdiff_print_num(p,
				    "vs_runs"));
		}
		fputc(')', out);
	}
	if (json_is_true(json_object_get(p, "under_min_samples")) ||
	    json_is_true(json_object_get(p, "vs_under_min_samples")))
		fprintf(out, "%sUNDER min_samples (%.0f): shares this rough are "
		    "mostly noise", md ? "; " : "\n    ",
		    profdiff_print_num(p, "min_samples"));
	if (ev != NULL)
		fprintf(out, "%ssampled %s%s", md ? "; " : "\n    ", ev,
		    json_is_true(json_object_get(p, "software_clock")) ?
		    ", the software clock: this machine has no hardware PMU" :
		    "");
	profdiff_print_unwind(p, md, out);
}

/* A profile's heading line: whose, against whom, and what to know before
 * reading its rows.  false when the profile failed (the line says why). */
static bool
profdiff_print_head(const char *cell, const char *arm, const char *kind,
    const json_t *p, bool md, FILE *out)
{
	const char *vs = profdiff_print_str(p, "vs"),
	    *status = profdiff_print_str(p, "status");

	fprintf(out, md ? "\n**%s** %s %s%s%s" : "\n  %s  %s  %s%s%s", cell,
	    kind, arm, vs != NULL ? " vs " : "", vs != NULL ? vs : "");
	if (status != NULL && strcmp(status, "ok") != 0) {
		const char *why = profdiff_print_str(p, "reason");

		fprintf(out, ": %s%s%s\n", status, why ? " -- " : "",
		    why ? why : "");
		return false;
	}
	if (json_object_get(p, "impossible") != NULL) {
		fprintf(out, ": not shown -- the event cannot be right (%s)\n",
		    profdiff_print_str(p, "impossible"));
		return false;
	}
	if (profdiff_print_str(p, "vs_status") != NULL)
		fprintf(out, " (its comparison arm's profile %s: %s)",
		    profdiff_print_str(p, "vs_status"),
		    profdiff_print_str(p, "vs_reason") ?
		    profdiff_print_str(p, "vs_reason") : "");
	if (strcmp(kind, "syscalls") != 0)
		profdiff_print_counts(p, md, out);
	if (json_is_true(json_object_get(p, "contaminated")))
		fprintf(out, " CONTAMINATED: the server's processes changed "
		    "during the trace");
	if (strcmp(kind, "syscalls") == 0 &&
	    !json_is_number(json_object_get(p, "requests")))
		fprintf(out, " (the leg reported no metrics.requests: raw "
		    "calls)");
	fputs(md ? "\n" : "\n", out);
	return true;
}

/* A perf row: name, each side's share with its interval, the move. */
static void
profdiff_print_perf_row(const json_t *r, bool vs, bool md, FILE *out)
{
	char name[300], a[48], b[48], d[64], t[32];
	double tm = profdiff_print_num(r, "time_moved_ms");
	bool noise = json_is_true(json_object_get(r, "noise")),
	    unstable = json_is_true(json_object_get(r, "unstable"));
	const char *mark = unstable ? (noise ? "noise, unstable" :
	    "unstable") : noise ? "noise" : "";

	snprintf(name, sizeof name, "%s%s%s%s", profdiff_print_str(r, "symbol"),
	    profdiff_print_str(r, "kind") != NULL ? "" : " (",
	    profdiff_print_str(r, "kind") != NULL ? "" :
	    profdiff_print_str(r, "object"), profdiff_print_str(r, "kind") !=
	    NULL ? "" : ")");
	profdiff_print_ci(a, sizeof a, r, "share", "ci", false);
	profdiff_print_ci(b, sizeof b, r, "vs_share", "vs_ci", false);
	profdiff_print_ci(d, sizeof d, r, "diff", "diff_ci", true);
	if (!isnan(tm))
		snprintf(t, sizeof t, "%+.3f", tm);
	else
		t[0] = '\0';
	if (md) {
		fprintf(out, "| `%s` | %.0f | %s |", name,
		    profdiff_print_num(r, "samples"), a);
		if (vs)
			fprintf(out, " %.0f | %s | %s | %s | %s |",
			    profdiff_print_num(r, "vs_samples"), b, d, t, mark);
		fputc('\n', out);
		return;
	}
	fprintf(out, "    %-36.36s %7.0f %-19s", name, profdiff_print_num(r,
	    "samples"), a);
	if (vs)
		fprintf(out, " %7.0f %-19s %-22s %9s%s%s",
		    profdiff_print_num(r, "vs_samples"), b, d, t,
		    mark[0] ? "  " : "", mark);
	fputc('\n', out);
}

/* One caller's row of a moved symbol: its share of all samples in each
 * arm with the interval over runs, and the move. */
static void
profdiff_print_split_row(const json_t *x, bool md, FILE *out)
{
	char a[48], b[48], d[64], pr[64];
	bool noise = json_is_true(json_object_get(x, "noise"));

	profdiff_print_ci(a, sizeof a, x, "share", "ci", false);
	profdiff_print_ci(b, sizeof b, x, "vs_share", "vs_ci", false);
	profdiff_print_ci(d, sizeof d, x, "diff", "diff_ci", true);
	profdiff_print_ci(pr, sizeof pr, x, "per_run_diff", "per_run_diff_ci",
	    true);
	if (md)
		fprintf(out, "| `%s` | %.0f | %s | %.0f | %s | %s | %s | %s |\n",
		    profdiff_print_str(x, "caller"), profdiff_print_num(x,
		    "samples"), a, profdiff_print_num(x, "vs_samples"), b, d, pr,
		    noise ? "noise" : "moved");
	else
		fprintf(out, "        %-30.30s %6.0f %-19s %6.0f %-19s %-22s "
		    "%-22s%s\n", profdiff_print_str(x, "caller"),
		    profdiff_print_num(x, "samples"), a, profdiff_print_num(x,
		    "vs_samples"), b, d, pr, noise ? "  noise" : "  MOVED");
}

/* The callers of the most-moved symbols: split by immediate caller with
 * intervals over runs where the profiles have them (which caller moved
 * it), else each arm's largest callers. */
static void
profdiff_print_callers(const json_t *p, const char *arm, bool md, FILE *out)
{
	const char *vs = profdiff_print_str(p, "vs");
	const json_t *c, *x;
	size_t i, j;

	if (json_array_size(json_object_get(p, "callers")) == 0)
		return;
	fprintf(out, md ? "\nCallers of the symbols that moved (share of all "
	    "samples, 95%% interval over runs):\n" : "    callers of the "
	    "symbols that moved (share of all samples, 95%% over runs):\n");
	json_array_foreach(json_object_get(p, "callers"), i, c) {
		const json_t *split = json_object_get(c, "split");

		if (split != NULL) {
			if (md)
				fprintf(out, "\n`%s` (%s), by immediate caller:\n\n"
				    "| caller | samples | %s %% [95%%] | samples | "
				    "%s %% [95%%] | diff points [95%%] | samples per "
				    "run moved [95%%] | |\n"
				    "|---|---:|---:|---:|---:|---:|---:|---|\n",
				    profdiff_print_str(c, "symbol"),
				    profdiff_print_str(c, "object"), arm, vs);
			else
				fprintf(out, "      %s (%s) by immediate caller: "
				    "%s moved it most\n        %-30s %6s %-19s "
				    "%6s %-19s %-22s %s\n", profdiff_print_str(c,
				    "symbol"), profdiff_print_str(c, "object"),
				    profdiff_print_str(c, "moved_most") ?
				    profdiff_print_str(c, "moved_most") : "none",
				    "caller", "smpl", arm, "smpl", vs, "diff "
				    "points [95%]", "samples/run moved");
			json_array_foreach(split, j, x)
				if (j < 8)
					profdiff_print_split_row(x, md, out);
			continue;
		}
		for (int side = 0; side < (vs != NULL ? 2 : 1); side++) {
			const json_t *l = json_object_get(c, side ? "vs_callers" :
			    "callers");

			fprintf(out, md ? "- `%s` in %s:" : "      %s in %s:",
			    profdiff_print_str(c, "symbol"), side ? vs : arm);
			if (json_array_size(l) == 0)
				fputs(" (no call chains)", out);
			json_array_foreach(l, j, x)
				fprintf(out, "%s %s (%.0f)", j ? "," : "",
				    profdiff_print_str(x, "caller"),
				    profdiff_print_num(x, "samples"));
			fputc('\n', out);
		}
	}
}

/* What moved in the cell's A/A pair, beside the real profile. */
static void
profdiff_print_aa(const json_t *p, bool md, FILE *out)
{
	const json_t *aa = json_object_get(p, "aa"), *m;
	size_t i;
	char d[64];

	if (aa == NULL)
		return;
	fprintf(out, md ? "\nA/A pair (%s vs %s):" : "    A/A pair (%s vs %s):",
	    profdiff_print_str(aa, "arm"), profdiff_print_str(aa, "vs"));
	if (json_array_size(json_object_get(aa, "moved")) == 0)
		fputs(" nothing moved", out);
	json_array_foreach(json_object_get(aa, "moved"), i, m) {
		profdiff_print_ci(d, sizeof d, m, "diff", "diff_ci", true);
		fprintf(out, "%s %s %s", i ? ";" : "", profdiff_print_str(m,
		    "symbol"), d);
	}
	fputs(json_array_size(json_object_get(aa, "moved")) > 0 ? " (marked "
	    "unstable wherever they appear)\n" : "\n", out);
}

static void
profdiff_print_sys_row(const json_t *r, bool vs, bool md, FILE *out)
{
	const char *name = profdiff_print_str(r, "syscall");
	double x = profdiff_print_num(r, "per_request"),
	    y = profdiff_print_num(r, "vs_per_request"),
	    q = profdiff_print_num(r, "ratio");
	char a[32], b[32], c[32];

	if (isnan(x))
		x = profdiff_print_num(r, "calls");
	if (isnan(y))
		y = profdiff_print_num(r, "vs_calls");
	snprintf(a, sizeof a, "%.4g", x);
	/* Empty without a comparison (clang refuses an empty format). */
	b[0] = c[0] = '\0';
	if (vs)
		snprintf(b, sizeof b, "%.4g", y);
	if (vs && !isnan(q))
		snprintf(c, sizeof c, "%.3f", q);
	if (md)
		fprintf(out, "| `%s` | %.0f | %s | %s | %s |\n", name ? name : "?",
		    profdiff_print_num(r, "calls"), a, b, c);
	else
		fprintf(out, "    %-24s %10.0f %12s %12s %8s\n", name ? name :
		    "?", profdiff_print_num(r, "calls"), a, b, c);
}

static void
profdiff_print_table_head(const char *arm, const char *kind, const json_t *p,
    bool md, FILE *out)
{
	const char *vs = profdiff_print_str(p, "vs");

	if (strcmp(kind, "syscalls") == 0) {
		if (md)
			fprintf(out, "\n| syscall | calls | %s per request | %s "
			    "per request | ratio |\n|---|---:|---:|---:|---:|\n",
			    arm, vs ? vs : "-");
		else
			fprintf(out, "    %-24s %10s %12s %12s %8s\n", "syscall",
			    "calls", "per request", vs ? "vs per req" : "",
			    vs ? "ratio" : "");
		return;
	}
	if (md) {
		fprintf(out, "\n| symbol (object) | samples | %s %% [95%%] |", arm);
		if (vs)
			fprintf(out, " samples | %s %% [95%%] | diff points "
			    "[95%%] | ms/run moved | |", vs);
		fprintf(out, vs ? "\n|---|---:|---:|---:|---:|---:|---:|---|\n" :
		    "\n|---|---:|---:|\n");
		return;
	}
	fprintf(out, "    %-36s %7s %-19s", "symbol (object)", "samples",
	    "share % [95%]");
	if (vs)
		fprintf(out, " %7s %-19s %-22s %9s", "samples", "vs share %",
		    "diff points [95%]", "ms/run");
	fputc('\n', out);
}

static void
profdiff_print_one(const char *cell, const char *arm, const char *kind,
    const json_t *p, bool md, size_t limit, FILE *out)
{
	bool sys = strcmp(kind, "syscalls") == 0,
	    vs = profdiff_print_str(p, "vs") != NULL;
	const json_t *rows = json_object_get(p, sys ? "syscalls" : "symbols"),
	    *r;
	size_t i;

	if (!profdiff_print_head(cell, arm, kind, p, md, out))
		return;
	profdiff_print_table_head(arm, kind, p, md, out);
	json_array_foreach(rows, i, r) {
		if (limit > 0 && i >= limit)
			break;
		if (sys)
			profdiff_print_sys_row(r, vs, md, out);
		else
			profdiff_print_perf_row(r, vs, md, out);
	}
	/* every call counted, whatever trace narrowed the rows to */
	if (sys && (r = json_object_get(p, "syscalls_total")) != NULL)
		profdiff_print_sys_row(r, vs, md, out);
	if (!sys) {
		profdiff_print_aa(p, md, out);
		profdiff_print_callers(p, arm, md, out);
	}
}

/* A csv row's first fields: what profile it is of. */
static void
profdiff_print_csv_head(const char *cell, const char *arm, const char *kind,
    const json_t *p, FILE *out)
{
	fputs("profile", out);
	csvout_str(out, cell, true);
	csvout_str(out, arm, true);
	csvout_str(out, kind, true);
	csvout_str(out, profdiff_print_str(p, "vs"), true);
	csvout_str(out, profdiff_print_str(p, "status"), true);
}

/* One csv row per caller of a moved symbol: name SYMBOL<-CALLER, the
 * shares of all samples and the move, with its interval over runs. */
static void
profdiff_print_csv_callers(const char *cell, const char *arm,
    const char *kind, const json_t *p, FILE *out)
{
	static const char *const nums[] = { "samples", "share", "vs_samples",
	    "vs_share", "diff", NULL };
	const json_t *c, *x;
	size_t i, j;
	char name[1200];

	json_array_foreach(json_object_get(p, "callers"), i, c)
		json_array_foreach(json_object_get(c, "split"), j, x) {
		profdiff_print_csv_head(cell, arm, kind, p, out);
		snprintf(name, sizeof name, "%s<-%s", profdiff_print_str(c,
		    "symbol"), profdiff_print_str(x, "caller"));
		csvout_str(out, name, true);
		csvout_str(out, profdiff_print_str(c, "object"), true);
		for (int k = 0; nums[k] != NULL; k++)
			csvout_num(out, json_object_get(x, nums[k]));
		fputs(",,,,,,", out);
		csvout_num(out, json_array_get(json_object_get(x, "diff_ci"), 0));
		csvout_num(out, json_array_get(json_object_get(x, "diff_ci"), 1));
		csvout_str(out, json_is_true(json_object_get(x, "noise")) ?
		    "noise" : "caller moved", true);
		csvout_str(out, "", true);
		fputc('\n', out);
	}
}

/* One csv row per profile row (a failed profile: one row with its
 * status and reason). */
static void
profdiff_print_csv(const char *cell, const char *arm, const char *kind,
    const json_t *p, FILE *out)
{
	static const char *const nums[] = { "samples", "share", "vs_samples",
	    "vs_share", "diff", "time_moved_ms", "calls", "per_request",
	    "vs_calls", "vs_per_request", "ratio", NULL };
	bool sys = strcmp(kind, "syscalls") == 0;
	const json_t *rows = json_object_get(p, sys ? "syscalls" : "symbols"),
	    *r, *total = sys ? json_object_get(p, "syscalls_total") : NULL;
	size_t i, n = json_array_size(rows);

	for (i = 0; i < n + (total != NULL ? 1 : 0); i++) {
		r = i < n ? json_array_get(rows, i) : total;
		profdiff_print_csv_head(cell, arm, kind, p, out);
		csvout_str(out, profdiff_print_str(r, sys ? "syscall" : "symbol"),
		    true);
		csvout_str(out, profdiff_print_str(r, "object"), true);
		for (int k = 0; nums[k] != NULL; k++)
			csvout_num(out, json_object_get(r, nums[k]));
		csvout_num(out, json_array_get(json_object_get(r, "diff_ci"), 0));
		csvout_num(out, json_array_get(json_object_get(r, "diff_ci"), 1));
		csvout_str(out, json_is_true(json_object_get(r, "unstable")) ?
		    (json_is_true(json_object_get(r, "noise")) ? "noise unstable" :
		    "unstable") : json_is_true(json_object_get(r, "noise")) ?
		    "noise" : "", true);
		csvout_str(out, "", true);
		fputc('\n', out);
	}
	profdiff_print_csv_callers(cell, arm, kind, p, out);
	if (json_array_size(rows) == 0) {
		profdiff_print_csv_head(cell, arm, kind, p, out);
		fputs(",,,,,,,,,,,,,,,,", out);
		csvout_str(out, profdiff_print_str(p, "reason"), true);
		fputc('\n', out);
	}
}

void
profdiff_print(const json_t *profiles, enum profdiff_format fmt,
    size_t limit, FILE *out)
{
	const char *cell, *arm, *kind;
	const json_t *c, *a, *p;
	bool md = fmt == PROFDIFF_MARKDOWN;

	if (json_object_size(profiles) == 0)
		return;
	if (fmt == PROFDIFF_CSV)
		fputs("\nprofile,cell,arm,kind,vs,status,name,object,samples,"
		    "share,vs_samples,vs_share,diff,time_moved_ms,calls,"
		    "per_request,vs_calls,vs_per_request,ratio,diff_lo,diff_hi,"
		    "noise,reason\n", out);
	else
		fprintf(out, md ? "\n### Profiles\n\nNot in the ratios. Shares "
		    "in %% of samples with 95%% intervals over runs (from the "
		    "counts where a profile has no runs); diff in points; "
		    "ms/run = share x the arm's median cpu; noise: the "
		    "difference's interval holds 0; unstable: it moved in the "
		    "A/A pair.\n" :
		    "\nprofiles (not in the ratios; shares in %% of samples "
		    "with 95%% intervals over runs, diff in points, ms/run = "
		    "share x the arm's median cpu, noise: the interval holds 0, "
		    "unstable: it moved in the A/A pair)\n");
	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p) {
		if (fmt == PROFDIFF_CSV)
			profdiff_print_csv(cell, arm, kind, p, out);
		else
			profdiff_print_one(cell, arm, kind, p, md, limit, out);
	}
}

/* A syscalls profile in two lines: every call per request in each arm,
 * and the call that moved most. */
static void
profdiff_brief_sys(const json_t *p, const char *arm, const char *vs,
    FILE *out)
{
	const json_t *t = json_object_get(p, "syscalls_total"),
	    *top = json_array_get(json_object_get(p, "syscalls"), 0);
	const char *unit = json_is_number(json_object_get(p, "requests")) ?
	    "per request" : "calls (no metrics.requests)";
	double x = profdiff_print_num(t, "per_request"),
	    y = profdiff_print_num(t, "vs_per_request");

	if (isnan(x)) {
		x = profdiff_print_num(t, "calls");
		y = profdiff_print_num(t, "vs_calls");
	}
	if (t != NULL) {
		fprintf(out, "    every system call, %s: %s %.4f", unit, arm, x);
		if (vs != NULL)
			fprintf(out, ", %s %.4f", vs, y);
		fputc('\n', out);
	}
	if (vs != NULL && top != NULL && profdiff_print_num(top, "diff") != 0)
		fprintf(out, "    moved most: %s %+.4f (%s %.4g, %s %.4g)\n",
		    profdiff_print_str(top, "syscall"),
		    profdiff_print_num(top, "diff"), arm,
		    isnan(profdiff_print_num(top, "per_request")) ?
		    profdiff_print_num(top, "calls") :
		    profdiff_print_num(top, "per_request"), vs,
		    isnan(profdiff_print_num(top, "vs_per_request")) ?
		    profdiff_print_num(top, "vs_calls") :
		    profdiff_print_num(top, "vs_per_request"));
}

/* The caller that moved symbol row r most, with its move. */
static void
profdiff_brief_caller(const json_t *p, const json_t *r, FILE *out)
{
	const json_t *c, *x;
	size_t i;
	char d[64];

	json_array_foreach(json_object_get(p, "callers"), i, c) {
		if (strcmp(profdiff_print_str(c, "symbol"), profdiff_print_str(r,
		    "symbol")) != 0 || strcmp(profdiff_print_str(c, "object"),
		    profdiff_print_str(r, "object")) != 0)
			continue;
		if ((x = json_array_get(json_object_get(c, "split"), 0)) == NULL)
			return;
		profdiff_print_ci(d, sizeof d, x, "diff", "diff_ci", true);
		fprintf(out, "      by its caller %s: %s points%s\n",
		    profdiff_print_str(x, "caller"), d, json_is_true(
		    json_object_get(x, "noise")) ? " (noise: its time per run "
		    "did not move)" : "");
		return;
	}
}

/* A perf profile in a few lines: the symbols that moved (their interval
 * excludes 0), each with the caller that moved it most. */
static void
profdiff_brief_perf(const json_t *p, FILE *out)
{
	const json_t *r;
	size_t i, shown = 0;
	char d[64];

	json_array_foreach(json_object_get(p, "symbols"), i, r) {
		if (shown >= 3 || json_object_get(r, "diff") == NULL)
			break;
		if (json_is_true(json_object_get(r, "noise")) ||
		    profdiff_print_str(r, "kind") != NULL)
			continue;
		profdiff_print_ci(d, sizeof d, r, "diff", "diff_ci", true);
		fprintf(out, "    moved: %s (%s) %s points%s\n",
		    profdiff_print_str(r, "symbol"), profdiff_print_str(r,
		    "object"), d, json_is_true(json_object_get(r, "unstable")) ?
		    " UNSTABLE (it moved in the A/A pair too)" : "");
		profdiff_brief_caller(p, r, out);
		shown++;
	}
	if (shown == 0 && profdiff_print_str(p, "vs") != NULL)
		fputs("    no symbol moved beyond noise\n", out);
}

void
profdiff_brief(const json_t *profiles, FILE *out)
{
	const char *cell, *arm, *kind;
	const json_t *c, *a, *p;

	if (json_object_size(profiles) == 0)
		return;
	fputs("\nprofiles (benchtui report shows them whole):\n", out);
	json_object_foreach((json_t *)profiles, cell, c)
		json_object_foreach((json_t *)c, arm, a)
			json_object_foreach((json_t *)a, kind, p) {
		const char *vs = profdiff_print_str(p, "vs"),
		    *st = profdiff_print_str(p, "status");

		fprintf(out, "  %s %s %s%s%s", cell, kind, arm, vs ? " vs " : "",
		    vs ? vs : "");
		if (st != NULL && strcmp(st, "ok") != 0) {
			fprintf(out, ": %s -- %s\n", st, profdiff_print_str(p,
			    "reason") ? profdiff_print_str(p, "reason") : "");
			continue;
		}
		if (strcmp(kind, "syscalls") != 0)
			profdiff_print_counts(p, false, out);
		fputc('\n', out);
		if (strcmp(kind, "syscalls") == 0)
			profdiff_brief_sys(p, arm, vs, out);
		else
			profdiff_brief_perf(p, out);
	}
}
