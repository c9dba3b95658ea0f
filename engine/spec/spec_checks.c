/* spec: checks across a round's fields once all are read: the client and
 * server cpus apart, a scratch folder of its own, and every template
 * expanding for every cell and arm. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_int.h"
#include "xalloc.h"
#include "legcmd.h"
#include "template.h"

bool
spec_cell_name_taken(struct parser *p, const char *name, size_t i, size_t *k)
{
	json_t *at;

	if (p->cell_names == NULL)
		p->cell_names = json_object();
	if ((at = json_object_get(p->cell_names, name)) != NULL) {
		*k = (size_t)json_integer_value(at);
		return true;
	}
	json_object_set_new(p->cell_names, name, json_integer((json_int_t)i));
	return false;
}

static const struct spec *spec_check_sorting;

/* qsort: cell indexes by name. */
static int
spec_check_by_name(const void *a, const void *b)
{
	return strcmp(spec_check_sorting->cells[*(const size_t *)a].name,
	    spec_check_sorting->cells[*(const size_t *)b].name);
}

/* Names may hold '-', so cell "a-b" arm "c" and cell "a" arm "b-c" would
 * both write legs/a-b-c-rREP.out, the later leg's output over the
 * earlier's.  Two cells can only collide when one is the other plus "-":
 * with the names sorted, the cells named "sh-..." follow each other, found
 * by a binary search, so a 10,000-cell matrix costs O(cells log cells). */
int
spec_check_leg_files(struct parser *p)
{
	const struct spec *s = p->s;
	size_t *by = xcalloc(s->ncells + 1, sizeof *by);
	char path[64];
	int rc = 0;

	for (size_t i = 0; i < s->ncells; i++)
		by[i] = i;
	spec_check_sorting = s;
	qsort(by, s->ncells, sizeof *by, spec_check_by_name);
	for (size_t i = 0; i < s->ncells && rc == 0; i++) {
		const char *sh = s->cells[i].name;
		size_t ls = strlen(sh), lo_i = 0, hi_i = s->ncells;

		/* The first name not below "sh-". */
		while (lo_i < hi_i) {
			size_t mid = lo_i + (hi_i - lo_i) / 2;
			const char *m = s->cells[by[mid]].name;
			int c = strncmp(m, sh, ls);

			if (c < 0 || (c == 0 && (unsigned char)m[ls] < '-'))
				lo_i = mid + 1;
			else
				hi_i = mid;
		}
		for (size_t q = lo_i; q < s->ncells && rc == 0; q++) {
			size_t k = by[q];
			const char *lo = s->cells[k].name, *rest;
			size_t lr;

			if (strncmp(lo, sh, ls) != 0 || lo[ls] != '-')
				break;
			rest = lo + ls + 1;
			lr = strlen(rest);
			/* Arm X of cell sh and arm Y of cell lo collide when X
			 * is rest + "-" + Y. */
			for (size_t j = 0; j < s->narms && rc == 0; j++) {
				const char *x = s->arms[j].name;
				if (strncmp(x, rest, lr) != 0 || x[lr] != '-')
					continue;
				for (size_t l = 0; l < s->narms && rc == 0; l++) {
					if (strcmp(x + lr + 1, s->arms[l].name) != 0)
						continue;
					snprintf(path, sizeof path, "cells[%zu].name", k);
					rc = spec_perr(p, path, "cell \"%s\" arm "
					    "\"%s\" and cell \"%s\" arm \"%s\" "
					    "would both write legs/%s-%s-rREP.out; "
					    "rename a cell or an arm", sh, x, lo,
					    s->arms[l].name, sh, x);
				}
			}
		}
	}
	free(by);
	return rc;
}

/* A leg's client and its cell's server on the same cpu would measure their
 * contention, not the client. */
int
spec_check_cpu_overlap(struct parser *p)
{
	static unsigned char cm[SPEC_CPUS_MAX], sm[SPEC_CPUS_MAX];
	struct spec *s = p->s;

	if (s->client_cpus == NULL)
		return 0;
	spec_cpulist_parse(s->client_cpus, cm, SPEC_CPUS_MAX);
	for (size_t i = 0; i < s->ncells; i++) {
		const struct spec_server *srv = s->cells[i].server;
		const char *list;
		char path[64];

		if (srv == NULL)
			continue;
		list = srv->cpus ? srv->cpus : s->server_cpus;
		if (list == NULL)
			continue;
		if (srv->cpus)
			snprintf(path, sizeof path, "cells[%zu].server.cpus", i);
		else
			snprintf(path, sizeof path, "cpus.server");
		spec_cpulist_parse(list, sm, SPEC_CPUS_MAX);
		for (int c = 0; c < SPEC_CPUS_MAX; c++)
			if (cm[c] && sm[c])
				return spec_perr(p, path, "cpu %d is also in "
				    "cpus.client (\"%s\"); a cell's server and "
				    "its client must not share cpus", c,
				    s->client_cpus);
	}
	return 0;
}

