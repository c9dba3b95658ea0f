/* spec: round files (SPEC.md "Round file").
 *
 * The parser is strict on purpose: a round file is a measurement spec, and a
 * misspelt key ("rep" for "reps", "enc" for "env") that silently fell back to
 * a default would measure something other than what its author meant.  So
 * unknown keys are errors, every type is checked, and every template must
 * resolve for every cell and arm before anything runs.
 *
 * Errors have one shape: "FILE: PATH: what is wrong", PATH being the JSON
 * path of the field ("arms[2].aa_of", "cells[0].server.ready.tcp_port").
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "counters.h"
#include "digest.h"
#include "spec_int.h"
#include "suggest.h"
#include "template.h"
#include "xalloc.h"


int
spec_arm_index(const struct spec *s, const char *name)
{
	for (size_t i = 0; i < s->narms; i++)
		if (strcmp(s->arms[i].name, name) == 0)
			return (int)i;
	return -1;
}

int
spec_cell_index(const struct spec *s, const char *name)
{
	for (size_t i = 0; i < s->ncells; i++)
		if (strcmp(s->cells[i].name, name) == 0)
			return (int)i;
	return -1;
}

const char *
spec_arm_bin(const struct spec *s, const struct spec_arm *arm)
{
	return arm->bin != NULL ? arm->bin : s->bin;
}

bool
spec_server_per_leg(const struct spec *s, const struct spec_cell *cell)
{
	if (cell->server == NULL)
		return false;
	for (size_t i = 0; i < s->narms; i++)
		if (s->arms[i].server_bin != NULL || s->arms[i].nserver_env > 0)
			return true;
	for (size_t k = 0; k < cell->server->ncmd; k++)
		if (strstr(cell->server->cmd[k], "${ARM}") != NULL ||
		    strstr(cell->server->cmd[k], "${SERVER_BIN}") != NULL)
			return true;
	return false;
}

static void
spec_kv_copy(const struct spec_kv *from, size_t n, struct spec_kv **out,
    size_t *nout)
{
	*out = xcalloc(n + 1, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		struct spec_kv *kv = &(*out)[i];

		*nout = i + 1;
		kv->key = xstrdup(from[i].key);
		if (from[i].list == NULL) {
			kv->val = xstrdup(from[i].val);
			continue;
		}
		kv->list = xcalloc(from[i].nlist + 1, sizeof *kv->list);
		for (size_t k = 0; k < from[i].nlist; k++)
			kv->list[k] = xstrdup(from[i].list[k]);
		kv->nlist = from[i].nlist;
	}
}

static int
spec_parse_arms(struct parser *p, json_t *arms)
{
	static const char *const keys[] = { "name", "env", "bin", "vs",
	    "aa_of", "server_bin", "server_env", "vars", NULL };
	struct spec *s = p->s;
	size_t i;
	json_t *a;

	if (!json_is_array(arms))
		return spec_perr(p, "arms", "must be an array of arm objects, not "
		    "%s", spec_json_type(arms));
	if (json_array_size(arms) == 0)
		return spec_perr(p, "arms", "must hold at least one arm");
	if (json_array_size(arms) > SPEC_ARMS_MAX)
		return spec_perr(p, "arms", "%zu arms; a round holds at most %d",
		    json_array_size(arms), SPEC_ARMS_MAX);
	s->arms = xcalloc(json_array_size(arms), sizeof *s->arms);

	json_array_foreach(arms, i, a) {
		struct spec_arm *arm = &s->arms[i];
		char path[64], sub[128];
		json_t *v;

		s->narms = i + 1;
		snprintf(path, sizeof path, "arms[%zu]", i);
		if (!json_is_object(a))
			return spec_perr(p, path, "must be an object, not %s",
			    spec_json_type(a));
		if (spec_check_keys(p, a, path, keys) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "name");
		if ((v = json_object_get(a, "name")) == NULL)
			return spec_perr(p, sub, "missing (every arm needs a name)");
		if (spec_want_name(p, v, sub, &arm->name) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->arms[k].name, arm->name) == 0)
				return spec_perr(p, sub, "\"%s\" is already the "
				    "name of arms[%zu]", arm->name, k);
		spec_path_join(sub, sizeof sub, path, "env");
		if ((v = json_object_get(a, "env")) != NULL &&
		    spec_want_kv(p, v, sub, KV_ENV, &arm->env, &arm->nenv) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "vars");
		if ((v = json_object_get(a, "vars")) != NULL &&
		    spec_want_kv(p, v, sub, KV_VARS, &arm->vars, &arm->nvars) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "bin");
		if ((v = json_object_get(a, "bin")) != NULL &&
		    spec_want_string(p, v, sub, true, &arm->bin) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "vs");
		if ((v = json_object_get(a, "vs")) != NULL &&
		    spec_want_string(p, v, sub, true, &arm->vs) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "aa_of");
		if ((v = json_object_get(a, "aa_of")) != NULL &&
		    spec_want_string(p, v, sub, true, &arm->aa_of) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "server_bin");
		if ((v = json_object_get(a, "server_bin")) != NULL &&
		    spec_want_string(p, v, sub, true, &arm->server_bin) < 0)
			return -1;
		spec_path_join(sub, sizeof sub, path, "server_env");
		if ((v = json_object_get(a, "server_env")) != NULL &&
		    spec_want_kv(p, v, sub, KV_ENV, &arm->server_env,
		    &arm->nserver_env) < 0)
			return -1;
	}
	return 0;
}

/* The arm that arms[i].field names (name): another arm (self: the
 * message when it is arms[i] itself).  Its index, or -1 with the error in
 * p; path the field's. */
