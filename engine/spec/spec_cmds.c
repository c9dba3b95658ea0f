/* spec: every leg's and every server's command as the round would build
 * it (legcmd), for every cell and arm: unknown templates, cycles, arrays
 * out of place, a scratch folder that expands to "..", the kernel's exec
 * limits.  Reading a round file does none of this (report and --replay
 * read rounds recorded elsewhere, whose programs need not exist here);
 * check, run and resume call spec_check_commands before the first leg. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "legcmd.h"
#include "spec_int.h"
#include "template.h"
#include "xalloc.h"

/* Expand one string for a (cell, arm) at load time: any unknown name, cycle
 * or syntax error is reported now, with the field and the cell it failed
 * in, rather than at leg 37 of a two-hour round. */
static int
spec_cmds_expand(struct parser *p, const char *str, const struct template_ctx *ctx,
    const char *path)
{
	char terr[512];
	char *v = template_expand(str, ctx, terr, sizeof terr);

	if (v == NULL) {
		if (ctx->cell && ctx->arm)
			spec_perr(p, path, "%s (cell \"%s\", arm \"%s\")", terr,
			    ctx->cell->name, ctx->arm);
		else if (ctx->cell)
			spec_perr(p, path, "%s (cell \"%s\")", terr,
			    ctx->cell->name);
		else
			spec_perr(p, path, "%s", terr);
		return -1;
	}
	free(v);
	return 0;
}

/* A builder error "FIELD: message" as "FILE: PREFIX FIELD: message (cell,
 * arm)". */
static int
spec_cmds_builder_err(struct parser *p, const char *prefix, const char *err,
    const struct spec_cell *cell, const char *arm)
{
	const char *colon = strstr(err, ": ");
	char path[128];

	if (colon == NULL)
		return spec_perr(p, prefix[0] ? prefix : "command", "%s", err);
	snprintf(path, sizeof path, "%s%.*s", prefix, (int)(colon - err), err);
	if (arm != NULL)
		return spec_perr(p, path, "%s (cell \"%s\", arm \"%s\")",
		    colon + 2, cell->name, arm);
	return spec_perr(p, path, "%s (cell \"%s\")", colon + 2, cell->name);
}

/* Every variable of kv (cell, arm or round vars, at path) as it expands
 * for ctx: through "${KEY}" so a cycle reads from the variable named in the
 * path ("A -> B -> A"), and element by element for an array. */
static int
spec_cmds_vars(struct parser *p, const struct spec_kv *kv, size_t n,
    const char *prefix, const struct template_ctx *ctx)
{
	for (size_t k = 0; k < n; k++) {
		char path[192], ref[128];

		if (kv[k].list == NULL) {
			snprintf(path, sizeof path, "%s.%s", prefix, kv[k].key);
			snprintf(ref, sizeof ref, "${%s}", kv[k].key);
			if (spec_cmds_expand(p, ref, ctx, path) < 0)
				return -1;
			continue;
		}
		for (size_t i = 0; i < kv[k].nlist; i++) {
			snprintf(path, sizeof path, "%s.%s[%zu]", prefix,
			    kv[k].key, i);
			if (spec_cmds_expand(p, kv[k].list[i], ctx, path) < 0)
				return -1;
		}
	}
	return 0;
}

/* The bytes execve(2) counts for a string: the string, its NUL, its
 * pointer. */
static size_t
spec_cmds_exec_bytes(const char *v)
{
	return strlen(v) + 1 + sizeof(char *);
}

/* The environment a leg of arm gets: the inherited one with the arm's env
 * over it (at most; a key the arm sets is counted twice). */
static size_t
spec_cmds_env_bytes(const struct spec_arm *arm)
{
	extern char **environ;
	size_t n = sizeof(char *);

	for (size_t i = 0; environ[i] != NULL; i++)
		n += spec_cmds_exec_bytes(environ[i]);
	for (size_t i = 0; i < arm->nenv; i++)
		n += strlen(arm->env[i].key) + 1 + spec_cmds_exec_bytes(arm->env[i].val);
	return n;
}

/* The kernel refuses to exec an argument longer than MAX_ARG_STRLEN (32
 * pages) or an argv and envp larger than ARG_MAX (execve(2)): that is a
 * check error, not a leg whose exec fails with E2BIG at leg 37. */
static int
spec_cmds_exec_limits(struct parser *p, const char *path, const char *v,
    size_t *total, const struct spec_cell *cell, const struct spec_arm *arm)
{
	long page = sysconf(_SC_PAGESIZE), argmax = sysconf(_SC_ARG_MAX);
	size_t maxarg = (size_t)(page > 0 ? page : 4096) * 32, n = strlen(v);

	if (n >= maxarg)
		return spec_perr(p, path, "expands to %zu bytes (cell \"%s\", arm "
		    "\"%s\"); the kernel execs at most %zu bytes per argument",
		    n, cell->name, arm->name, maxarg - 1);
	*total += spec_cmds_exec_bytes(v);
	if (argmax > 0 && *total > (size_t)argmax)
		return spec_perr(p, path, "the command and environment reach %zu "
		    "bytes here (cell \"%s\", arm \"%s\"); the kernel execs at "
		    "most %ld (ARG_MAX)", *total, cell->name, arm->name, argmax);
	return 0;
}

