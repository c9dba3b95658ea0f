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
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "counters.h"
#include "digest.h"
#include "spec.h"
#include "template.h"

#define SPEC_REPS_MAX 100000
#define SPEC_CPUS_MAX 4096   /* syntax check only; the host check is exact */

/* Defaults of the quiet gate, suited to a shared machine: a quarter of a
 * core of foreign load is tolerated, judged over one second, and a round
 * that cannot get quiet within five minutes proceeds (and says so in the
 * log) rather than stalling forever. */
#define SPEC_QUIET_MAX_FOREIGN 0.25
#define SPEC_QUIET_WINDOW_MS 1000
#define SPEC_QUIET_TIMEOUT_S 300.0
#define SPEC_SERVER_READY_TIMEOUT_S 30.0

struct parser {
	const char *file;
	char *err;
	size_t errlen;
	struct spec *s;
};

static int
perr(struct parser *p, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
perr(struct parser *p, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(p->err, p->errlen, "%s: %s: ", p->file, path);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *
json_type_name(const json_t *j)
{
	switch (json_typeof(j)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE: return "true";
	case JSON_FALSE: return "false";
	case JSON_NULL: return "null";
	}
	return "something else";
}

/* "arms[2]" + ".aa_of" -> "arms[2].aa_of"; the root has an empty prefix. */
static void
path_join(char *out, size_t len, const char *prefix, const char *key)
{
	int n;

	/* A path cut short still names the field well enough. */
	if (prefix[0] == '\0')
		n = snprintf(out, len, "%s", key);
	else
		n = snprintf(out, len, "%s.%s", prefix, key);
	if (n < 0)
		out[0] = '\0';
}

static int
check_keys(struct parser *p, json_t *obj, const char *path,
    const char *const *allowed)
{
	const char *key;
	json_t *val;

	json_object_foreach(obj, key, val) {
		char sub[256];
		bool ok = false;

		for (size_t i = 0; allowed[i] != NULL && !ok; i++)
			ok = strcmp(key, allowed[i]) == 0;
		path_join(sub, sizeof sub, path, key);
		/* "comment" documents a round inside JSON, which has no
		 * comments of its own. */
		if (!ok && strcmp(key, "comment") == 0 && json_is_string(val))
			ok = true;
		if (!ok)
			return perr(p, sub, "unknown key \"%s\"", key);
	}
	return 0;
}

/* A string with no NUL inside (argv and env cannot carry one). */
static int
want_string(struct parser *p, json_t *j, const char *path, bool nonempty,
    char **out)
{
	if (!json_is_string(j))
		return perr(p, path, "must be a string, not %s",
		    json_type_name(j));
	if (strlen(json_string_value(j)) != json_string_length(j))
		return perr(p, path, "contains a NUL character");
	if (nonempty && json_string_length(j) == 0)
		return perr(p, path, "must not be empty");
	*out = strdup(json_string_value(j));
	if (*out == NULL)
		return perr(p, path, "out of memory");
	return 0;
}

static int
want_argv(struct parser *p, json_t *j, const char *path, char ***out,
    size_t *n)
{
	size_t i;
	json_t *v;

	if (!json_is_array(j))
		return perr(p, path, "must be an array of strings (an argv), "
		    "not %s", json_type_name(j));
	if (json_array_size(j) == 0)
		return perr(p, path, "must not be empty");
	*out = calloc(json_array_size(j) + 1, sizeof **out);
	if (*out == NULL)
		return perr(p, path, "out of memory");
	*n = json_array_size(j);
	json_array_foreach(j, i, v) {
		char sub[256];

		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if (want_string(p, v, sub, i == 0, &(*out)[i]) < 0)
			return -1;
	}
	return 0;
}

enum kv_kind { KV_ENV, KV_VARS };

static int
want_kv(struct parser *p, json_t *j, const char *path, enum kv_kind kind,
    struct spec_kv **out, size_t *n)
{
	const char *key;
	json_t *val;
	size_t i = 0;

	if (!json_is_object(j))
		return perr(p, path, "must be an object of strings, not %s",
		    json_type_name(j));
	*out = calloc(json_object_size(j) + 1, sizeof **out);
	if (*out == NULL)
		return perr(p, path, "out of memory");
	json_object_foreach(j, key, val) {
		char sub[256];

		path_join(sub, sizeof sub, path, key);
		if (json_object_iter_key_len(json_object_key_to_iter(key)) !=
		    strlen(key))
			return perr(p, sub, "the key holds a NUL character");
		if (kind == KV_ENV && (key[0] == '\0' || strchr(key, '=')))
			return perr(p, sub, "\"%s\" is not an environment "
			    "variable name (empty or holds '=')", key);
		if (kind == KV_VARS &&
		    !template_name_valid(key, strlen(key)))
			return perr(p, sub, "\"%s\" is not a variable name "
			    "([A-Za-z_][A-Za-z0-9_]*)", key);
		if (kind == KV_VARS && template_is_builtin(key))
			return perr(p, sub, "\"%s\" would shadow the built-in "
			    "${%s}", key, key);
		(*out)[i].key = strdup(key);
		if ((*out)[i].key == NULL)
			return perr(p, sub, "out of memory");
		if (want_string(p, val, sub, false, &(*out)[i].val) < 0) {
			free((*out)[i].key);
			(*out)[i].key = NULL;
			return -1;
		}
		*n = ++i;
	}
	return 0;
}

static int
want_int(struct parser *p, json_t *j, const char *path, long long lo,
    long long hi, int *out)
{
	long long v;

	if (!json_is_integer(j))
		return perr(p, path, "must be an integer from %lld to %lld, "
		    "not %s", lo, hi, json_type_name(j));
	v = json_integer_value(j);
	if (v < lo || v > hi)
		return perr(p, path, "%lld is out of range (%lld to %lld)", v,
		    lo, hi);
	*out = (int)v;
	return 0;
}

/* A number (integer or real) with v >= lo, or v > lo when strict. */
static int
want_number(struct parser *p, json_t *j, const char *path, double lo,
    bool strict, double *out)
{
	double v;

	if (!json_is_number(j))
		return perr(p, path, "must be a number, not %s",
		    json_type_name(j));
	v = json_number_value(j);
	if (v != v || (strict ? v <= lo : v < lo) || v > 1e9)
		return perr(p, path, "%g is out of range (must be %s %g and "
		    "at most 1e9)", v, strict ? ">" : ">=", lo);
	*out = v;
	return 0;
}

bool
spec_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > SPEC_NAME_MAX)
		return false;
	if (!((name[0] >= 'A' && name[0] <= 'Z') ||
	    (name[0] >= 'a' && name[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++) {
		char c = name[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	return true;
}

static int
want_name(struct parser *p, json_t *j, const char *path, char **out)
{
	if (want_string(p, j, path, true, out) < 0)
		return -1;
	if (!spec_name_valid(*out))
		return perr(p, path, "\"%s\" is not a valid name (it must "
		    "match [A-Za-z][A-Za-z0-9_-]{0,48}: it becomes a file "
		    "name)", *out);
	return 0;
}

int
spec_cpulist_parse(const char *list, unsigned char *mask, int ncpus)
{
	const char *q = list;

	memset(mask, 0, (size_t)ncpus);
	if (*q == '\0')
		return -1;
	for (;;) {
		char *end;
		long lo, hi;

		if (*q < '0' || *q > '9')
			return -1;
		lo = strtol(q, &end, 10);
		hi = lo;
		q = end;
		if (*q == '-') {
			q++;
			if (*q < '0' || *q > '9')
				return -1;
			hi = strtol(q, &end, 10);
			q = end;
		}
		if (lo > hi || hi >= ncpus)
			return -1;
		for (long c = lo; c <= hi; c++)
			mask[c] = 1;
		if (*q == '\0')
			return 0;
		if (*q != ',')
			return -1;
		q++;
	}
}

static int
want_cpulist(struct parser *p, json_t *j, const char *path, char **out)
{
	unsigned char mask[SPEC_CPUS_MAX];

	if (want_string(p, j, path, true, out) < 0)
		return -1;
	if (spec_cpulist_parse(*out, mask, SPEC_CPUS_MAX) < 0)
		return perr(p, path, "\"%s\" is not a cpu list (like "
		    "\"0-3,6\")", *out);
	return 0;
}

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

static int
kv_copy(const struct spec_kv *from, size_t n, struct spec_kv **out,
    size_t *nout)
{
	*out = calloc(n + 1, sizeof **out);
	if (*out == NULL)
		return -1;
	for (size_t i = 0; i < n; i++) {
		(*out)[i].key = strdup(from[i].key);
		(*out)[i].val = strdup(from[i].val);
		*nout = i + 1;
		if ((*out)[i].key == NULL || (*out)[i].val == NULL)
			return -1;
	}
	return 0;
}

static int
parse_arms(struct parser *p, json_t *arms)
{
	static const char *const keys[] = { "name", "env", "bin", "vs",
	    "aa_of", NULL };
	struct spec *s = p->s;
	size_t i;
	json_t *a;

	if (!json_is_array(arms))
		return perr(p, "arms", "must be an array of arm objects, not "
		    "%s", json_type_name(arms));
	if (json_array_size(arms) == 0)
		return perr(p, "arms", "must hold at least one arm");
	s->arms = calloc(json_array_size(arms), sizeof *s->arms);
	if (s->arms == NULL)
		return perr(p, "arms", "out of memory");

	json_array_foreach(arms, i, a) {
		struct spec_arm *arm = &s->arms[i];
		char path[64], sub[128];
		json_t *v;

		s->narms = i + 1;
		snprintf(path, sizeof path, "arms[%zu]", i);
		if (!json_is_object(a))
			return perr(p, path, "must be an object, not %s",
			    json_type_name(a));
		if (check_keys(p, a, path, keys) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "name");
		if ((v = json_object_get(a, "name")) == NULL)
			return perr(p, sub, "missing (every arm needs a name)");
		if (want_name(p, v, sub, &arm->name) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->arms[k].name, arm->name) == 0)
				return perr(p, sub, "\"%s\" is already the "
				    "name of arms[%zu]", arm->name, k);
		path_join(sub, sizeof sub, path, "env");
		if ((v = json_object_get(a, "env")) != NULL &&
		    want_kv(p, v, sub, KV_ENV, &arm->env, &arm->nenv) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "bin");
		if ((v = json_object_get(a, "bin")) != NULL &&
		    want_string(p, v, sub, true, &arm->bin) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "vs");
		if ((v = json_object_get(a, "vs")) != NULL &&
		    want_string(p, v, sub, true, &arm->vs) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "aa_of");
		if ((v = json_object_get(a, "aa_of")) != NULL &&
		    want_string(p, v, sub, true, &arm->aa_of) < 0)
			return -1;
	}
	return 0;
}

/* Cross-arm rules, once every name is known.  An A/A arm is a pure copy:
 * if it could also carry its own env, bin or vs it would no longer measure
 * the noise between two identical arms, so those are refused.  A copy of a
 * copy is refused too: it adds nothing a second copy of the original does
 * not, and its floor would be measured against a non-original arm. */
static int
link_arms(struct parser *p, json_t *arms)
{
	struct spec *s = p->s;
	int b = spec_arm_index(s, s->baseline);

	if (b < 0)
		return perr(p, "baseline", "no arm named \"%s\"", s->baseline);
	for (size_t i = 0; i < s->narms; i++) {
		struct spec_arm *arm = &s->arms[i];
		json_t *a = json_array_get(arms, i);
		char path[64];
		int t;

		if (arm->aa_of != NULL) {
			snprintf(path, sizeof path, "arms[%zu].aa_of", i);
			t = spec_arm_index(s, arm->aa_of);
			if (t < 0)
				return perr(p, path, "no arm named \"%s\"",
				    arm->aa_of);
			if ((size_t)t == i)
				return perr(p, path, "an arm cannot be an A/A "
				    "copy of itself");
			if (s->arms[t].aa_of != NULL)
				return perr(p, path, "\"%s\" is itself an A/A "
				    "copy (of \"%s\"); name the original arm",
				    arm->aa_of, s->arms[t].aa_of);
			if ((int)i == b)
				return perr(p, path, "the baseline arm cannot "
				    "be an A/A copy");
			if (json_object_get(a, "env") || json_object_get(a,
			    "bin") || json_object_get(a, "vs"))
				return perr(p, path, "an A/A arm takes env, "
				    "bin and vs from \"%s\"; it may not set "
				    "its own", arm->aa_of);
			continue;
		}
		if (arm->vs != NULL) {
			snprintf(path, sizeof path, "arms[%zu].vs", i);
			t = spec_arm_index(s, arm->vs);
			if (t < 0)
				return perr(p, path, "no arm named \"%s\"",
				    arm->vs);
			if ((size_t)t == i)
				return perr(p, path, "an arm cannot be "
				    "compared with itself");
			if ((int)i == b)
				return perr(p, path, "the baseline arm is "
				    "compared with nothing; give the other "
				    "arms a vs instead");
		}
	}
	/* Copies are filled in only now, so a copy never sees a half-read
	 * twin. */
	for (size_t i = 0; i < s->narms; i++) {
		struct spec_arm *arm = &s->arms[i];

		if (arm->aa_of != NULL) {
			const struct spec_arm *t =
			    &s->arms[spec_arm_index(s, arm->aa_of)];

			if (kv_copy(t->env, t->nenv, &arm->env, &arm->nenv) < 0 ||
			    (t->bin && (arm->bin = strdup(t->bin)) == NULL) ||
			    (arm->vs = strdup(arm->aa_of)) == NULL)
				return perr(p, "arms", "out of memory");
		} else if (arm->vs == NULL && (int)i != b) {
			if ((arm->vs = strdup(s->baseline)) == NULL)
				return perr(p, "arms", "out of memory");
		}
	}
	return 0;
}

static int
parse_server(struct parser *p, json_t *j, const char *path,
    struct spec_server *srv)
{
	static const char *const keys[] = { "cmd", "cpus", "env", "ready",
	    NULL };
	static const char *const ready_keys[] = { "tcp_port", "timeout_s",
	    NULL };
	char sub[256], sub2[256];
	json_t *v, *r;

	srv->ready_timeout_s = SPEC_SERVER_READY_TIMEOUT_S;
	if (!json_is_object(j))
		return perr(p, path, "must be an object, not %s",
		    json_type_name(j));
	if (check_keys(p, j, path, keys) < 0)
		return -1;
	path_join(sub, sizeof sub, path, "cmd");
	if ((v = json_object_get(j, "cmd")) == NULL)
		return perr(p, sub, "missing (the server's argv)");
	if (want_argv(p, v, sub, &srv->cmd, &srv->ncmd) < 0)
		return -1;
	path_join(sub, sizeof sub, path, "cpus");
	if ((v = json_object_get(j, "cpus")) != NULL &&
	    want_cpulist(p, v, sub, &srv->cpus) < 0)
		return -1;
	path_join(sub, sizeof sub, path, "env");
	if ((v = json_object_get(j, "env")) != NULL &&
	    want_kv(p, v, sub, KV_ENV, &srv->env, &srv->nenv) < 0)
		return -1;
	path_join(sub, sizeof sub, path, "ready");
	if ((r = json_object_get(j, "ready")) == NULL)
		return perr(p, sub, "missing (a server needs "
		    "{\"tcp_port\": N} to know when it is up)");
	if (!json_is_object(r))
		return perr(p, sub, "must be an object, not %s",
		    json_type_name(r));
	if (check_keys(p, r, sub, ready_keys) < 0)
		return -1;
	path_join(sub2, sizeof sub2, sub, "tcp_port");
	if ((v = json_object_get(r, "tcp_port")) == NULL)
		return perr(p, sub2, "missing");
	if (want_int(p, v, sub2, 1, 65535, &srv->tcp_port) < 0)
		return -1;
	path_join(sub2, sizeof sub2, sub, "timeout_s");
	if ((v = json_object_get(r, "timeout_s")) != NULL &&
	    want_number(p, v, sub2, 0, true, &srv->ready_timeout_s) < 0)
		return -1;
	return 0;
}

static int
parse_cells(struct parser *p, json_t *cells)
{
	static const char *const keys[] = { "name", "vars", "server", NULL };
	struct spec *s = p->s;
	size_t i;
	json_t *c;

	if (!json_is_array(cells))
		return perr(p, "cells", "must be an array of cell objects, "
		    "not %s", json_type_name(cells));
	if (json_array_size(cells) == 0)
		return perr(p, "cells", "must hold at least one cell");
	s->cells = calloc(json_array_size(cells), sizeof *s->cells);
	if (s->cells == NULL)
		return perr(p, "cells", "out of memory");

	json_array_foreach(cells, i, c) {
		struct spec_cell *cell = &s->cells[i];
		char path[64], sub[128];
		json_t *v;

		s->ncells = i + 1;
		snprintf(path, sizeof path, "cells[%zu]", i);
		if (!json_is_object(c))
			return perr(p, path, "must be an object, not %s",
			    json_type_name(c));
		if (check_keys(p, c, path, keys) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "name");
		if ((v = json_object_get(c, "name")) == NULL)
			return perr(p, sub, "missing (every cell needs a "
			    "name)");
		if (want_name(p, v, sub, &cell->name) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->cells[k].name, cell->name) == 0)
				return perr(p, sub, "\"%s\" is already the "
				    "name of cells[%zu]", cell->name, k);
		path_join(sub, sizeof sub, path, "vars");
		if ((v = json_object_get(c, "vars")) != NULL &&
		    want_kv(p, v, sub, KV_VARS, &cell->vars, &cell->nvars) < 0)
			return -1;
		path_join(sub, sizeof sub, path, "server");
		if ((v = json_object_get(c, "server")) != NULL) {
			cell->server = calloc(1, sizeof *cell->server);
			if (cell->server == NULL)
				return perr(p, sub, "out of memory");
			if (parse_server(p, v, sub, cell->server) < 0)
				return -1;
		}
	}
	return 0;
}

static int
parse_quiet(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "max_foreign_cores", "window_ms",
	    "timeout_s", "on_timeout", NULL };
	struct spec_quiet *q = &p->s->quiet;
	json_t *v;

	/* true means the gate with its defaults, as if the key were absent. */
	if (json_is_boolean(j)) {
		q->enabled = json_is_true(j);
		return 0;
	}
	if (!json_is_object(j))
		return perr(p, "quiet", "must be an object or false, not %s",
		    json_type_name(j));
	if (check_keys(p, j, "quiet", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "max_foreign_cores")) != NULL &&
	    want_number(p, v, "quiet.max_foreign_cores", 0, false,
	    &q->max_foreign_cores) < 0)
		return -1;
	if ((v = json_object_get(j, "window_ms")) != NULL &&
	    want_int(p, v, "quiet.window_ms", 1, 3600000, &q->window_ms) < 0)
		return -1;
	if ((v = json_object_get(j, "timeout_s")) != NULL &&
	    want_number(p, v, "quiet.timeout_s", 0, true, &q->timeout_s) < 0)
		return -1;
	if ((v = json_object_get(j, "on_timeout")) != NULL) {
		const char *o = json_string_value(v);

		if (o != NULL && strcmp(o, "abort") == 0)
			q->abort_on_timeout = true;
		else if (o != NULL && strcmp(o, "proceed") == 0)
			q->abort_on_timeout = false;
		else
			return perr(p, "quiet.on_timeout", "must be \"abort\" "
			    "or \"proceed\"");
	}
	return 0;
}

static int
parse_counters(struct parser *p, json_t *j)
{
	struct spec *s = p->s;
	size_t i;
	json_t *v;

	if (!json_is_array(j))
		return perr(p, "counters", "must be an array of event names, "
		    "not %s", json_type_name(j));
	if (json_array_size(j) == 0)
		return perr(p, "counters", "must name at least one event");
	s->counters = calloc(json_array_size(j) + 1, sizeof *s->counters);
	if (s->counters == NULL)
		return perr(p, "counters", "out of memory");
	json_array_foreach(j, i, v) {
		char sub[64];

		snprintf(sub, sizeof sub, "counters[%zu]", i);
		if (want_string(p, v, sub, true, &s->counters[i]) < 0)
			return -1;
		s->ncounters = i + 1;
		if (!counters_known(s->counters[i]))
			return perr(p, sub, "unknown event \"%s\" (see "
			    "benchtui(1), COUNTERS)", s->counters[i]);
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->counters[k], s->counters[i]) == 0)
				return perr(p, sub, "\"%s\" is listed twice",
				    s->counters[i]);
	}
	return 0;
}

