/* test: */
/* Round files: every field with a valid value (read back), and the table of
 * broken rounds in tests/data/rounds/bad (EXPECT: file, then the text the
 * message must hold after "FILE: "), which check_examples.sh also runs
 * through the binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config.h"
#include "counters.h"
#include "digest.h"
#include "spec.h"
#include "testutil.h"

/* Parsed as if it were /tmp/inline.json, so the default workdir is /tmp. */
#define INLINE_PATH "/tmp/inline.json"

/* A round file as check, run and resume take it: parsed, then every
 * command built (spec_check_commands); NULL in *out on either error. */
static int
test_spec_parse(const char *text, size_t len, const char *path,
    const char *workdir, struct spec **out, char *err, size_t errlen)
{
	if (spec_parse(text, len, path, workdir, out, err, errlen) != 0)
		return -1;
	if (spec_check_commands(*out, err, errlen) != 0) {
		spec_destroy(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

#define BASE_HEAD \
	"{\"name\": \"r\", \"reps\": 3, \"bin\": \"/bin/true\"," \
	" \"command\": [\"${BIN}\", \"${IN}\"], \"baseline\": \"a\"," \
	" \"vars\": {\"IN\": \"in\"},"
#define BASE_ARMS \
	" \"arms\": [{\"name\": \"a\"}, {\"name\": \"b\", \"env\": {\"K\": \"1\"}}],"
#define BASE_CELLS " \"cells\": [{\"name\": \"c\"}]"

static struct spec *
load_ok(const char *text)
{
	return tu_spec(text, INLINE_PATH);
}

static void
test_minimal_defaults(void **state)
{
	static const char text[] = BASE_HEAD BASE_ARMS BASE_CELLS "}";
	struct spec *s = load_ok(text);
	char hex[DIGEST_HEX_LEN];

	(void)state;
	assert_string_equal(s->name, "r");
	assert_int_equal(s->reps, 3);
	assert_string_equal(s->bin, "/bin/true");
	assert_int_equal(s->ncommand, 2);
	assert_string_equal(s->command[1], "${IN}"); /* kept unexpanded */
	assert_null(s->command[2]);
	assert_int_equal(s->narms, 2);
	assert_int_equal(s->ncells, 1);
	assert_string_equal(s->workdir, "/tmp");
	assert_null(s->client_cpus);
	assert_null(s->server_cpus);
	assert_int_equal(s->nice, 0);
	assert_true(s->settle_s == 0);
	assert_true(s->timeout_s == 0);
	/* The machine's default: what it counts, never n/a by default. */
	assert_false(s->counters_given);
	assert_null(s->counters[s->ncounters]);
	assert_null(counters_default()[s->ncounters]);
	for (size_t i = 0; i < s->ncounters; i++)
		assert_string_equal(s->counters[i], counters_default()[i]);
	assert_true(s->ncounters == 2 || s->ncounters == 3);
	assert_true(s->quiet.enabled);
	assert_true(s->quiet.max_foreign_cores == 0.25);
	assert_int_equal(s->quiet.window_ms, 1000);
	assert_true(s->quiet.timeout_s == 300);
	assert_false(s->quiet.abort_on_timeout);
	assert_null(s->scratch);
	assert_null(s->cells[0].server);
	/* raw bytes kept exactly, and their digest */
	assert_int_equal(s->rawlen, strlen(text));
	assert_memory_equal(s->raw, text, s->rawlen);
	digest_buf(text, strlen(text), hex);
	assert_string_equal(s->sha256, hex);
	assert_string_equal(s->path, INLINE_PATH);
	spec_destroy(s);
	spec_destroy(NULL);
}

static void
test_arms(void **state)
{
	static const char text[] = BASE_HEAD
	    " \"arms\": [{\"name\": \"a\", \"env\": {\"K\": \"0\", \"L\": \"x\"}},"
	    "  {\"name\": \"b\", \"env\": {\"K\": \"1\"}, \"bin\": \"/bin/echo\"},"
	    "  {\"name\": \"c-2\", \"vs\": \"b\"},"
	    "  {\"name\": \"aa\", \"aa_of\": \"a\"},"
	    "  {\"name\": \"bb\", \"aa_of\": \"b\"}],"
	    BASE_CELLS "}";
	struct spec *s = load_ok(text);
	const struct spec_arm *a = s->arms;

	(void)state;
	assert_int_equal(s->narms, 5);
	assert_null(a[0].vs);                  /* the baseline */
	assert_null(a[0].aa_of);
	assert_string_equal(a[1].vs, "a");     /* vs defaults to the baseline */
	assert_string_equal(a[1].bin, "/bin/echo");
	assert_string_equal(a[2].vs, "b");
	/* an A/A arm copies its twin's env and bin and is compared with it */
	assert_string_equal(a[3].aa_of, "a");
	assert_string_equal(a[3].vs, "a");
	assert_int_equal(a[3].nenv, 2);
	assert_string_equal(a[3].env[0].key, "K");
	assert_string_equal(a[3].env[0].val, "0");
	assert_string_equal(a[3].env[1].key, "L");
	assert_null(a[3].bin);
	assert_string_equal(a[4].bin, "/bin/echo");
	assert_string_equal(a[4].env[0].val, "1");
	assert_string_equal(spec_arm_bin(s, &a[0]), "/bin/true");
	assert_string_equal(spec_arm_bin(s, &a[4]), "/bin/echo");
	assert_int_equal(spec_arm_index(s, "c-2"), 2);
	assert_int_equal(spec_arm_index(s, "bb"), 4);
	assert_int_equal(spec_arm_index(s, "zz"), -1);
	assert_int_equal(spec_cell_index(s, "c"), 0);
	assert_int_equal(spec_cell_index(s, "a"), -1);
	spec_destroy(s);
}

static const char rich_text[] = BASE_HEAD BASE_ARMS
    " \"cells\": [{\"name\": \"c\", \"vars\": {\"IN\": \"cell-in\", \"N\": \"${CELL}\"}},"
    "  {\"name\": \"srv\", \"server\": {\"cmd\": [\"/bin/sleep\", \"${IN}\"],"
    "    \"cpus\": \"1\", \"env\": {\"P\": \"9\"},"
    "    \"ready\": {\"tcp_port\": 8080, \"timeout_s\": 2.5}}},"
    "  {\"name\": \"srv2\", \"server\": {\"cmd\": [\"/bin/sleep\"],"
    "    \"ready\": {\"tcp_port\": 1}}}],"
    " \"workdir\": \"/\", \"cpus\": {\"client\": \"0\", \"server\": \"1-2,5\"},"
    " \"nice\": -5, \"settle_s\": 0.5, \"timeout_s\": 30,"
    " \"counters\": [\"task-clock\", \"page-faults\"],"
    " \"quiet\": {\"max_foreign_cores\": 0.5, \"window_ms\": 250,"
    "   \"timeout_s\": 10, \"on_timeout\": \"abort\"},"
    " \"scratch\": \"scratch/${ARM}\", \"comment\": \"ignored\"}";

static void
test_optional_fields(void **state)
{
	struct spec *s = load_ok(rich_text);
	const struct spec_server *srv;

	(void)state;
	assert_string_equal(s->workdir, "/");
	assert_string_equal(s->client_cpus, "0");
	assert_string_equal(s->server_cpus, "1-2,5");
	assert_int_equal(s->nice, -5);
	assert_true(s->settle_s == 0.5);
	assert_true(s->timeout_s == 30);
	assert_int_equal(s->ncounters, 2);
	assert_true(s->counters_given);
	assert_string_equal(s->counters[1], "page-faults");
	assert_true(s->quiet.enabled);
	assert_true(s->quiet.max_foreign_cores == 0.5);
	assert_int_equal(s->quiet.window_ms, 250);
	assert_true(s->quiet.timeout_s == 10);
	assert_true(s->quiet.abort_on_timeout);
	assert_string_equal(s->scratch, "scratch/${ARM}");
	assert_int_equal(s->cells[0].nvars, 2);
	assert_string_equal(s->cells[0].vars[1].val, "${CELL}");
	srv = s->cells[1].server;
	assert_non_null(srv);
	assert_int_equal(srv->ncmd, 2);
	assert_string_equal(srv->cmd[0], "/bin/sleep");
	assert_null(srv->cmd[2]);
	assert_string_equal(srv->cpus, "1");
	assert_string_equal(srv->env[0].key, "P");
	assert_int_equal(srv->tcp_port, 8080);
	assert_true(srv->ready_timeout_s == 2.5);
	srv = s->cells[2].server;
	assert_null(srv->cpus);
	assert_int_equal(srv->nenv, 0);
	assert_true(srv->ready_timeout_s == 30);
	spec_destroy(s);
}

/* Arm vars (arrays that splice), a matrix's cells in product order, and
 * warmup, prepare and output with their defaults. */
static void
test_newcomer_fields(void **state)
{
	static const char text[] =
	    "{\"name\": \"r\", \"reps\": 2, \"bin\": \"/bin/true\","
	    " \"command\": [\"${BIN}\", \"${FLAGS}\", \"${S}\"],"
	    " \"baseline\": \"a\", \"warmup\": 2,"
	    " \"prepare\": [\"/bin/sync\", \"${CELL}\"],"
	    " \"output\": {\"keep\": \"none\", \"max_bytes\": 1024},"
	    " \"arms\": [{\"name\": \"a\", \"vars\": {\"FLAGS\": []}},"
	    "  {\"name\": \"b\", \"vars\": {\"FLAGS\": [\"-9\", \"-T${S}\"]}},"
	    "  {\"name\": \"aa\", \"aa_of\": \"b\"}],"
	    " \"cells\": [{\"name\": \"first\", \"vars\": {\"S\": \"0\", \"C\": \"0\"}}],"
	    " \"matrix\": {\"name\": \"s${S}-c${C}\","
	    "   \"vars\": {\"S\": [\"1\", \"2\"], \"C\": [\"x\", \"y\", \"z\"]}}}";
	static const char *const names[] = { "first", "s1-cx", "s1-cy",
	    "s1-cz", "s2-cx", "s2-cy", "s2-cz" };
	struct spec *s = load_ok(text);

	(void)state;
	assert_int_equal(s->warmup, 2);
	assert_int_equal(s->nprepare, 2);
	assert_string_equal(s->prepare[1], "${CELL}");
	assert_false(s->output_keep);
	assert_int_equal(s->output_max_bytes, 1024);
	assert_int_equal(s->arms[0].nvars, 1);
	assert_non_null(s->arms[0].vars[0].list);
	assert_int_equal(s->arms[0].vars[0].nlist, 0);
	assert_null(s->arms[0].vars[0].val);
	assert_int_equal(s->arms[1].vars[0].nlist, 2);
	assert_string_equal(s->arms[1].vars[0].list[1], "-T${S}");
	/* the A/A copy takes its twin's vars */
	assert_int_equal(s->arms[2].nvars, 1);
	assert_string_equal(s->arms[2].vars[0].list[0], "-9");
	assert_int_equal(s->ncells, 7);
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(s->cells[i].name, names[i]);
	assert_string_equal(s->cells[6].vars[0].key, "S");
	assert_string_equal(s->cells[6].vars[0].val, "2");
	assert_string_equal(s->cells[6].vars[1].val, "z");
	spec_destroy(s);

	/* defaults */
	s = load_ok(BASE_HEAD BASE_ARMS BASE_CELLS "}");
	assert_int_equal(s->warmup, 0);
	assert_null(s->prepare);
	assert_true(s->output_keep);
	assert_int_equal(s->output_max_bytes, 8 << 20);
	spec_destroy(s);

	/* a matrix alone makes the cells */
	s = load_ok(BASE_HEAD BASE_ARMS
	    " \"matrix\": {\"name\": \"n${N}\", \"vars\": {\"N\": [\"1\", \"2\"]}}}");
	assert_int_equal(s->ncells, 2);
	assert_string_equal(s->cells[1].name, "n2");
	spec_destroy(s);

	/* a cell named as the matrix's stand-in name, and a matrix whose
	 * names are that stand-in: neither is a duplicate */
	s = load_ok(BASE_HEAD BASE_ARMS
	    " \"cells\": [{\"name\": \"x\"}],"
	    " \"matrix\": {\"name\": \"n${N}\", \"vars\": {\"N\": [\"1\", \"2\"]}}}");
	assert_int_equal(s->ncells, 3);
	spec_destroy(s);
	s = load_ok(BASE_HEAD BASE_ARMS
	    " \"matrix\": {\"name\": \"${N}\", \"vars\": {\"N\": [\"x\", \"y\"]}}}");
	assert_string_equal(s->cells[0].name, "x");
	assert_string_equal(s->cells[1].name, "y");
	spec_destroy(s);
}

static void
test_quiet_switch(void **state)
{
	static const char off[] = BASE_HEAD BASE_ARMS BASE_CELLS
	    ", \"quiet\": false}";
	static const char on[] = BASE_HEAD BASE_ARMS BASE_CELLS
	    ", \"quiet\": true}";
	static const char part[] = BASE_HEAD BASE_ARMS BASE_CELLS
	    ", \"quiet\": {\"window_ms\": 100}}";
	struct spec *s;

	(void)state;
	s = load_ok(off);
	assert_false(s->quiet.enabled);
	spec_destroy(s);
	s = load_ok(on);
	assert_true(s->quiet.enabled);
	assert_int_equal(s->quiet.window_ms, 1000);
	spec_destroy(s);
	s = load_ok(part);
	assert_int_equal(s->quiet.window_ms, 100);
	assert_true(s->quiet.max_foreign_cores == 0.25);
	assert_true(s->quiet.timeout_s == 300);
	spec_destroy(s);
}

static void
test_workdir(void **state)
{
	static const char rel[] = BASE_HEAD BASE_ARMS BASE_CELLS
	    ", \"workdir\": \"..\"}";
	struct spec *s = NULL;
	char err[512];
	const char *src = getenv("BENCHTUI_SOURCE_DIR");
	char path[4096], want[4096];

	(void)state;
	/* relative to the round file's folder, made absolute */
	s = load_ok(rel);
	assert_string_equal(s->workdir, "/");
	spec_destroy(s);
	/* an override (resume's recorded workdir) wins over the file */
	assert_int_equal(test_spec_parse(rel, strlen(rel), INLINE_PATH, "/usr",
	    &s, err, sizeof err), 0);
	assert_string_equal(s->workdir, "/usr");
	spec_destroy(s);
	assert_int_equal(test_spec_parse(rel, strlen(rel), INLINE_PATH,
	    "/no/such/dir", &s, err, sizeof err), -1);
	assert_null(s);
	assert_non_null(strstr(err, "workdir"));
	/* spec_load: the default is the folder the round file is in */
	if (src == NULL)
		skip();
	snprintf(path, sizeof path, "%s/assets/rounds/zstd-levels.json", src);
	snprintf(want, sizeof want, "%s/assets/rounds", src);
	assert_int_equal(spec_load(path, NULL, &s, err, sizeof err), 0);
	{
		char *real = realpath(want, NULL);

		assert_string_equal(s->workdir, real);
		free(real);
	}
	spec_destroy(s);
	assert_int_equal(spec_load("/no/such/round.json", NULL, &s, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "/no/such/round.json: cannot open"));
}

/* Reading a round file builds no command: a template that no longer
 * expands (a round recorded by another version, a program that does not
 * exist here) still reads, for report and --replay; check, run and
 * resume refuse it through spec_check_commands. */
static void
test_parse_builds_no_command(void **state)
{
	static const char text[] = "{\"name\": \"r\", \"reps\": 1, "
	    "\"command\": [\"no-such-program-here\", \"${NOPE}\"], "
	    "\"baseline\": \"a\", \"arms\": [{\"name\": \"a\"}], "
	    "\"cells\": [{\"name\": \"c\"}]}";
	struct spec *s = NULL;
	char err[1024];

	(void)state;
	assert_int_equal(spec_parse(text, strlen(text), INLINE_PATH, NULL, &s,
	    err, sizeof err), 0);
	assert_int_equal(spec_check_commands(s, err, sizeof err), -1);
	assert_non_null(strstr(err, INLINE_PATH ": command[1]:"));
	assert_non_null(strstr(err, "NOPE"));
	spec_destroy(s);
}

/* Each broken file must fail in spec_load (or, for its commands,
 * spec_check_commands, or for facts of this machine, spec_check_host)
 * with "FILE: " and the expected text. */
static void
test_bad_table(void **state)
{
	const char *src = getenv("BENCHTUI_SOURCE_DIR");
	char dir[4096], path[4096 + 256], line[1024];
	FILE *ex;
	int n = 0;

	(void)state;
	if (src == NULL)
		src = BENCHTUI_SOURCE_DIR;
	snprintf(dir, sizeof dir, "%s/tests/data/rounds/bad", src);
	snprintf(path, sizeof path, "%s/EXPECT", dir);
	ex = fopen(path, "r");
	assert_non_null(ex);
	while (fgets(line, sizeof line, ex) != NULL) {
		char *tab = strchr(line, '\t'), err[1024], want[1200];
		struct spec *s = NULL;
		int rc;

		assert_non_null(tab);
		*tab = '\0';
		tab[1 + strcspn(tab + 1, "\n")] = '\0';
		if (snprintf(path, sizeof path, "%s/%s", dir, line) >=
		    (int)sizeof path)
			fail_msg("path too long");
		rc = spec_load(path, NULL, &s, err, sizeof err);
		if (rc == 0) {
			rc = spec_check_commands(s, err, sizeof err);
			if (rc == 0)
				rc = spec_check_host(s, err, sizeof err);
			spec_destroy(s);
		} else
			assert_null(s);
		if (rc == 0)
			fail_msg("%s: loaded, but should fail with \"%s\"",
			    line, tab + 1);
		if (snprintf(want, sizeof want, "%s: %s", path, tab + 1) >=
		    (int)sizeof want)
			fail_msg("message too long");
		if (strstr(err, want) == NULL)
			fail_msg("%s:\n  got:  %s\n  want: %s", line, err, want);
		n++;
	}
	fclose(ex);
	assert_true(n >= 25);
	print_message("%d broken rounds rejected with the right field\n", n);
}

static void
test_cpulist(void **state)
{
	static const struct {
		const char *list;
		int rc;
		const char *mask; /* 8 cpus, '1' where set */
	} t[] = {
		{ "0", 0, "10000000" },
		{ "0-3", 0, "11110000" },
		{ "0-1,5", 0, "11000100" },
		{ "7", 0, "00000001" },
		{ "2-2,4-5", 0, "00101100" },
		{ "8", -1, NULL },
		{ "0-8", -1, NULL },
		{ "", -1, NULL },
		{ "3-1", -1, NULL },
		{ "0,", -1, NULL },
		{ ",0", -1, NULL },
		{ "0-", -1, NULL },
		{ "a", -1, NULL },
		{ "0 1", -1, NULL },
		{ "-1", -1, NULL },
	};
	unsigned char mask[8];

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		int rc = spec_cpulist_parse(t[i].list, mask, 8);

		if (rc != t[i].rc)
			fail_msg("\"%s\": rc %d", t[i].list, rc);
		for (int c = 0; t[i].mask && c < 8; c++)
			assert_int_equal(mask[c], t[i].mask[c] == '1');
	}
}

static void
test_names(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{ "a", true }, { "Z9", true }, { "l3", true }, { "x_y-z", true },
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", true }, /* 49 */
		{ "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false }, /* 50 */
		{ "", false }, { "1a", false }, { "_a", false }, { "-a", false },
		{ "a b", false }, { "a/b", false }, { "a.b", false }, { "..", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (spec_name_valid(t[i].name) != t[i].ok)
			fail_msg("spec_name_valid(\"%s\") != %d", t[i].name,
			    t[i].ok);
}

static void
test_resolve_program(void **state)
{
	char *p;

	(void)state;
	p = spec_resolve_program("/bin/sh", "/");
	assert_string_equal(p, "/bin/sh");
	free(p);
	/* relative paths are against the workdir, not the current folder */
	p = spec_resolve_program("bin/sh", "/");
	assert_string_equal(p, "/bin/sh");
	free(p);
	p = spec_resolve_program("./sh", "/bin");
	assert_string_equal(p, "/bin/./sh");
	free(p);
	assert_null(spec_resolve_program("bin/sh", "/tmp/no-such"));
	/* bare names go through PATH */
	setenv("PATH", "/nonexistent:/bin", 1);
	p = spec_resolve_program("sh", "/");
	assert_string_equal(p, "/bin/sh");
	free(p);
	/* a relative PATH entry is relative to the workdir, as for the leg */
	setenv("PATH", "usr/nonexistent:bin", 1);
	p = spec_resolve_program("sh", "/");
	assert_string_equal(p, "/bin/sh");
	free(p);
	assert_null(spec_resolve_program("no-such-program-xyz", "/"));
	assert_null(spec_resolve_program("", "/"));
	/* a folder is not a program */
	assert_null(spec_resolve_program("/bin", "/"));
}

static void
test_host_check(void **state)
{
	static const char text[] = BASE_HEAD BASE_ARMS BASE_CELLS
	    ", \"cpus\": {\"client\": \"0\"}}";
	struct spec *s = load_ok(text);
	char err[512];

	(void)state;
	assert_int_equal(spec_check_host(s, err, sizeof err), 0);
	spec_destroy(s);
}

/* Parser robustness: thousands of damaged copies of real rounds (bytes
 * changed, dropped, truncated) must each load or fail cleanly; run under
 * ASan/UBSan this catches a bad read or leak on any error path. */
static int
mutate_and_parse(const char *text, size_t len, const char *path, int rounds)
{
	static const char alphabet[] = "{}[]\",:0-9aA$ \\\n";
	uint64_t seed = 20261129;
	char err[1024], *m = malloc(len + 1);
	int loaded = 0;

	assert_non_null(m);
	for (int i = 0; i < rounds; i++) {
		struct spec *s = NULL;
		size_t n = len;
		int edits = 1 + i % 4;

		memcpy(m, text, len);
		for (int e = 0; e < edits && n > 1; e++) {
			size_t at;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			at = (size_t)(seed >> 33) % n;
			switch ((seed >> 20) % 3) {
			case 0: /* replace a byte */
				m[at] = alphabet[(seed >> 8) % (sizeof alphabet - 1)];
				break;
			case 1: /* drop a byte */
				memmove(m + at, m + at + 1, n - at - 1);
				n--;
				break;
			default: /* truncate */
				n = at + 1;
				break;
			}
		}
		if (test_spec_parse(m, n, path, NULL, &s, err, sizeof err) == 0) {
			loaded++;
			spec_destroy(s);
		} else {
			assert_null(s);
			assert_non_null(strstr(err, path));
		}
	}
	free(m);
	return loaded;
}

static void
test_mutations(void **state)
{
	const char *src = getenv("BENCHTUI_SOURCE_DIR");
	char path[4096], *text;
	size_t len;
	FILE *f;
	int a, b;

	(void)state;
	if (src == NULL)
		src = BENCHTUI_SOURCE_DIR;
	snprintf(path, sizeof path, "%s/tests/data/rounds/good/runs-nothing.json",
	    src);
	f = fopen(path, "rb");
	assert_non_null(f);
	text = malloc(1 << 16);
	assert_non_null(text);
	len = fread(text, 1, 1 << 16, f);
	fclose(f);
	a = mutate_and_parse(text, len, path, 3000);
	b = mutate_and_parse(rich_text, strlen(rich_text), INLINE_PATH, 3000);
	print_message("6000 damaged rounds: %d still valid, the rest "
	    "rejected\n", a + b);
	assert_true(a + b < 6000);
	free(text);
}

/* A plan too large to hold, or a command the kernel cannot exec, is an
 * error naming the fields at load (check), before any folder is made. */
static void
test_size_limits(void **state)
{
	char err[1024], *text;
	struct spec *s = NULL;
	size_t n;

	(void)state;
	/* reps x arms x cells past SPEC_LEGS_MAX */
	text = malloc(64 * 1024);
	n = (size_t)snprintf(text, 64 * 1024, "{\"name\": \"r\", \"reps\": "
	    "100000, \"command\": [\"/bin/true\"], \"baseline\": \"a0\", "
	    "\"cells\": [{\"name\": \"c\"}], \"arms\": [");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(text + n, 64 * 1024 - n,
		    "%s{\"name\": \"a%d\"}", i ? ", " : "", i);
	snprintf(text + n, 64 * 1024 - n, "]}");
	assert_int_equal(test_spec_parse(text, strlen(text), INLINE_PATH, NULL, &s,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "reps (100000) x arms (20) x cells (1)"));
	free(text);

	/* One argument past the kernel's 32 pages: 50 * 8^4 bytes. */
	static const char big[] = "{\"name\": \"r\", \"reps\": 1, "
	    "\"command\": [\"/bin/true\", \"${V4}\"], \"baseline\": \"a\", "
	    "\"arms\": [{\"name\": \"a\"}], \"cells\": [{\"name\": \"c\"}], "
	    "\"vars\": {\"V0\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\", "
	    "\"V1\": \"${V0}${V0}${V0}${V0}${V0}${V0}${V0}${V0}\", "
	    "\"V2\": \"${V1}${V1}${V1}${V1}${V1}${V1}${V1}${V1}\", "
	    "\"V3\": \"${V2}${V2}${V2}${V2}${V2}${V2}${V2}${V2}\", "
	    "\"V4\": \"${V3}${V3}${V3}${V3}${V3}${V3}${V3}${V3}\"}}";
	assert_int_equal(test_spec_parse(big, strlen(big), INLINE_PATH, NULL, &s,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "command[1]: expands to 204800 bytes"));
	assert_non_null(strstr(err, "per argument"));

	/* Many arguments under that, together past ARG_MAX (2 MiB here,
	 * a quarter of the stack limit: 8 MiB stacks make 2 MiB). */
	text = malloc(1024 * 1024);
	n = (size_t)snprintf(text, 1024 * 1024, "{\"name\": \"r\", \"reps\": 1, "
	    "\"baseline\": \"a\", \"arms\": [{\"name\": \"a\"}], "
	    "\"cells\": [{\"name\": \"c\"}], \"vars\": {\"X\": \"");
	memset(text + n, 'x', 100000);
	n += 100000;
	n += (size_t)snprintf(text + n, 1024 * 1024 - n, "\"}, \"command\": "
	    "[\"/bin/true\"");
	long argmax = sysconf(_SC_ARG_MAX);
	for (long i = 0; i < argmax / 100000 + 2; i++)
		n += (size_t)snprintf(text + n, 1024 * 1024 - n, ", \"${X}\"");
	snprintf(text + n, 1024 * 1024 - n, "]}");
	assert_int_equal(test_spec_parse(text, strlen(text), INLINE_PATH, NULL, &s,
	    err, sizeof err), -1);
	assert_non_null(strstr(err, "ARG_MAX"));
	free(text);
}

/* reps.metric: the round's own metrics pass; a leg's own name passes
 * where the round names ${METRICS} (the misspelt ones are in the bad
 * table). */
static void
test_adaptive_metric(void **state)
{
	static const char *const good[] = {
		"{\"name\":\"r\",\"reps\":{\"min\":6,\"max\":9,\"until\":"
		"\"decided\",\"metric\":\"task-clock\"},\"counters\":[\"task-clock\"],"
		"\"command\":[\"x\"],\"baseline\":\"a\",\"arms\":[{\"name\":\"a\"}],"
		"\"cells\":[{\"name\":\"c\"}]}",
		"{\"name\":\"r\",\"reps\":{\"min\":6,\"max\":9,\"until\":"
		"\"decided\",\"metric\":\"rps\"},\"command\":[\"x\",\"${METRICS}\"],"
		"\"baseline\":\"a\",\"arms\":[{\"name\":\"a\"}],"
		"\"cells\":[{\"name\":\"c\"}]}",
		"{\"name\":\"r\",\"reps\":{\"min\":6,\"max\":9,\"until\":"
		"\"decided\",\"metric\":\"server_cpu\"},\"command\":[\"x\"],"
		"\"baseline\":\"a\",\"arms\":[{\"name\":\"a\"}],"
		"\"cells\":[{\"name\":\"c\",\"server\":{\"cmd\":[\"y\"],"
		"\"ready\":{\"tcp_port\":9}}}]}",
	};

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		spec_destroy(tu_spec(good[i], "/tmp/r.json"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_minimal_defaults),
		cmocka_unit_test(test_arms),
		cmocka_unit_test(test_optional_fields),
		cmocka_unit_test(test_newcomer_fields),
		cmocka_unit_test(test_quiet_switch),
		cmocka_unit_test(test_workdir),
		cmocka_unit_test(test_parse_builds_no_command),
		cmocka_unit_test(test_bad_table),
		cmocka_unit_test(test_cpulist),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_resolve_program),
		cmocka_unit_test(test_host_check),
		cmocka_unit_test(test_mutations),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_adaptive_metric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
