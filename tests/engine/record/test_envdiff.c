/* envdiff: compare's environment header from two environment.json
 * objects: the facts it names, the governors summed up, binaries and
 * files by name with null where a round has none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "envdiff.h"

static void
test_envdiff(void **state)
{
	const char *a_text = "{\"hostname\": \"h\", \"kernel\": \"6.1\","
	    "\"cpu_model\": \"X\", \"cores_online\": 8, \"microcode\": \"0x1\","
	    "\"governor\": {\"cpu0\": \"performance\", \"cpu1\": \"powersave\","
	    "  \"cpu2\": \"performance\"},"
	    "\"benchtui_version\": \"0.1.0\", \"loadavg\": [1, 2, 3],"
	    "\"bins\": {\"/b/prog\": \"aaa\", \"/b/old\": \"ccc\"},"
	    "\"files\": [{\"path\": \"/etc/n.conf\", \"as\": \"n.conf\","
	    "  \"sha256\": \"f1\"}]}";
	const char *b_text = "{\"hostname\": \"h\", \"kernel\": \"6.2\","
	    "\"cpu_model\": \"X\", \"cores_online\": 8,"
	    "\"governor\": {\"cpu0\": \"performance\"},"
	    "\"benchtui_version\": \"0.1.0\", \"loadavg\": [3, 2, 1],"
	    "\"bins\": {\"/b/prog\": \"bbb\", \"/b/new\": \"ddd\"},"
	    "\"files\": {\"n.conf\": {\"sha256\": \"f1\"}}}";
	json_t *a = json_loads(a_text, 0, NULL), *b = json_loads(b_text, 0, NULL);
	struct spec sa = { .confidence = 0.95, .margin = 0.01 };
	struct spec sb = { .confidence = 0.95, .margin = 0.02 };
	json_t *d, *want;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	d = envdiff_build(a, b, &sa, &sb);
	want = json_loads("{\"kernel\": [\"6.1\", \"6.2\"],"
	    "\"microcode\": [\"0x1\", null],"
	    "\"governor\": [\"performance,powersave\", \"performance\"],"
	    "\"margin\": [0.01, 0.02],"
	    "\"bin:/b/prog\": [\"aaa\", \"bbb\"],"
	    "\"bin:/b/old\": [\"ccc\", null], \"bin:/b/new\": [null, \"ddd\"]}",
	    0, NULL);
	assert_true(json_equal(json_object_get(d, "differ"), want));
	/* What both share, and nothing that moves every run (loadavg). */
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    d, "same"), "hostname")), "h");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    d, "same"), "file:n.conf")), "f1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    d, "same"), "cpus")), 8);
	assert_null(json_object_get(json_object_get(d, "same"), "loadavg"));
	json_decref(want);
	json_decref(d);
	json_decref(a);
	json_decref(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_envdiff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