static int
spec_link_target(struct parser *p, size_t i, const char *field, const char *name,
    const char *self, char *path, size_t len)
{
	int t = spec_arm_index(p->s, name);

	snprintf(path, len, "arms[%zu].%s", i, field);
	if (t < 0)
		return spec_perr(p, path, "no arm named \"%s\"", name);
	if ((size_t)t == i)
		return spec_perr(p, path, "%s", self);
	return t;
}

/* arms[i].aa_of: an arm other than itself and the baseline (b), not a
 * copy itself, and the arm sets nothing of its own (a, its object). */
static int
spec_link_aa(struct parser *p, size_t i, const json_t *a, int b)
{
	const struct spec *s = p->s;
	const struct spec_arm *arm = &s->arms[i];
	char path[64];
	int t = spec_link_target(p, i, "aa_of", arm->aa_of, "an arm cannot be an "
	    "A/A copy of itself", path, sizeof path);

	if (t < 0)
		return -1;
	if (s->arms[t].aa_of != NULL)
		return spec_perr(p, path, "\"%s\" is itself an A/A copy (of "
		    "\"%s\"); name the original arm", arm->aa_of,
		    s->arms[t].aa_of);
	if ((int)i == b)
		return spec_perr(p, path, "the baseline arm cannot be an A/A "
		    "copy");
	if (json_object_get(a, "env") || json_object_get(a, "bin") ||
	    json_object_get(a, "vs") || json_object_get(a, "server_bin") ||
	    json_object_get(a, "server_env") || json_object_get(a, "vars"))
		return spec_perr(p, path, "an A/A arm takes env, bin and vs (and "
		    "server_bin, server_env) from \"%s\", and its vars too; it "
		    "may not set its own", arm->aa_of);
	return 0;
}

/* arms[i].vs: another arm, and never on the baseline (b). */
static int
spec_link_vs(struct parser *p, size_t i, int b)
{
	char path[64];

	if (spec_link_target(p, i, "vs", p->s->arms[i].vs, "an arm cannot be "
	    "compared with itself", path, sizeof path) < 0)
		return -1;
	if ((int)i == b)
		return spec_perr(p, path, "the baseline arm is compared with "
		    "nothing; give the other arms a vs instead");
	return 0;
}

/* An A/A arm filled in from its original t: env, server_env, server_bin,
 * vars, bin, and vs the original. */
static void
spec_link_copy(struct spec_arm *arm, const struct spec_arm *t)
{
	spec_kv_copy(t->env, t->nenv, &arm->env, &arm->nenv);
	spec_kv_copy(t->server_env, t->nserver_env, &arm->server_env,
	    &arm->nserver_env);
	if (t->server_bin != NULL)
		arm->server_bin = xstrdup(t->server_bin);
	spec_kv_copy(t->vars, t->nvars, &arm->vars, &arm->nvars);
	if (t->bin != NULL)
		arm->bin = xstrdup(t->bin);
	arm->vs = xstrdup(arm->aa_of);
}

/* Cross-arm rules, once every name is known.  An A/A arm is a pure copy:
 * if it could also carry its own env, bin or vs it would no longer measure
 * the noise between two identical arms, so those are refused.  A copy of a
 * copy is refused too: it adds nothing a second copy of the original does
 * not, and its floor would be measured against a non-original arm. */
