/* test: */
/* The one command builder: spliced argv per arm, warm-up and counted
 * output paths, ${REP} of a warm-up leg, the server's argv, the argv
 * line, and check's warnings (empty argument, shell operator, missing
 * relative file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "legcmd.h"
#include "spec.h"
#include "testutil.h"

static const char round_text[] =
    "{\"name\": \"r\", \"reps\": 2, \"bin\": \"/bin/true\","
    " \"command\": [\"${BIN}\", \"${FLAGS}\", \"-c\", \"${IN}\", \"r${REP}\"],"
    " \"baseline\": \"l1\", \"prepare\": [\"/bin/true\", \"${ARM}\"],"
    " \"scratch\": \"s/${ARM}\","
    " \"arms\": [{\"name\": \"l1\", \"vars\": {\"FLAGS\": [\"-1\"]}},"
    "  {\"name\": \"l9\", \"vars\": {\"FLAGS\": [\"-9\", \"-T${IN}\"]},"
    "   \"env\": {\"ZZ_LEGCMD\": \"1\"}, \"server_env\": {\"SE\": \"9\"}},"
    "  {\"name\": \"none\", \"vars\": {\"FLAGS\": []}}],"
    " \"cells\": [{\"name\": \"c\", \"vars\": {\"IN\": \"in.txt\"},"
    "   \"server\": {\"cmd\": [\"/bin/true\", \"${IN}\"],"
    "   \"ready\": {\"tcp_port\": 1}}}]}";

static struct spec *
load(const char *text)
{
	return tu_spec(text, "/tmp/legcmd.json");
}

static void
test_build(void **state)
{
	static const struct {
		size_t arm;
		int rep, warmup;
		const char *line, *out;
	} cases[] = {
		{ 0, 1, 0, "/usr/bin/true -1 -c in.txt r1", "legs/c-l1-r1.out" },
		{ 1, 2, 0, "/usr/bin/true -9 -Tin.txt -c in.txt r2",
		  "legs/c-l9-r2.out" },
		{ 2, 1, 0, "/usr/bin/true -c in.txt r1", "legs/c-none-r1.out" },
		{ 1, 0, 3, "/usr/bin/true -9 -Tin.txt -c in.txt r0",
		  "legs/c-l9-w3.out" },
	};
	struct spec *s = load(round_text);

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct legcmd_where w = { .spec = s, .cell = 0,
		    .arm = cases[i].arm, .rep = cases[i].rep,
		    .warmup = cases[i].warmup, .round_dir = "/rd" };
		struct legcmd c;
		char err[512], *line, want[256], *prog;
		bool env = false;

		assert_int_equal(legcmd_build(&w, &c, err, sizeof err), 0);
		/* ${BIN} is the program as resolved (/bin may be a link) */
		prog = c.program;
		assert_non_null(prog);
		snprintf(want, sizeof want, "%s%s", prog,
		    strchr(cases[i].line, ' '));
		line = legcmd_argv_line(c.argv);
		assert_string_equal(line, want);
		free(line);
		assert_string_equal(c.out_rel, cases[i].out);
		snprintf(want, sizeof want, "/rd/%s", cases[i].out);
		assert_string_equal(c.out_abs, want);
		assert_string_equal(c.cwd, "/tmp");
		snprintf(want, sizeof want, "/tmp/s/%s", s->arms[cases[i].arm].name);
		assert_string_equal(c.scratch, want);
		assert_int_equal(c.nprepare, 2);
		assert_string_equal(c.prepare[1], s->arms[cases[i].arm].name);
		for (size_t k = 0; c.envp[k] != NULL; k++)
			env |= strcmp(c.envp[k], "ZZ_LEGCMD=1") == 0;
		assert_int_equal(env, cases[i].arm == 1);
		legcmd_finish(&c);
	}
	{
		struct legcmd c;
		char err[512];

		bool env = false;

		assert_int_equal(legcmd_server(s, 0, -1, 0, NULL, &c, err,
		    sizeof err), 0);
		assert_int_equal(c.argc, 2);
		assert_string_equal(c.argv[1], "in.txt");
		assert_string_equal(c.out_rel, "servers/c.log");
		assert_null(c.out_abs);
		legcmd_finish(&c);
		/* a server per leg: the arm's server_env over server.env */
		assert_int_equal(legcmd_server(s, 0, 1, 2, "/rd", &c, err,
		    sizeof err), 0);
		for (size_t k = 0; c.envp[k] != NULL; k++)
			env |= strcmp(c.envp[k], "SE=9") == 0;
		assert_true(env);
		assert_string_equal(c.out_abs, "/rd/servers/c.log");
		legcmd_finish(&c);
	}
	spec_destroy(s);
}

