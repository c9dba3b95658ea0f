/* help: "benchtui help", "benchtui help COMMAND" and "COMMAND --help".
 *
 * Every command's synopsis, what it does and its options come from its
 * option table (opts.h, in the command's own file), so the ways of
 * asking, the usage errors and the synopses cannot disagree.  The man
 * pages say the rest. */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

enum { HELP_SYNOPSIS = 1, HELP_ROFF };

/* Hidden: what tests and whoever edits the manual compare against. */
static const struct opts_opt cmd_help_rows[] = {
	{ "synopsis", 0, NULL, OPTS_HIDDEN, HELP_SYNOPSIS, NULL },
	{ "roff", 0, NULL, OPTS_HIDDEN, HELP_ROFF, NULL },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_help_opts = {
	"help", "[COMMAND]",
	"List the commands, or show one's synopsis and options.",
	"benchtui(1)", cmd_help_rows,
};

/* In the order "benchtui help" lists them. */
static const struct opts_cmd *const cmd_help_cmds[] = {
	&cmd_run_opts, &cmd_resume_opts, &cmd_replay_opts, &cmd_report_opts,
	&cmd_compare_opts, &cmd_verify_opts, &cmd_seal_opts, &cmd_check_opts,
	&cmd_load_opts, &cmd_bisect_opts, &cmd_agent_opts, &cmd_help_opts,
};

#define HELP_NCMDS (sizeof cmd_help_cmds / sizeof cmd_help_cmds[0])

static const struct opts_cmd *
cmd_help_find(const char *name)
{
	if (strcmp(name, "--replay") == 0)
		name = "replay";
	for (size_t i = 0; i < HELP_NCMDS; i++)
		if (strcmp(cmd_help_cmds[i]->name, name) == 0)
			return cmd_help_cmds[i];
	return NULL;
}

int
cmd_help_print(const char *name)
{
	const struct opts_cmd *c = cmd_help_find(name);

	if (c == NULL)
		return -1;
	opts_help(c);
	return 0;
}

void
cmd_help_usage(FILE *f)
{
	char line[2048];

	for (size_t i = 0; i < HELP_NCMDS; i++) {
		opts_synopsis(cmd_help_cmds[i], line, sizeof line);
		fprintf(f, "%s%s\n", i == 0 ? "usage: " : "       ", line);
	}
	fprintf(f, "       benchtui --replay DIR|LOG.jsonl ...   (the same as "
	    "replay)\n       benchtui --version | --help\n");
}

/* help --synopsis [COMMAND] (each command's when none), help --roff
 * COMMAND. */
static int
cmd_help_synopsis(const char *name, bool roff)
{
	const struct opts_cmd *c = name != NULL ? cmd_help_find(name) : NULL;
	char line[2048];

	if (name != NULL && c == NULL)
		return opts_error(&cmd_help_opts, "no command '%s'", name);
	for (size_t i = 0; i < HELP_NCMDS; i++) {
		if (c != NULL && cmd_help_cmds[i] != c)
			continue;
		if (roff) {
			opts_synopsis_roff(cmd_help_cmds[i]);
			continue;
		}
		opts_synopsis(cmd_help_cmds[i], line, sizeof line);
		printf("%s\n", line);
	}
	return 0;
}

int
cmd_help(int argc, char **argv)
{
	struct opts_parser p;
	int c, mode = 0;

	opts_init(&p, &cmd_help_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		if (c == OPTS_STOP)
			return p.status;
		mode = c;
	}
	if (argc - optind > 1)
		return opts_error(&cmd_help_opts, "too many arguments");
	if (mode != 0)
		return cmd_help_synopsis(optind < argc ? argv[optind] : NULL,
		    mode == HELP_ROFF);
	if (argc - optind == 1) {
		if (cmd_help_print(argv[optind]) == 0)
			return 0;
		return opts_error(&cmd_help_opts, "no command '%s'",
		    argv[optind]);
	}
	printf("benchtui runs a performance experiment (a round) and shows it "
	    "live.\n\ncommands:\n");
	for (size_t i = 0; i < HELP_NCMDS; i++)
		printf("  %-8s %s\n", cmd_help_cmds[i]->name,
		    cmd_help_cmds[i]->what);
	printf("\n'benchtui help COMMAND' or 'benchtui COMMAND --help' shows a "
	    "command's options;\n'benchtui --version' the version.  The manual: "
	    "man benchtui, and for the\nround file, man benchtui-round.\n");
	return 0;
}