static int
parse_cpus(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "client", "server", NULL };
	json_t *v;

	if (!json_is_object(j))
		return perr(p, "cpus", "must be an object like {\"client\": "
		    "\"0-1\", \"server\": \"2-3\"}, not %s", json_type_name(j));
	if (check_keys(p, j, "cpus", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "client")) != NULL &&
	    want_cpulist(p, v, "cpus.client", &p->s->client_cpus) < 0)
		return -1;
	if ((v = json_object_get(j, "server")) != NULL &&
	    want_cpulist(p, v, "cpus.server", &p->s->server_cpus) < 0)
		return -1;
	return 0;
}

/* A leg's client and its cell's server on the same cpu would measure their
 * contention, not the client. */
static int
check_cpu_overlap(struct parser *p)
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
				return perr(p, path, "cpu %d is also in "
				    "cpus.client (\"%s\"); a cell's server and "
				    "its client must not share cpus", c,
				    s->client_cpus);
	}
	return 0;
}

/* Scratch is emptied before every leg, so it must never be a folder that
 * holds anything else: not the workdir, "/", or anything reached by "..". */
static int
check_scratch(struct parser *p, const char *sc)
{
	const char *w = p->s->workdir;
	size_t wl = strlen(w), sl = strlen(sc);
	char *copy, *tok, *save = NULL;
	bool dotdot = false;

	if ((copy = strdup(sc)) == NULL)
		return perr(p, "scratch", "out of memory");
	for (tok = strtok_r(copy, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save))
		if (strcmp(tok, "..") == 0)
			dotdot = true;
	free(copy);
	if (dotdot)
		return perr(p, "scratch", "\"%s\" holds \"..\"; scratch is "
		    "emptied before every leg, so it must be a folder of its "
		    "own", sc);
	while (sl > 1 && sc[sl - 1] == '/')
		sl--;
	if (strspn(sc, "./") == strlen(sc) ||
	    (sc[0] == '/' && sl <= wl && strncmp(w, sc, sl) == 0 &&
	    (w[sl] == '/' || w[sl] == '\0')))
		return perr(p, "scratch", "\"%s\" is the workdir or one of "
		    "its parents; scratch is emptied before every leg, so it "
		    "must be a folder of its own", sc);
	return 0;
}

