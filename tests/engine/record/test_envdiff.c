/* test: */
/* envdiff: compare's environment header from two environment.json
 * objects: the facts it names, the governors summed up, binaries and
 * files by name with null where a round has none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "envdiff.h"

/* envdiff_build of two environments written as JSON text. */
static json_t *
diff_texts(const char *a_text, const char *b_text, const struct spec *sa,
    const struct spec *sb)
{
	json_t *a = json_loads(a_text, 0, NULL), *b = json_loads(b_text, 0, NULL);
	json_t *d;

	assert_non_null(a);
	assert_non_null(b);
	d = envdiff_build(a, b, sa, sb);
	json_decref(a);
	json_decref(b);
	return d;
}

/* d's differences are exactly those of the JSON text want. */
static void
assert_differ(const json_t *d, const char *want_text)
{
	json_t *want = json_loads(want_text, 0, NULL);

	assert_non_null(want);
	assert_true(json_equal(json_object_get(d, "differ"), want));
	json_decref(want);
}

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
	struct spec sa = { .confidence = 0.95, .margin = 0.01 };
	struct spec sb = { .confidence = 0.95, .margin = 0.02 };
	json_t *d;

	(void)state;
	d = diff_texts(a_text, b_text, &sa, &sb);
	assert_differ(d, "{\"kernel\": [\"6.1\", \"6.2\"],"
	    "\"microcode\": [\"0x1\", null],"
	    "\"governor\": [\"performance,powersave\", \"performance\"],"
	    "\"margin\": [0.01, 0.02],"
	    "\"bin:/b/prog\": [\"aaa\", \"bbb\"],"
	    "\"bin:/b/old\": [\"ccc\", null], \"bin:/b/new\": [null, \"ddd\"]}");
	/* What both share, and nothing that moves every run (loadavg). */
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    d, "same"), "hostname")), "h");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    d, "same"), "file:n.conf")), "f1");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    d, "same"), "cpus")), 8);
	assert_null(json_object_get(json_object_get(d, "same"), "loadavg"));
	json_decref(d);
}

/* environment.json's hosts: the servers' hosts set side by side, each
 * fact and binary hashed there named under "host:NAME:"; hosts paired by
 * name, then in order; one a round has alone against nulls.  This
 * machine's own entry (the client) is the top level's. */
static void
test_envdiff_hosts(void **state)
{
	const char *a_text = "{\"hostname\": \"h\", \"hosts\": ["
	    "{\"host\": null, \"role\": \"client\", \"facts\": {\"kernel\": \"x\"}},"
	    "{\"host\": \"u@b\", \"role\": \"server\", \"facts\": {"
	    "  \"hostname\": \"b\", \"kernel\": \"6.1\", \"cores_online\": 4,"
	    "  \"benchtui_version\": \"0.1.0\"},"
	    "  \"bins\": {\"/srv/s\": \"aaa\", \"/srv/t\": \"ttt\"}},"
	    "{\"host\": \"u@c\", \"role\": \"server\", \"facts\": {"
	    "  \"kernel\": \"6.1\"}, \"bins\": {}},"
	    "{\"host\": \"u@gone\", \"role\": \"server\", \"error\": \"x\"}]}";
	const char *b_text = "{\"hostname\": \"h\", \"hosts\": ["
	    "{\"host\": null, \"role\": \"client\", \"facts\": {\"kernel\": \"y\"}},"
	    "{\"host\": \"u@d\", \"role\": \"server\", \"facts\": {"
	    "  \"kernel\": \"6.2\"}, \"bins\": {}},"
	    "{\"host\": \"u@b\", \"role\": \"server\", \"facts\": {"
	    "  \"hostname\": \"b\", \"kernel\": \"6.1\", \"cores_online\": 4,"
	    "  \"benchtui_version\": \"0.1.0\"},"
	    "  \"bins\": {\"/srv/s\": \"bbb\", \"/srv/t\": \"ttt\"}}]}";
	struct spec sp = { .confidence = 0.95, .margin = 0.01 };
	json_t *d, *same;

	(void)state;
	d = diff_texts(a_text, b_text, &sp, &sp);
	assert_differ(d, "{\"host:u@b:bin:/srv/s\": [\"aaa\", \"bbb\"],"
	    "\"host:u@c:host\": [\"u@c\", \"u@d\"],"
	    "\"host:u@c:kernel\": [\"6.1\", \"6.2\"],"
	    "\"host:u@gone:host\": [\"u@gone\", null]}");
	same = json_object_get(d, "same");
	assert_string_equal(json_string_value(json_object_get(same,
	    "host:u@b:kernel")), "6.1");
	assert_int_equal(json_integer_value(json_object_get(same,
	    "host:u@b:cpus")), 4);
	assert_string_equal(json_string_value(json_object_get(same,
	    "host:u@b:bin:/srv/t")), "ttt");
	/* The same name on both sides: no "host" key for it. */
	assert_null(json_object_get(same, "host:u@b:host"));
	json_decref(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_envdiff),
		cmocka_unit_test(test_envdiff_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
