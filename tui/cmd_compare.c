/* benchtui compare DIR_A DIR_B [--format F] [--fail-on RULE]... [--unsealed]
 *                              [--confidence L]
 *
 * Two sealed rounds side by side: both folders read back and checked by
 * roundread (engine/record), their environments by envdiff, the
 * arithmetic by compare (engine/print), printed in the chosen format. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "compare.h"
#include "envdiff.h"
#include "escape.h"
#include "failon.h"
#include "roundread.h"
#include "xalloc.h"

enum { OPT_FORMAT = 1, OPT_UNSEALED, OPT_CONFIDENCE, OPT_FAIL_ON };

static const struct opts_opt cmd_compare_rows[] = {
	{ "format", 'f', "text|json|csv|markdown", 0, OPT_FORMAT, "the "
	  "output's format (default text)" },
	{ "fail-on", 0, "RULE", OPTS_REPEAT, OPT_FAIL_ON, "exit 6 when a "
	  "verdict matches RULE: METRIC:VERDICT or ARM/METRIC:VERDICT" },
	{ "unsealed", 0, NULL, 0, OPT_UNSEALED, "also read a folder that is "
	  "not sealed, as it is" },
	/* seal --partial is another thing: a seal, required there. */
	{ "partial", 0, NULL, OPTS_ALIAS, OPT_UNSEALED, NULL },
	{ "confidence", 0, "L", 0, OPT_CONFIDENCE, "the intervals' level "
	  "(default: A's confidence)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_compare_opts = {
	"compare", "DIR_A DIR_B",
	"Set two sealed rounds side by side: B against A, per cell, arm and "
	"metric.", "benchtui-compare(1)", cmd_compare_rows,
};

struct cmd_compare_args {
	const char *dir[2];
	int fmt;
	bool unsealed;         /* --unsealed (--partial) */
	double confidence;     /* NAN: the first round's */
	struct failon rules;   /* --fail-on's */
};

/* --confidence L: a level in (0, 1).  0, or a usage error's status. */
static int
cmd_compare_level(const char *s, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(*out > 0) ||
	    !(*out < 1))
		return opts_error(&cmd_compare_opts, "--confidence: "
		    "'%s' is not a level between 0 and 1 (0.95 for 95%%)", s);
	return 0;
}

/* The options and the two folders: -1 to go on, or the exit status (0
 * after --help). */
static int
cmd_compare_parse(int argc, char **argv, struct cmd_compare_args *a)
{
	const char *fmtname = "text";
	struct opts_parser p;
	int c, rc;

	a->confidence = NAN;
	opts_init(&p, &cmd_compare_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case OPTS_STOP:
			return p.status;
		case OPT_FORMAT:
			fmtname = p.arg;
			break;
		case OPT_UNSEALED:
			a->unsealed = true;
			break;
		case OPT_CONFIDENCE:
			if ((rc = cmd_compare_level(p.arg, &a->confidence)) != 0)
				return rc;
			break;
		case OPT_FAIL_ON:
			if ((rc = cmd_fail_on(&cmd_compare_opts, p.arg,
			    &a->rules)) != 0)
				return rc;
			break;
		}
	}
	if (argc - optind != 2)
		return opts_error(&cmd_compare_opts, "%s",
		    argc - optind < 2 ? "two round folders are needed, A (before) "
		    "and B (after)" : "more than two round folders given");
	a->dir[0] = argv[optind];
	a->dir[1] = argv[optind + 1];
	if ((a->fmt = report_format_parse(fmtname)) < 0)
		return opts_error(&cmd_compare_opts,
		    "--format: unknown format '%s'", fmtname);
	return -1;
}

static void __attribute__((format(printf, 2, 3)))
cmd_compare_note(json_t *notes, const char *fmt, ...)
{
	va_list ap;
	char buf[1024];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	json_array_append_new(notes, json_string(buf));
}

/* "benchtui compare: MSG" on stderr, MSG through the one escape rule: it
 * holds folder names and a far host's facts. */
static void
cmd_compare_say(const char *msg)
{
	char buf[8192];

	escape_text(msg, strlen(msg), buf, sizeof buf, 0, NULL);
	fprintf(stderr, "benchtui compare: %s\n", buf);
}

/* The level and margin that apply, and what the header says of them and
 * of folders read unsealed. */