static int
spec_link_arms(struct parser *p, json_t *arms)
{
	struct spec *s = p->s;
	int b = spec_arm_index(s, s->baseline);

	if (b < 0)
		return spec_perr(p, "baseline", "no arm named \"%s\"", s->baseline);
	for (size_t i = 0; i < s->narms; i++) {
		if (s->arms[i].aa_of != NULL) {
			if (spec_link_aa(p, i, json_array_get(arms, i), b) < 0)
				return -1;
		} else if (s->arms[i].vs != NULL && spec_link_vs(p, i, b) < 0)
			return -1;
	}
	/* Copies are filled in only now, so a copy never sees a half-read
	 * twin. */
	for (size_t i = 0; i < s->narms; i++) {
		struct spec_arm *arm = &s->arms[i];

		if (arm->aa_of != NULL)
			spec_link_copy(arm, &s->arms[spec_arm_index(s, arm->aa_of)]);
		else if (arm->vs == NULL && (int)i != b)
			arm->vs = xstrdup(s->baseline);
	}
	return 0;
}

static int
spec_parse_server(struct parser *p, json_t *j, const char *path,
    struct spec_server *srv)
{
	static const char *const keys[] = { "cmd", "cpus", "env", "ready",
	    "host", "dir", NULL };
	static const char *const ready_keys[] = { "tcp_port", "timeout_s",
	    NULL };
	char sub[256], sub2[256];
	json_t *v, *r;

	srv->ready_timeout_s = SPEC_SERVER_READY_TIMEOUT_S;
	if (!json_is_object(j))
		return spec_perr(p, path, "must be an object, not %s",
		    spec_json_type(j));
	if (spec_check_keys(p, j, path, keys) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "cmd");
	if ((v = json_object_get(j, "cmd")) == NULL)
		return spec_perr(p, sub, "missing (the server's argv)");
	if (spec_want_argv(p, v, sub, &srv->cmd, &srv->ncmd) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "cpus");
	if ((v = json_object_get(j, "cpus")) != NULL &&
	    spec_want_cpulist(p, v, sub, &srv->cpus) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "env");
	if ((v = json_object_get(j, "env")) != NULL &&
	    spec_want_kv(p, v, sub, KV_ENV, &srv->env, &srv->nenv) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "ready");
	if ((r = json_object_get(j, "ready")) == NULL)
		return spec_perr(p, sub, "missing (a server needs "
		    "{\"tcp_port\": N} to know when it is up)");
	if (!json_is_object(r))
		return spec_perr(p, sub, "must be an object, not %s",
		    spec_json_type(r));
	if (spec_check_keys(p, r, sub, ready_keys) < 0)
		return -1;
	spec_path_join(sub2, sizeof sub2, sub, "tcp_port");
	if ((v = json_object_get(r, "tcp_port")) == NULL)
		return spec_perr(p, sub2, "missing");
	if (spec_want_int(p, v, sub2, 1, 65535, &srv->tcp_port) < 0)
		return -1;
	spec_path_join(sub2, sizeof sub2, sub, "timeout_s");
	if ((v = json_object_get(r, "timeout_s")) != NULL &&
	    spec_want_number(p, v, sub2, 0, true, &srv->ready_timeout_s) < 0)
		return -1;
	return spec_parse_server_host(p, j, path, srv);
}

/* One cell object at path (cells[3], or a matrix cell) into cell; the
 * name is checked against the cells read before it. */
/* A matrix cell (named_later) has a stand-in name until its template
 * names it; its duplicate check is made then, on the expanded name. */
static int
spec_parse_cell(struct parser *p, json_t *c, const char *path, size_t i,
    bool named_later)
{
	static const char *const keys[] = { "name", "vars", "server", "setup",
	    "cleanup", NULL };
	struct spec *s = p->s;
	struct spec_cell *cell = &s->cells[i];
	char sub[256];
	size_t k;
	json_t *v;

	s->ncells = i + 1;
	if (!json_is_object(c))
		return spec_perr(p, path, "must be an object, not %s",
		    spec_json_type(c));
	if (spec_check_keys(p, c, path, keys) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "name");
	if ((v = json_object_get(c, "name")) == NULL)
		return spec_perr(p, sub, "missing (every cell needs a name)");
	if (spec_want_name(p, v, sub, &cell->name) < 0)
		return -1;
	if (!named_later && spec_cell_name_taken(p, cell->name, i, &k))
		return spec_perr(p, sub, "\"%s\" is already the name of "
		    "cells[%zu]", cell->name, k);
	spec_path_join(sub, sizeof sub, path, "vars");
	if ((v = json_object_get(c, "vars")) != NULL &&
	    spec_want_kv(p, v, sub, KV_VARS, &cell->vars, &cell->nvars) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "server");
	if ((v = json_object_get(c, "server")) != NULL) {
		cell->server = xcalloc(1, sizeof *cell->server);
		if (spec_parse_server(p, v, sub, cell->server) < 0)
			return -1;
	}
	return spec_parse_cell_hooks(p, c, path, cell);
}

