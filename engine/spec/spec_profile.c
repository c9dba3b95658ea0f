/* spec: the "profile" field -- which arms of which cells get a perf record
 * leg and an strace of their server after the cell's timed legs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_int.h"
#include "template.h"
#include "xalloc.h"

/* What a syscalls profile shows when the round names nothing: every call
 * (strace counts every call whatever trace says; trace only narrows the
 * rows shown). */
static const char *const spec_profile_trace_default[] = { NULL };

const char *const spec_profile_kinds[SPEC_PROFILE_KINDS] = { "perf",
	"server_perf", "syscalls" };

/* The call-graph method is added to these where args choose none
 * (spec_perf_unwind). */
static const char *const spec_profile_perf_default[] = { "-F", "999",
	NULL };

/* "fp", "dwarf" or "lbr" from a --call-graph value ("dwarf,16384"), or
 * NULL when it is none benchtui reads back. */
static const char *
spec_unwind_value(const char *v)
{
	static const char *const methods[] = { "fp", "dwarf", "lbr", NULL };
	size_t n = strcspn(v, ",");

	for (int i = 0; methods[i] != NULL; i++)
		if (strlen(methods[i]) == n && strncmp(v, methods[i], n) == 0) {
			/* a size only after dwarf, and only digits */
			if (v[n] == '\0')
				return methods[i];
			if (i == 1 && v[n + 1] != '\0' && strspn(v + n + 1,
			    "0123456789") == strlen(v + n + 1))
				return methods[i];
			return NULL;
		}
	return NULL;
}

const char *
spec_perf_unwind(char *const *args, size_t n, size_t *bad)
{
	const char *m = NULL;

	for (size_t i = 0; i < n; i++) {
		const char *a = args[i];

		if (strcmp(a, "-g") == 0) {
			m = "fp";
		} else if (strcmp(a, "--call-graph") == 0) {
			if (i + 1 >= n || (m = spec_unwind_value(args[++i])) ==
			    NULL) {
				*bad = i;
				return "?";
			}
		} else if (strncmp(a, "--call-graph=", 13) == 0) {
			if ((m = spec_unwind_value(a + 13)) == NULL) {
				*bad = i;
				return "?";
			}
		} else if (strcmp(a, "-b") == 0 || strcmp(a, "-j") == 0 ||
		    strncmp(a, "--branch-", 9) == 0) {
			/* branch stacks: perf report then reads branches, not
			 * the symbols sampled and their callers */
			*bad = i;
			return "?";
		}
	}
	return m;
}

/* profile.perf, profile.server_perf or profile.syscalls (path): an object
 * whose keys are among keys; *given gets the value of keys[0] (the list),
 * and without it *out is a copy of dflt (*given NULL).  -1 with the error
 * in p. */
static int
spec_profile_kind(struct parser *p, json_t *j, const char *path,
    const char *const *keys, const char *const *dflt, char ***out,
    size_t *n, json_t **given)
{
	if (!json_is_object(j))
		return spec_perr(p, path, "must be an object ({\"%s\": [...]}), "
		    "not %s", keys[0], spec_json_type(j));
	if (spec_check_keys(p, j, path, keys) < 0)
		return -1;
	if ((*given = json_object_get(j, keys[0])) == NULL)
		*out = spec_strv_copy(dflt, n);
	return 0;
}

/* A list of names, each one of the round's arms (or cells), kept in the
 * round file's order whatever order the profile lists them in. */
static int
spec_profile_names(struct parser *p, json_t *j, const char *path, bool arms,
    char ***out, size_t *n)
{
	const struct spec *s = p->s;
	size_t total = arms ? s->narms : s->ncells, i;
	unsigned char *want;
	json_t *v;

	if (!json_is_array(j) || json_array_size(j) == 0)
		return spec_perr(p, path, "must be a non-empty array of %s names",
		    arms ? "arm" : "cell");
	want = xcalloc(total, 1);
	*out = xcalloc(total + 1, sizeof **out);
	json_array_foreach(j, i, v) {
		const char *name = json_string_value(v);
		char sub[128];
		int k;

		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if (name == NULL) {
			free(want);
			return spec_perr(p, sub, "must be a string, not %s",
			    spec_json_type(v));
		}
		k = arms ? spec_arm_index(s, name) : spec_cell_index(s, name);
		if (k < 0) {
			free(want);
			return spec_perr(p, sub, "no %s named \"%s\"",
			    arms ? "arm" : "cell", name);
		}
		if (want[k]) {
			free(want);
			return spec_perr(p, sub, "\"%s\" is listed twice", name);
		}
		want[k] = 1;
	}
	*n = 0;
	for (size_t k = 0; k < total; k++)
		if (want[k])
			(*out)[(*n)++] = xstrdup(arms ? s->arms[k].name :
			    s->cells[k].name);
	free(want);
	return 0;
}

