/* run and resume: parse the flags, create the round, hand it to the
 * console (a terminal) or the headless printer. */
#include <getopt.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bisect.h"
#include "cmd.h"
#include "console.h"
#include "headless.h"
#include "failon.h"
#include "round.h"
#include "xalloc.h"

static const char run_usage[] =
    "usage: benchtui run ROUND.json [--out DIR] [--headless] [--theme NAME] "
    "[--sign KEY.pem] [--fail-on RULE]... [--accept-changed-files] "
    "[--host HOST]...\n";
static const char resume_usage[] =
    "usage: benchtui resume DIR [--headless] [--theme NAME] [--sign KEY.pem] "
    "[--fail-on RULE]... [--accept-changed-files]\n";

enum { OPT_OUT = 1, OPT_HEADLESS, OPT_THEME, OPT_SIGN, OPT_HELP,
    OPT_FAIL_ON, OPT_ACCEPT_FILES, OPT_HOST };

static const struct option run_options[] = {
	{ "out", required_argument, NULL, OPT_OUT },
	{ "headless", no_argument, NULL, OPT_HEADLESS },
	{ "theme", required_argument, NULL, OPT_THEME },
	{ "sign", required_argument, NULL, OPT_SIGN },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "accept-changed-files", no_argument, NULL, OPT_ACCEPT_FILES },
	{ "host", required_argument, NULL, OPT_HOST },
	{ NULL, 0, NULL, 0 },
};

/* After the console: where the round is, how it ended in words, and the
 * command that resumes it when it can be. */
static void
cmd_run_say_end(const char *dir, int code)
{
	static const char *const words[] = {
		[ROUND_EXIT_OK] = "the round is complete and sealed",
		[ROUND_EXIT_FAIL] = "the round failed (see the message above)",
		[ROUND_EXIT_USAGE] = "bad usage or input",
		[ROUND_EXIT_ABORTED] = "the round stopped before its end and "
		    "can be resumed",
		[ROUND_EXIT_LEGS_FAILED] = "the round is complete and sealed, but some legs failed "
		    "or timed out (their output is in legs/)",
		[ROUND_EXIT_FAIL_ON] = "the round is complete and sealed, but a "
		    "verdict matched a fail_on rule (see the message above)",
	};

	fprintf(stderr, "round folder: %s\nexit %d: %s\n", dir, code,
	    code >= 0 && code < (int)(sizeof words / sizeof words[0]) &&
	    words[code] != NULL ? words[code] : "an unknown status");
	if (code == ROUND_EXIT_ABORTED)
		fprintf(stderr, "resume it with: benchtui resume %s\n", dir);
}

/* What run's and resume's options asked for. */
struct cmd_run_args {
	struct round_opts opts;
	const char *theme;
	bool headless;
	struct failon rules;     /* --fail-on's */
	const char **texts;      /* their text, for opts.fail_on */
	const char **hosts;      /* --host's, for opts.hosts */
};

/* The options and the operand into a; resume takes no --out.  -1 to go
 * on, else the exit status (0 after --help). */
static int
cmd_run_parse(int argc, char **argv, bool resume, struct cmd_run_args *a)
{
	const char *sub = resume ? "resume" : "run";
	const char *use = resume ? resume_usage : run_usage;
	int c, code;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_OUT:
			if (resume)
				return cmd_usage_error(sub, use, "--out is not "
				    "accepted: a round resumes in its own folder");
			a->opts.out_dir = optarg;
			break;
		case OPT_HEADLESS:
			a->headless = true;
			break;
		case OPT_THEME:
			a->theme = optarg;
			break;
		case OPT_SIGN:
			a->opts.sign_key = optarg;
			break;
		case OPT_HELP:
			fputs(use, stdout);
			return 0;
		case OPT_FAIL_ON:
			if ((code = cmd_fail_on(sub, use, optarg,
			    &a->rules)) != 0)
				return code;
			break;
		case OPT_ACCEPT_FILES:
			a->opts.accept_changed_files = true;
			break;
		case OPT_HOST:
			/* The hosts are the round's: resume uses those its
			 * log recorded. */
			if (resume)
				return cmd_usage_error(sub, use, "--host is not "
				    "accepted: a round resumes on the hosts it "
				    "ran on");
			a->hosts = xreallocarray(a->hosts, a->opts.nhosts + 1,
			    sizeof *a->hosts);
			a->hosts[a->opts.nhosts++] = optarg;
			a->opts.hosts = a->hosts;
			break;
		default:
			return cmd_usage_error(sub, use, "unknown or incomplete "
			    "option '%s'", argv[optind - 1]);
		}
	}
	a->texts = xreallocarray(NULL, a->rules.n + 1, sizeof *a->texts);
	for (size_t i = 0; i < a->rules.n; i++)
		a->texts[i] = a->rules.r[i].text;
	a->opts.fail_on = a->texts;
	a->opts.nfail_on = a->rules.n;
	if ((code = cmd_operand(argc, argv, sub, use,
	    resume ? "missing DIR" : "missing ROUND.json",
	    resume ? "too many arguments (one DIR)" :
	    "too many arguments (one ROUND.json)",
	    resume ? &a->opts.resume_dir : &a->opts.spec_path)) != 0)
		return code;
	return -1;
}

