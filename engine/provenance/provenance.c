/* Provenance: what a reader of a round folder needs to judge its numbers
 * months later -- the machine, its noise sources, the harness and the exact
 * binaries that ran.  Every fact that cannot be read is null, never a guess. */
#include "config.h"

#include "provenance.h"
#include "profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "counters.h"
#include "digest.h"
#include "event.h"
#include "legcmd.h"
#include "xalloc.h"

/* The first line of a small file, without its newline.  NULL when
 * unreadable or empty. */
static char *
provenance_read_line(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "re");
	size_t n;

	if (f == NULL)
		return NULL;
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = '\0';
	return n > 0 ? xstrdup(buf) : NULL;
}

static json_t *
provenance_string_or_null(char *s)
{
	json_t *j = s != NULL ? json_string(s) : json_null();

	free(s);
	return j != NULL ? j : json_null();
}

static json_t *
provenance_file_string(const char *path)
{
	return provenance_string_or_null(provenance_read_line(path));
}

static json_t *
provenance_file_int(const char *path)
{
	char *s = provenance_read_line(path);
	char *end;
	long v;

	if (s == NULL)
		return json_null();
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s) {
		free(s);
		return json_null();
	}
	free(s);
	return json_integer(v);
}

/* What /proc/cpuinfo says of the CPU, in one read: "cpu_model" (x86 says
 * "model name", other architectures use other keys: the first value of
 * the earliest of them there is) and "microcode" (x86's first "microcode"
 * line, else cpu0's sysfs version).  Each null where nothing says. */
static void
provenance_cpuinfo(json_t *host)
{
	static const char *const keys[] = { "model name", "Model", "cpu model",
		"Processor", "Hardware", NULL };
	char line[512], *model = NULL, *microcode = NULL;
	int best = INT_MAX;
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		char *colon = strchr(line, ':'), *v;

		if (colon == NULL)
			continue;
		v = colon + 1 + strspn(colon + 1, " \t");
		v[strcspn(v, "\n")] = '\0';
		if (*v == '\0')
			continue;
		if (microcode == NULL && strncmp(line, "microcode", 9) == 0)
			microcode = xstrdup(v);
		for (int k = 0; keys[k] != NULL && k < best; k++) {
			size_t kl = strlen(keys[k]);

			if (strncmp(line, keys[k], kl) != 0 ||
			    (line[kl] != ' ' && line[kl] != '\t' && line[kl] != ':'))
				continue;
			free(model);
			model = xstrdup(v);
			best = k;
		}
	}
	if (f != NULL)
		fclose(f);
	if (microcode == NULL)
		microcode = provenance_read_line(
		    "/sys/devices/system/cpu/cpu0/microcode/version");
	json_object_set_new(host, "cpu_model", provenance_string_or_null(model));
	json_object_set_new(host, "microcode",
	    provenance_string_or_null(microcode));
}

static void
provenance_smt(json_t *host)
{
	json_t *active = provenance_file_int("/sys/devices/system/cpu/smt/active");

	json_object_set_new(host, "smt",
	    provenance_file_string("/sys/devices/system/cpu/smt/control"));
	if (json_is_integer(active))
		json_object_set_new(host, "smt_active",
		    json_boolean(json_integer_value(active) != 0));
	else
		json_object_set_new(host, "smt_active", json_null());
	json_decref(active);
}

static json_t *
provenance_governors(void)
{
	json_t *g = json_object();
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	char path[128], key[32];

	for (long i = 0; i < ncpu && i < 4096; i++) {
		char *gov;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld", i);
		if (access(path, F_OK) != 0)
			continue;
		snprintf(path, sizeof(path),
		    "/sys/devices/system/cpu/cpu%ld/cpufreq/scaling_governor", i);
		gov = provenance_read_line(path);
		snprintf(key, sizeof(key), "cpu%ld", i);
		json_object_set_new(g, key, json_string(gov != NULL ? gov : "unknown"));
		free(gov);
	}
	return g;
}

static void
provenance_turbo(json_t *host)
{
	json_t *v = provenance_file_int("/sys/devices/system/cpu/intel_pstate/no_turbo");

	if (json_is_integer(v)) {
		json_object_set_new(host, "turbo", json_boolean(json_integer_value(v) == 0));
		json_object_set_new(host, "turbo_source", json_string("intel_pstate/no_turbo"));
		json_decref(v);
		return;
	}
	json_decref(v);
	v = provenance_file_int("/sys/devices/system/cpu/cpufreq/boost");
	if (json_is_integer(v)) {
		json_object_set_new(host, "turbo", json_boolean(json_integer_value(v) != 0));
		json_object_set_new(host, "turbo_source", json_string("cpufreq/boost"));
	} else {
		json_object_set_new(host, "turbo", json_null());
		json_object_set_new(host, "turbo_source", json_null());
	}
	json_decref(v);
}