static int
spec_cmds_argv_limits(struct parser *p, const struct spec *s,
    const struct template_ctx *ctx, const struct spec_cell *cell,
    const struct spec_arm *arm)
{
	size_t total = spec_cmds_env_bytes(arm) + sizeof(char *);

	for (size_t k = 0; k < s->ncommand; k++) {
		char path[64], terr[256], **v = NULL;
		size_t n = 0, at;
		int rc = 0;

		snprintf(path, sizeof path, "command[%zu]", k);
		if (template_expand_argv(&s->command[k], 1, ctx, &v, &n, &at,
		    terr, sizeof terr) < 0)
			continue; /* the builder reported it already */
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = spec_cmds_exec_limits(p, path, v[i], &total, cell, arm);
		template_free_argv(v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

/* A cell's setup and cleanup as legcmd builds them: the cell's vars, no
 * arm. */
static int
spec_cmds_hooks(struct parser *p, size_t ci)
{
	const struct spec_cell *cell = &p->s->cells[ci];
	char err[640], prefix[64];

	snprintf(prefix, sizeof prefix, "cells[%zu].", ci);
	for (int h = 0; h < 2; h++) {
		struct legcmd hc;
		int rc;

		if ((h ? cell->cleanup : cell->setup) == NULL)
			continue;
		rc = legcmd_hook(p->s, ci, h == 1, NULL, &hc, err, sizeof err);
		legcmd_finish(&hc);
		if (rc < 0)
			return spec_cmds_builder_err(p, prefix, err, cell, NULL);
	}
	return 0;
}

static int
spec_cmds_check(struct parser *p)
{
	const struct spec *s = p->s;

	for (size_t ci = 0; ci < s->ncells; ci++) {
		const struct spec_cell *cell = &s->cells[ci];
		char err[640], prefix[64];

		/* A server per leg has its arm's ARM and SERVER_BIN. */
		for (size_t ai = 0; cell->server != NULL &&
		    ai < (spec_server_per_leg(s, cell) ? s->narms : 1); ai++) {
			bool per_leg = spec_server_per_leg(s, cell);
			struct legcmd sc;
			int rc = legcmd_server(s, ci, per_leg ? (int)ai : -1,
			    per_leg ? 1 : 0, NULL, &sc, err, sizeof err);

			legcmd_finish(&sc);
			snprintf(prefix, sizeof prefix, "cells[%zu].", ci);
			if (rc < 0)
				return spec_cmds_builder_err(p, prefix, err, cell,
				    per_leg ? s->arms[ai].name : NULL);
		}
		if (spec_cmds_hooks(p, ci) < 0)
			return -1;
		for (size_t ai = 0; ai < s->narms; ai++) {
			const struct spec_arm *arm = &s->arms[ai];
			struct legcmd_where w = { .spec = s, .cell = ci, .arm = ai,
			    .rep = 1 };
			struct template_ctx ctx;
			struct legcmd lc;
			int rc;

			rc = legcmd_build(&w, &lc, err, sizeof err);
			if (rc < 0) {
				legcmd_finish(&lc);
				snprintf(prefix, sizeof prefix, "arms[%zu].",
				    arm->aa_of ? (size_t)spec_arm_index(s,
				    arm->aa_of) : ai);
				return spec_cmds_builder_err(p, strncmp(err, "arms.", 5)
				    == 0 ? prefix : "", strncmp(err, "arms.", 5) == 0 ?
				    err + 5 : err, cell, arm->name);
			}
			legcmd_leg_ctx(&w, &lc, &ctx);
			/* The expanded folder too, as written: a variable could
			 * make it "..". */
			if (s->scratch != NULL) {
				char terr[256], *x = template_expand(s->scratch,
				    &ctx, terr, sizeof terr);

				rc = x != NULL ? spec_check_scratch(p, x) : 0;
				/* The machine's own folders: once, unless the
				 * folder varies with the leg. */
				if (rc == 0 && x != NULL && (ci + ai == 0 ||
				    strstr(s->scratch, "${") != NULL))
					rc = spec_check_scratch_system(p, x);
				free(x);
			}
			/* The kernel's exec limits, on each element as it
			 * expands (an array element splices into several). */
			if (rc == 0)
				rc = spec_cmds_argv_limits(p, s, &ctx, cell, arm);
			snprintf(prefix, sizeof prefix, "cells[%zu].vars", ci);
			if (rc == 0)
				rc = spec_cmds_vars(p, cell->vars, cell->nvars, prefix,
				    &ctx);
			/* ctx points into lc (bin, scratch) until the last
			 * check is done with it. */
			snprintf(prefix, sizeof prefix, "arms[%zu].vars", ai);
			if (rc == 0 && (spec_cmds_vars(p, arm->vars, arm->nvars,
			    prefix, &ctx) < 0 ||
			    spec_cmds_vars(p, s->vars, s->nvars, "vars", &ctx) < 0))
				rc = -1;
			legcmd_finish(&lc);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}

int
spec_check_commands(const struct spec *s, char *err, size_t errlen)
{
	struct parser p = { .file = s->path, .err = err, .errlen = errlen,
	    .s = (struct spec *)s };

	return spec_cmds_check(&p);
}
