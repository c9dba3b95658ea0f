/* benchtui report DIR|LOG.jsonl [--format F] [--baseline ARM] [--aa ARM=OF]
 *
 * Reads a log back through logread into a tally and prints tally_report in
 * the chosen format.  A round folder (or a log inside one) supplies its
 * round.json, so arms, vs and aa_of are the ones the round ran with. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "logread.h"
#include "report.h"
#include "spec.h"
#include "tally.h"

static const char report_usage[] =
    "usage: benchtui report DIR|LOG.jsonl [--format text|json|csv|markdown] "
    "[--baseline ARM] [--aa ARM=OF]...\n";

struct cmd_report_feed {
	struct tally *t;
	char spec_sha256[65];   /* the round event's, or "" */
	size_t legs;            /* leg lines, counted or not */
};

static int
cmd_report_feed(json_t *ev, size_t lineno, void *arg)
{
	struct cmd_report_feed *f = arg;
	const char *sha;

	(void)lineno;
	if (f->spec_sha256[0] == '\0' &&
	    strcmp(json_string_value(json_object_get(ev, "t")) ?: "",
	    "round") == 0 &&
	    (sha = json_string_value(json_object_get(ev, "spec_sha256"))) != NULL)
		snprintf(f->spec_sha256, sizeof f->spec_sha256, "%s", sha);
	if (strcmp(json_string_value(json_object_get(ev, "t")) ?: "",
	    "leg") == 0)
		f->legs++;
	tally_feed(f->t, ev);
	return 0;
}

static bool
cmd_report_exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

/* The round folder a log belongs to: DIR itself, or the folder of a log
 * that sits next to round.json and environment.json.  malloc'd, or NULL for
 * a bare log. */
static char *
cmd_report_round_dir(const char *input, bool is_dir)
{
	char *copy, *dir;

	if (is_dir)
		return strdup(input);
	if ((copy = strdup(input)) == NULL)
		return NULL;
	dir = strdup(dirname(copy));
	free(copy);
	if (dir && cmd_report_exists(dir, "round.json") &&
	    cmd_report_exists(dir, "environment.json"))
		return dir;
	free(dir);
	return NULL;
}

enum { OPT_FORMAT = 1, OPT_BASELINE, OPT_AA };

static const struct option report_options[] = {
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "baseline", required_argument, NULL, OPT_BASELINE },
	{ "aa", required_argument, NULL, OPT_AA },
	{ NULL, 0, NULL, 0 },
};