/* Folders that are never scratch, nor inside scratch. */
static const char *const spec_scratch_sys[] = {
	"/", "/bin", "/boot", "/dev", "/dev/shm", "/etc", "/home", "/lib",
	"/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc",
	"/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr",
	"/usr/local", "/var", "/var/tmp",
};
/* Folders nothing inside of which is scratch (/dev/shm aside). */
static const char *const spec_scratch_sys_trees[] = {
	"/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
	"/proc", "/sbin", "/sys", "/usr",
};

bool
spec_path_within(const char *dir, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

bool
spec_path_holds(const char *sp, const char *p)
{
	char *rp = p != NULL ? realpath(p, NULL) : NULL;
	bool in = rp != NULL && spec_path_within(rp, sp);

	free(rp);
	return in;
}

const char *
spec_scratch_system(const char *sp)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");

	for (size_t i = 0; i < sizeof spec_scratch_sys /
	    sizeof *spec_scratch_sys; i++)
		if (spec_path_within(spec_scratch_sys[i], sp))
			return "is or holds a system folder";
	for (size_t i = 0; i < sizeof spec_scratch_sys_trees /
	    sizeof *spec_scratch_sys_trees; i++)
		if (spec_path_within(sp, spec_scratch_sys_trees[i]))
			return "is inside a system folder";
	if (strncmp(sp, "/dev/", 5) == 0 && strncmp(sp, "/dev/shm/", 9) != 0)
		return "is inside a system folder";
	if ((home != NULL && spec_path_holds(sp, home)) ||
	    (tmp != NULL && spec_path_holds(sp, tmp)))
		return "is or holds $HOME or $TMPDIR";
	return NULL;
}

/* scratch without templates, made absolute against the workdir and
 * canonical where it exists: a system folder (the rule run applies) is
 * refused now, not at the first leg. */
static int
spec_check_scratch_system(struct parser *p, const char *sc)
{
	char *abs = sc[0] == '/' ? xstrdup(sc) : xasprintf("%s/%s",
	    p->s->workdir, sc), *real = realpath(abs, NULL);
	const char *why = spec_scratch_system(real != NULL ? real : abs);
	int rc = 0;

	if (why != NULL)
		rc = spec_perr(p, "scratch", "\"%s\" %s; scratch is emptied "
		    "before every leg, so it must be a folder of its own", sc,
		    why);
	free(real);
	free(abs);
	return rc;
}

/* Scratch is emptied before every leg, so it must never be a folder that
 * holds anything else: not the workdir, "/", a system folder, or anything
 * reached by "..". */
int
spec_check_scratch(struct parser *p, const char *sc)
{
	const char *w = p->s->workdir;
	size_t wl = strlen(w), sl = strlen(sc);
	char *copy, *tok, *save = NULL;
	bool dotdot = false;

	copy = xstrdup(sc);
	for (tok = strtok_r(copy, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save))
		if (strcmp(tok, "..") == 0)
			dotdot = true;
	free(copy);
	if (dotdot)
		return spec_perr(p, "scratch", "\"%s\" holds \"..\"; scratch is "
		    "emptied before every leg, so it must be a folder of its "
		    "own", sc);
	while (sl > 1 && sc[sl - 1] == '/')
		sl--;
	if (strspn(sc, "./") == strlen(sc) ||
	    (sc[0] == '/' && sl <= wl && strncmp(w, sc, sl) == 0 &&
	    (w[sl] == '/' || w[sl] == '\0')))
		return spec_perr(p, "scratch", "\"%s\" is the workdir or one of "
		    "its parents; scratch is emptied before every leg, so it "
		    "must be a folder of its own", sc);
	if (strstr(sc, "${") == NULL)
		return spec_check_scratch_system(p, sc);
	return 0;
}

/* Expand one string for a (cell, arm) at load time: any unknown name, cycle
 * or syntax error is reported now, with the field and the cell it failed
 * in, rather than at leg 37 of a two-hour round. */
