/* bisect, and resume of a bisect folder: parse the flags, then hand each
 * step's round to the console (a terminal) or run it silently and print
 * one line per step. */
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

enum { OPT_REPO = 1, OPT_GOOD, OPT_BAD, OPT_BUILD, OPT_METRIC, OPT_OUT,
    OPT_HEADLESS, OPT_THEME };

static const struct opts_opt cmd_bisect_rows[] = {
	{ "repo", 0, "DIR", OPTS_REQUIRED, OPT_REPO, "the git repository (its "
	  "own worktree is never touched)" },
	{ "good", 0, "REV", OPTS_REQUIRED, OPT_GOOD, "a revision that is good "
	  "(an ancestor of --bad)" },
	{ "bad", 0, "REV", OPTS_REQUIRED, OPT_BAD, "a revision that is worse" },
	{ "build", 0, "CMD", OPTS_REQUIRED, OPT_BUILD, "builds a revision in "
	  "its worktree: split at spaces, no shell, ${OUT} its build folder" },
	{ "metric", 0, "M", 0, OPT_METRIC, "the metric that moved (default "
	  "cpu)" },
	{ "out", 'o', "DIR", 0, OPT_OUT, "the bisect folder (new or empty); "
	  "default ./bisects/bisect-TIME" },
	{ "headless", 0, NULL, 0, OPT_HEADLESS, "no console: one line per "
	  "step" },
	{ "theme", 0, "NAME", 0, OPT_THEME, "the console's colours" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_bisect_opts = {
	"bisect", "ROUND.json",
	"Find the commit that moved a metric, each step a sealed round.",
	"benchtui-bisect(1)", cmd_bisect_rows,
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
	struct opts_parser p;
	int c, code;

	opts_init(&p, &cmd_bisect_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case OPTS_STOP: return p.status;
		case OPT_REPO: o.repo = p.arg; break;
		case OPT_GOOD: o.good = p.arg; break;
		case OPT_BAD: o.bad = p.arg; break;
		case OPT_BUILD: o.build = p.arg; break;
		case OPT_METRIC: o.metric = p.arg; break;
		case OPT_OUT: o.out_dir = p.arg; break;
		case OPT_HEADLESS: headless = true; break;
		case OPT_THEME: theme = p.arg; break;
		}
	}
	if ((code = cmd_operand(argc, argv, &cmd_bisect_opts,
	    "missing ROUND.json", "too many arguments (one ROUND.json)",
	    &o.round_path)) != 0)
		return code;
	if (o.repo == NULL || o.good == NULL || o.bad == NULL ||
	    o.build == NULL)
		return opts_error(&cmd_bisect_opts, "missing %s",
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