static int
set_workdir(struct parser *p, json_t *j, const char *override)
{
	struct spec *s = p->s;
	char *dir = NULL, *given = NULL, *joined = NULL;
	const char *slash = strrchr(s->path, '/');
	struct stat st;
	int rc = -1;

	if (slash == s->path)
		dir = strdup("/");
	else if (slash != NULL)
		dir = strndup(s->path, (size_t)(slash - s->path));
	else
		dir = strdup(".");
	if (dir == NULL)
		goto oom;
	if (override != NULL) {
		if ((joined = strdup(override)) == NULL)
			goto oom;
	} else if (j != NULL) {
		if (want_string(p, j, "workdir", true, &given) < 0)
			goto out;
		if (given[0] == '/')
			joined = strdup(given);
		else if (asprintf(&joined, "%s/%s", dir, given) < 0)
			joined = NULL;
		if (joined == NULL)
			goto oom;
	} else {
		joined = dir;
		dir = NULL;
	}
	s->workdir = realpath(joined, NULL);
	if (s->workdir == NULL || stat(s->workdir, &st) < 0 ||
	    !S_ISDIR(st.st_mode)) {
		perr(p, override ? "workdir (recorded)" : "workdir",
		    "\"%s\" is not a folder: %s", joined,
		    s->workdir == NULL ? strerror(errno) : "not a directory");
		goto out;
	}
	rc = 0;
	goto out;
oom:
	perr(p, "workdir", "out of memory");
out:
	free(dir);
	free(given);
	free(joined);
	return rc;
}