/* The cells a matrix generates, as cell objects (name expanded, vars set
 * to one value of each variable), in product order with the last variable
 * fastest.  NULL with the error in p. */
static json_t *
spec_matrix_cells(struct parser *p, json_t *m)
{
	static const char *const keys[] = { "name", "vars", "server", "setup",
	    "cleanup", NULL };
	json_t *vars, *name, *out = NULL, *val;
	const char *key;
	size_t nvar = 0, total = 1, *idx = NULL;
	const char **names = NULL;
	json_t **vals = NULL;

	if (!json_is_object(m))
		return spec_perr(p, "matrix", "must be an object like {\"name\": "
		    "\"${SIZE}\", \"vars\": {\"SIZE\": [\"1k\", \"64k\"]}}, "
		    "not %s", spec_json_type(m)), NULL;
	if (spec_check_keys(p, m, "matrix", keys) < 0)
		return NULL;
	if ((name = json_object_get(m, "name")) == NULL || !json_is_string(name))
		return spec_perr(p, "matrix.name", "missing or not a string (a "
		    "template such as \"${SIZE}-c${CONN}\" naming each cell)"),
		    NULL;
	vars = json_object_get(m, "vars");
	if (!json_is_object(vars) || json_object_size(vars) == 0)
		return spec_perr(p, "matrix.vars", "must be an object of at least "
		    "one variable, each an array of its values"), NULL;
	nvar = json_object_size(vars);
	names = xcalloc(nvar, sizeof *names);
	vals = xcalloc(nvar, sizeof *vals);
	idx = xcalloc(nvar, sizeof *idx);
	nvar = 0;
	/* jansson keeps an object's keys in file order. */
	json_object_foreach(vars, key, val) {
		char sub[256];

		spec_path_join(sub, sizeof sub, "matrix.vars", key);
		if (!json_is_array(val) || json_array_size(val) == 0) {
			spec_perr(p, sub, "must be a non-empty array of values");
			goto out;
		}
		if (total > SPEC_CELLS_MAX / json_array_size(val)) {
			spec_perr(p, "matrix.vars", "the product holds more than "
			    "%d cells", SPEC_CELLS_MAX);
			goto out;
		}
		total *= json_array_size(val);
		names[nvar] = key;
		vals[nvar++] = val;
	}
	out = json_array();
	for (size_t n = 0; n < total && out != NULL; n++) {
		json_t *cell = json_object(), *cv = json_object(), *mv;
		const char *mk;

		/* The matrix's fields but its vars, whose arrays (every
		 * value of every variable) each cell would copy only to
		 * drop: O(cells x values) for nothing. */
		json_object_foreach(m, mk, mv)
			if (strcmp(mk, "vars") != 0)
				json_object_set_new(cell, mk,
				    json_deep_copy(mv));
		json_object_set_new(cell, "vars", cv);
		for (size_t k = 0; k < nvar; k++)
			json_object_set(cv, names[k],
			    json_array_get(vals[k], idx[k]));
		json_array_append_new(out, cell);
		for (size_t k = nvar; k-- > 0;) {
			if (++idx[k] < json_array_size(vals[k]))
				break;
			idx[k] = 0;
		}
	}
	if (out == NULL)
		spec_perr(p, "matrix", "out of memory");
out:
	free(names);
	free(vals);
	free(idx);
	return out;
}

/* A matrix cell's name: the template expanded with that cell's vars
 * alone.  -1 with the error in p. */
static int
spec_matrix_name(struct parser *p, struct spec_cell *cell, const char *tmpl,
    const char *path)
{
	struct template_ctx ctx = { .cell = cell };
	char terr[512];

	free(cell->name);
	cell->name = template_expand(tmpl, &ctx, terr, sizeof terr);
	if (cell->name == NULL)
		return spec_perr(p, path, "%s", terr);
	if (!spec_name_valid(cell->name))
		return spec_perr(p, path, "\"%s\" is not a valid cell name (it "
		    "must match [A-Za-z][A-Za-z0-9_-]{0,48}: it becomes a file "
		    "name)", cell->name);
	return 0;
}

