/* test: */
/* suggest: the nearest name to a slip of the keyboard, and none for a
 * word that is no slip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "suggest.h"

static void
test_nearest(void **state)
{
	static const char *const keys[] = { "name", "reps", "warmup", "prepare",
	    "counters", "confidence", "output", NULL };
	char buf[64];

	(void)state;
	assert_string_equal(suggest_nearest("warmups", keys, SIZE_MAX), "warmup");
	assert_string_equal(suggest_nearest("rep", keys, SIZE_MAX), "reps");
	/* Two neighbours swapped is one edit. */
	assert_string_equal(suggest_nearest("ouptut", keys, SIZE_MAX), "output");
	assert_string_equal(suggest_nearest("Counters", keys, SIZE_MAX),
	    "counters");
	assert_string_equal(suggest_nearest("confidnce", keys, SIZE_MAX),
	    "confidence");
	/* Too far to be a slip, or the name itself. */
	assert_null(suggest_nearest("xyz", keys, SIZE_MAX));
	assert_null(suggest_nearest("settle_s", keys, SIZE_MAX));
	assert_null(suggest_nearest("reps", keys, SIZE_MAX));
	assert_null(suggest_nearest("", keys, SIZE_MAX));
	/* n bounds the list. */
	assert_null(suggest_nearest("prepar", keys, 2));
	assert_string_equal(suggest_hint(buf, sizeof buf, "jsn",
	    (const char *const[]){ "text", "json", "csv", "markdown" }, 4),
	    " (did you mean \"json\"?)");
	assert_string_equal(suggest_hint(buf, sizeof buf, "yaml",
	    (const char *const[]){ "text", "json", "csv", "markdown" }, 4), "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nearest),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