/* The v2 path and the v1 cpu and memory paths of /proc/self/cgroup. */
static void
provenance_cgroup_read(char **v2, char **v1cpu, char **v1mem)
{
	char line[1024];
	FILE *f = fopen("/proc/self/cgroup", "re");

	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *c1 = strchr(line, ':'), *c2;

		if (c1 == NULL || (c2 = strchr(c1 + 1, ':')) == NULL)
			continue;
		c2[strcspn(c2, "\n")] = '\0';
		*c2 = '\0';
		if (strncmp(line, "0:", 2) == 0 && c1[1] == '\0') {
			free(*v2);
			*v2 = xstrdup(c2 + 1);
		} else if (strstr(c1 + 1, "cpu") != NULL &&
		    (strcmp(c1 + 1, "cpu") == 0 || strncmp(c1 + 1, "cpu,", 4) == 0 ||
		    strstr(c1 + 1, ",cpu,") != NULL)) {
			free(*v1cpu);
			*v1cpu = xstrdup(c2 + 1);
		} else if (strcmp(c1 + 1, "memory") == 0) {
			free(*v1mem);
			*v1mem = xstrdup(c2 + 1);
		}
	}
	fclose(f);
}

/* v1's cpu quota in v2's spelling ("max 100000" or "200000 100000"), or
 * null. */
static json_t *
provenance_v1_cpu_max(const char *v1cpu)
{
	char path[PATH_MAX + 64], line[256], *quota, *period;
	json_t *j = json_null();

	if (v1cpu == NULL)
		return j;
	snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.cfs_quota_us", v1cpu);
	quota = provenance_read_line(path);
	snprintf(path, sizeof(path), "/sys/fs/cgroup/cpu%s/cpu.cfs_period_us", v1cpu);
	period = provenance_read_line(path);
	if (quota != NULL && period != NULL) {
		snprintf(line, sizeof(line), "%s %s",
		    strcmp(quota, "-1") == 0 ? "max" : quota, period);
		j = json_string(line);
	}
	free(quota);
	free(period);
	return j;
}

/* v1's memory limit, "max" for none (v1 spells it as a page-rounded
 * LONG_MAX), or null. */
static json_t *
provenance_v1_memory_max(const char *v1mem)
{
	char path[PATH_MAX + 64], *lim;

	if (v1mem == NULL)
		return json_null();
	snprintf(path, sizeof(path),
	    "/sys/fs/cgroup/memory%s/memory.limit_in_bytes", v1mem);
	lim = provenance_read_line(path);
	if (lim != NULL && strtoull(lim, NULL, 10) >= (1ULL << 62)) {
		free(lim);
		lim = xstrdup("max");
	}
	return provenance_string_or_null(lim);
}

/* Our cgroup's cpu and memory limits: v2 (cpu.max, memory.max), else the v1
 * equivalents, so a round run in a throttled container says so. */
static json_t *
provenance_cgroup(void)
{
	json_t *cg = json_object();
	char path[PATH_MAX + 64];
	char *v2 = NULL, *v1cpu = NULL, *v1mem = NULL;
	const char *root = NULL;

	provenance_cgroup_read(&v2, &v1cpu, &v1mem);
	if (access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0)
		root = "/sys/fs/cgroup";
	else if (access("/sys/fs/cgroup/unified/cgroup.controllers", F_OK) == 0)
		root = "/sys/fs/cgroup/unified";

	if (root != NULL && v2 != NULL && v1cpu == NULL && v1mem == NULL) {
		json_object_set_new(cg, "version", json_integer(2));
		json_object_set_new(cg, "path", json_string(v2));
		snprintf(path, sizeof(path), "%s%s/cpu.max", root, v2);
		json_object_set_new(cg, "cpu_max", provenance_file_string(path));
		snprintf(path, sizeof(path), "%s%s/memory.max", root, v2);
		json_object_set_new(cg, "memory_max", provenance_file_string(path));
	} else if (v1cpu != NULL || v1mem != NULL) {
		json_object_set_new(cg, "version", json_integer(1));
		json_object_set_new(cg, "path", json_string(v1mem != NULL ? v1mem : v1cpu));
		json_object_set_new(cg, "cpu_max", provenance_v1_cpu_max(v1cpu));
		json_object_set_new(cg, "memory_max",
		    provenance_v1_memory_max(v1mem));
	} else {
		json_object_set_new(cg, "version", json_null());
		json_object_set_new(cg, "path", v2 != NULL ? json_string(v2) : json_null());
		json_object_set_new(cg, "cpu_max", json_null());
		json_object_set_new(cg, "memory_max", json_null());
	}
	free(v2);
	free(v1cpu);
	free(v1mem);
	return cg;
}

