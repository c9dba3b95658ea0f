/* test: counters asan-covered */
/* Provenance and digest: the host facts have every key with the right type,
 * noise warnings follow from a crafted host object, bins hash every binary
 * once by its absolute path, and sha256 matches the published vectors. */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "counters.h"
#include "digest.h"
#include "provenance.h"
#include "spec.h"
#include "testutil.h"

static void
test_digest_vectors(void **state)
{
	char hex[DIGEST_HEX_LEN];

	(void)state;
	digest_buf("abc", 3, hex);
	assert_string_equal(hex,
	    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	digest_buf("", 0, hex);
	assert_string_equal(hex,
	    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void
test_digest_file(void **state)
{
	char path[] = "/tmp/benchtui-digest-XXXXXX";
	char fromfile[DIGEST_HEX_LEN], frombuf[DIGEST_HEX_LEN];
	size_t len = 200000; /* spans several 64 KiB chunks, and a partial one */
	unsigned char *buf = malloc(len);
	int fd = mkstemp(path);

	(void)state;
	assert_non_null(buf);
	assert_true(fd >= 0);
	for (size_t i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 7 + (i >> 9));
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
	assert_int_equal(digest_file(path, fromfile), 0);
	digest_buf(buf, len, frombuf);
	assert_string_equal(fromfile, frombuf);
	assert_int_equal(strlen(fromfile), 64);
	unlink(path);
	errno = 0;
	assert_int_equal(digest_file(path, fromfile), -1);
	assert_int_equal(errno, ENOENT);
	free(buf);
}

static void
assert_string_or_null(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (v == NULL)
		fail_msg("key %s missing", key);
	if (!json_is_string(v) && !json_is_null(v))
		fail_msg("key %s is neither a string nor null", key);
}

static void
test_host_keys(void **state)
{
	json_t *h = provenance_host();
	json_t *v, *gov, *cg, *sw;
	const char *key;

	(void)state;
	assert_non_null(h);
	assert_true(json_is_string(json_object_get(h, "kernel")));
	assert_true(json_is_string(json_object_get(h, "arch")));
	assert_true(json_is_string(json_object_get(h, "hostname")));
	assert_string_or_null(h, "cpu_model");
	v = json_object_get(h, "cores_online");
	assert_true(json_is_integer(v) && json_integer_value(v) >= 1);
	assert_string_or_null(h, "smt");
	v = json_object_get(h, "smt_active");
	assert_true(json_is_boolean(v) || json_is_null(v));
	gov = json_object_get(h, "governor");
	assert_true(json_is_object(gov));
	assert_true(json_object_size(gov) >= 1);
	json_object_foreach(gov, key, v) {
		assert_true(strncmp(key, "cpu", 3) == 0);
		assert_true(json_is_string(v));
	}
	v = json_object_get(h, "turbo");
	assert_true(json_is_boolean(v) || json_is_null(v));
	v = json_object_get(h, "perf_event_paranoid");
	assert_true(json_is_integer(v) || json_is_null(v));
	assert_int_equal(json_integer_value(json_object_get(h, "euid")), geteuid());
	cg = json_object_get(h, "cgroup");
	assert_true(json_is_object(cg));
	assert_string_or_null(cg, "cpu_max");
	assert_string_or_null(cg, "memory_max");
	sw = json_object_get(h, "swap");
	assert_true(json_is_object(sw));
	assert_true(json_is_integer(json_object_get(sw, "total_kb")));
	assert_true(json_is_integer(json_object_get(sw, "used_kb")));
	v = json_object_get(h, "loadavg");
	assert_true(json_is_array(v) && json_array_size(v) == 3);
	assert_true(json_is_real(json_array_get(v, 0)));
	assert_string_equal(json_string_value(json_object_get(h, "benchtui_version")),
	    BENCHTUI_VERSION);
	assert_string_equal(json_string_value(json_object_get(h, "counter_backend")),
	    counters_backend());
	assert_true(json_is_boolean(json_object_get(h, "counters_user_only")));
	v = json_object_get(h, "counters_probe");
	assert_true(json_is_object(v));
	/* Software events work on every Linux this runs on. */
	assert_string_equal(json_string_value(json_object_get(v, "task-clock")), "ok");
	assert_true(json_is_string(json_object_get(v, "cycles")));
	json_decref(h);
}

static json_t *
warnings_of(const char *host_json)
{
	json_error_t err;
	json_t *h = json_loads(host_json, 0, &err);
	json_t *w;

	assert_non_null(h);
	w = provenance_warnings(h);
	json_decref(h);
	assert_true(json_is_array(w));
	return w;
}

/* The host's warnings are n, and (when a is not NULL) one of them says a,
 * and b too when b is not NULL. */
static void
expect_warnings(const char *host_json, size_t n, const char *a,
    const char *b)
{
	json_t *w = warnings_of(host_json);

	assert_int_equal(json_array_size(w), n);
	if (a != NULL)
		assert_true(tu_has_string(w, a, b));
	json_decref(w);
}

static void
test_warnings(void **state)
{
	json_t *w;

	(void)state;
	/* A quiet, well-set machine: nothing to say. */
	expect_warnings("{\"governor\": {\"cpu0\": \"performance\", \"cpu1\": \"performance\"},"
	    " \"turbo\": false, \"swap\": {\"total_kb\": 1024, \"used_kb\": 0},"
	    " \"perf_event_paranoid\": 2, \"euid\": 0}", 0, NULL, NULL);

	/* A VM without cpufreq: unknown governor, unknown turbo, no swap. */
	expect_warnings("{\"governor\": {\"cpu0\": \"unknown\"}, \"turbo\": null,"
	    " \"swap\": {\"total_kb\": 0, \"used_kb\": 0}, \"perf_event_paranoid\": 1,"
	    " \"euid\": 1000}", 0, NULL, NULL);

	w = warnings_of("{\"governor\": {\"cpu0\": \"performance\", \"cpu1\": \"powersave\"}}");
	assert_int_equal(json_array_size(w), 1);
	assert_true(tu_has_string(w, "powersave", "cpu1"));
	assert_false(tu_has_string(w, "cpu0", NULL));
	json_decref(w);

	expect_warnings("{\"turbo\": true, \"turbo_source\": \"cpufreq/boost\"}",
	    1, "turbo", "cpufreq/boost");
	expect_warnings("{\"swap\": {\"total_kb\": 1000, \"used_kb\": 12}}", 1,
	    "swap", "12");
	expect_warnings("{\"perf_event_paranoid\": 2, \"euid\": 1000}", 1,
	    "perf_event_paranoid", "2");
	expect_warnings("{\"perf_event_paranoid\": 1, \"euid\": 1000}", 0, NULL,
	    NULL);

	/* All four at once, each once. */
	expect_warnings("{\"governor\": {\"cpu0\": \"ondemand\", \"cpu1\": \"ondemand\"},"
	    " \"turbo\": true, \"swap\": {\"total_kb\": 10, \"used_kb\": 5},"
	    " \"perf_event_paranoid\": 3, \"euid\": 1000}", 4, "ondemand",
	    "cpu0, cpu1");

	/* Not an object: an empty array, not a crash. */
	w = provenance_warnings(NULL);
	assert_true(json_is_array(w) && json_array_size(w) == 0);
	json_decref(w);
}

struct fixture {
	char dir[64];
	char prog[128];
	char *command[4];
	char *srvcmd[3];
	char *srvtpl[2];
	char *counters[3];
	struct spec_arm arms[3];
	struct spec_server server, server_tpl;
	struct spec_cell cells[2];
	struct spec s;
};

static void
fixture_make(struct fixture *f)
{

	memset(f, 0, sizeof(*f));
	strcpy(f->dir, "/tmp/benchtui-prov-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->prog, sizeof(f->prog), "%s/prog", f->dir);
	tu_put(NULL, f->prog, "#!/bin/sh\nexit 0\n");
	assert_int_equal(chmod(f->prog, 0755), 0);

	f->command[0] = "${BIN}";
	f->command[1] = "-q";
	f->command[2] = NULL;
	f->srvcmd[0] = "./prog";
	f->srvcmd[1] = "--serve";
	f->srvtpl[0] = "${SERVER}";
	f->counters[0] = "task-clock";
	f->counters[1] = "cycles";
	f->server = (struct spec_server){ .cmd = f->srvcmd, .ncmd = 2, .tcp_port = 9 };
	f->server_tpl = (struct spec_server){ .cmd = f->srvtpl, .ncmd = 1, .tcp_port = 9 };
	f->arms[0] = (struct spec_arm){ .name = "base" };
	f->arms[1] = (struct spec_arm){ .name = "sys", .bin = "/bin/sh", .vs = "base" };
	f->arms[2] = (struct spec_arm){ .name = "aa", .vs = "base", .aa_of = "base" };
	f->cells[0] = (struct spec_cell){ .name = "c1", .server = &f->server };
	f->cells[1] = (struct spec_cell){ .name = "c2", .server = &f->server_tpl };
	f->s = (struct spec){
		.path = "/nonexistent/round.json",
		.sha256 = "00",
		.name = "prov",
		.reps = 3,
		.bin = "./prog",
		.command = f->command,
		.ncommand = 2,
		.baseline = "base",
		.arms = f->arms,
		.narms = 3,
		.cells = f->cells,
		.ncells = 2,
		.workdir = f->dir,
		.client_cpus = "0",
		.nice = 5,
		.settle_s = 0.5,
		.timeout_s = 10,
		.counters = f->counters,
		.ncounters = 2,
		.quiet = { .enabled = true, .max_foreign_cores = 0.25,
			.window_ms = 300, .timeout_s = 30, .abort_on_timeout = false },
	};
}

static void
fixture_remove(struct fixture *f)
{
	unlink(f->prog);
	rmdir(f->dir);
}

static void
test_bins(void **state)
{
	struct fixture f;
	char hex[DIGEST_HEX_LEN];
	json_t *bins, *v;
	const char *key;
	int found_prog = 0;

	(void)state;
	fixture_make(&f);
	bins = provenance_bins(&f.s);
	assert_true(json_is_object(bins));
	/* ./prog (round bin, aa arm, c1's server: one entry) and /bin/sh
	 * (by its real path); c2's templated server is known only per leg. */
	assert_int_equal(json_object_size(bins), 2);
	json_object_foreach(bins, key, v) {
		assert_true(key[0] == '/');
		assert_true(json_is_string(v));
		assert_int_equal(digest_file(key, hex), 0);
		assert_string_equal(json_string_value(v), hex);
		found_prog += strcmp(key, f.prog) == 0;
	}
	assert_int_equal(found_prog, 1);
	json_decref(bins);

	/* No bin anywhere and a templated command[0]: nothing to hash. */
	f.s.bin = NULL;
	f.arms[1].bin = NULL;
	f.cells[0].server = NULL;
	bins = provenance_bins(&f.s);
	assert_int_equal(json_object_size(bins), 0);
	json_decref(bins);

	/* No bin, but a plain command[0] resolved through PATH. */
	f.command[0] = "sh";
	bins = provenance_bins(&f.s);
	assert_int_equal(json_object_size(bins), 1);
	json_decref(bins);
	fixture_remove(&f);
}

static void
test_collect(void **state)
{
	struct fixture f;
	json_t *env, *set, *v;

	(void)state;
	fixture_make(&f);
	env = provenance_collect(&f.s, f.dir);
	assert_non_null(env);
	/* host facts at the top level */
	assert_true(json_is_string(json_object_get(env, "kernel")));
	assert_true(json_is_string(json_object_get(env, "counter_backend")));
	assert_true(json_is_string(json_object_get(env, "time")));
	assert_int_equal(strlen(json_string_value(json_object_get(env, "time"))), 24);
	v = json_object_get(env, "round");
	assert_string_equal(json_string_value(json_object_get(v, "name")), "prov");
	assert_string_equal(json_string_value(json_object_get(v, "dir")), f.dir);
	set = json_object_get(env, "settings");
	assert_true(json_is_object(set));
	assert_int_equal(json_integer_value(json_object_get(set, "reps")), 3);
	assert_int_equal(json_integer_value(json_object_get(set, "nice")), 5);
	assert_true(json_real_value(json_object_get(set, "settle_s")) == 0.5);
	assert_true(json_real_value(json_object_get(set, "timeout_s")) == 10.0);
	assert_string_equal(json_string_value(json_object_get(set, "workdir")), f.dir);
	assert_string_equal(json_string_value(
	    json_object_get(json_object_get(set, "cpus"), "client")), "0");
	assert_true(json_is_null(json_object_get(json_object_get(set, "cpus"), "server")));
	v = json_object_get(set, "counters");
	assert_int_equal(json_array_size(v), 2);
	assert_string_equal(json_string_value(json_array_get(v, 1)), "cycles");
	v = json_object_get(set, "quiet");
	assert_true(json_is_true(json_object_get(v, "enabled")));
	assert_int_equal(json_integer_value(json_object_get(v, "window_ms")), 300);
	assert_string_equal(json_string_value(json_object_get(v, "on_timeout")), "proceed");
	/* the round's own counters were probed */
	v = json_object_get(env, "counters_probe");
	assert_string_equal(json_string_value(json_object_get(v, "task-clock")), "ok");
	assert_int_equal(json_object_size(v), 2);
	assert_int_equal(json_object_size(json_object_get(env, "bins")), 2);
	assert_true(json_is_array(json_object_get(env, "warnings")));
	json_decref(env);

	f.s.quiet.enabled = false;
	env = provenance_collect(&f.s, f.dir);
	v = json_object_get(json_object_get(env, "settings"), "quiet");
	assert_true(json_is_false(json_object_get(v, "enabled")));
	json_decref(env);
	fixture_remove(&f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest_vectors),
		cmocka_unit_test(test_digest_file),
		cmocka_unit_test(test_host_keys),
		cmocka_unit_test(test_warnings),
		cmocka_unit_test(test_bins),
		cmocka_unit_test(test_collect),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