static int
spec_parse_cells(struct parser *p, json_t *cells, json_t *matrix)
{
	struct spec *s = p->s;
	json_t *gen = NULL, *c;
	size_t i, n0 = 0, n;
	int rc = -1;

	if (cells == NULL && matrix == NULL)
		return spec_perr(p, "cells", "missing (required unless a matrix "
		    "generates the cells)");
	if (cells != NULL && !json_is_array(cells))
		return spec_perr(p, "cells", "must be an array of cell objects, "
		    "not %s", spec_json_type(cells));
	if (cells != NULL && json_array_size(cells) == 0 && matrix == NULL)
		return spec_perr(p, "cells", "must hold at least one cell");
	if (matrix != NULL && (gen = spec_matrix_cells(p, matrix)) == NULL)
		return -1;
	n0 = cells != NULL ? json_array_size(cells) : 0;
	n = n0 + json_array_size(gen);
	if (n > SPEC_CELLS_MAX) {
		spec_perr(p, "cells", "%zu cells; a round holds at most %d", n,
		    SPEC_CELLS_MAX);
		goto out;
	}
	s->cells = xcalloc(n, sizeof *s->cells);
	if (cells != NULL)
		json_array_foreach(cells, i, c) {
			char path[64];

			snprintf(path, sizeof path, "cells[%zu]", i);
			if (spec_parse_cell(p, c, path, i, false) < 0)
				goto out;
		}
	json_array_foreach(gen, i, c) {
		char *tmpl = xstrdup(json_string_value(json_object_get(c,
		    "name")));
		char path[64], npath[80];
		size_t k;
		int bad;

		/* Parsed under a stand-in name, then named by the template;
		 * a duplicate is looked for after that, with the expanded
		 * name (the stand-in could equal a real cell's name). */
		snprintf(path, sizeof path, "matrix (cell %zu of %zu)", i + 1,
		    json_array_size(gen));
		snprintf(npath, sizeof npath, "matrix.name (cell %zu)", i + 1);
		json_object_set_new(c, "name", json_string("x"));
		bad = spec_parse_cell(p, c, path, n0 + i, true) < 0 ||
		    spec_matrix_name(p, &s->cells[n0 + i], tmpl, npath) < 0;
		free(tmpl);
		if (bad)
			goto out;
		if (spec_cell_name_taken(p, s->cells[n0 + i].name, n0 + i, &k)) {
			spec_perr(p, npath, "\"%s\" is already the name of "
			    "cells[%zu]; the name template must use every "
			    "matrix variable", s->cells[k].name, k);
			goto out;
		}
	}
	rc = 0;
out:
	json_decref(gen);
	return rc;
}

static int
spec_parse_counters(struct parser *p, json_t *j)
{
	struct spec *s = p->s;
	size_t i;
	json_t *v;

	if (!json_is_array(j))
		return spec_perr(p, "counters", "must be an array of event names, "
		    "not %s", spec_json_type(j));
	if (json_array_size(j) == 0)
		return spec_perr(p, "counters", "must name at least one event");
	s->counters = xcalloc(json_array_size(j) + 1, sizeof *s->counters);
	json_array_foreach(j, i, v) {
		char sub[64];

		snprintf(sub, sizeof sub, "counters[%zu]", i);
		if (spec_want_string(p, v, sub, true, &s->counters[i]) < 0)
			return -1;
		s->ncounters = i + 1;
		if (!counters_known(s->counters[i])) {
			char hint[128];

			return spec_perr(p, sub, "unknown event \"%s\"%s (see "
			    "benchtui-run(1), COUNTERS)", s->counters[i],
			    suggest_hint(hint, sizeof hint, s->counters[i],
			    counters_names(), SIZE_MAX));
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->counters[k], s->counters[i]) == 0)
				return spec_perr(p, sub, "\"%s\" is listed twice",
				    s->counters[i]);
	}
	return 0;
}

static int
spec_parse_cpus(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "client", "server", NULL };
	json_t *v;

	if (!json_is_object(j))
		return spec_perr(p, "cpus", "must be an object like {\"client\": "
		    "\"0-1\", \"server\": \"2-3\"}, not %s", spec_json_type(j));
	if (spec_check_keys(p, j, "cpus", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "client")) != NULL &&
	    spec_want_cpulist(p, v, "cpus.client", &p->s->client_cpus) < 0)
		return -1;
	if ((v = json_object_get(j, "server")) != NULL &&
	    spec_want_cpulist(p, v, "cpus.server", &p->s->server_cpus) < 0)
		return -1;
	return 0;
}