/* perf record's options (path "profile.perf.args" or
 * "profile.server_perf.args"): strings, none of them what the round sets
 * itself (the output, the command, the processes). */
static int
spec_profile_args(struct parser *p, json_t *args, const char *path,
    char ***out, size_t *n)
{
	const char *m;
	json_t *j;
	size_t i;

	if (!json_is_array(args))
		return spec_perr(p, path, "must be an array of strings (perf "
		    "record's options), not %s", spec_json_type(args));
	*out = xcalloc(json_array_size(args) + 1, sizeof **out);
	json_array_foreach(args, i, j) {
		char sub[64];
		const char *a;

		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if (spec_want_string(p, j, sub, true, &(*out)[i]) < 0)
			return -1;
		*n = i + 1;
		a = (*out)[i];
		/* The output file, the command and the processes are the
		 * round's. */
		if (strcmp(a, "-o") == 0 || strncmp(a, "--output", 8) == 0 ||
		    strcmp(a, "--") == 0 || strcmp(a, "-p") == 0 ||
		    strncmp(a, "--pid", 5) == 0 || strcmp(a, "-t") == 0 ||
		    strncmp(a, "--tid", 5) == 0 || strcmp(a, "-a") == 0 ||
		    strcmp(a, "--all-cpus") == 0)
			return spec_perr(p, sub, "\"%s\" is the round's to set "
			    "(the output is legs/prof-CELL-ARM.data, the command "
			    "and the processes the round's)", a);
	}
	if ((m = spec_perf_unwind(*out, *n, &i)) != NULL && strcmp(m, "?") ==
	    0) {
		char sub[64];

		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		return spec_perr(p, sub, "\"%s\" sets a call-graph method benchtui "
		    "cannot read back: give -g, --call-graph fp, --call-graph "
		    "dwarf[,SIZE] or --call-graph lbr (or none: dwarf)",
		    (*out)[i]);
	}
	return 0;
}

/* min_samples, min_runs and max_s of a perf kind (at where: its
 * field names), their defaults first. */
static int
spec_profile_repeat(struct parser *p, json_t *j, const char *where,
    long *min_samples, long *min_runs, double *max_s)
{
	char f[64];
	json_t *v;
	int min = 2000;

	*min_samples = 2000;
	*min_runs = 10;
	*max_s = 60;
	snprintf(f, sizeof f, "%s.min_samples", where);
	if ((v = json_object_get(j, "min_samples")) != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 1)
			return spec_perr(p, f, "must be "
			    "an integer of at least 1 (the samples a profile "
			    "repeats its leg for; default 2000)");
		if (spec_want_int(p, v, f, 1, 100000000, &min) < 0)
			return -1;
		*min_samples = min;
	}
	snprintf(f, sizeof f, "%s.min_runs", where);
	if ((v = json_object_get(j, "min_runs")) != NULL) {
		/* the intervals take the run as the unit: one run has no
		 * spread to read */
		if (!json_is_integer(v) || json_integer_value(v) < 2 ||
		    json_integer_value(v) > 100000)
			return spec_perr(p, f, "must be an "
			    "integer from 2 to 100000 (the runs per arm a profile "
			    "takes at least: its intervals are over runs; default "
			    "10)");
		*min_runs = (long)json_integer_value(v);
	}
	snprintf(f, sizeof f, "%s.max_s", where);
	if ((v = json_object_get(j, "max_s")) != NULL &&
	    spec_want_number(p, v, f, 0, true, max_s) < 0)
		return -1;
	return 0;
}

static int
spec_profile_perf(struct parser *p, struct spec_profile *pr, json_t *j)
{
	static const char *const keys[] = { "args", "min_samples", "min_runs",
	    "max_s", NULL };
	json_t *args;

	if (spec_profile_kind(p, j, "profile.perf", keys,
	    spec_profile_perf_default, &pr->perf_args, &pr->nperf_args,
	    &args) < 0)
		return -1;
	pr->perf = true;
	if (spec_profile_repeat(p, j, "profile.perf", &pr->min_samples,
	    &pr->min_runs, &pr->max_s) < 0)
		return -1;
	if (args == NULL)
		return 0;
	return spec_profile_args(p, args, "profile.perf.args", &pr->perf_args,
	    &pr->nperf_args);
}

static int
spec_profile_server_perf(struct parser *p, struct spec_profile *pr,
    json_t *j)
{
	static const char *const keys[] = { "args", "min_samples", "min_runs",
	    "max_s", NULL };
	json_t *args;

	if (spec_profile_kind(p, j, "profile.server_perf", keys,
	    spec_profile_perf_default, &pr->srv_perf_args,
	    &pr->nsrv_perf_args, &args) < 0)
		return -1;
	pr->server_perf = true;
	if (spec_profile_repeat(p, j, "profile.server_perf",
	    &pr->srv_min_samples, &pr->srv_min_runs, &pr->srv_max_s) < 0)
		return -1;
	if (args == NULL)
		return 0;
	return spec_profile_args(p, args, "profile.server_perf.args",
	    &pr->srv_perf_args, &pr->nsrv_perf_args);
}

