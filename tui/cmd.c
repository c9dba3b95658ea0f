/* What the subcommands share: usage errors, the one operand, and how a
 * DIR|LOG operand names a round folder and its log (cmd.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "xalloc.h"

int
cmd_usage_error(const char *sub, const char *use, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchtui %s: ", sub);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", use);
	return 2;
}

int
cmd_operand(int argc, char **argv, const char *sub, const char *use,
    const char *none, const char *many, const char **operand)
{
	if (argc - optind > 1)
		return cmd_usage_error(sub, use, many, argv[optind + 1],
		    argv[optind]);
	if (optind >= argc)
		return cmd_usage_error(sub, use, "%s", none);
	*operand = argv[optind];
	return 0;
}

static bool
cmd_exists(const char *dir, const char *name, int mode)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	return access(path, mode) == 0;
}

bool
cmd_round_folder(const char *dir, int mode)
{
	return cmd_exists(dir, "round.json", mode) &&
	    cmd_exists(dir, "environment.json", mode);
}

char *
cmd_log_path(const char *input, bool is_dir)
{
	return is_dir ? xasprintf("%s/log.jsonl", input) : xstrdup(input);
}