static int
spec_set_workdir(struct parser *p, json_t *j, const char *override)
{
	struct spec *s = p->s;
	char *dir = NULL, *given = NULL, *joined = NULL;
	const char *slash = strrchr(s->path, '/');
	struct stat st;
	int rc = -1;

	if (slash == s->path)
		dir = xstrdup("/");
	else if (slash != NULL)
		dir = xasprintf("%.*s", (int)(slash - s->path), s->path);
	else
		dir = xstrdup(".");
	if (override != NULL) {
		joined = xstrdup(override);
	} else if (j != NULL) {
		if (spec_want_string(p, j, "workdir", true, &given) < 0)
			goto out;
		joined = given[0] == '/' ? xstrdup(given) :
		    xasprintf("%s/%s", dir, given);
	} else {
		joined = dir;
		dir = NULL;
	}
	s->workdir = realpath(joined, NULL);
	if (s->workdir == NULL || stat(s->workdir, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		spec_perr(p, override ? "workdir (recorded)" : "workdir",
		    "\"%s\" is not a folder: %s", joined,
		    s->workdir == NULL ? strerror(errno) : "not a directory");
		goto out;
	}
	rc = 0;
out:
	free(dir);
	free(given);
	free(joined);
	return rc;
}


/* A variable set by both an arm and a cell would make the value depend
 * on a lookup order nobody reads in the file: refused. */
static int
spec_var_owners(struct parser *p)
{
	const struct spec *s = p->s;

	for (size_t a = 0; a < s->narms; a++) {
		const struct spec_arm *arm = &s->arms[a];

		if (arm->aa_of != NULL)
			continue;
		for (size_t k = 0; k < arm->nvars; k++)
			for (size_t c = 0; c < s->ncells; c++)
				for (size_t j = 0; j < s->cells[c].nvars; j++) {
					char path[128];

					if (strcmp(arm->vars[k].key,
					    s->cells[c].vars[j].key) != 0)
						continue;
					snprintf(path, sizeof path, "arms[%zu].vars.%s",
					    a, arm->vars[k].key);
					return spec_perr(p, path, "cell \"%s\" sets "
					    "${%s} too; a variable belongs to the "
					    "arms or to the cells, not both",
					    s->cells[c].name, arm->vars[k].key);
				}
	}
	return 0;
}

static int
spec_parse_output(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "keep", "max_bytes", NULL };
	json_t *v;

	if (!json_is_object(j))
		return spec_perr(p, "output", "must be an object like {\"keep\": "
		    "\"all\", \"max_bytes\": 8388608}, not %s",
		    spec_json_type(j));
	if (spec_check_keys(p, j, "output", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "keep")) != NULL) {
		const char *k = json_string_value(v);

		if (k != NULL && strcmp(k, "all") == 0)
			p->s->output_keep = true;
		else if (k != NULL && strcmp(k, "none") == 0)
			p->s->output_keep = false;
		else
			return spec_perr(p, "output.keep", "must be \"all\" or "
			    "\"none\"");
	}
	if ((v = json_object_get(j, "max_bytes")) != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return spec_perr(p, "output.max_bytes", "must be an "
			    "integer >= 0 (bytes of a leg's output kept)");
		p->s->output_max_bytes = json_integer_value(v);
	}
	return 0;
}

/* The top level: one object, known keys, the required ones there. */
static int
spec_parse_root_keys(struct parser *p, json_t *root)
{
	static const char *const keys[] = { "name", "reps", "bin", "command",
	    "baseline", "arms", "cells", "workdir", "cpus", "nice",
	    "settle_s", "timeout_s", "counters", "quiet", "scratch", "vars",
	    "profile", "order", "shuffle_seed", "confidence", "margin",
	    "estimator", "fail_fast", "warmup", "prepare", "output", "matrix",
	    "fail_on", "ssh", "agent", "ok_rc", "stdin", "files",
	    "agent_limits", "host", "hook_timeout_s", "hosts", NULL };
	static const char *const required[] = { "name", "command", "arms",
	    "baseline", NULL };

	if (!json_is_object(root))
		return spec_perr(p, "(top)", "a round file holds one JSON object, "
		    "not %s", spec_json_type(root));
	if (spec_check_keys(p, root, "", keys) < 0)
		return -1;
	for (size_t i = 0; required[i] != NULL; i++)
		if (json_object_get(root, required[i]) == NULL)
			return spec_perr(p, required[i], "missing (required)");
	return 0;
}

/* What the legs are: name, reps and statistics, the command, the arms
 * and cells and their vars, warm-up, prepare, output, profile. */
