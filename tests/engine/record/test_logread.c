/* test: */
/* logread: legacy rows, torn tails of both kinds, bad lines, unknown types. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "logread.h"

struct seen {
	size_t n;
	char types[16][32];
	size_t lines[16];
	int stop_at;  /* return 7 on this event (1-based), 0: never */
};

static int
collect(json_t *ev, size_t lineno, void *arg)
{
	struct seen *s = arg;
	const char *t = json_string_value(json_object_get(ev, "t"));

	if (s->n < 16) {
		snprintf(s->types[s->n], sizeof s->types[0], "%s", t ? t : "-");
		s->lines[s->n] = lineno;
	}
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? 7 : 0;
}

/* A temporary log holding text; the path is static storage. */
static const char *
write_log(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof path, "/tmp/test-logread-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* Read a log of good then tail (a torn last line, or ""): it reads, and
 * the good lines' bytes are the good ones. */
static void
read_log(const char *good, const char *tail, struct seen *s,
    struct logread_info *info)
{
	char text[1024], err[256] = "";
	const char *path;

	snprintf(text, sizeof text, "%s%s", good, tail);
	path = write_log(text);
	assert_int_equal(logread_file(path, collect, s, info, err, sizeof err), 0);
	assert_int_equal(info->good_bytes, (long long)strlen(good));
	unlink(path);
}

static void
test_legacy_and_unknown(void **state)
{
	const char *text =
	    "{\"t\":\"round\",\"name\":\"r\"}\n"
	    "{\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"rc\":0,\"wall\":1.5}\n"
	    "{\"t\":\"from_the_future\",\"x\":1}\n"
	    "{\"note\":\"no t and no cell\"}\n";
	struct logread_info info;
	struct seen s = { 0 };

	(void)state;
	read_log(text, "", &s, &info);
	assert_int_equal(s.n, 4);
	assert_string_equal(s.types[0], "round");
	assert_string_equal(s.types[1], "leg");
	assert_string_equal(s.types[2], "from_the_future");
	assert_string_equal(s.types[3], "-");
	assert_int_equal(s.lines[2], 3);
	assert_false(info.torn);
	assert_int_equal(info.lines, 4);
}

static void
test_torn_no_newline(void **state)
{
	/* Valid JSON but no newline: the writer died before finishing. */
	struct logread_info info;
	struct seen s = { 0 };

	(void)state;
	read_log("{\"t\":\"round\"}\n{\"t\":\"leg\"}\n", "{\"t\":\"done\"}",
	    &s, &info);
	assert_int_equal(s.n, 2);
	assert_true(info.torn);
	assert_int_equal(info.torn_line, 3);
	assert_int_equal(info.torn_bytes, strlen("{\"t\":\"done\"}"));
}

static void
test_torn_invalid_last(void **state)
{
	struct logread_info info;
	struct seen s = { 0 };

	(void)state;
	read_log("{\"t\":\"round\"}\n", "{\"t\":\"leg\",\"wa\n", &s, &info);
	assert_int_equal(s.n, 1);
	assert_true(info.torn);
	assert_int_equal(info.torn_line, 2);
}

static void
test_bad_middle_line(void **state)
{
	const char *path = write_log(
	    "{\"t\":\"round\"}\n{\"t\":\"leg\",\"wa\n{\"t\":\"done\"}\n");
	struct seen s = { 0 };
	char err[512] = "", want[128];

	(void)state;
	assert_int_equal(logread_file(path, collect, &s, NULL, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:2: not valid JSON: ", path);
	assert_true(strncmp(err, want, strlen(want)) == 0);
	assert_true(strlen(err) > strlen(want));  /* jansson's reason follows */
	assert_int_equal(s.n, 1);
	unlink(path);
}

static void
test_not_an_object(void **state)
{
	const char *path = write_log("{\"t\":\"round\"}\n[1,2]\n{\"t\":\"done\"}\n");
	char err[512] = "", want[128];

	(void)state;
	assert_int_equal(logread_file(path, NULL, NULL, NULL, err, sizeof err), -1);
	snprintf(want, sizeof want, "%s:2: not a JSON object", path);
	assert_string_equal(err, want);
	unlink(path);
}

static void
test_blank_middle_line(void **state)
{
	const char *path = write_log("{\"t\":\"round\"}\n\n{\"t\":\"done\"}\n");
	char err[512] = "";

	(void)state;
	assert_int_equal(logread_file(path, NULL, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, ":2: not valid JSON"));
	unlink(path);
}

static void
test_callback_stops(void **state)
{
	const char *path = write_log("{\"t\":\"a\"}\n{\"t\":\"b\"}\n{\"t\":\"c\"}\n");
	struct seen s = { .stop_at = 2 };
	char err[256] = "";

	(void)state;
	assert_int_equal(logread_file(path, collect, &s, NULL, err, sizeof err), 7);
	assert_int_equal(s.n, 2);
	unlink(path);
}

static void
test_unreadable_and_empty(void **state)
{
	struct logread_info info;
	struct seen s = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(logread_file("/nonexistent/log.jsonl", collect, &s,
	    NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/log.jsonl: cannot open"));
	read_log("", "", &s, &info);
	assert_int_equal(s.n, 0);
	assert_false(info.torn);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_legacy_and_unknown),
		cmocka_unit_test(test_torn_no_newline),
		cmocka_unit_test(test_torn_invalid_last),
		cmocka_unit_test(test_bad_middle_line),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_blank_middle_line),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_unreadable_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