static int
spec_checks_expand(struct parser *p, const char *str, const struct template_ctx *ctx,
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
spec_checks_builder_err(struct parser *p, const char *prefix, const char *err,
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
spec_checks_vars(struct parser *p, const struct spec_kv *kv, size_t n,
    const char *prefix, const struct template_ctx *ctx)
{
	for (size_t k = 0; k < n; k++) {
		char path[192], ref[128];

		if (kv[k].list == NULL) {
			snprintf(path, sizeof path, "%s.%s", prefix, kv[k].key);
			snprintf(ref, sizeof ref, "${%s}", kv[k].key);
			if (spec_checks_expand(p, ref, ctx, path) < 0)
				return -1;
			continue;
		}
		for (size_t i = 0; i < kv[k].nlist; i++) {
			snprintf(path, sizeof path, "%s.%s[%zu]", prefix,
			    kv[k].key, i);
			if (spec_checks_expand(p, kv[k].list[i], ctx, path) < 0)
				return -1;
		}
	}
	return 0;
}

/* The bytes execve(2) counts for a string: the string, its NUL, its
 * pointer. */
static size_t
spec_checks_exec_bytes(const char *v)
{
	return strlen(v) + 1 + sizeof(char *);
}

/* The environment a leg of arm gets: the inherited one with the arm's env
 * over it (at most; a key the arm sets is counted twice). */
static size_t
spec_checks_env_bytes(const struct spec_arm *arm)
{
	extern char **environ;
	size_t n = sizeof(char *);

	for (size_t i = 0; environ[i] != NULL; i++)
		n += spec_checks_exec_bytes(environ[i]);
	for (size_t i = 0; i < arm->nenv; i++)
		n += strlen(arm->env[i].key) + 1 + spec_checks_exec_bytes(arm->env[i].val);
	return n;
}

/* The kernel refuses to exec an argument longer than MAX_ARG_STRLEN (32
 * pages) or an argv and envp larger than ARG_MAX (execve(2)): that is a
 * check error, not a leg whose exec fails with E2BIG at leg 37. */
static int
spec_checks_exec_limits(struct parser *p, const char *path, const char *v,
    size_t *total, const struct spec_cell *cell, const struct spec_arm *arm)
{
	long page = sysconf(_SC_PAGESIZE), argmax = sysconf(_SC_ARG_MAX);
	size_t maxarg = (size_t)(page > 0 ? page : 4096) * 32, n = strlen(v);

	if (n >= maxarg)
		return spec_perr(p, path, "expands to %zu bytes (cell \"%s\", arm "
		    "\"%s\"); the kernel execs at most %zu bytes per argument",
		    n, cell->name, arm->name, maxarg - 1);
	*total += spec_checks_exec_bytes(v);
	if (argmax > 0 && *total > (size_t)argmax)
		return spec_perr(p, path, "the command and environment reach %zu "
		    "bytes here (cell \"%s\", arm \"%s\"); the kernel execs at "
		    "most %ld (ARG_MAX)", *total, cell->name, arm->name, argmax);
	return 0;
}

static int
spec_checks_argv_limits(struct parser *p, const struct spec *s,
    const struct template_ctx *ctx, const struct spec_cell *cell,
    const struct spec_arm *arm)
{
	size_t total = spec_checks_env_bytes(arm) + sizeof(char *);

	for (size_t k = 0; k < s->ncommand; k++) {
		char path[64], terr[256], **v = NULL;
		size_t n = 0, at;
		int rc = 0;

		snprintf(path, sizeof path, "command[%zu]", k);
		if (template_expand_argv(&s->command[k], 1, ctx, &v, &n, &at,
		    terr, sizeof terr) < 0)
			continue; /* the builder reported it already */
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = spec_checks_exec_limits(p, path, v[i], &total, cell, arm);
		template_free_argv(v);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int
spec_check_templates(struct parser *p)
{
	struct spec *s = p->s;

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
				return spec_checks_builder_err(p, prefix, err, cell,
				    per_leg ? s->arms[ai].name : NULL);
		}
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
				return spec_checks_builder_err(p, strncmp(err, "arms.", 5)
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
				free(x);
			}
			/* The kernel's exec limits, on each element as it
			 * expands (an array element splices into several). */
			if (rc == 0)
				rc = spec_checks_argv_limits(p, s, &ctx, cell, arm);
			snprintf(prefix, sizeof prefix, "cells[%zu].vars", ci);
			if (rc == 0)
				rc = spec_checks_vars(p, cell->vars, cell->nvars, prefix,
				    &ctx);
			/* ctx points into lc (bin, scratch) until the last
			 * check is done with it. */
			snprintf(prefix, sizeof prefix, "arms[%zu].vars", ai);
			if (rc == 0 && (spec_checks_vars(p, arm->vars, arm->nvars,
			    prefix, &ctx) < 0 ||
			    spec_checks_vars(p, s->vars, s->nvars, "vars", &ctx) < 0))
				rc = -1;
			legcmd_finish(&lc);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}
