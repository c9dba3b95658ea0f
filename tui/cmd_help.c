/* help: "benchtui help", "benchtui help COMMAND" and "COMMAND --help".
 *
 * One table holds every subcommand's synopsis, what it does and its options
 * (one line each), so the three ways of asking print the same text.  The
 * man pages say the rest. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

struct help_opt {
	const char *flag, *what;
};

#define HELP_MAX_OPTS 28

struct help_cmd {
	const char *name;
	const char *synopsis;
	const char *what;
	const char *man;                 /* where the manual says more */
	struct help_opt opts[HELP_MAX_OPTS];
};

static const struct help_cmd help_cmds[] = {
	{ "run", "benchtui run ROUND.json [options]",
	  "Run a round live in the console (or headless), then seal it.", "benchtui(1) RUN, "
	  "benchtui-round(5)",
	  { { "--out DIR", "the round folder (new or empty); default "
	      "./rounds/NAME-TIME in the current directory" },
	    { "--headless", "no console: one line per leg and the summary "
	      "(also when stdout is not a terminal)" },
	    { "--theme NAME", "the console's colours (see benchtui(1) Themes)" },
	    { "--sign KEY.pem", "sign SHA256SUMS with this Ed25519 key" },
	    { "--fail-on RULE", "exit 6 when a verdict matches RULE: "
	      "METRIC:VERDICT or ARM/METRIC:VERDICT (repeatable)" },
	    { "--accept-changed-files", "a kept file changed before the "
	      "seal: go on, recorded (default: stop, exit 3)" },
	    { "--host HOST", "run the legs there, the reps dealt among "
	      "every --host (repeatable; replaces host and hosts)" },
	    { "--help", "this text" } } },
	{ "resume", "benchtui resume DIR [options]",
	  "Go on with a stopped round (abort, signal, crash) in its folder.", "benchtui(1) LIFECYCLE",
	  { { "--headless", "no console" },
	    { "--theme NAME", "the console's colours" },
	    { "--sign KEY.pem", "sign SHA256SUMS with this Ed25519 key" },
	    { "--fail-on RULE", "exit 6 when a verdict matches RULE "
	      "(repeatable)" },
	    { "--accept-changed-files", "a kept file changed since the round "
	      "kept it: go on with it, recorded in the resume event" },
	    { "--help", "this text" } } },
	{ "replay", "benchtui replay DIR|LOG.jsonl [options]   "
	  "(also: benchtui --replay ...)",
	  "Show a recorded round in the console, as it happened.",
	  "benchtui(1) Replay",
	  { { "--speed X", "play X times faster than recorded" },
	    { "--instant", "show the end state at once" },
	    { "--headless", "print the legs and the summary instead" },
	    { "--theme NAME", "the console's colours" },
	    { "--help", "this text" } } },
	{ "report", "benchtui report DIR|LOG.jsonl [options]",
	  "Print a round's ratios, intervals and verdicts.",
	  "benchtui(1) REPORT",
	  { { "--format F", "text (default), json, csv or markdown" },
	    { "--baseline ARM", "a bare log: compare every arm with ARM" },
	    { "--aa ARM=OF", "a bare log: ARM is an A/A copy of OF "
	      "(repeatable)" },
	    { "--fail-on RULE", "exit 6 when a verdict of a complete round "
	      "matches RULE (repeatable)" },
	    { "--help", "this text" } } },
	{ "compare", "benchtui compare DIR_A DIR_B [options]",
	  "Set two sealed rounds side by side: B against A, per cell, arm "
	  "and metric.", "benchtui(1) COMPARE",
	  { { "--format F", "text (default), json, csv or markdown" },
	    { "--fail-on RULE", "exit 6 when a verdict matches RULE: "
	      "METRIC:VERDICT or ARM/METRIC:VERDICT (repeatable)" },
	    { "--partial", "also read a folder that is not sealed, as it is" },
	    { "--confidence L", "the intervals' level (default: A's "
	      "confidence)" },
	    { "--help", "this text" } } },
	{ "verify", "benchtui verify DIR [options]",
	  "Check a sealed folder against SHA256SUMS; exit 4 names changes.", "benchtui(1) verify",
	  { { "--pubkey PUB.pem", "also check the signature with this key" },
	    { "--help", "this text" } } },
	{ "seal", "benchtui seal DIR --partial [options]",
	  "Seal a round that stopped early, on purpose, as it is.",
	  "benchtui(1) seal --partial",
	  { { "--partial", "required: the round is not complete" },
	    { "--sign KEY.pem", "sign SHA256SUMS with this Ed25519 key" },
	    { "--help", "this text" } } },
	{ "check", "benchtui check ROUND.json [--host]",
	  "Validate a round file, print its plan and commands; run nothing.", "benchtui(1) CHECK, "
	  "benchtui-round(5)",
	  { { "--host", "also look at this box's load for a few seconds, "
	      "as run does before its first leg" },
	    { "--help", "this text" } } },
	{ "load", "benchtui load URL [options]",
	  "A verified HTTP/1.1 keep-alive load, as a leg (${BENCHTUI} load).", "benchtui(1) LOAD",
	  { { "--requests N", "counted requests (default 1000)" },
	    { "--duration S", "send for S seconds instead of a count" },
	    { "--warmup N", "requests first, checked, not measured" },
	    { "--connections C", "C persistent connections, a request in "
	      "flight on each" },
	    { "--threads T", "threads driving them (default 1, at most C)" },
	    { "--rate R", "R requests/s; latency counted from each one's due "
	      "time" },
	    { "--method M", "the method (default GET; POST with --body)" },
	    { "--body FILE", "send FILE as every request's body" },
	    { "--header K:V", "a request header (repeatable)" },
	    { "--expect-status S", "the status every response must have "
	      "(default 200)" },
	    { "--expect-bytes N", "the body length every response must have" },
	    { "--expect-sha256 HEX", "the body's sha256" },
	    { "--expect-file PATH", "the body is this file's bytes (its size "
	      "and sha256)" },
	    { "--accept-encoding CODINGS", "send Accept-Encoding: CODINGS; "
	      "bodies checked as sent" },
	    { "--evidence FILE", "one JSON line per request" },
	    { "--metrics FILE", "requests, rps, bytes and latency "
	      "percentiles as JSON" },
	    { "--timeout S", "each response whole within S s of sending "
	      "(default 30)" },
	    { "--quiet", "no summary line" },
	    { "--cacert FILE", "https://: verify the server against FILE's "
	      "certificates" },
	    { "--insecure", "https://: take any certificate (test ones)" },
	    { "--tls-resume", "resume the TLS session on new connections" },
	    { "--new-connection", "a new connection (and handshake) per "
	      "request" },
	    { "--h2", "HTTP/2: ALPN h2 over TLS, prior knowledge on http://" },
	    { "--streams S", "--h2: S requests in flight per connection "
	      "(default 1)" },
	    { "--help", "this text" } } },
	{ "bisect", "benchtui bisect ROUND.json --repo DIR --good REV --bad REV "
	  "--build CMD [options]",
	  "Find the commit that moved a metric, each step a sealed round.",
	  "benchtui(1) BISECT",
	  { { "--repo DIR", "the git repository (its own worktree is never "
	      "touched)" },
	    { "--good REV", "a revision that is good (an ancestor of --bad)" },
	    { "--bad REV", "a revision that is worse" },
	    { "--build CMD", "builds a revision in its worktree: split at "
	      "spaces, no shell, ${OUT} its build folder" },
	    { "--metric M", "the metric that moved (default cpu)" },
	    { "--out DIR", "the bisect folder (new or empty); default "
	      "./bisects/bisect-TIME" },
	    { "--headless", "no console: one line per step" },
	    { "--theme NAME", "the console's colours" },
	    { "--help", "this text" } } },
	{ "agent", "benchtui agent --dir DIR",
	  "The far end of a cell server on another host; ssh runs it.",
	  "benchtui(1) REMOTE HOSTS",
	  { { "--dir DIR", "the one folder it writes in (the servers' logs; "
	      "their cwd), made when missing" },
	    { "--help", "this text" } } },
	{ "help", "benchtui help [COMMAND]",
	  "List the commands, or show one's synopsis and options.",
	  "benchtui(1)", { { NULL, NULL } } },
};

