/* bisect, and resume of a bisect folder: parse the flags, then hand each
 * step's round to the console (a terminal) or run it silently and print
 * one line per step. */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bisect.h"
#include "cmd.h"
#include "console.h"
#include "headless.h"
#include "round.h"

static const char bisect_usage[] =
    "usage: benchtui bisect ROUND.json --repo DIR --good REV --bad REV "
    "--build CMD [--metric M] [--out DIR] [--headless] [--theme NAME]\n";

enum { OPT_REPO = 1, OPT_GOOD, OPT_BAD, OPT_BUILD, OPT_METRIC, OPT_OUT,
    OPT_HEADLESS, OPT_THEME, OPT_HELP };

static const struct option bisect_options[] = {
	{ "repo", required_argument, NULL, OPT_REPO },
	{ "good", required_argument, NULL, OPT_GOOD },
	{ "bad", required_argument, NULL, OPT_BAD },
	{ "build", required_argument, NULL, OPT_BUILD },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "out", required_argument, NULL, OPT_OUT },
	{ "headless", no_argument, NULL, OPT_HEADLESS },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* How the steps are shown. */
struct cmd_bisect_ui {
	bool console;
	const char *theme;
};

/* The hunt in one line for the console's header: the step, the
 * revisions left, each finished step's verdict. */
static void
cmd_bisect_hunt_line(const struct bisect_hunt *h, char *buf, size_t len)
{
	const json_t *st;
	size_t i, n;

	n = (size_t)snprintf(buf, len, "bisect step %zu (%s) %.10s  %zu left "
	    "of %zu |", h->step, h->kind, h->rev, h->left, h->range);
	json_array_foreach(h->steps, i, st) {
		const char *mark = json_string_value(json_object_get(st, "mark"));

		if (n >= len)
			break;
		n += (size_t)snprintf(buf + n, len - n, " %zu:%.7s %s", i + 1,
		    json_string_value(json_object_get(st, "revision")),
		    mark != NULL ? mark : json_string_value(json_object_get(st,
		    "verdict")));
	}
}

/* Between steps (the builds, bisect.json), a signal stops the bisect
 * resumably, as it stops a round; during a step the round's own handlers
 * abort the round. */
static volatile sig_atomic_t cmd_bisect_stop;

static void
cmd_bisect_on_signal(int sig)
{
	(void)sig;
	cmd_bisect_stop = 1;
}

/* Our handlers, for the hunt and again after each step's round (whose
 * front end installs its own). */
static void
cmd_bisect_signals(void)
{
	struct sigaction act = { .sa_handler = cmd_bisect_on_signal }, old;

	sigemptyset(&act.sa_mask);
	act.sa_flags = SA_RESTART;
	sigaction(SIGINT, &act, NULL);
	sigaction(SIGTERM, &act, NULL);
	/* Under nohup (SIGHUP ignored) it stays ignored. */
	sigaction(SIGHUP, NULL, &old);
	if (old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &act, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int
cmd_bisect_run_round(struct round *r, const struct bisect_hunt *h, void *arg)
{
	const struct cmd_bisect_ui *ui = arg;
	char err[1024] = "", line[256];
	int rc;

	if (ui->console) {
		cmd_bisect_hunt_line(h, line, sizeof line);
		rc = console_run_step(r, ui->theme, line);
	} else {
		rc = headless_run_silent(r, err, sizeof err);
		if (rc != ROUND_EXIT_OK && err[0] != '\0')
			fprintf(stderr, "benchtui bisect: %s: %s\n",
			    round_dir(r), err);
	}
	cmd_bisect_signals();
	return rc;
}

static void
cmd_bisect_say(const char *line, void *arg)
{
	(void)arg;
	printf("%s\n", line);
	fflush(stdout);
}

/* The hunt, new or resumed, and its end in words. */
static int
cmd_bisect_go(struct bisect_opts *o, bool headless, const char *theme)
{
	struct cmd_bisect_ui ui = { .console = !headless &&
	    isatty(STDOUT_FILENO) && isatty(STDIN_FILENO), .theme = theme };
	char err[1024] = "";
	int rc;

	cmd_bisect_signals();
	o->stop = &cmd_bisect_stop;
	o->run_round = cmd_bisect_run_round;
	o->say = cmd_bisect_say;
	o->arg = &ui;
	rc = bisect_run(o, err, sizeof err);
	if (rc != ROUND_EXIT_OK && rc != ROUND_EXIT_ABORTED && err[0] != '\0')
		fprintf(stderr, "benchtui %s: %s\n", o->resume_dir ? "resume" :
		    "bisect", err);
	return rc;
}

int
cmd_bisect(int argc, char **argv)
{
	struct bisect_opts o = { 0 };
	const char *theme = NULL;
	bool headless = false;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", bisect_options, NULL)) != -1) {
		switch (c) {
		case OPT_REPO: o.repo = optarg; break;
		case OPT_GOOD: o.good = optarg; break;
		case OPT_BAD: o.bad = optarg; break;
		case OPT_BUILD: o.build = optarg; break;
		case OPT_METRIC: o.metric = optarg; break;
		case OPT_OUT: o.out_dir = optarg; break;
		case OPT_HEADLESS: headless = true; break;
		case OPT_THEME: theme = optarg; break;
		case OPT_HELP:
			fputs(bisect_usage, stdout);
			return 0;
		default:
			return cmd_usage_error("bisect", bisect_usage, "unknown "
			    "or incomplete option '%s'", argv[optind - 1]);
		}
	}
	if ((code = cmd_operand(argc, argv, "bisect", bisect_usage,
	    "missing ROUND.json", "too many arguments (one ROUND.json)",
	    &o.round_path)) != 0)
		return code;
	if (o.repo == NULL || o.good == NULL || o.bad == NULL ||
	    o.build == NULL)
		return cmd_usage_error("bisect", bisect_usage, "missing %s",
		    o.repo == NULL ? "--repo DIR" : o.good == NULL ?
		    "--good REV" : o.bad == NULL ? "--bad REV" : "--build CMD");
	return cmd_bisect_go(&o, headless, theme);
}

int
cmd_bisect_resume(const char *dir, bool headless, const char *theme)
{
	struct bisect_opts o = { .resume_dir = dir };

	return cmd_bisect_go(&o, headless, theme);
}
