/* What the subcommands share: usage errors, the one operand, and how a
 * DIR|LOG operand names a round folder and its log (cmd.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <unistd.h>

#include "cmd.h"
#include "failon.h"
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

int
cmd_fail_on(const char *sub, const char *use, const char *rule,
    struct failon *f)
{
	char err[512];

	if (failon_add(f, rule, err, sizeof err) != 0)
		return cmd_usage_error(sub, use, "--fail-on %s", err);
	return 0;
}

size_t
cmd_fail_on_matches(const char *sub, const struct failon *f,
    const json_t *rep, bool apply)
{
	json_t *msgs = json_array(), *v;
	size_t n = failon_match(f, rep, msgs), i;

	if (n > 0)
		fprintf(stderr, "benchtui %s: %zu verdict%s matched fail_on%s:\n",
		    sub, n, n == 1 ? "" : "s", apply ? "" : " (the round is "
		    "not complete: not applied)");
	json_array_foreach(msgs, i, v)
		fprintf(stderr, "  %s\n", json_string_value(v));
	json_decref(msgs);
	return apply ? n : 0;
}