#define HELP_NCMDS (sizeof help_cmds / sizeof help_cmds[0])

static const struct help_cmd *
cmd_help_find(const char *name)
{
	if (strcmp(name, "--replay") == 0)
		name = "replay";
	for (size_t i = 0; i < HELP_NCMDS; i++)
		if (strcmp(help_cmds[i].name, name) == 0)
			return &help_cmds[i];
	return NULL;
}

int
cmd_help_print(const char *name)
{
	const struct help_cmd *c = cmd_help_find(name);

	if (c == NULL)
		return -1;
	printf("usage: %s\n\n%s\n", c->synopsis, c->what);
	if (c->opts[0].flag != NULL) {
		printf("\noptions:\n");
		for (size_t i = 0; i < HELP_MAX_OPTS && c->opts[i].flag != NULL;
		    i++)
			printf("  %-20s %s\n", c->opts[i].flag, c->opts[i].what);
	}
	printf("\nMore in the manual: %s (man benchtui).\n", c->man);
	return 0;
}

int
cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error("help", "usage: benchtui help [COMMAND]\n",
		    "too many arguments");
	if (argc == 2) {
		if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
			return cmd_help_print("help");
		if (cmd_help_print(argv[1]) == 0)
			return 0;
		return cmd_usage_error("help", "usage: benchtui help [COMMAND]\n",
		    "no command '%s'", argv[1]);
	}
	printf("benchtui runs a performance experiment (a round) and shows it "
	    "live.\n\ncommands:\n");
	for (size_t i = 0; i < HELP_NCMDS; i++)
		printf("  %-8s %s\n", help_cmds[i].name, help_cmds[i].what);
	printf("\n'benchtui help COMMAND' or 'benchtui COMMAND --help' shows a "
	    "command's options;\n'benchtui --version' the version.  The manual: "
	    "man benchtui, and for the\nround file, man benchtui-round.\n");
	return 0;
}