static int
spec_parse_legs(struct parser *p, json_t *root)
{
	struct spec *s = p->s;
	json_t *v;

	if (spec_want_name(p, json_object_get(root, "name"), "name", &s->name) < 0)
		return -1;
	if (spec_parse_reps(p, root) < 0 || spec_parse_stats(p, root) < 0)
		return -1;
	if ((v = json_object_get(root, "bin")) != NULL &&
	    spec_want_string(p, v, "bin", true, &s->bin) < 0)
		return -1;
	if (spec_want_argv(p, json_object_get(root, "command"), "command",
	    &s->command, &s->ncommand) < 0)
		return -1;
	if ((v = json_object_get(root, "vars")) != NULL &&
	    spec_want_kv(p, v, "vars", KV_VARS, &s->vars, &s->nvars) < 0)
		return -1;
	if (spec_parse_arms(p, json_object_get(root, "arms")) < 0)
		return -1;
	if (spec_want_string(p, json_object_get(root, "baseline"), "baseline",
	    true, &s->baseline) < 0)
		return -1;
	if (spec_link_arms(p, json_object_get(root, "arms")) < 0 ||
	    spec_parse_fail_on(p, json_object_get(root, "fail_on")) < 0)
		return -1;
	if (spec_parse_cells(p, json_object_get(root, "cells"),
	    json_object_get(root, "matrix")) < 0 || spec_var_owners(p) < 0)
		return -1;
	if ((v = json_object_get(root, "warmup")) != NULL &&
	    spec_want_int(p, v, "warmup", 0, SPEC_REPS_MAX, &s->warmup) < 0)
		return -1;
	if ((v = json_object_get(root, "prepare")) != NULL &&
	    spec_want_argv(p, v, "prepare", &s->prepare, &s->nprepare) < 0)
		return -1;
	if ((v = json_object_get(root, "output")) != NULL &&
	    spec_parse_output(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "profile")) != NULL &&
	    spec_parse_profile(p, v) < 0)
		return -1;
	return 0;
}

/* Where and how they run: workdir, cpus, nice, settle and timeout,
 * counters (the machine's default unless listed), the quiet gate, the
 * scratch folder. */
static int
spec_parse_host(struct parser *p, json_t *root, const char *workdir_override)
{
	struct spec *s = p->s;
	json_t *v;

	if (spec_set_workdir(p, json_object_get(root, "workdir"),
	    workdir_override) < 0)
		return -1;
	if ((v = json_object_get(root, "cpus")) != NULL &&
	    spec_parse_cpus(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "nice")) != NULL &&
	    spec_want_int(p, v, "nice", -20, 19, &s->nice) < 0)
		return -1;
	if ((v = json_object_get(root, "settle_s")) != NULL &&
	    spec_want_number(p, v, "settle_s", 0, false, &s->settle_s) < 0)
		return -1;
	if ((v = json_object_get(root, "timeout_s")) != NULL &&
	    spec_want_number(p, v, "timeout_s", 0, true, &s->timeout_s) < 0)
		return -1;
	if ((v = json_object_get(root, "hook_timeout_s")) != NULL &&
	    spec_want_number(p, v, "hook_timeout_s", 0, true,
	    &s->hook_timeout_s) < 0)
		return -1;
	if ((v = json_object_get(root, "counters")) != NULL) {
		if (spec_parse_counters(p, v) < 0)
			return -1;
		s->counters_given = true;
	} else {
		/* What this machine counts: no n/a-only counter nobody
		 * asked for. */
		s->counters = spec_strv_copy(counters_default(), &s->ncounters);
	}
	if ((v = json_object_get(root, "quiet")) != NULL &&
	    spec_parse_quiet(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "scratch")) != NULL &&
	    (spec_want_string(p, v, "scratch", true, &s->scratch) < 0 ||
	    spec_check_scratch(p, s->scratch) < 0))
		return -1;
	return spec_parse_remote(p, root);
}

static int
spec_parse_root(struct parser *p, json_t *root, const char *workdir_override)
{
	struct spec *s = p->s;
	unsigned long long legs;

	if (spec_parse_root_keys(p, root) < 0 || spec_parse_legs(p, root) < 0 ||
	    spec_parse_host(p, root, workdir_override) < 0 ||
	    spec_parse_io(p, root) < 0)
		return -1;
	legs = (unsigned long long)s->reps * s->narms * s->ncells;
	if (legs > SPEC_LEGS_MAX)
		return spec_perr(p, "reps", "reps (%d) x arms (%zu) x cells (%zu) "
		    "= %llu legs; a round holds at most %d legs", s->reps,
		    s->narms, s->ncells, legs, SPEC_LEGS_MAX);
	if (spec_check_cpu_overlap(p) < 0 || spec_check_leg_files(p) < 0 ||
	    spec_check_adaptive_metric(p) < 0 || spec_check_fail_on(p) < 0 ||
	    spec_check_hosts(p) < 0)
		return -1;
	return 0;
}

