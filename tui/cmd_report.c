/* benchtui report DIR|LOG.jsonl [--format F] [--baseline ARM] [--aa ARM=OF]
 *                               [--fail-on RULE]...
 *
 * Reads a log back through roundread into a tally and prints tally_report in
 * the chosen format.  A round folder (or a log inside one) supplies its
 * round.json, so arms, vs and aa_of are the ones the round ran with. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "failon.h"
#include "suggest.h"
#include "report.h"
#include "roundread.h"
#include "spec.h"
#include "tally.h"
#include "xalloc.h"

/* The round folder a log belongs to: DIR itself, or the folder of a log
 * that sits next to round.json and environment.json.  malloc'd, or NULL for
 * a bare log. */
static char *
cmd_report_round_dir(const char *input, bool is_dir)
{
	char *copy, *dir;

	if (is_dir)
		return xstrdup(input);
	copy = xstrdup(input);
	dir = xstrdup(dirname(copy));
	free(copy);
	if (cmd_round_folder(dir, F_OK))
		return dir;
	free(dir);
	return NULL;
}

enum { OPT_FORMAT = 1, OPT_BASELINE, OPT_AA, OPT_FAIL_ON };

static const struct opts_opt cmd_report_rows[] = {
	{ "format", 'f', "text|json|csv|markdown", 0, OPT_FORMAT, "the "
	  "output's format (default text)" },
	{ "baseline", 0, "ARM", 0, OPT_BASELINE, "a bare log: compare every "
	  "arm with ARM" },
	{ "aa", 0, "ARM=OF", OPTS_REPEAT, OPT_AA, "a bare log: ARM is an A/A "
	  "copy of OF" },
	{ "fail-on", 0, "RULE", OPTS_REPEAT, OPT_FAIL_ON, "exit 6 when a "
	  "verdict of a complete round matches RULE" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_report_opts = {
	"report", "DIR|LOG.jsonl",
	"Print a round's ratios, intervals and verdicts.",
	"benchtui-report(1)", cmd_report_rows,
};

/* --baseline ARM into the tally.  0, or a usage error's exit status. */
static int
cmd_report_baseline(struct tally *t, const char *arm)
{
	int bb = tally_set_baseline(t, arm);

	if (bb == -2)
		return opts_error(&cmd_report_opts, "--baseline: '%s' "
		    "is an A/A copy (--aa); the baseline must be an original "
		    "arm", arm);
	if (bb != 0)
		return opts_error(&cmd_report_opts, "--baseline: '%s' "
		    "is not a valid arm name", arm);
	return 0;
}

/* --aa ARM=OF into the tally.  0, or an exit status. */
static int
cmd_report_aa(struct tally *t, const char *val)
{
	const char *eq = strchr(val, '=');
	char *arm;
	int bad;

	if (eq == NULL)
		return opts_error(&cmd_report_opts, "--aa: '%s' is "
		    "not ARM=OF", val);
	arm = xasprintf("%.*s", (int)(eq - val), val);
	bad = tally_add_aa(t, arm, eq + 1);
	free(arm);
	if (bad == -2)
		return opts_error(&cmd_report_opts, "--aa: '%s' "
		    "contradicts another --aa or --baseline (an arm is one A/A "
		    "copy at most, of an arm that is not a copy, and not the "
		    "baseline)", val);
	if (bad)
		return opts_error(&cmd_report_opts, "--aa: '%s' does "
		    "not name two different valid arms", val);
	return 0;
}

/* What the command line asked for. */
struct cmd_report_args {
	const char *input, *baseline;
	bool aa_given;
	int fmt;
	struct failon rules;     /* --fail-on's, then round.json's */
};

/* The options (--baseline and --aa go straight into t) and the input.
 * -1 to go on, or the exit status (0 after --help). */
static int
cmd_report_parse(int argc, char **argv, struct tally *t,
    struct cmd_report_args *a)
{
	const char *fmtname = "text";
	struct opts_parser p;
	int c, rc;

	opts_init(&p, &cmd_report_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case OPTS_STOP:
			return p.status;
		case OPT_FORMAT:
			fmtname = p.arg;
			break;
		case OPT_BASELINE:
			a->baseline = p.arg;
			if ((rc = cmd_report_baseline(t, p.arg)) != 0)
				return rc;
			break;
		case OPT_AA:
			a->aa_given = true;
			if ((rc = cmd_report_aa(t, p.arg)) != 0)
				return rc;
			break;
		case OPT_FAIL_ON:
			if ((rc = cmd_fail_on(&cmd_report_opts, p.arg,
			    &a->rules)) != 0)
				return rc;
			break;
		}
	}
	if ((rc = cmd_operand(argc, argv, &cmd_report_opts,
	    "no round folder or log given",
	    "more than one input ('%2$s' and '%1$s')", &a->input)) != 0)
		return rc;
	if ((a->fmt = report_format_parse(fmtname)) < 0) {
		char hint[128];

		return opts_error(&cmd_report_opts,
		    "--format: unknown format '%s'%s", fmtname, suggest_hint(
		    hint, sizeof hint, fmtname, report_format_names(),
		    SIZE_MAX));
	}
	return -1;
}

/* The log to read (*log) and, when it sits in a round folder, the round
 * file (*spec, *spath) whose arms the tally takes.  -1 after a message. */
static int
cmd_report_open(const struct cmd_report_args *a, struct tally *t,
    char **log, struct spec **spec, char **spath)
{
	char err[1024], *rdir;
	struct stat st;

	if (stat(a->input, &st) != 0) {
		fprintf(stderr, "benchtui report: %s: %s\n", a->input,
		    strerror(errno));
		return -1;
	}
	*log = cmd_log_path(a->input, S_ISDIR(st.st_mode));
	if ((rdir = cmd_report_round_dir(a->input, S_ISDIR(st.st_mode))) != NULL) {
		*spath = xasprintf("%s/round.json", rdir);
		/* The workdir is irrelevant to a report, and a round folder
		 * copied from another machine may not have it: use rdir. */
		if (spec_load(*spath, rdir, spec, err, sizeof err) == 0) {
			tally_set_spec(t, *spec);
			if (a->baseline || a->aa_given)
				fprintf(stderr, "benchtui report: %s: arms come "
				    "from round.json; --baseline and --aa are "
				    "ignored\n", *spath);
		} else
			fprintf(stderr, "benchtui report: %s; reading %s as a "
			    "bare log\n", err, *log);
	} else if (S_ISDIR(st.st_mode))
		fprintf(stderr, "benchtui report: %s/round.json: cannot read it; "
		    "reading %s as a bare log\n", a->input, *log);
	free(rdir);
	return 0;
}

/* The log into the tally, refusing an empty one and a round file the log
 * does not vouch for.  -1 after a message. */
static int
cmd_report_read(const char *log, const struct spec *spec, const char *spath,
    struct tally *t)
{
	struct roundread_log rl;
	struct logread_info *info = &rl.info;
	char err[1024];

	if (roundread_log(log, t, &rl, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui report: %s\n", err);
		return -1;
	}
	/* Nothing to report is not a report of a round named null. */
	if (rl.legs == 0) {
		fprintf(stderr, "benchtui report: %s: no legs (%s)\n", log,
		    info->lines == 0 ? "the log is empty" : "not one leg line");
		return -1;
	}
	/* The arms came from round.json: it must be the file the round ran,
	 * or the report would contradict the round's own summary. */
	if (spec != NULL && rl.spec_sha256[0] != '\0' &&
	    strcmp(spec->sha256, rl.spec_sha256) != 0) {
		fprintf(stderr, "benchtui report: %s: changed since the round "
		    "started (sha256 %s, the log recorded %s); refusing to report "
		    "with arms the round did not run (a copy of the log outside "
		    "the folder reads as a bare log)\n", spath, spec->sha256,
		    rl.spec_sha256);
		return -1;
	}
	if (info->torn)
		fprintf(stderr, "benchtui report: %s:%zu: torn last line "
		    "(%zu bytes) ignored\n", log, info->torn_line,
		    info->torn_bytes);
	if (spec == NULL) {
		char *copy = xstrdup(log);
		tally_set_name(t, basename(copy));
		free(copy);
	}
	return 0;
}

/* The ratio lists, one at a time, for report_print_lists. */
struct cmd_report_lists {
	const struct tally *t;
	struct tally_cursor cur;
	double *buf;
	size_t cap;
};

static size_t
cmd_report_ratios(void *arg, const char *cell, const char *arm,
    const char *metric, const double **ratios)
{
	struct cmd_report_lists *l = arg;
	size_t n = tally_ratios_at(l->t, &l->cur, cell, arm, metric,
	    &l->buf, &l->cap);

	*ratios = l->buf;
	return n;
}

/* The report in its format.  json and csv print every ratio list, which
 * for a million legs would be ~150 MB of json reals at once: they get a
 * report without them and print each list from the tally as they reach
 * it.  Then the fail_on rules: 6 when a verdict of a complete round
 * matches one.  0, or 1 after a message. */
static int
cmd_report_print(const struct tally *t, enum report_format fmt,
    const struct failon *rules)
{
	struct cmd_report_lists l = { .t = t };
	struct report_lists lists = { cmd_report_ratios, &l };
	bool stream = fmt == REPORT_JSON || fmt == REPORT_CSV;
	json_t *rep = stream ? tally_report_deferred(t) : tally_report_brief(t);
	int rc = report_print_lists(rep, fmt, stdout, stream ? &lists : NULL);

	free(l.buf);
	if (rc != 0) {
		fprintf(stderr, "benchtui report: writing the report: %s\n",
		    strerror(errno));
		json_decref(rep);
		return 1;
	}
	rc = cmd_fail_on_matches("report", rules, rep, !json_is_true(
	    json_object_get(rep, "partial"))) > 0 ? 6 : 0;
	json_decref(rep);
	return rc;
}

/* round.json's fail_on after --fail-on's, whose arms must be the
 * round's.  0, or a usage error's status. */
static int
cmd_report_rules(struct cmd_report_args *a, const struct spec *spec)
{
	char err[2048];

	if (spec == NULL)
		return 0;
	for (size_t i = 0; i < a->rules.n; i++)
		if (failon_check_arm(&a->rules.r[i], spec, err, sizeof err) != 0)
			return opts_error(&cmd_report_opts,
			    "--fail-on %s", err);
	for (size_t i = 0; i < spec->fail_on.n; i++)
		failon_add(&a->rules, spec->fail_on.r[i].text, err, sizeof err);
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	struct cmd_report_args a = { 0 };
	char *log = NULL, *spath = NULL;
	struct tally *t = tally_create();
	struct spec *spec = NULL;
	int rc;

	if ((rc = cmd_report_parse(argc, argv, t, &a)) >= 0)
		goto out;
	rc = 2;
	if (cmd_report_open(&a, t, &log, &spec, &spath) != 0 ||
	    cmd_report_read(log, spec, spath, t) != 0)
		goto out;
	if ((rc = cmd_fail_on_check(&cmd_report_opts, &a.rules,
	    (const struct tally *const[]){ t }, 1, false)) != 0 ||
	    (rc = cmd_report_rules(&a, spec)) != 0)
		goto out;
	rc = cmd_report_print(t, (enum report_format)a.fmt, &a.rules);
out:
	failon_finish(&a.rules);
	spec_destroy(spec);
	tally_destroy(t);
	free(log);
	free(spath);
	return rc;
}
