/* test: */
/* escape: the one rule for outside text on a terminal, each kind of byte
 * with each flag, and the stream that applies it to UTF-8 cut between
 * two writes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

static const struct {
	const char *in;
	unsigned flags;
	const char *out;
} cases[] = {
	{ "plain", 0, "plain" },
	{ "a\x1b[2Jb", 0, "a\\x1b[2Jb" },
	{ "bel\x07", 0, "bel\\x07" },
	{ "del\x7f", 0, "del\\x7f" },
	{ "cr\rx", 0, "cr\\rx" },
	{ "cr\rx", ESCAPE_KEEP_LINES, "cr\\rx" },
	{ "nl\nt\t", 0, "nl\\nt\\t" },
	{ "nl\nt\t", ESCAPE_KEEP_LINES, "nl\nt\t" },
	{ "t\tx", ESCAPE_TAB_SPACE, "t x" },
	{ "b\\s", 0, "b\\s" },
	{ "b\\s\n", ESCAPE_BACKSLASH, "b\\\\s\\n" },
	/* UTF-8 kept, C1 controls and broken sequences escaped */
	{ "caf\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x99\x82", 0,
	  "caf\xc3\xa9 \xe2\x96\x88 \xf0\x9f\x99\x82" },
	{ "csi\xc2\x9b" "31m", 0, "csi\\xc2\\x9b31m" },
	{ "nbsp\xc2\xa0", 0, "nbsp\xc2\xa0" },
	{ "bad\xff\xc3", 0, "bad\\xff\\xc3" },
	{ "over\xc0\xaf", 0, "over\\xc0\\xaf" },
	{ "surr\xed\xa0\x80", 0, "surr\\xed\\xa0\\x80" },
	{ "cut\xe2\x96", ESCAPE_PARTIAL, "cut" },
};

static void
test_rule(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[128];
		size_t used;

		escape_text(cases[i].in, strlen(cases[i].in), out, sizeof out,
		    cases[i].flags, &used);
		if (strcmp(out, cases[i].out) != 0)
			fail_msg("case %zu: \"%s\", expected \"%s\"", i, out,
			    cases[i].out);
		if (!(cases[i].flags & ESCAPE_PARTIAL))
			assert_int_equal(used, strlen(cases[i].in));
	}
}

/* Cut to fit at a whole escape, never half of one. */
static void
test_cut(void **state)
{
	char out[6];
	size_t used, n;

	(void)state;
	n = escape_text("ab\x1b" "cd", 5, out, sizeof out, 0, &used);
	assert_string_equal(out, "ab");
	assert_int_equal(n, 2);
	assert_int_equal(used, 2);
}

/* The stream: a sequence split between two writes is kept whole, one
 * left incomplete at the close is escaped, newlines pass. */
static void
test_stream(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len), *f;

	(void)state;
	assert_non_null(mem);
	f = escape_stream(mem);
	assert_non_null(f);
	setvbuf(f, NULL, _IONBF, 0);
	fputs("x\xe2\x96", f);
	fputs("\x88\n\x1b]0;t\x07", f);
	fputs("\xc2", f);
	fputs("\x9b", f);
	fputs("end\xe2", f);
	assert_int_equal(fclose(f), 0);
	fclose(mem);
	assert_string_equal(buf, "x\xe2\x96\x88\n\\x1b]0;t\\x07\\xc2\\x9bend\\xe2");
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_stream),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