/* A signal before the round exists (its file read, its folder made):
 * kept here and turned into the round's abort once it does, so that a
 * SIGTERM then leaves a round event and a resumable folder, never a
 * half-made one. */
static volatile sig_atomic_t cmd_run_early;
/* The round once made, until the console's or headless's own handlers
 * take over (a signal in between aborts it, as theirs would). */
static struct round *volatile cmd_run_made;

static const char *
cmd_run_early_why(int sig)
{
	return sig == SIGINT ? "interrupted (SIGINT) before the first leg" :
	    sig == SIGHUP ? "hangup (SIGHUP) before the first leg" :
	    "terminated (SIGTERM) before the first leg";
}

static void
cmd_run_on_early(int sig)
{
	cmd_run_early = sig;
	if (cmd_run_made != NULL)
		round_abort(cmd_run_made, cmd_run_early_why(sig));
}

/* The early handlers on (SIGHUP only when not ignored), or the old ones
 * back. */
static void
cmd_run_early_handlers(bool on, struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = cmd_run_on_early };

	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++) {
		if (!on) {
			sigaction(sigs[i], &old[i], NULL);
			continue;
		}
		sigaction(sigs[i], NULL, &old[i]);
		if (sigs[i] != SIGHUP || old[i].sa_handler != SIG_IGN)
			sigaction(sigs[i], &sa, NULL);
	}
}

/* Shared by run and resume. */
static int
cmd_run_main(int argc, char **argv, bool resume)
{
	struct cmd_run_args a = { 0 };
	struct sigaction early[3];
	struct round *r;
	char err[1024];
	int code;

	if ((code = cmd_run_parse(argc, argv, resume, &a)) >= 0)
		goto out;
	if (resume && bisect_is_folder(a.opts.resume_dir)) {
		code = cmd_bisect_resume(a.opts.resume_dir, a.headless, a.theme);
		goto out;
	}
	cmd_run_early_handlers(true, early);
	r = round_create(&a.opts, &code, err, sizeof err);
	if (r != NULL) {
		cmd_run_made = r;
		if (cmd_run_early != 0)
			round_abort(r, cmd_run_early_why(cmd_run_early));
	}
	if (r == NULL) {
		cmd_run_early_handlers(false, early);
		fprintf(stderr, "benchtui %s: %s\n", resume ? "resume" : "run",
		    err);
		code = code != 0 ? code : 1;
		goto out;
	}
	if (a.headless || !isatty(STDOUT_FILENO)) {
		printf("round folder: %s\n", round_dir(r));
		fflush(stdout);
		code = headless_run_round(r);
	} else {
		fprintf(stderr, "round folder: %s\n", round_dir(r));
		code = console_run_round(r, a.theme);
		cmd_run_say_end(round_dir(r), code);
	}
	cmd_run_early_handlers(false, early);
	cmd_run_made = NULL;
	round_destroy(r);
out:
	failon_finish(&a.rules);
	free(a.texts);
	free(a.hosts);
	return code;
}

int
cmd_run(int argc, char **argv)
{
	return cmd_run_main(argc, argv, false);
}

int
cmd_resume(int argc, char **argv)
{
	return cmd_run_main(argc, argv, true);
}