/* Expand one string for a (cell, arm) at load time: any unknown name, cycle
 * or syntax error is reported now, with the field and the cell it failed
 * in, rather than at leg 37 of a two-hour round. */
static char *
check_expand(struct parser *p, const char *str, const struct template_ctx *ctx,
    const char *path)
{
	char terr[512];
	char *v = template_expand(str, ctx, terr, sizeof terr);

	if (v == NULL) {
		if (ctx->cell && ctx->arm)
			perr(p, path, "%s (cell \"%s\", arm \"%s\")", terr,
			    ctx->cell->name, ctx->arm);
		else if (ctx->cell)
			perr(p, path, "%s (cell \"%s\")", terr,
			    ctx->cell->name);
		else
			perr(p, path, "%s", terr);
	}
	return v;
}

static int
check_templates(struct parser *p)
{
	struct spec *s = p->s;

	for (size_t ci = 0; ci < s->ncells; ci++) {
		const struct spec_cell *cell = &s->cells[ci];
		struct template_ctx ctx = { .spec = s, .cell = cell,
		    .rep = 1, .round_dir = "/ROUND_DIR" };
		char path[128], *v, *rbin = NULL;
		int rc = -1;

		/* The server runs for the whole cell: no ARM or REP, and
		 * BIN only when the round's bin does not depend on the arm. */
		ctx.rep = 0;
		if (s->bin) {
			char terr[256];

			rbin = template_expand(s->bin, &ctx, terr, sizeof terr);
		}
		ctx.bin = rbin;
		/* No SCRATCH either: it is emptied before every leg, under the
		 * running server's feet. */
		ctx.scratch = NULL;
		for (size_t k = 0; cell->server && k < cell->server->ncmd; k++) {
			snprintf(path, sizeof path, "cells[%zu].server.cmd[%zu]",
			    ci, k);
			if ((v = check_expand(p, cell->server->cmd[k], &ctx,
			    path)) == NULL)
				goto out_cell;
			free(v);
		}
		for (size_t ai = 0; ai < s->narms; ai++) {
			const struct spec_arm *arm = &s->arms[ai];
			char *bin = NULL, *scratch = NULL;
			int ok = -1;

			ctx.arm = arm->name;
			ctx.rep = 1;
			ctx.bin = NULL;
			ctx.scratch = NULL;
			if (arm->bin != NULL) {
				size_t own = arm->aa_of ? (size_t)spec_arm_index(
				    s, arm->aa_of) : ai;

				snprintf(path, sizeof path, "arms[%zu].bin", own);
				if ((bin = check_expand(p, arm->bin, &ctx,
				    path)) == NULL)
					goto out_arm;
			} else if (s->bin && (bin = check_expand(p, s->bin,
			    &ctx, "bin")) == NULL) {
				goto out_arm;
			}
			ctx.bin = bin;
			/* The expanded folder too: a variable could make it
			 * "..". */
			if (s->scratch && ((scratch = check_expand(p,
			    s->scratch, &ctx, "scratch")) == NULL ||
			    check_scratch(p, scratch) < 0))
				goto out_arm;
			ctx.scratch = scratch ? "/SCRATCH" : NULL;
			for (size_t k = 0; k < s->ncommand; k++) {
				snprintf(path, sizeof path, "command[%zu]", k);
				if ((v = check_expand(p, s->command[k], &ctx,
				    path)) == NULL)
					goto out_arm;
				free(v);
			}
			/* Vars are checked through "${KEY}" so a cycle reads
			 * from the variable named in the path ("A -> B -> A"),
			 * and a round var a cell shadows is not checked where
			 * it cannot be reached. */
			for (size_t k = 0; k < cell->nvars; k++) {
				char ref[128];

				snprintf(path, sizeof path, "cells[%zu].vars.%s",
				    ci, cell->vars[k].key);
				snprintf(ref, sizeof ref, "${%s}",
				    cell->vars[k].key);
				if ((v = check_expand(p, ref, &ctx, path)) == NULL)
					goto out_arm;
				free(v);
			}
			for (size_t k = 0; k < s->nvars; k++) {
				char ref[128];

				snprintf(path, sizeof path, "vars.%s",
				    s->vars[k].key);
				snprintf(ref, sizeof ref, "${%s}", s->vars[k].key);
				if ((v = check_expand(p, ref, &ctx, path)) == NULL)
					goto out_arm;
				free(v);
			}
			ok = 0;
out_arm:
			free(bin);
			free(scratch);
			if (ok < 0)
				goto out_cell;
		}
		rc = 0;
out_cell:
		free(rbin);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int
parse_root(struct parser *p, json_t *root, const char *workdir_override)
{
	static const char *const keys[] = { "name", "reps", "bin", "command",
	    "baseline", "arms", "cells", "workdir", "cpus", "nice",
	    "settle_s", "timeout_s", "counters", "quiet", "scratch", "vars",
	    NULL };
	static const char *const required[] = { "name", "reps", "command",
	    "arms", "cells", "baseline", NULL };
	struct spec *s = p->s;
	json_t *v;

	if (!json_is_object(root))
		return perr(p, "(top)", "a round file holds one JSON object, "
		    "not %s", json_type_name(root));
	if (check_keys(p, root, "", keys) < 0)
		return -1;
	for (size_t i = 0; required[i] != NULL; i++)
		if (json_object_get(root, required[i]) == NULL)
			return perr(p, required[i], "missing (required)");

	if (want_name(p, json_object_get(root, "name"), "name", &s->name) < 0)
		return -1;
	if (want_int(p, json_object_get(root, "reps"), "reps", 1,
	    SPEC_REPS_MAX, &s->reps) < 0)
		return -1;
	if ((v = json_object_get(root, "bin")) != NULL &&
	    want_string(p, v, "bin", true, &s->bin) < 0)
		return -1;
	if (want_argv(p, json_object_get(root, "command"), "command",
	    &s->command, &s->ncommand) < 0)
		return -1;
	if ((v = json_object_get(root, "vars")) != NULL &&
	    want_kv(p, v, "vars", KV_VARS, &s->vars, &s->nvars) < 0)
		return -1;
	if (parse_arms(p, json_object_get(root, "arms")) < 0)
		return -1;
	if (want_string(p, json_object_get(root, "baseline"), "baseline",
	    true, &s->baseline) < 0)
		return -1;
	if (link_arms(p, json_object_get(root, "arms")) < 0)
		return -1;
	if (parse_cells(p, json_object_get(root, "cells")) < 0)
		return -1;

	if (set_workdir(p, json_object_get(root, "workdir"),
	    workdir_override) < 0)
		return -1;
	if ((v = json_object_get(root, "cpus")) != NULL &&
	    parse_cpus(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "nice")) != NULL &&
	    want_int(p, v, "nice", -20, 19, &s->nice) < 0)
		return -1;
	if ((v = json_object_get(root, "settle_s")) != NULL &&
	    want_number(p, v, "settle_s", 0, false, &s->settle_s) < 0)
		return -1;
	if ((v = json_object_get(root, "timeout_s")) != NULL &&
	    want_number(p, v, "timeout_s", 0, true, &s->timeout_s) < 0)
		return -1;
	if ((v = json_object_get(root, "counters")) != NULL) {
		if (parse_counters(p, v) < 0)
			return -1;
	} else {
		s->counters = calloc(3, sizeof *s->counters);
		if (s->counters == NULL ||
		    (s->counters[0] = strdup("cycles")) == NULL ||
		    (s->counters[1] = strdup("instructions")) == NULL)
			return perr(p, "counters", "out of memory");
		s->ncounters = 2;
	}
	if ((v = json_object_get(root, "quiet")) != NULL &&
	    parse_quiet(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "scratch")) != NULL) {
		if (want_string(p, v, "scratch", true, &s->scratch) < 0 ||
		    check_scratch(p, s->scratch) < 0)
			return -1;
	}
	if (check_cpu_overlap(p) < 0)
		return -1;
	return check_templates(p);
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
	s = calloc(1, sizeof *s);
	if (s == NULL || (s->path = strdup(path)) == NULL ||
	    (s->raw = malloc(len + 1)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	memcpy(s->raw, text, len);
	s->raw[len] = '\0';
	s->rawlen = len;
	digest_buf(s->raw, len, s->sha256);
	s->quiet = (struct spec_quiet){
		.enabled = true,
		.max_foreign_cores = SPEC_QUIET_MAX_FOREIGN,
		.window_ms = SPEC_QUIET_WINDOW_MS,
		.timeout_s = SPEC_QUIET_TIMEOUT_S,
		.abort_on_timeout = false,
	};
	p.s = s;

	/* NULs are let through the JSON layer so that want_string can name
	 * the field that holds one. */
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL,
	    &jerr);
	if (root == NULL) {
		snprintf(err, errlen, "%s: line %d, column %d: %s", path,
		    jerr.line, jerr.column, jerr.text);
		goto out;
	}
	if (parse_root(&p, root, workdir_override) < 0)
		goto out;
	*out = s;
	s = NULL;
	rc = 0;
out:
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
			char *nb;

			cap = cap ? cap * 2 : 8192;
			if (cap > 64u << 20) {
				snprintf(err, errlen, "%s: larger than 64 MiB; "
				    "not a round file", path);
				goto out;
			}
			if ((nb = realloc(buf, cap)) == NULL) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto out;
			}
			buf = nb;
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
kv_free(struct spec_kv *kv, size_t n)
{
	if (kv == NULL)
		return;
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].val);
	}
	free(kv);
}