static int
spec_profile_syscalls(struct parser *p, struct spec_profile *pr, json_t *j)
{
	static const char *const keys[] = { "trace", NULL };
	json_t *tr;
	size_t i;

	if (spec_profile_kind(p, j, "profile.syscalls", keys,
	    spec_profile_trace_default, &pr->trace, &pr->ntrace, &tr) < 0)
		return -1;
	pr->syscalls = true;
	if (tr == NULL)
		return 0;
	if (spec_want_argv(p, tr, "profile.syscalls.trace", &pr->trace,
	    &pr->ntrace) < 0)
		return -1;
	for (i = 0; i < pr->ntrace; i++) {
		const char *n = pr->trace[i];
		char sub[64];

		snprintf(sub, sizeof sub, "profile.syscalls.trace[%zu]", i);
		if (n[0] == '\0' || strspn(n, "abcdefghijklmnopqrstuvwxyz"
		    "0123456789_") != strlen(n))
			return spec_perr(p, sub, "\"%s\" is not a system call "
			    "name ([a-z0-9_]+)", n);
	}
	return 0;
}

int
spec_parse_profile(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "arms", "cells", "perf",
	    "server_perf", "syscalls", NULL };
	struct spec *s = p->s;
	struct spec_profile *pr;
	json_t *v;
	bool server = false;

	if (!json_is_object(j))
		return spec_perr(p, "profile", "must be an object, not %s",
		    spec_json_type(j));
	if (spec_check_keys(p, j, "profile", keys) < 0)
		return -1;
	pr = s->profile = xcalloc(1, sizeof *pr);
	if ((v = json_object_get(j, "arms")) == NULL)
		return spec_perr(p, "profile.arms", "missing (the arms to "
		    "profile)");
	if (spec_profile_names(p, v, "profile.arms", true, &pr->arms,
	    &pr->narms) < 0)
		return -1;
	if ((v = json_object_get(j, "cells")) != NULL) {
		if (spec_profile_names(p, v, "profile.cells", false, &pr->cells,
		    &pr->ncells) < 0)
			return -1;
	} else {
		pr->cells = xcalloc(s->ncells + 1, sizeof *pr->cells);
		for (; pr->ncells < s->ncells; pr->ncells++)
			pr->cells[pr->ncells] = xstrdup(
			    s->cells[pr->ncells].name);
	}
	if ((v = json_object_get(j, "perf")) != NULL &&
	    spec_profile_perf(p, pr, v) < 0)
		return -1;
	if ((v = json_object_get(j, "server_perf")) != NULL &&
	    spec_profile_server_perf(p, pr, v) < 0)
		return -1;
	if ((v = json_object_get(j, "syscalls")) != NULL &&
	    spec_profile_syscalls(p, pr, v) < 0)
		return -1;
	if (!pr->perf && !pr->server_perf && !pr->syscalls)
		return spec_perr(p, "profile", "names no kind of profile: give "
		    "\"perf\", \"server_perf\", \"syscalls\" or several");
	for (size_t i = 0; i < pr->ncells; i++)
		server |= s->cells[spec_cell_index(s, pr->cells[i])].server !=
		    NULL;
	if (pr->syscalls && !server)
		return spec_perr(p, "profile.syscalls", "none of the profiled "
		    "cells has a server to trace");
	if (pr->server_perf && !server)
		return spec_perr(p, "profile.server_perf", "none of the profiled "
		    "cells has a server to profile");
	return 0;
}

void
spec_profile_free(struct spec_profile *pr)
{
	if (pr == NULL)
		return;
	template_free_argv(pr->arms);
	template_free_argv(pr->cells);
	template_free_argv(pr->perf_args);
	template_free_argv(pr->srv_perf_args);
	template_free_argv(pr->trace);
	free(pr);
}

bool
spec_profiles(const struct spec *s, const char *cell, const char *arm,
    const char *kind)
{
	const struct spec_profile *pr = s->profile;
	bool c = false, a = false;
	int ci;

	if (pr == NULL || (ci = spec_cell_index(s, cell)) < 0)
		return false;
	for (size_t i = 0; i < pr->ncells && !c; i++)
		c = strcmp(pr->cells[i], cell) == 0;
	for (size_t i = 0; i < pr->narms && !a; i++)
		a = strcmp(pr->arms[i], arm) == 0;
	if (!c || !a)
		return false;
	if (kind == NULL)
		return pr->perf || ((pr->syscalls || pr->server_perf) &&
		    s->cells[ci].server != NULL);
	if (strcmp(kind, "perf") == 0)
		return pr->perf;
	if (s->cells[ci].server == NULL)
		return false;
	return (strcmp(kind, "syscalls") == 0 && pr->syscalls) ||
	    (strcmp(kind, "server_perf") == 0 && pr->server_perf);
}