static void
test_argv_line(void **state)
{
	char *const argv[] = { "a", "b c", "it's", "", "x=1", NULL };
	char *line = legcmd_argv_line(argv);

	(void)state;
	assert_string_equal(line, "a 'b c' 'it'\\''s' '' x=1");
	free(line);
}

struct said {
	char msgs[16][1024];
	int n;
};

static void
collect(const char *msg, void *arg)
{
	struct said *s = arg;

	if (s->n < 16)
		snprintf(s->msgs[s->n++], sizeof s->msgs[0], "%s", msg);
}

static bool
said(const struct said *s, const char *part)
{
	for (int i = 0; i < s->n; i++)
		if (strstr(s->msgs[i], part) != NULL)
			return true;
	return false;
}

static void
test_lint(void **state)
{
	static const char text[] =
	    "{\"name\": \"r\", \"reps\": 1, \"bin\": \"/bin/true\","
	    " \"command\": [\"${BIN}\", \"${E}\", \"${A}\", \"|\", \"2>&1\","
	    "   \"no-such-dir/in.bin\", \"-o\", \"out.gz\", \"1.5\", \"-9\","
	    "   \"legcmd.json\"],"
	    " \"baseline\": \"a\", \"vars\": {\"E\": \"\", \"A\": [\"x\", \"\"]},"
	    " \"arms\": [{\"name\": \"a\"}], \"cells\": [{\"name\": \"c\"}]}";
	struct said out = { .n = 0 };
	struct spec *s;
	int n;
	FILE *f = fopen("/tmp/legcmd.json", "w");

	(void)state;
	assert_non_null(f);
	fclose(f);
	s = load(text);
	n = legcmd_lint(s, collect, &out);
	assert_int_equal(n, out.n);
	for (int i = 0; i < out.n; i++)
		printf("warning: %s\n", out.msgs[i]);
	assert_true(said(&out, "command[1] (\"${E}\") is an empty argument"));
	assert_true(said(&out, "command[2] (\"${A}\") is an empty argument"));
	assert_true(said(&out, "command[3] is \"|\": no shell runs"));
	assert_true(said(&out, "command[4] is \"2>&1\""));
	assert_true(said(&out, "command[5]: \"no-such-dir/in.bin\" is not a "
	    "file in the workdir"));
	/* an output after -o, a number, an option, a file that exists */
	assert_false(said(&out, "out.gz"));
	assert_false(said(&out, "1.5"));
	assert_false(said(&out, "-9"));
	assert_false(said(&out, "legcmd.json\" is not"));
	assert_int_equal(out.n, 5);
	spec_destroy(s);
	unlink("/tmp/legcmd.json");
}

/* A round variable whose value is ${METRICS} (or ${BIN}, ${SCRATCH}) is
 * checked with the same context the leg runs with: it has a value there,
 * and the leg's argv gets the metrics file. */
static void
test_metrics_in_var(void **state)
{
	static const char text[] =
	    "{\"name\": \"r\", \"reps\": 1, \"bin\": \"/bin/true\","
	    " \"command\": [\"${BIN}\", \"--out=${OUT}\"],"
	    " \"vars\": {\"OUT\": \"${METRICS}\"},"
	    " \"baseline\": \"a\", \"arms\": [{\"name\": \"a\"}],"
	    " \"cells\": [{\"name\": \"c\"}]}";
	struct spec *s;
	struct legcmd lc;
	struct legcmd_where w = { .rep = 1 };
	char err[512];

	(void)state;
	s = load(text);
	w.spec = s;
	assert_int_equal(legcmd_build(&w, &lc, err, sizeof err), 0);
	assert_non_null(lc.metrics);
	assert_non_null(strstr(lc.argv[1], "c-a-r1.metrics.json"));
	legcmd_finish(&lc);
	spec_destroy(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build),
		cmocka_unit_test(test_argv_line),
		cmocka_unit_test(test_lint),
		cmocka_unit_test(test_metrics_in_var),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