static void
strv_free(char **v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
spec_destroy(struct spec *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->narms; i++) {
		struct spec_arm *a = &s->arms[i];

		free(a->name);
		kv_free(a->env, a->nenv);
		free(a->bin);
		free(a->vs);
		free(a->aa_of);
	}
	free(s->arms);
	for (size_t i = 0; i < s->ncells; i++) {
		struct spec_cell *c = &s->cells[i];

		free(c->name);
		kv_free(c->vars, c->nvars);
		if (c->server != NULL) {
			strv_free(c->server->cmd);
			free(c->server->cpus);
			kv_free(c->server->env, c->server->nenv);
			free(c->server);
		}
	}
	free(s->cells);
	free(s->path);
	free(s->raw);
	free(s->name);
	free(s->bin);
	strv_free(s->command);
	free(s->baseline);
	free(s->workdir);
	free(s->client_cpus);
	free(s->server_cpus);
	strv_free(s->counters);
	free(s->scratch);
	kv_free(s->vars, s->nvars);
	free(s);
}

/* dir + "/" + name, without doubling the slash of "/". */
static char *
path_cat(const char *dir, size_t dirlen, const char *name)
{
	char *out;

	while (dirlen > 0 && dir[dirlen - 1] == '/')
		dirlen--;
	if (asprintf(&out, "%.*s/%s", (int)dirlen, dir, name) < 0)
		return NULL;
	return out;
}

