/* test: asan-covered */
/* The option tables' machinery (tui/opts.c): one table makes the
 * synopsis (every kind of row), a usage wrapped at 80 columns that reads
 * back as the synopsis, and the parse (long, short, clustered, an alias,
 * an optional value, a missing value, an unknown option, a value given
 * to a flag). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "opts.h"

enum { T_OUT = 1, T_QUIET, T_SPEED, T_INSTANT, T_RULE, T_NEED, T_HOST,
    T_LONGER, T_HIDE };

static const struct opts_opt test_rows[] = {
	{ "need", 0, "X", OPTS_REQUIRED, T_NEED, "required" },
	{ "out", 'o', "DIR", 0, T_OUT, "the folder" },
	{ "quiet-ish", 'q', NULL, 0, T_QUIET, "a flag" },
	{ "speed", 0, "X", 0, T_SPEED, "a speed" },
	{ "instant", 0, NULL, OPTS_OR, T_INSTANT, "or at once" },
	{ "rule", 0, "RULE", OPTS_REPEAT, T_RULE, "a rule" },
	{ "old-rule", 0, "RULE", OPTS_ALIAS, T_RULE, NULL },
	{ "host", 0, "HOST", OPTS_OPTARG | OPTS_REPEAT, T_HOST, "a host" },
	{ "a-rather-longer-option-name", 0, "VALUE", 0, T_LONGER, "long" },
	{ "more", 0, NULL, OPTS_MORE, T_LONGER, "not in the synopsis" },
	{ "hidden", 0, NULL, OPTS_HIDDEN, T_HIDE, NULL },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const struct opts_cmd test_cmd = {
	"frob", "IN|LOG OUT", "Frobnicate.", "nowhere", test_rows,
};

#define SYNOPSIS "benchtui frob IN|LOG OUT --need X [--out DIR] " \
	"[--quiet-ish] [--speed X | --instant] [--rule RULE]... " \
	"[--host[=HOST]]... [--a-rather-longer-option-name VALUE] [options]"

static void
test_synopsis(void **state)
{
	char buf[1024];

	(void)state;
	opts_synopsis(&test_cmd, buf, sizeof buf);
	assert_string_equal(buf, SYNOPSIS);
}

/* The usage's lines fit 80 columns and, joined, are the synopsis. */
static void
test_usage_wraps(void **state)
{
	const char *u = opts_usage(&test_cmd);
	char joined[1024] = "";
	size_t n = 0;

	(void)state;
	assert_true(strncmp(u, "usage: ", 7) == 0);
	for (const char *l = u + 7; *l != '\0'; n++) {
		size_t len = strcspn(l, "\n");
		const char *t = l;

		assert_true(len + (n == 0 ? 7 : 0) < 80);
		if (n > 0) {
			t += strspn(t, " ");
			strcat(joined, " ");
		}
		strncat(joined, t, len - (size_t)(t - l));
		l += len + (l[len] == '\n');
	}
	assert_true(n > 1);
	assert_string_equal(joined, SYNOPSIS);
}

static void
test_parse(void **state)
{
	char *argv[] = { "frob", "-qo", "D", "in", "--old-rule", "r1",
	    "--rule=r2", "--host", "--host=h", "--speed", "2", "--need", "n",
	    "--a-rather", "v", "out", NULL };
	struct { int id; const char *arg; } want[] = {
		{ T_QUIET, NULL }, { T_OUT, "D" }, { T_RULE, "r1" },
		{ T_RULE, "r2" }, { T_HOST, NULL }, { T_HOST, "h" },
		{ T_SPEED, "2" }, { T_NEED, "n" }, { T_LONGER, "v" },
	};
	struct opts_parser p;
	int argc = (int)(sizeof argv / sizeof argv[0]) - 1, c;
	size_t i = 0;

	(void)state;
	opts_init(&p, &test_cmd, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		assert_true(i < sizeof want / sizeof want[0]);
		assert_int_equal(c, want[i].id);
		if (want[i].arg == NULL)
			assert_null(p.arg);
		else
			assert_string_equal(p.arg, want[i].arg);
		i++;
	}
	assert_int_equal(i, sizeof want / sizeof want[0]);
	/* The operands, in their order, after the options. */
	assert_int_equal(argc - optind, 2);
	assert_string_equal(argv[optind], "in");
	assert_string_equal(argv[optind + 1], "out");
}

/* argv (NULL-ended) stops the parse with status: a usage error (2). */
static void
test_stops(char **argv, int status)
{
	struct opts_parser p;
	int argc = 0, c;

	while (argv[argc] != NULL)
		argc++;
	opts_init(&p, &test_cmd, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END && c != OPTS_STOP)
		;
	assert_int_equal(c, OPTS_STOP);
	assert_int_equal(p.status, status);
}

static void
test_bad(void **state)
{
	char *unknown[] = { "frob", "--outt", "x", NULL };
	char *ambiguous[] = { "frob", "--o", NULL };
	char *missing[] = { "frob", "in", "--out", NULL };
	char *short_missing[] = { "frob", "-o", NULL };
	char *short_unknown[] = { "frob", "-z", NULL };
	char *flag_value[] = { "frob", "--quiet-ish=1", NULL };

	(void)state;
	test_stops(unknown, 2);
	test_stops(ambiguous, 2);
	test_stops(missing, 2);
	test_stops(short_missing, 2);
	test_stops(short_unknown, 2);
	test_stops(flag_value, 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_synopsis),
		cmocka_unit_test(test_usage_wraps),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