int
spec_parse(const char *text, size_t len, const char *path,
    const char *workdir_override, struct spec **out, char *err, size_t errlen)
{
	struct parser p = { .file = path, .err = err, .errlen = errlen };
	struct spec *s;
	json_error_t jerr;
	json_t *root = NULL;
	int rc = -1;

	*out = NULL;
	s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	s->raw = xmalloc(len + 1);
	memcpy(s->raw, text, len);
	s->raw[len] = '\0';
	s->rawlen = len;
	digest_buf(s->raw, len, s->sha256);
	s->output_keep = true;
	s->output_max_bytes = SPEC_OUTPUT_MAX_BYTES;
	s->quiet = (struct spec_quiet){
		.enabled = true,
		.max_foreign_cores = SPEC_QUIET_MAX_FOREIGN,
		.window_ms = SPEC_QUIET_WINDOW_MS,
		.timeout_s = SPEC_QUIET_TIMEOUT_S,
		.budget_s = SPEC_QUIET_BUDGET_S,
		.max_client_busy = SPEC_QUIET_MAX_PINNED_BUSY,
		.max_server_busy = SPEC_QUIET_MAX_PINNED_BUSY,
		.abort_on_timeout = false,
	};
	p.s = s;

	/* NULs are let through the JSON layer so that spec_want_string can name
	 * the field that holds one. */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	    &jerr);
	if (root == NULL) {
		/* "reps": 10 beside "reps": {...}: say which to keep. */
		snprintf(err, errlen, "%s: line %d, column %d: %s%s", path,
		    jerr.line, jerr.column, jerr.text, strstr(jerr.text,
		    "duplicate object key near '\"reps\"'") != NULL ?
		    ": reps is given twice; it is a number (fixed reps) or an "
		    "object ({\"min\", \"max\", \"until\", \"metric\"}: "
		    "adaptive), not both" : "");
		goto out;
	}
	if (spec_parse_root(&p, root, workdir_override) < 0)
		goto out;
	*out = s;
	s = NULL;
	rc = 0;
out:
	json_decref(p.cell_names);
	json_decref(root);
	spec_destroy(s);
	return rc;
}

int
spec_load(const char *path, const char *workdir_override, struct spec **out,
    char *err, size_t errlen)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int rc = -1;

	*out = NULL;
	f = fopen(path, "rb");
	if (f == NULL) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	for (;;) {
		size_t n;

		if (len == cap) {
			cap = xgrow(cap, len + 1, 8192);
			if (cap > 64u << 20) {
				snprintf(err, errlen, "%s: larger than 64 MiB; "
				    "not a round file", path);
				goto out;
			}
			buf = xrealloc(buf, cap);
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path,
		    strerror(errno));
		goto out;
	}
	rc = spec_parse(buf, len, path, workdir_override, out, err, errlen);
out:
	fclose(f);
	free(buf);
	return rc;
}

static void
spec_kv_free(struct spec_kv *kv, size_t n)
{
	if (kv == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].val);
		for (size_t k = 0; kv[i].list != NULL && k < kv[i].nlist; k++)
			free(kv[i].list[k]);
		free(kv[i].list);
	}
	free(kv);
}

void
spec_destroy(struct spec *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->narms; i++) {
		struct spec_arm *a = &s->arms[i];

		free(a->name);
		spec_kv_free(a->env, a->nenv);
		spec_kv_free(a->vars, a->nvars);
		free(a->bin);
		free(a->vs);
		free(a->aa_of);
		free(a->server_bin);
		spec_kv_free(a->server_env, a->nserver_env);
	}
	free(s->arms);
	for (size_t i = 0; i < s->ncells; i++) {
		struct spec_cell *c = &s->cells[i];

		free(c->name);
		spec_kv_free(c->vars, c->nvars);
		if (c->server != NULL) {
			template_free_argv(c->server->cmd);
			free(c->server->cpus);
			free(c->server->host);
			free(c->server->dir);
			spec_kv_free(c->server->env, c->server->nenv);
			free(c->server);
		}
		template_free_argv(c->setup);
		template_free_argv(c->cleanup);
	}
	free(s->cells);
	free(s->adaptive.metric);
	free(s->path);
	free(s->raw);
	free(s->name);
	free(s->bin);
	template_free_argv(s->command);
	free(s->baseline);
	free(s->workdir);
	free(s->client_cpus);
	free(s->server_cpus);
	template_free_argv(s->counters);
	free(s->scratch);
	spec_kv_free(s->vars, s->nvars);
	spec_profile_free(s->profile);
	failon_finish(&s->fail_on);
	template_free_argv(s->prepare);
	spec_io_free(s);
	template_free_argv(s->ssh);
	template_free_argv(s->agent);
	free(s->host);
	template_free_argv(s->hosts);
	free(s);
}
