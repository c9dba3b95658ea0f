/* spec: the typed readers of round-file fields (strings, argv, env and
 * vars objects, numbers, names, cpu lists), each failing with
 * "FILE: PATH: what is wrong". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "procs.h"
#include "spec_int.h"
#include "suggest.h"
#include "xalloc.h"
#include "template.h"

int
spec_perr(struct parser *p, const char *path, const char *fmt, ...)
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

const char *
spec_json_type(const json_t *j)
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
void
spec_path_join(char *out, size_t len, const char *prefix, const char *key)
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

int
spec_check_keys(struct parser *p, json_t *obj, const char *path,
    const char *const *allowed)
{
	const char *key;
	json_t *val;

	json_object_foreach(obj, key, val) {
		char sub[256];
		bool ok = false;

		for (size_t i = 0; allowed[i] != NULL && !ok; i++)
			ok = strcmp(key, allowed[i]) == 0;
		spec_path_join(sub, sizeof sub, path, key);
		/* "comment" documents a round inside JSON, which has no
		 * comments of its own. */
		if (!ok && strcmp(key, "comment") == 0 && json_is_string(val))
			ok = true;
		if (!ok) {
			char hint[128];

			return spec_perr(p, sub, "unknown key \"%s\"%s", key,
			    suggest_hint(hint, sizeof hint, key, allowed,
			    SIZE_MAX));
		}
	}
	return 0;
}

/* A string with no NUL inside (argv and env cannot carry one). */
int
spec_want_string(struct parser *p, json_t *j, const char *path, bool nonempty,
    char **out)
{
	if (!json_is_string(j))
		return spec_perr(p, path, "must be a string, not %s",
		    spec_json_type(j));
	if (strlen(json_string_value(j)) != json_string_length(j))
		return spec_perr(p, path, "contains a NUL character");
	if (nonempty && json_string_length(j) == 0)
		return spec_perr(p, path, "must not be empty");
	*out = xstrdup(json_string_value(j));
	return 0;
}

/* The strings of array j into *out (NULL-terminated), *n of them; the
 * first one must not be empty when first_nonempty. */
static int
spec_fields_want_strings(struct parser *p, json_t *j, const char *path,
    bool first_nonempty, char ***out, size_t *n)
{
	size_t i;
	json_t *v;

	*out = xcalloc(json_array_size(j) + 1, sizeof **out);
	json_array_foreach(j, i, v) {
		char sub[300];

		snprintf(sub, sizeof sub, "%s[%zu]", path, i);
		if (spec_want_string(p, v, sub, first_nonempty && i == 0,
		    &(*out)[i]) < 0)
			return -1;
		*n = i + 1;
	}
	return 0;
}

int
spec_want_argv(struct parser *p, json_t *j, const char *path, char ***out,
    size_t *n)
{
	if (!json_is_array(j))
		return spec_perr(p, path, "must be an array of strings (an argv), "
		    "not %s", spec_json_type(j));
	if (json_array_size(j) == 0)
		return spec_perr(p, path, "must not be empty");
	return spec_fields_want_strings(p, j, path, true, out, n);
}

/* An array of strings, maybe empty (a var's value that splices). */
int
spec_want_strv(struct parser *p, json_t *j, const char *path, char ***out,
    size_t *n)
{
	return spec_fields_want_strings(p, j, path, false, out, n);
}

char **
spec_strv_copy(const char *const *from, size_t *n)
{
	size_t k = 0;
	char **v;

	while (from[k] != NULL)
		k++;
	v = xcalloc(k + 1, sizeof *v);
	for (*n = 0; *n < k; (*n)++)
		v[*n] = xstrdup(from[*n]);
	return v;
}

int
spec_want_kv(struct parser *p, json_t *j, const char *path, enum kv_kind kind,
    struct spec_kv **out, size_t *n)
{
	const char *key;
	json_t *val;
	size_t i = 0;

	if (!json_is_object(j))
		return spec_perr(p, path, "must be an object of strings, not %s",
		    spec_json_type(j));
	*out = xcalloc(json_object_size(j) + 1, sizeof **out);
	json_object_foreach(j, key, val) {
		char sub[256];

		spec_path_join(sub, sizeof sub, path, key);
		if (json_object_iter_key_len(json_object_key_to_iter(key)) !=
		    strlen(key))
			return spec_perr(p, sub, "the key holds a NUL character");
		if (kind == KV_ENV && (key[0] == '\0' || strchr(key, '=')))
			return spec_perr(p, sub, "\"%s\" is not an environment "
			    "variable name (empty or holds '=')", key);
		if (kind == KV_VARS &&
		    !template_name_valid(key, strlen(key)))
			return spec_perr(p, sub, "\"%s\" is not a variable name "
			    "([A-Za-z_][A-Za-z0-9_]*)", key);
		if (kind == KV_VARS && template_is_builtin(key))
			return spec_perr(p, sub, "\"%s\" would shadow the built-in "
			    "${%s}", key, key);
		(*out)[i].key = xstrdup(key);
		*n = ++i;
		if (kind == KV_VARS && json_is_array(val)) {
			if (spec_want_strv(p, val, sub, &(*out)[i - 1].list,
			    &(*out)[i - 1].nlist) < 0)
				return -1;
			continue;
		}
		if (spec_want_string(p, val, sub, false, &(*out)[i - 1].val) < 0) {
			if (kind == KV_VARS && !json_is_string(val))
				spec_perr(p, sub, "must be a string or an array of "
				    "strings, not %s", spec_json_type(val));
			return -1;
		}
	}
	return 0;
}

int
spec_want_int(struct parser *p, json_t *j, const char *path, long long lo,
    long long hi, int *out)
{
	long long v;

	if (!json_is_integer(j))
		return spec_perr(p, path, "must be an integer from %lld to %lld, "
		    "not %s", lo, hi, spec_json_type(j));
	v = json_integer_value(j);
	if (v < lo || v > hi)
		return spec_perr(p, path, "%lld is out of range (%lld to %lld)", v,
		    lo, hi);
	*out = (int)v;
	return 0;
}

/* A number (integer or real) with v >= lo, or v > lo when strict. */
int
spec_want_number(struct parser *p, json_t *j, const char *path, double lo,
    bool strict, double *out)
{
	double v;

	if (!json_is_number(j))
		return spec_perr(p, path, "must be a number, not %s",
		    spec_json_type(j));
	v = json_number_value(j);
	if (v != v || (strict ? v <= lo : v < lo) || v > 1e9)
		return spec_perr(p, path, "%g is out of range (must be %s %g and "
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

int
spec_want_name(struct parser *p, json_t *j, const char *path, char **out)
{
	if (spec_want_string(p, j, path, true, out) < 0)
		return -1;
	if (!spec_name_valid(*out))
		return spec_perr(p, path, "\"%s\" is not a valid name (it must "
		    "match [A-Za-z][A-Za-z0-9_-]{0,48}: it becomes a file "
		    "name)", *out);
	return 0;
}

int
spec_cpulist_parse(const char *list, unsigned char *mask, int ncpus)
{
	return procs_cpulist_parse(list, mask, ncpus);
}

int
spec_want_cpulist(struct parser *p, json_t *j, const char *path, char **out)
{
	unsigned char mask[SPEC_CPUS_MAX];

	if (spec_want_string(p, j, path, true, out) < 0)
		return -1;
	if (spec_cpulist_parse(*out, mask, SPEC_CPUS_MAX) < 0)
		return spec_perr(p, path, "\"%s\" is not a cpu list (like "
		    "\"0-3,6\")", *out);
	return 0;
}