/* --baseline ARM into the tally.  0, or a usage error's exit status. */
static int
cmd_report_baseline(struct tally *t, const char *arm)
{
	int bb = tally_set_baseline(t, arm);

	if (bb == -2)
		return cmd_usage_error("report", report_usage, "--baseline: '%s' "
		    "is an A/A copy (--aa); the baseline must be an original "
		    "arm", arm);
	if (bb != 0)
		return cmd_usage_error("report", report_usage, "--baseline: '%s' "
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
		return cmd_usage_error("report", report_usage, "--aa: '%s' is "
		    "not ARM=OF", val);
	if ((arm = strndup(val, (size_t)(eq - val))) == NULL)
		return 2;
	bad = tally_add_aa(t, arm, eq + 1);
	free(arm);
	if (bad == -2)
		return cmd_usage_error("report", report_usage, "--aa: '%s' "
		    "contradicts another --aa or --baseline (an arm is one A/A "
		    "copy at most, of an arm that is not a copy, and not the "
		    "baseline)", val);
	if (bad)
		return cmd_usage_error("report", report_usage, "--aa: '%s' does "
		    "not name two different valid arms", val);
	return 0;
}

int
cmd_report(int argc, char **argv)
{
	const char *input = NULL, *fmtname = "text", *baseline = NULL;
	char err[1024], *log = NULL, *rdir = NULL, *spath = NULL;
	struct tally *t = tally_create();
	struct logread_info info;
	struct spec *spec = NULL;
	json_t *rep = NULL;
	struct stat st;
	bool aa_given = false;
	int fmt, rc = 2, c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", report_options, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT:
			fmtname = optarg;
			break;
		case OPT_BASELINE:
			baseline = optarg;
			if ((rc = cmd_report_baseline(t, baseline)) != 0)
				goto out;
			break;
		case OPT_AA:
			aa_given = true;
			if ((rc = cmd_report_aa(t, optarg)) != 0)
				goto out;
			break;
		case ':':
			rc = cmd_usage_error("report", report_usage,
			    "%s needs a value", argv[optind - 1]);
			goto out;
		default:
			rc = cmd_usage_error("report", report_usage,
			    "unknown option '%s'", argv[optind - 1]);
			goto out;
		}
	}
	rc = 2;
	if (argc - optind > 1) {
		rc = cmd_usage_error("report", report_usage,
		    "more than one input ('%s' and '%s')", argv[optind],
		    argv[optind + 1]);
		goto out;
	}
	if (optind < argc)
		input = argv[optind];
	if (input == NULL) {
		rc = cmd_usage_error("report", report_usage,
		    "no round folder or log given");
		goto out;
	}
	if ((fmt = report_format_parse(fmtname)) < 0) {
		rc = cmd_usage_error("report", report_usage,
		    "--format: unknown format '%s'", fmtname);
		goto out;
	}
	if (stat(input, &st) != 0) {
		fprintf(stderr, "benchtui report: %s: %s\n", input,
		    strerror(errno));
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		if (asprintf(&log, "%s/log.jsonl", input) < 0) {
			log = NULL;
			goto out;
		}
	} else if ((log = strdup(input)) == NULL)
		goto out;

	if ((rdir = cmd_report_round_dir(input, S_ISDIR(st.st_mode))) != NULL &&
	    asprintf(&spath, "%s/round.json", rdir) >= 0) {
		/* The workdir is irrelevant to a report, and a round folder
		 * copied from another machine may not have it: use rdir. */
		if (spec_load(spath, rdir, &spec, err, sizeof err) == 0) {
			tally_set_spec(t, spec);
			if (baseline || aa_given)
				fprintf(stderr, "benchtui report: %s: arms come "
				    "from round.json; --baseline and --aa are "
				    "ignored\n", spath);
		} else
			fprintf(stderr, "benchtui report: %s; reading %s as a "
			    "bare log\n", err, log);
	} else if (S_ISDIR(st.st_mode))
		fprintf(stderr, "benchtui report: %s/round.json: cannot read it; "
		    "reading %s as a bare log\n", input, log);

	struct cmd_report_feed feed = { .t = t };

	if (logread_file(log, cmd_report_feed, &feed, &info, err,
	    sizeof err) != 0) {
		fprintf(stderr, "benchtui report: %s\n", err);
		goto out;
	}
	/* Nothing to report is not a report of a round named null. */
	if (feed.legs == 0) {
		fprintf(stderr, "benchtui report: %s: no legs (%s)\n", log,
		    info.lines == 0 ? "the log is empty" : "not one leg line");
		goto out;
	}
	/* The arms came from round.json: it must be the file the round ran,
	 * or the report would contradict the round's own summary. */
	if (spec != NULL && feed.spec_sha256[0] != '\0' &&
	    strcmp(spec->sha256, feed.spec_sha256) != 0) {
		fprintf(stderr, "benchtui report: %s: changed since the round "
		    "started (sha256 %s, the log recorded %s); refusing to report "
		    "with arms the round did not run (a copy of the log outside "
		    "the folder reads as a bare log)\n", spath, spec->sha256,
		    feed.spec_sha256);
		goto out;
	}
	if (info.torn)
		fprintf(stderr, "benchtui report: %s:%zu: torn last line "
		    "(%zu bytes) ignored\n", log, info.torn_line, info.torn_bytes);
	if (spec == NULL) {
		char *copy = strdup(log);
		if (copy)
			tally_set_name(t, basename(copy));
		free(copy);
	}
	/* Text and markdown print no ratio lists, so skip building them. */
	rep = fmt == REPORT_JSON || fmt == REPORT_CSV ? tally_report(t) :
	    tally_report_brief(t);
	if (report_print(rep, (enum report_format)fmt, stdout) != 0) {
		fprintf(stderr, "benchtui report: writing the report: %s\n",
		    strerror(errno));
		rc = 1;
		goto out;
	}
	rc = 0;
out:
	json_decref(rep);
	spec_destroy(spec);
	tally_destroy(t);
	free(log);
	free(rdir);
	free(spath);
	return rc;
}