static json_t *
provenance_swap(void)
{
	json_t *sw = json_object();
	char line[256];
	long long total = -1, sfree = -1, v;
	FILE *f = fopen("/proc/meminfo", "re");

	if (f != NULL) {
		while (fgets(line, sizeof(line), f) != NULL) {
			if (sscanf(line, "SwapTotal: %lld", &v) == 1)
				total = v;
			else if (sscanf(line, "SwapFree: %lld", &v) == 1)
				sfree = v;
		}
		fclose(f);
	}
	json_object_set_new(sw, "total_kb", total >= 0 ? json_integer(total) : json_null());
	json_object_set_new(sw, "used_kb", total >= 0 && sfree >= 0 ?
	    json_integer(total - sfree) : json_null());
	return sw;
}

static json_t *
provenance_loadavg(void)
{
	double l[3];
	FILE *f = fopen("/proc/loadavg", "re");
	int n;

	if (f == NULL)
		return json_null();
	n = fscanf(f, "%lf %lf %lf", &l[0], &l[1], &l[2]);
	fclose(f);
	if (n != 3)
		return json_null();
	return json_pack("[fff]", l[0], l[1], l[2]);
}

/* Open the events on ourselves (disabled, never enabled) to record which
 * ones this machine counts and whether paranoid forces user-space only. */
static void
provenance_probe_counters(json_t *obj, const char *const *names, int n)
{
	struct counters *c = counters_create(names, n);
	json_t *ev = json_object();

	if (c == NULL) {
		json_object_set_new(obj, "counters_user_only", json_null());
		json_object_set_new(obj, "counters_probe", ev);
		return;
	}
	counters_open(c, getpid());
	for (int i = 0; i < counters_count(c); i++) {
		int err = counters_errno(c, i);

		if (err == 0)
			json_object_set_new(ev, counters_name(c, i), json_string("ok"));
		else
			json_object_set_new(ev, counters_name(c, i), json_string(strerror(err)));
	}
	json_object_set_new(obj, "counters_user_only", json_boolean(counters_user_only(c)));
	json_object_set_new(obj, "counters_probe", ev);
	counters_read_close(c);
	counters_destroy(c);
}

json_t *
provenance_host(void)
{
	static const char *const probe[] = { "cycles", "instructions", "task-clock" };
	json_t *host = json_object();
	struct utsname u;
	char name[256];

	if (host == NULL)
		return NULL;
	if (uname(&u) == 0) {
		json_object_set_new(host, "kernel", json_string(u.release));
		json_object_set_new(host, "kernel_version", json_string(u.version));
		json_object_set_new(host, "arch", json_string(u.machine));
	} else {
		json_object_set_new(host, "kernel", json_null());
		json_object_set_new(host, "kernel_version", json_null());
		json_object_set_new(host, "arch", json_null());
	}
	if (gethostname(name, sizeof(name)) == 0) {
		name[sizeof(name) - 1] = '\0';
		json_object_set_new(host, "hostname", json_string(name));
	} else {
		json_object_set_new(host, "hostname", json_null());
	}
	provenance_cpuinfo(host);
	json_object_set_new(host, "cores_online",
	    json_integer(sysconf(_SC_NPROCESSORS_ONLN)));
	json_object_set_new(host, "cores_configured",
	    json_integer(sysconf(_SC_NPROCESSORS_CONF)));
	provenance_smt(host);
	json_object_set_new(host, "governor", provenance_governors());
	provenance_turbo(host);
	json_object_set_new(host, "perf_event_paranoid",
	    provenance_file_int("/proc/sys/kernel/perf_event_paranoid"));
	json_object_set_new(host, "euid", json_integer(geteuid()));
	json_object_set_new(host, "cgroup", provenance_cgroup());
	json_object_set_new(host, "swap", provenance_swap());
	json_object_set_new(host, "loadavg", provenance_loadavg());
	json_object_set_new(host, "benchtui_version", json_string(BENCHTUI_VERSION));
	json_object_set_new(host, "counter_backend", json_string(counters_backend()));
	provenance_probe_counters(host, probe, 3);
	return host;
}

