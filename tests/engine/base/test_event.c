/* test: */
/* event: timestamps, one line per event, exact reals, legacy rows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "event.h"

static void
test_timestamp_format(void **state)
{
	const char *shape = "dddd-dd-ddTdd:dd:dd.dddZ";
	char ts[EVENT_TS_LEN];

	(void)state;
	event_timestamp(ts);
	assert_int_equal(strlen(ts), strlen(shape));
	for (size_t i = 0; shape[i] != '\0'; i++) {
		if (shape[i] == 'd')
			assert_true(isdigit((unsigned char)ts[i]));
		else
			assert_int_equal(ts[i], shape[i]);
	}
	assert_true(strncmp(ts, "20", 2) == 0);
}

static void
test_new_has_type_and_ts(void **state)
{
	json_t *ev = event_new("leg");
	const char *ts;

	(void)state;
	assert_non_null(ev);
	assert_string_equal(json_string_value(json_object_get(ev, "t")), "leg");
	ts = json_string_value(json_object_get(ev, "ts"));
	assert_non_null(ts);
	assert_int_equal(ts[strlen(ts) - 1], 'Z');
	assert_string_equal(event_type(ev), "leg");
	json_decref(ev);
}

static void
test_line_is_one_line(void **state)
{
	json_t *ev = event_new("warning");
	size_t len;
	char *line;

	(void)state;
	json_object_set_new(ev, "msg", json_string("two\nlines and \"quotes\""));
	json_object_set_new(ev, "nested", json_pack("{s:[i,i]}", "a", 1, 2));
	line = event_line(ev, &len);
	assert_non_null(line);
	assert_int_equal(strlen(line), len);
	assert_int_equal(line[len - 1], '\n');
	assert_null(memchr(line, '\n', len - 1));
	/* Keys in insertion order: t, ts, then the rest. */
	assert_true(strncmp(line, "{\"t\":\"warning\",\"ts\":\"", 21) == 0);
	free(line);
	json_decref(ev);
}

static void
test_reals_read_back_exactly(void **state)
{
	const double v[] = { 0.1, 1.0 / 3.0, 0.064775, 1e-7, 123456.789012,
		2.0 / 3.0 * 1e10 };
	json_t *ev = event_new("leg"), *back;
	char key[8], *line;

	(void)state;
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		snprintf(key, sizeof key, "v%zu", i);
		json_object_set_new(ev, key, json_real(v[i]));
	}
	line = event_line(ev, NULL);
	back = json_loads(line, 0, NULL);
	assert_non_null(back);
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		snprintf(key, sizeof key, "v%zu", i);
		assert_true(json_real_value(json_object_get(back, key)) == v[i]);
	}
	/* Rounded values stay short. */
	assert_non_null(strstr(line, "\"v2\":0.064775,"));
	free(line);
	json_decref(back);
	json_decref(ev);

	/* Reals inside objects and arrays are exact too. */
	ev = event_new("leg");
	json_object_set_new(ev, "o", json_pack("{s:f}", "x", 1.0 / 3.0));
	json_object_set_new(ev, "a", json_pack("[f,f]", 0.25, 2.0 / 3.0));
	line = event_line(ev, NULL);
	back = json_loads(line, 0, NULL);
	assert_non_null(back);
	assert_true(json_real_value(json_object_get(json_object_get(back, "o"),
	    "x")) == 1.0 / 3.0);
	assert_true(json_real_value(json_array_get(json_object_get(back, "a"),
	    1)) == 2.0 / 3.0);
	assert_non_null(strstr(line, "0.25,"));
	free(line);
	json_decref(back);
	json_decref(ev);
}

/* The bytes jansson writes for ev at the precision event_line picks. */
static char *
event_jansson(const json_t *ev, int prec)
{
	char *s = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER |
	    JSON_ENSURE_ASCII | JSON_REAL_PRECISION(prec));
	size_t n = strlen(s);

	s = realloc(s, n + 2);
	memcpy(s + n, "\n", 2);
	return s;
}

/* A whole number of millionths (a leg line's seconds) is written without
 * printf, and must read as jansson writes it at 15 digits: fixed from
 * 1e-4 up, the exponent form below, signs, zeros, every length of k. */
static void
test_micro_reals_as_jansson(void **state)
{
	static const long long fixed[] = { 0, 1, 9, 10, 99, 100, 101, 909,
		999, 1000, 1001, 86000, 100000, 999999, 1000000, 1000001,
		1234567, 10000000, 123456789012LL, 999999999999999LL,
		100000000000000LL, 5000000LL };
	unsigned long long x = 88172645463325252ULL;
	int checked = 0;

	(void)state;
	for (int i = 0; i < 200000; i++) {
		long long k;
		json_t *ev = json_object();
		char *line, *want;
		double v;

		if (i < (int)(sizeof fixed / sizeof fixed[0]) * 2) {
			k = fixed[i / 2] * (i % 2 ? -1 : 1);
		} else {
			/* xorshift: k of every length up to 15 digits */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			k = (long long)(x % 1000000000000000ULL);
			/* a power of two up to 2^47 (k < 2^50): a shift of
			 * 63 would not fit a long long */
			k /= (long long)1 << ((x >> 58) % 48);
			if (x & 1)
				k = -k;
		}
		v = (double)k / 1e6;
		json_object_set_new(ev, "wall", json_real(v));
		line = event_line(ev, NULL);
		want = event_jansson(ev, 15);
		assert_string_equal(line, want);
		checked++;
		free(line);
		free(want);
		json_decref(ev);
	}
	{
		json_t *ev = json_pack("{s:f}", "z", -0.0);
		char *line = event_line(ev, NULL), *want = event_jansson(ev, 15);

		assert_string_equal(line, want);
		assert_string_equal(line, "{\"z\":-0.0}\n");
		free(line);
		free(want);
		json_decref(ev);
	}
	assert_true(checked == 200000);
}

static void
test_type_legacy_row(void **state)
{
	json_t *legacy = json_pack("{s:s,s:s,s:i}", "cell", "c", "arm", "a",
	    "rep", 1);
	json_t *other = json_pack("{s:s}", "cell", "c");

	(void)state;
	assert_string_equal(event_type(legacy), "leg");
	assert_null(event_type(other));
	assert_null(event_type(NULL));
	json_decref(legacy);
	json_decref(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timestamp_format),
		cmocka_unit_test(test_new_has_type_and_ts),
		cmocka_unit_test(test_line_is_one_line),
		cmocka_unit_test(test_reals_read_back_exactly),
		cmocka_unit_test(test_micro_reals_as_jansson),
		cmocka_unit_test(test_type_legacy_row),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