static bool
is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

char *
spec_resolve_program(const char *prog, const char *workdir)
{
	const char *path, *q;
	char *cand = NULL;

	if (prog == NULL || prog[0] == '\0')
		return NULL;
	if (strchr(prog, '/') != NULL) {
		if (prog[0] == '/')
			cand = strdup(prog);
		else
			cand = path_cat(workdir, strlen(workdir), prog);
		if (cand != NULL && is_executable(cand))
			return cand;
		free(cand);
		return NULL;
	}
	/* As execvp: PATH, or its default when unset; an empty or relative
	 * entry means the leg's working directory, the workdir. */
	path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (q = path;; q++) {
		const char *end = strchr(q, ':');
		size_t n = end ? (size_t)(end - q) : strlen(q);
		char *rel = NULL;

		if (n == 0)
			cand = path_cat(workdir, strlen(workdir), prog);
		else if (q[0] == '/')
			cand = path_cat(q, n, prog);
		else if ((rel = path_cat(workdir, strlen(workdir), q)) != NULL) {
			/* rel runs on to the rest of PATH: cut it at ':' */
			rel[strlen(rel) - strlen(q) + n] = '\0';
			cand = path_cat(rel, strlen(rel), prog);
			free(rel);
		}
		if (cand == NULL)
			return NULL;
		if (is_executable(cand))
			return cand;
		free(cand);
		cand = NULL;
		if (end == NULL)
			return NULL;
		q = end;
	}
}