static json_t *
provenance_str(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

/* This machine's entry of hosts[]: the facts environment.json holds at
 * its top, the binaries, the gate's settings. */
static json_t *
provenance_local(const json_t *env)
{
	static const char *const not_facts[] = { "bins", "settings", "round",
	    "warnings", "hosts", "time", "profilers", NULL };
	json_t *e = json_object(), *facts = json_object(), *v;
	const char *k;

	json_object_foreach((json_t *)env, k, v) {
		bool fact = true;

		for (size_t i = 0; not_facts[i] != NULL && fact; i++)
			fact = strcmp(k, not_facts[i]) != 0;
		if (fact)
			json_object_set(facts, k, v);
	}
	json_object_set_new(e, "host", json_null());
	json_object_set_new(e, "role", json_string("client"));
	json_object_set(e, "hostname", json_object_get(env, "hostname"));
	json_object_set_new(e, "facts", facts);
	json_object_set(e, "bins", json_object_get(env, "bins"));
	json_object_set(e, "quiet", json_object_get(json_object_get(env,
	    "settings"), "quiet"));
	return e;
}

static json_t *
provenance_settings(const struct spec *s)
{
	json_t *set = json_object();
	json_t *counters = json_array();

	json_object_set_new(set, "reps", json_integer(s->reps));
	json_object_set_new(set, "cpus", json_pack("{s:o,s:o}",
	    "client", provenance_str(s->client_cpus),
	    "server", provenance_str(s->server_cpus)));
	json_object_set_new(set, "nice", json_integer(s->nice));
	json_object_set_new(set, "settle_s", json_real(s->settle_s));
	json_object_set_new(set, "timeout_s", json_real(s->timeout_s));
	for (size_t i = 0; s->counters != NULL && i < s->ncounters; i++)
		json_array_append_new(counters, json_string(s->counters[i]));
	json_object_set_new(set, "counters", counters);
	json_object_set_new(set, "quiet", spec_quiet_json(&s->quiet));
	json_object_set_new(set, "workdir", provenance_str(s->workdir));
	json_object_set_new(set, "scratch", provenance_str(s->scratch));
	return set;
}

json_t *
provenance_collect(const struct spec *s, const char *round_dir)
{
	json_t *env = provenance_host();
	char ts[EVENT_TS_LEN];
	char *abs;

	if (env == NULL)
		return NULL;
	event_timestamp(ts);
	json_object_set_new(env, "time", json_string(ts));
	if (s == NULL)
		return env;
	abs = round_dir != NULL ? realpath(round_dir, NULL) : NULL;
	json_object_set_new(env, "round", json_pack("{s:o,s:o,s:o,s:s}",
	    "name", provenance_str(s->name),
	    "file", provenance_str(s->path),
	    "dir", provenance_str(abs != NULL ? abs : round_dir),
	    "spec_sha256", s->sha256));
	free(abs);
	json_object_set_new(env, "settings", provenance_settings(s));
	if (s->counters != NULL && s->ncounters > 0)
		provenance_probe_counters(env, (const char *const *)s->counters,
		    (int)s->ncounters);
	json_object_set_new(env, "bins", provenance_bins(s));
	if (s->profile != NULL)
		json_object_set_new(env, "profilers", profile_tools());
	json_object_set_new(env, "warnings", provenance_warnings(env));
	json_object_set_new(env, "hosts", json_pack("[o]",
	    provenance_local(env)));
	return env;
}

void
provenance_add_bin(json_t *bins, const char *prog, const char *workdir)
{
	char hex[DIGEST_HEX_LEN];
	char *found, *path;

	/* A program under the round folder is only known per leg; its legs
	 * record it. */
	if (prog == NULL || *prog == '\0' ||
	    strstr(prog, LEGCMD_NO_ROUND_DIR) != NULL)
		return;
	found = spec_resolve_program(prog, workdir);
	/* The file itself, symlinks and "./" resolved, so two spellings of one
	 * binary are one entry and the key names what was hashed. */
	path = found != NULL ? realpath(found, NULL) : NULL;
	free(found);
	if (path == NULL) {
		if (json_object_get(bins, prog) == NULL)
			json_object_set_new(bins, prog, json_null());
		return;
	}
	if (json_object_get(bins, path) == NULL) {
		if (digest_file(path, hex) == 0)
			json_object_set_new(bins, path, json_string(hex));
		else
			json_object_set_new(bins, path, json_null());
	}
	free(path);
}

/* Every program the round runs, as legcmd builds it for each cell and
 * arm (and each cell's server).  One that needs what only the run knows
 * (${ROUND_DIR}) is left out here: each leg line records the path it ran
 * as its bin. */
json_t *
provenance_bins(const struct spec *s)
{
	json_t *bins = json_object();

	if (s == NULL || bins == NULL)
		return bins;
	for (size_t c = 0; c < s->ncells; c++) {
		struct legcmd lc;
		char err[640];

		for (size_t i = 0; i < s->narms; i++) {
			struct legcmd_where w = { .spec = s, .cell = c, .arm = i,
			    .rep = 1 };

			if (legcmd_build(&w, &lc, err, sizeof err) == 0)
				provenance_add_bin(bins, lc.bin != NULL ? lc.bin :
				    lc.argv[0], s->workdir);
			legcmd_finish(&lc);
		}
		/* A server on another host: its agent hashes its binaries
		 * there (environment.json's hosts). */
		if (s->cells[c].server == NULL ||
		    spec_server_remote(s->cells[c].server))
			continue;
		/* A server per leg runs each arm's server_bin. */
		for (size_t i = 0; i < (spec_server_per_leg(s, &s->cells[c]) ?
		    s->narms : 1); i++) {
			bool per_leg = spec_server_per_leg(s, &s->cells[c]);

			if (legcmd_server(s, c, per_leg ? (int)i : -1, per_leg ?
			    1 : 0, NULL, &lc, err, sizeof err) == 0)
				provenance_add_bin(bins, lc.argv[0], s->workdir);
			legcmd_finish(&lc);
		}
	}
	return bins;
}

static void
provenance_governor_warnings(json_t *warn, const json_t *gov)
{
	const char *key;
	json_t *v;
	char msg[512];
	char list[256] = "";
	const char *first = NULL;
	bool mixed = false;
	int nbad = 0;

	if (!json_is_object(gov))
		return;
	json_object_foreach((json_t *)gov, key, v) {
		const char *g = json_string_value(v);

		/* "unknown": no cpufreq here (a VM); nothing to warn about. */
		if (g == NULL || strcmp(g, "performance") == 0 ||
		    strcmp(g, "unknown") == 0)
			continue;
		if (first == NULL)
			first = g;
		else if (strcmp(first, g) != 0)
			mixed = true;
		if (nbad < 8) {
			size_t l = strlen(list);
			snprintf(list + l, sizeof(list) - l, "%s%s", l > 0 ? ", " : "", key);
		}
		nbad++;
	}
	if (nbad == 0)
		return;
	snprintf(msg, sizeof(msg),
	    "cpu frequency governor is %s (not performance) on %s%s: "
	    "clock speed may vary between legs",
	    mixed ? "mixed" : first, list, nbad > 8 ? ", ..." : "");
	json_array_append_new(warn, json_string(msg));
}

json_t *
provenance_warnings(const json_t *host)
{
	json_t *warn = json_array();
	json_t *v;
	char msg[256];

	if (warn == NULL || !json_is_object(host))
		return warn;
	provenance_governor_warnings(warn, json_object_get(host, "governor"));
	if (json_is_true(json_object_get(host, "turbo"))) {
		const char *src = json_string_value(json_object_get(host, "turbo_source"));

		snprintf(msg, sizeof(msg),
		    "turbo/boost is on (%s): clock speed depends on temperature "
		    "and load", src != NULL ? src : "unknown source");
		json_array_append_new(warn, json_string(msg));
	}
	v = json_object_get(json_object_get(host, "swap"), "used_kb");
	if (json_is_integer(v) && json_integer_value(v) > 0) {
		snprintf(msg, sizeof(msg),
		    "swap in use (%lld kB): legs may page", (long long)json_integer_value(v));
		json_array_append_new(warn, json_string(msg));
	}
	v = json_object_get(host, "perf_event_paranoid");
	if (json_is_integer(v) && json_integer_value(v) > 1) {
		json_t *euid = json_object_get(host, "euid");

		if (!json_is_integer(euid) || json_integer_value(euid) != 0) {
			snprintf(msg, sizeof(msg),
			    "perf_event_paranoid is %lld for a non-root user: "
			    "counters count user space only",
			    (long long)json_integer_value(v));
			json_array_append_new(warn, json_string(msg));
		}
	}
	return warn;
}
