/* benchtui: command-line dispatch. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "suggest.h"
#include "config.h"
#include "counters.h"
#include "profrepeat.h"
#include "xalloc.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
} commands[] = {
	{ "run", cmd_run },
	{ "resume", cmd_resume },
	{ "replay", cmd_replay },
	{ "--replay", cmd_replay },
	{ "report", cmd_report },
	{ "compare", cmd_compare },
	{ "verify", cmd_verify },
	{ "seal", cmd_seal },
	{ "check", cmd_check },
	{ "help", cmd_help },
	{ "load", cmd_load },
	{ "agent", cmd_agent },
	{ "bisect", cmd_bisect },
};

/* --replay is an option-shaped command, so a user may put replay's own
 * flags before it ("benchtui --headless --replay LOG"): move it to the
 * front, keeping the order of everything else. */
static void
main_hoist_replay(int argc, char **argv)
{
	int k;

	for (k = 1; k < argc && argv[k][0] == '-'; k++)
		if (strcmp(argv[k], "--replay") == 0)
			break;
	if (k == 1 || k >= argc || strcmp(argv[k], "--replay") != 0)
		return;
	for (char *r = argv[k]; k > 1; k--)
		argv[k] = argv[k - 1], argv[k - 1] = r;
}

int
main(int argc, char **argv)
{
	/* jansson's allocations follow the one out-of-memory policy too:
	 * a NULL it got back would surface as a misleading parse or format
	 * error far from the cause. */
	json_set_alloc_funcs(xmalloc, free);
	main_hoist_replay(argc, argv);
	if (argc < 2) {
		cmd_help_usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("benchtui %s (counters: %s)\n", BENCHTUI_VERSION,
		    counters_backend());
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cmd_help_usage(stdout);
		return 0;
	}
	/* Internal: what a round's perf profile runs under perf record.  Its
	 * own arguments end at "--", and the leg's after it may well hold a
	 * "--help": no help lookup. */
	if (strcmp(argv[1], PROFREPEAT_CMD) == 0)
		return profrepeat_main(argc - 1, argv + 1);
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		if (strcmp(argv[1], commands[i].name) != 0)
			continue;
		/* COMMAND --help, wherever it stands, prints the same text as
		 * "benchtui help COMMAND" and runs nothing. */
		for (int k = 2; k < argc && strcmp(argv[1], "help") != 0; k++)
			if (strcmp(argv[k], "--help") == 0 ||
			    strcmp(argv[k], "-h") == 0)
				return cmd_help_print(argv[1]) == 0 ? 0 : 2;
		return commands[i].fn(argc - 1, argv + 1);
	}
	{
		const char *names[sizeof commands / sizeof commands[0]];
		char hint[128];

		for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
			names[i] = commands[i].name;
		fprintf(stderr, "benchtui: unknown command '%s'%s\n", argv[1],
		    suggest_hint(hint, sizeof hint, argv[1], names,
		    sizeof names / sizeof names[0]));
		cmd_help_usage(stderr);
	}
	return 2;
}