static int
host_online_cpus(unsigned char *mask, int ncpus)
{
	char line[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	long n;

	if (f != NULL) {
		bool ok = fgets(line, sizeof line, f) != NULL;

		fclose(f);
		line[strcspn(line, "\n")] = '\0';
		if (ok && spec_cpulist_parse(line, mask, ncpus) == 0)
			return 0;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1 || n > ncpus)
		return -1;
	memset(mask, 0, (size_t)ncpus);
	memset(mask, 1, (size_t)n);
	return 0;
}

static int
host_check_cpus(const char *file, const char *list, const char *path,
    const unsigned char *online, char *err, size_t errlen)
{
	static unsigned char m[SPEC_CPUS_MAX];

	if (list == NULL)
		return 0;
	spec_cpulist_parse(list, m, SPEC_CPUS_MAX);
	for (int c = 0; c < SPEC_CPUS_MAX; c++) {
		if (m[c] && !online[c]) {
			snprintf(err, errlen, "%s: %s: cpu %d (in \"%s\") is "
			    "not online on this machine", file, path, c, list);
			return -1;
		}
	}
	return 0;
}

/* Expand str and look its program up.  An expansion that needs a value only
 * the run knows (SCRATCH, ROUND_DIR) is skipped: the run will tell. */
static int
host_check_prog(const struct spec *s, const char *str,
    const struct template_ctx *ctx, const char *path, char *err,
    size_t errlen)
{
	char terr[256], *prog, *found;

	prog = template_expand(str, ctx, terr, sizeof terr);
	if (prog == NULL)
		return 0;
	found = spec_resolve_program(prog, s->workdir);
	if (found == NULL) {
		snprintf(err, errlen, "%s: %s: no program \"%s\" (an "
		    "executable file, relative to the workdir %s or on PATH)%s%s%s",
		    s->path, path, prog, s->workdir,
		    ctx->cell ? " in cell \"" : "",
		    ctx->cell ? ctx->cell->name : "", ctx->cell ? "\"" : "");
		free(prog);
		return -1;
	}
	free(found);
	free(prog);
	return 0;
}

int
spec_check_host(const struct spec *s, char *err, size_t errlen)
{
	static unsigned char online[SPEC_CPUS_MAX];

	if (host_online_cpus(online, SPEC_CPUS_MAX) == 0) {
		if (host_check_cpus(s->path, s->client_cpus, "cpus.client",
		    online, err, errlen) < 0 ||
		    host_check_cpus(s->path, s->server_cpus, "cpus.server",
		    online, err, errlen) < 0)
			return -1;
		for (size_t i = 0; i < s->ncells; i++) {
			char path[64];

			if (s->cells[i].server == NULL)
				continue;
			snprintf(path, sizeof path, "cells[%zu].server.cpus", i);
			if (host_check_cpus(s->path, s->cells[i].server->cpus,
			    path, online, err, errlen) < 0)
				return -1;
		}
	}

	for (size_t ci = 0; ci < s->ncells; ci++) {
		const struct spec_cell *cell = &s->cells[ci];
		struct template_ctx ctx = { .spec = s, .cell = cell };
		char path[64];

		if (cell->server != NULL) {
			snprintf(path, sizeof path, "cells[%zu].server.cmd[0]",
			    ci);
			if (host_check_prog(s, cell->server->cmd[0], &ctx, path,
			    err, errlen) < 0)
				return -1;
		}
		for (size_t ai = 0; ai < s->narms; ai++) {
			const struct spec_arm *arm = &s->arms[ai];
			const char *bin = spec_arm_bin(s, arm);
			char terr[256], *xbin = NULL;
			int rc = 0;

			ctx.arm = arm->name;
			ctx.rep = 1;
			ctx.bin = NULL;
			if (bin != NULL) {
				if (arm->bin != NULL)
					snprintf(path, sizeof path,
					    "arms[%d].bin", arm->aa_of ?
					    spec_arm_index(s, arm->aa_of) :
					    (int)ai);
				else
					snprintf(path, sizeof path, "bin");
				if (host_check_prog(s, bin, &ctx, path, err,
				    errlen) < 0)
					return -1;
				xbin = template_expand(bin, &ctx, terr,
				    sizeof terr);
			}
			ctx.bin = xbin;
			rc = host_check_prog(s, s->command[0], &ctx,
			    "command[0]", err, errlen);
			free(xbin);
			if (rc < 0)
				return -1;
		}
	}
	return 0;
}
