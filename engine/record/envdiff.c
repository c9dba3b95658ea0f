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
	if (json_equal(a, b)) {
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

/* The facts of one host (hostname, kernel, cpu_model, cpus, microcode,
 * governor, benchtui_version), each keyed prefix + name. */
static void
envdiff_facts(json_t *same, json_t *differ, const char *prefix,
    const json_t *fa, const json_t *fb)
{
	static const char *const facts[][2] = { { "hostname", "hostname" },
	    { "kernel", "kernel" }, { "cpu_model", "cpu_model" },
	    { "cpus", "cores_online" }, { "microcode", "microcode" } };
	char *k;

	for (size_t i = 0; i < sizeof facts / sizeof facts[0]; i++) {
		k = xasprintf("%s%s", prefix, facts[i][0]);
		envdiff_put(same, differ, k, envdiff_fact(fa, facts[i][1]),
		    envdiff_fact(fb, facts[i][1]));
		free(k);
	}
	k = xasprintf("%sgovernor", prefix);
	envdiff_put(same, differ, k,
	    envdiff_governor(json_object_get(fa, "governor")),
	    envdiff_governor(json_object_get(fb, "governor")));
	free(k);
	k = xasprintf("%sbenchtui_version", prefix);
	envdiff_put(same, differ, k, envdiff_fact(fa, "benchtui_version"),
	    envdiff_fact(fb, "benchtui_version"));
	free(k);
}

/* The servers' hosts of environment.json's hosts (this machine's entry,
 * the client, is the top level's), in order. */
static json_t *
envdiff_servers(const json_t *env)
{
	json_t *out = json_array(), *h;
	size_t i;

	json_array_foreach(json_object_get(env, "hosts"), i, h)
		if (json_is_string(json_object_get(h, "host")))
			json_array_append(out, h);
	return out;
}

static const char *
envdiff_host_name(const json_t *h)
{
	return json_string_value(json_object_get(h, "host"));
}

/* One pair of servers' hosts (either may be NULL: a host the other round
 * has not), keyed "host:NAME:" after A's name (B's where A has none):
 * the name itself where the two differ, the facts its agent reported,
 * each binary's sha256 hashed there. */
static void
envdiff_host_pair(json_t *same, json_t *differ, const json_t *ha,
    const json_t *hb)
{
	const char *na = ha != NULL ? envdiff_host_name(ha) : NULL,
	    *nb = hb != NULL ? envdiff_host_name(hb) : NULL;
	char *prefix = xasprintf("host:%s:", na != NULL ? na : nb != NULL ?
	    nb : "?");
	char *k = xasprintf("%shost", prefix), *bins;

	if (na == NULL || nb == NULL || strcmp(na, nb) != 0)
		envdiff_put(same, differ, k, na != NULL ? json_string(na) :
		    json_null(), nb != NULL ? json_string(nb) : json_null());
	envdiff_facts(same, differ, prefix, json_object_get(ha, "facts"),
	    json_object_get(hb, "facts"));
	bins = xasprintf("%sbin", prefix);
	envdiff_keys(same, differ, bins, json_object_get(ha, "bins"),
	    json_object_get(hb, "bins"));
	free(bins);
	free(k);
	free(prefix);
}

/* The servers' hosts side by side: paired by the name the round files
 * give them, then those left in order (another machine serving the same
 * cells), then a host one round has alone against nothing. */
static void
envdiff_hosts(json_t *same, json_t *differ, const json_t *env_a,
    const json_t *env_b)
{
	json_t *sa = envdiff_servers(env_a), *sb = envdiff_servers(env_b),
	    *left = json_array(), *ha;
	size_t nb = json_array_size(sb), ib = 0, i;
	char *used = xcalloc(nb + 1, 1);

	json_array_foreach(sa, i, ha) {
		const json_t *hb = NULL;

		for (size_t j = 0; j < nb && hb == NULL; j++)
			if (!used[j] && strcmp(envdiff_host_name(ha),
			    envdiff_host_name(json_array_get(sb, j))) == 0) {
				used[j] = 1;
				hb = json_array_get(sb, j);
			}
		if (hb != NULL)
			envdiff_host_pair(same, differ, ha, hb);
		else
			json_array_append(left, ha);
	}
	json_array_foreach(left, i, ha) {
		while (ib < nb && used[ib])
			ib++;
		envdiff_host_pair(same, differ, ha, ib < nb ?
		    json_array_get(sb, ib) : NULL);
		if (ib < nb)
			used[ib] = 1;
	}
	for (size_t j = 0; j < nb; j++)
		if (!used[j])
			envdiff_host_pair(same, differ, NULL, json_array_get(sb, j));
	free(used);
	json_decref(left);
	json_decref(sa);
	json_decref(sb);
}

json_t *
envdiff_build(const json_t *env_a, const json_t *env_b,
    const struct spec *a, const struct spec *b)
{
	json_t *same = json_object(), *differ = json_object(), *fa, *fb;

	envdiff_facts(same, differ, "", env_a, env_b);
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
	envdiff_hosts(same, differ, env_a, env_b);
	return json_pack("{soso}", "same", same, "differ", differ);
}
