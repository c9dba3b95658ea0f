/* compare's environment header (see envdiff.h). */
#include <stdlib.h>
#include <string.h>

#include "envdiff.h"
#include "xalloc.h"

/* The distinct governors of a {"cpu0": G, ...} object, in order, joined
 * by ","; null when there are none. */
static json_t *
envdiff_governor(const json_t *g)
{
	struct xbuf b = { 0 };
	const char *cpu;
	json_t *v, *out;

	json_object_foreach((json_t *)g, cpu, v) {
		const char *s = json_string_value(v);
		size_t n = s ? strlen(s) : 0;
		bool seen = false;
		for (const char *p = b.p; s && p && (p = strstr(p, s)) != NULL;
		    p += n)
			if ((p == b.p || p[-1] == ',') && (p[n] == ',' ||
			    p[n] == '\0'))
				seen = true;
		if (s == NULL || seen)
			continue;
		if (b.len > 0)
			xbuf_add(&b, ",", 1);
		xbuf_add(&b, s, n);
	}
	out = b.p ? json_string(b.p) : json_null();
	free(b.p);
	return out;
}

/* a and b under key into same or differ (a and b are stolen). */
static void
envdiff_put(json_t *same, json_t *differ, const char *key, json_t *a,
    json_t *b)
{
	if (json_equal(a, b) || (json_is_null(a) && json_is_null(b))) {
		json_object_set_new(same, key, a);
		json_decref(b);
	} else
		json_object_set_new(differ, key, json_pack("[oo]", a, b));
}

/* A fact of environment.json, or null. */
static json_t *
envdiff_fact(const json_t *env, const char *key)
{
	json_t *v = json_object_get(env, key);

	return v ? json_incref(v) : json_null();
}

/* The `files` entries of env as {NAME: sha256}: an object of names (a
 * sha256, or an object holding one), or an array of objects naming the
 * file ("as", "name" or "path") with its "sha256". */
static json_t *
envdiff_files(const json_t *env)
{
	const json_t *files = json_object_get(env, "files"), *v;
	json_t *out = json_object();
	const char *name;
	size_t i;

	json_object_foreach((json_t *)files, name, v)
		json_object_set_new(out, name, json_is_object(v) ?
		    envdiff_fact(v, "sha256") : json_incref((json_t *)v));
	json_array_foreach(files, i, v) {
		const char *n = json_string_value(json_object_get(v, "as"));
		n = n ? n : json_string_value(json_object_get(v, "name"));
		n = n ? n : json_string_value(json_object_get(v, "path"));
		if (n != NULL)
			json_object_set_new(out, n, envdiff_fact(v, "sha256"));
	}
	return out;
}

/* prefix:KEY for every key of either object (A's order, then B's own). */
static void
envdiff_keys(json_t *same, json_t *differ, const char *prefix,
    const json_t *a, const json_t *b)
{
	const char *key;
	json_t *v;

	json_object_foreach((json_t *)a, key, v) {
		char *k = xasprintf("%s:%s", prefix, key);
		envdiff_put(same, differ, k, json_incref(v),
		    envdiff_fact(b, key));
		free(k);
	}
	json_object_foreach((json_t *)b, key, v)
		if (json_object_get(a, key) == NULL) {
			char *k = xasprintf("%s:%s", prefix, key);
			envdiff_put(same, differ, k, json_null(),
			    json_incref(v));
			free(k);
		}
}

json_t *
envdiff_build(const json_t *env_a, const json_t *env_b,
    const struct spec *a, const struct spec *b)
{
	static const char *const facts[][2] = { { "hostname", "hostname" },
	    { "kernel", "kernel" }, { "cpu_model", "cpu_model" },
	    { "cpus", "cores_online" }, { "microcode", "microcode" } };
	json_t *same = json_object(), *differ = json_object(), *fa, *fb;

	for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++)
		envdiff_put(same, differ, facts[i][0],
		    envdiff_fact(env_a, facts[i][1]),
		    envdiff_fact(env_b, facts[i][1]));
	envdiff_put(same, differ, "governor",
	    envdiff_governor(json_object_get(env_a, "governor")),
	    envdiff_governor(json_object_get(env_b, "governor")));
	envdiff_put(same, differ, "benchtui_version",
	    envdiff_fact(env_a, "benchtui_version"),
	    envdiff_fact(env_b, "benchtui_version"));
	envdiff_put(same, differ, "confidence", json_real(a->confidence),
	    json_real(b->confidence));
	envdiff_put(same, differ, "margin", json_real(a->margin),
	    json_real(b->margin));
	envdiff_keys(same, differ, "bin", json_object_get(env_a, "bins"),
	    json_object_get(env_b, "bins"));
	fa = envdiff_files(env_a);
	fb = envdiff_files(env_b);
	envdiff_keys(same, differ, "file", fa, fb);
	json_decref(fa);
	json_decref(fb);
	return json_pack("{soso}", "same", same, "differ", differ);
}
