/* What the subcommands share: usage errors, the one operand, and how a
 * DIR|LOG operand names a round folder and its log (cmd.h). */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "failon.h"
#include "tally.h"
#include "xalloc.h"

int
cmd_operand(int argc, char **argv, const struct opts_cmd *c,
    const char *none, const char *many, const char **operand)
{
	if (argc - optind > 1)
		return opts_error(c, many, argv[optind + 1], argv[optind]);
	if (optind >= argc)
		return opts_error(c, "%s", none);
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
cmd_fail_on(const struct opts_cmd *c, const char *rule, struct failon *f)
{
	char err[512];

	if (failon_add(f, rule, err, sizeof err) != 0)
		return opts_error(c, "--fail-on %s", err);
	return 0;
}

int
cmd_host(const struct opts_cmd *c, const char *host)
{
	if (host[0] == '\0')
		return opts_error(c, "--host: empty host");
	if (host[0] == '-')
		return opts_error(c, "--host '%s' starts with '-', which ssh "
		    "would read as an option", host);
	for (const char *k = host; *k != '\0'; k++)
		if ((unsigned char)*k < 0x20 || *k == 0x7f)
			return opts_error(c, "--host: the host holds a control "
			    "character");
	return 0;
}

/* name into names[0..*n) unless it is there. */
static void
cmd_name_add(const char ***names, size_t *n, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return;
	*names = xreallocarray(*names, *n + 1, sizeof **names);
	(*names)[(*n)++] = name;
}

int
cmd_fail_on_check(const struct opts_cmd *c, const struct failon *f,
    const struct tally *const *t, size_t nt, bool baseline_too)
{
	const char **arms = NULL, **metrics = NULL;
	size_t na = 0, nm = 0;
	char err[2048];
	int rc = 0;

	for (size_t k = 0; k < nt; k++) {
		for (size_t c = 0; c < tally_cell_count(t[k]); c++)
			for (size_t j = 0; j < tally_arm_count(t[k], c); j++) {
				const char *cell = tally_cell_at(t[k], c);
				const char *arm = tally_arm_at(t[k], c, j);
				if (baseline_too || tally_vs_of(t[k], cell, arm))
					cmd_name_add(&arms, &na, arm);
			}
		for (size_t m = 0; m < tally_metric_count(t[k]); m++)
			cmd_name_add(&metrics, &nm, tally_metric_at(t[k], m));
	}
	for (size_t i = 0; i < f->n && rc == 0; i++)
		if (failon_check_names(&f->r[i], nt, arms, na, metrics, nm,
		    err, sizeof err) != 0)
			rc = opts_error(c, "--fail-on %s", err);
	free(arms);
	free(metrics);
	return rc;
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
