/* run and resume: parse the flags, create the round, hand it to the
 * console (a terminal) or the headless printer. */
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bisect.h"
#include "cmd.h"
#include "console.h"
#include "headless.h"
#include "opts.h"
#include "failon.h"
#include "round.h"
#include "xalloc.h"

enum { RUN_OUT = 1, RUN_HEADLESS, RUN_THEME, RUN_SIGN, RUN_FAIL_ON,
    RUN_ACCEPT_FILES, RUN_HOST };

static const struct opts_opt cmd_run_rows[] = {
	{ "out", 'o', "DIR", 0, RUN_OUT, "the round folder (new or empty); "
	  "default ./rounds/NAME-TIME in the current directory" },
	{ "headless", 0, NULL, 0, RUN_HEADLESS, "no console: one line per leg "
	  "and the summary (also when stdout is not a terminal)" },
	{ "theme", 0, "NAME", 0, RUN_THEME, "the console's colours (see "
	  "benchtui-run(1) Themes)" },
	{ "sign", 0, "KEY.pem", 0, RUN_SIGN, "sign SHA256SUMS with this "
	  "Ed25519 key" },
	{ "fail-on", 0, "RULE", OPTS_REPEAT, RUN_FAIL_ON, "exit 6 when a "
	  "verdict matches RULE: METRIC:VERDICT or ARM/METRIC:VERDICT" },
	{ "accept-changed-files", 0, NULL, 0, RUN_ACCEPT_FILES, "a kept file "
	  "changed before the seal: go on, recorded (default: stop, exit 3)" },
	{ "host", 0, "HOST", OPTS_REPEAT, RUN_HOST, "run the reps on HOST (an "
	  "ssh destination), dealt among every --host given" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const struct opts_opt cmd_resume_rows[] = {
	{ "headless", 0, NULL, 0, RUN_HEADLESS, "no console" },
	{ "theme", 0, "NAME", 0, RUN_THEME, "the console's colours" },
	{ "sign", 0, "KEY.pem", 0, RUN_SIGN, "sign SHA256SUMS with this "
	  "Ed25519 key" },
	{ "fail-on", 0, "RULE", OPTS_REPEAT, RUN_FAIL_ON, "exit 6 when a "
	  "verdict matches RULE" },
	{ "accept-changed-files", 0, NULL, 0, RUN_ACCEPT_FILES, "a kept file "
	  "changed since the round kept it: go on with it, recorded in the "
	  "resume event" },
	/* Refused in words of its own: the folder is the round's. */
	{ "out", 'o', "DIR", OPTS_HIDDEN, RUN_OUT, NULL },
	{ "host", 0, "HOST", OPTS_HIDDEN | OPTS_REPEAT, RUN_HOST, NULL },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_run_opts = {
	"run", "ROUND.json",
	"Run a round live in the console (or headless), then seal it.",
	"benchtui-run(1), benchtui-round(5)", cmd_run_rows,
};

const struct opts_cmd cmd_resume_opts = {
	"resume", "DIR",
	"Go on with a stopped round (abort, signal, crash) in its folder.",
	"benchtui-run(1) LIFECYCLE", cmd_resume_rows,
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
	const struct opts_cmd *cmd = resume ? &cmd_resume_opts : &cmd_run_opts;
	struct opts_parser p;
	size_t nhosts = 0;
	int c, code;

	opts_init(&p, cmd, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		switch (c) {
		case OPTS_STOP:
			return p.status;
		case RUN_OUT:
			if (resume)
				return opts_error(cmd, "--out is not accepted: a "
				    "round resumes in its own folder");
			a->opts.out_dir = p.arg;
			break;
		case RUN_HEADLESS:
			a->headless = true;
			break;
		case RUN_THEME:
			a->theme = p.arg;
			break;
		case RUN_SIGN:
			a->opts.sign_key = p.arg;
			break;
		case RUN_FAIL_ON:
			if ((code = cmd_fail_on(cmd, p.arg, &a->rules)) != 0)
				return code;
			break;
		case RUN_ACCEPT_FILES:
			a->opts.accept_changed_files = true;
			break;
		case RUN_HOST:
			/* The hosts are the round's: resume uses those its
			 * log recorded. */
			if (resume)
				return opts_error(cmd, "--host is not accepted: "
				    "a round resumes on the hosts it ran on");
			if ((code = cmd_host(cmd, p.arg)) != 0)
				return code;
			a->hosts = xreallocarray(a->hosts, nhosts + 1,
			    sizeof *a->hosts);
			a->hosts[nhosts++] = p.arg;
			a->opts.hosts = a->hosts;
			a->opts.nhosts = nhosts;
			break;
		}
	}
	a->texts = xreallocarray(NULL, a->rules.n + 1, sizeof *a->texts);
	for (size_t i = 0; i < a->rules.n; i++)
		a->texts[i] = a->rules.r[i].text;
	a->opts.fail_on = a->texts;
	a->opts.nfail_on = a->rules.n;
	if ((code = cmd_operand(argc, argv, cmd,
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