static void
cmd_compare_settings(const struct cmd_compare_args *a,
    struct roundread *const r[2], double *level, double *margin,
    json_t *notes)
{
	const struct spec *sa = r[0]->spec, *sb = r[1]->spec;

	*level = isnan(a->confidence) ? sa->confidence : a->confidence;
	*margin = sa->margin;
	if (sa->confidence != sb->confidence && isnan(a->confidence))
		cmd_compare_note(notes, "the rounds' confidence differs (A %g, "
		    "B %g): A's applies", sa->confidence, sb->confidence);
	if (sa->margin != sb->margin)
		cmd_compare_note(notes, "the rounds' margin differs (A %g, B %g): "
		    "A's applies", sa->margin, sb->margin);
	for (int i = 0; i < 2; i++)
		if (!r[i]->sealed)
			cmd_compare_note(notes, "%c (%s) is not sealed: read as it "
			    "is (--unsealed)", 'A' + i, r[i]->dir);
}

/* "small, big" of t's cells, for the message of two rounds with nothing
 * in common; malloc'd. */
static char *
cmd_compare_cells(const struct tally *t)
{
	struct xbuf b = { 0 };

	for (size_t i = 0; i < tally_cell_count(t); i++)
		xbuf_printf(&b, "%s%s", i ? ", " : "", tally_cell_at(t, i));
	return b.p ? b.p : xstrdup("none");
}

/* The compare object of the two folders, or NULL after a message (no cell,
 * arm and metric in common). */
static json_t *
cmd_compare_build(const struct cmd_compare_args *a,
    struct roundread *const r[2], json_t *notes)
{
	json_t *cmp = json_object();
	double level, margin;

	cmd_compare_settings(a, r, &level, &margin, notes);
	json_object_set_new(cmp, "a", json_string(a->dir[0]));
	json_object_set_new(cmp, "b", json_string(a->dir[1]));
	json_object_set_new(cmp, "level", json_real(level));
	json_object_set_new(cmp, "margin", json_real(margin));
	json_object_set_new(cmp, "env", envdiff_build(r[0]->env, r[1]->env,
	    r[0]->spec, r[1]->spec));
	json_object_set_new(cmp, "rounds", json_pack("{s:o,s:o}", "a",
	    compare_round_facts(r[0]->tally), "b",
	    compare_round_facts(r[1]->tally)));
	if (compare_build(r[0]->tally, r[1]->tally, level, margin, cmp,
	    notes) == 0) {
		char *ca = cmd_compare_cells(r[0]->tally);
		char *cb = cmd_compare_cells(r[1]->tally);
		char *msg = xasprintf("%s and %s have no cell, arm and metric "
		    "in common (A's cells: %s; B's: %s); nothing to compare",
		    a->dir[0], a->dir[1], ca, cb);
		cmd_compare_say(msg);
		free(msg);
		free(ca);
		free(cb);
		json_decref(cmp);
		return NULL;
	}
	return cmp;
}

int
cmd_compare(int argc, char **argv)
{
	struct cmd_compare_args a = { 0 };
	struct roundread *r[2] = { NULL, NULL };
	json_t *cmp = NULL, *notes = json_array(), *v;
	char err[4096];
	size_t i;
	int rc;

	if ((rc = cmd_compare_parse(argc, argv, &a)) >= 0)
		goto out;
	for (int k = 0; k < 2; k++)
		if ((rc = roundread_open(a.dir[k], a.unsealed, &r[k], err,
		    sizeof err)) != 0) {
			cmd_compare_say(err);
			goto out;
		}
	if ((rc = cmd_fail_on_check(&cmd_compare_opts, &a.rules,
	    (const struct tally *const[]){ r[0]->tally, r[1]->tally }, 2,
	    true)) != 0)
		goto out;
	rc = 2;
	if ((cmp = cmd_compare_build(&a, r, notes)) == NULL)
		goto out;
	/* json and csv have no header: the notes go to stderr. */
	if (a.fmt == REPORT_JSON || a.fmt == REPORT_CSV)
		json_array_foreach(notes, i, v)
			cmd_compare_say(json_string_value(v));
	rc = 0;
	if (compare_print(cmp, notes, (enum report_format)a.fmt, stdout) != 0) {
		fprintf(stderr, "benchtui compare: writing the comparison: %s\n",
		    strerror(errno));
		rc = 1;
	} else if (cmd_fail_on_matches("compare", &a.rules, cmp, true) > 0)
		rc = 6;
out:
	failon_finish(&a.rules);
	json_decref(cmp);
	json_decref(notes);
	roundread_destroy(r[0]);
	roundread_destroy(r[1]);
	return rc;
}
