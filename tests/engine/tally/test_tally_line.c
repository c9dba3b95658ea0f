/* test: */
/* tally_line: a leg line read straight from its text (tally_feed_line)
 * must give the tally exactly what jansson's json_t gives it (tally_feed):
 * the same log read both ways gives the same report, odd lines included;
 * a line taken gives jansson's record (tally_rec_diff, the comparison
 * fuzz/fuzz_tally_line.c makes too); numbers convert to the same doubles;
 * and every line the scanner cannot follow, or that is not valid JSON, is
 * handed back to jansson. */
#include <math.h>
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
#include "report.h"
#include "tally.h"
#include "tally_int.h"

/* Lines the scanner takes (leg lines it follows to the letter). */
static const char *const taken[] = {
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":1,\"seq\":1,"
	"\"status\":\"ok\",\"rc\":0,\"signal\":null,\"timed_out\":false,"
	"\"wall\":0.5,\"utime\":0.4,\"stime\":0.05,\"cpu\":0.45,"
	"\"cycles\":1500000000,\"instructions\":2700000000,\"counters\":"
	"{\"cycles\":1500000000,\"instructions\":2700000000,\"task-clock\":5e8},"
	"\"foreign\":0.1,\"bin\":\"/usr/bin/zstd\"}",
	/* reordered, white space everywhere, a real rep */
	" { \"counters\" : { \"task-clock\" : 5.5E+8 , \"cycles\" : 1.6e9 } ,"
	" \"wall\" : 0.55 , \"rep\" : 1.0 , \"arm\" : \"fast\" , \"cell\" :"
	" \"c1\" , \"t\" : \"leg\" , \"status\" : \"ok\" }\t",
	/* nulls, an unknown nested field, the cpu from utime + stime */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"aa\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":0.51,\"cpu\":null,\"utime\":0.3,\"stime\":0.1,\"cycles\":null,"
	"\"counters\":{\"cycles\":null,\"task-clock\":490000000},"
	"\"extra\":{\"a\":[1,2,{\"b\":null,\"c\":[[],{}]}],\"d\":-0.0}}",
	/* repeated keys: jansson keeps the last value, the first place */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":2,\"wall\":9,"
	"\"wall\":0.49,\"status\":\"ok\",\"counters\":{\"zz\":1},\"counters\":"
	"{\"x\":1,\"task-clock\":4.9e8,\"x\":3,\"cycles\":1.4e9}}",
	/* a legacy row: no t, no status, rc */
	"{\"cell\":\"c1\",\"arm\":\"fast\",\"rep\":2,\"rc\":0,\"wall\":0.46,"
	"\"utime\":0.4,\"stime\":0.01,\"counters\":{\"x\":2}}",
	/* legacy rows that failed: rc, a signal name, a real rc */
	"{\"cell\":\"c1\",\"arm\":\"aa\",\"rep\":2,\"rc\":3,\"wall\":0.5}",
	"{\"cell\":\"c1\",\"arm\":\"aa\",\"rep\":3,\"signal\":\"KILL\",\"wall\":0.5}",
	"{\"cell\":\"c1\",\"arm\":\"fast\",\"rep\":3,\"rc\":0.0,\"wall\":0.5}",
	"{\"cell\":\"c1\",\"arm\":\"base\",\"rep\":3,\"rc\":null,\"signal\":0}",
	/* a warm-up leg: a leg line, not counted */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":0,\"warmup\":1,"
	"\"status\":\"ok\",\"wall\":7}",
	/* server block, own metrics, multiplexed, thresholds */
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"base\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":1.0,\"cpu\":0.9,\"server\":{\"utime\":1,\"cpu\":2.5,\"counters\":"
	"{\"cycles\":7e9,\"instructions\":null}},\"metrics\":{\"rps\":1200.5,"
	"\"p99_ms\":3},\"multiplexed\":[\"cycles\"],\"foreign\":0.9,"
	"\"threshold\":0.5}",
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"fast\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":0.8,\"cpu\":0.7,\"server\":{\"cpu\":2.0,\"counters\":"
	"{\"cycles\":6e9}},\"metrics\":{\"rps\":1500,\"p99_ms\":2.5,\"bad\":\"x\"},"
	"\"multiplexed\":[],\"foreign\":0.9,\"max_foreign_cores\":1.5}",
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"fast\",\"rep\":2,\"status\":\"ok\","
	"\"wall\":0.8,\"server\":5,\"metrics\":[1],\"multiplexed\":true,"
	"\"counters\":{\"server_cpu\":1}}",
	/* statuses: timed out, aborted, failed, an unknown word */
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"base\",\"rep\":2,\"status\":"
	"\"timed_out\",\"wall\":3}",
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"base\",\"rep\":3,\"status\":"
	"\"aborted\",\"wall\":3}",
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"base\",\"rep\":3,\"status\":"
	"\"failed\",\"rc\":1,\"wall\":3}",
	"{\"t\":\"leg\",\"cell\":\"c2\",\"arm\":\"fast\",\"rep\":3,\"status\":"
	"\"odd\",\"timed_out\":true,\"wall\":3}",
	/* numbers the fast conversion does not cover, and odd values */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":4,\"status\":\"ok\","
	"\"wall\":0.12345678901234567890123,\"cpu\":123456789012345678.5,"
	"\"cycles\":123456789012345678,\"instructions\":1e-320}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"fast\",\"rep\":4,\"status\":\"ok\","
	"\"wall\":-0.5,\"cpu\":4e7,\"cycles\":0.0000001234e5}",
	/* unusable: rep a string, negative, fractional, no cell */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":\"5\"}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":-1}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"base\",\"rep\":1.5}",
	"{\"t\":\"leg\",\"cell\":5,\"arm\":\"base\",\"rep\":1}",
	/* the gate's fields, and an earlier benchtui's flags */
	"{\"t\":\"leg\",\"cell\":\"c3\",\"arm\":\"base\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":1,\"gate\":\"budget\",\"wait_s\":1.25,\"client_busy\":0.4,"
	"\"server_busy\":null,\"foreign\":0.1}",
	"{\"t\":\"leg\",\"cell\":\"c3\",\"arm\":\"fast\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":1,\"quiet_override\":true,\"quiet_timeout\":false,"
	"\"gate\":7}",
	"{\"t\":\"leg\",\"cell\":\"c3\",\"arm\":\"base\",\"rep\":2,\"status\":\"ok\","
	"\"wall\":1,\"quiet_timeout\":true,\"server_busy\":0.3}",
	/* a duplicate counted line */
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"aa\",\"rep\":1,\"status\":\"ok\","
	"\"wall\":0.52,\"foreign\":5}",
};

/* Lines handed to jansson: other events, what the scanner does not
 * follow (escapes, non-ASCII, a type that is not a string, very deep
 * nesting, a very long integer).  All valid JSON. */
static const char *const passed[] = {
	"{\"t\":\"round\",\"name\":\"odd\",\"reps\":4}",
	"{\"t\":\"quiet\",\"threshold\":0.7}",
	"{\"t\":\"leg\",\"cell\":\"c\\u0031\",\"arm\":\"slow\",\"rep\":1,"
	"\"status\":\"ok\",\"wall\":0.7}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"slow\",\"rep\":2,\"status\":\"ok\","
	"\"wall\":0.7,\"bin\":\"a\\\"b\"}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"sl\xc3\xb6w\",\"rep\":1,"
	"\"status\":\"ok\",\"wall\":0.7}",
	"{\"t\":5,\"cell\":\"c1\",\"arm\":\"slow\",\"rep\":3,\"wall\":0.7}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"slow\",\"rep\":4,\"status\":\"ok\","
	"\"wall\":0.7,\"x\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]"
	"]]]]]]]]]]]]]]]]]}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"slow\",\"rep\":5,\"status\":\"ok\","
	"\"wall\":0.7,\"seq\":1234567890123456789}",
	"{\"t\":\"leg\",\"cell\":\"c1\",\"arm\":\"slow\",\"rep\":6,\"status\":\"ok\","
	"\"wall\":0.7,\"rc\":0,\"counters\":{\"c\\u0079cles\":5}}",
	"{\"note\":\"neither t nor cell\"}",
	"{}",
};

/* Not valid JSON (or not an object): handed back, and jansson agrees. */
static const char *const invalid[] = {
	"{\"t\":\"leg\",\"cell\":\"c\",}",
	"{\"t\":\"leg\"} x",
	"{\"t\":\"leg\",\"wall\":01}",
	"{\"t\":\"leg\",\"wall\":1.}",
	"{\"t\":\"leg\",\"wall\":.5}",
	"{\"t\":\"leg\",\"wall\":-}",
	"{\"t\":\"leg\",\"wall\":1e}",
	"{\"t\":\"leg\",\"wall\":+1}",
	"{\"t\":\"leg\",\"x\":tru}",
	"{\"t\":\"leg\",\"x\":nul}",
	"{\"t\":\"leg\",\"x\":\"a\x01\"}",
	"{\"t\":\"leg\",\"x\":\"open}",
	"{\"t\":\"leg\",\"x\":[1,]}",
	"{\"t\":\"leg\",\"x\":{\"a\"}}",
	"{\"t\":\"leg\",\"wall\":1e400}",
	"{\"t\":\"leg\",\"rep\":99999999999999999999999}",
	"{\"t\" \"leg\"}",
	"[1]",
	"\"leg\"",
	"",
};

static void
rec_free(struct tally_legrec *r)
{
	free(r->ctr.v);
	free(r->server_ctr.v);
	free(r->mets.v);
}

/* line read by the scanner and by jansson's json_t: whether the scanner
 * took it, and if so the first field of the records that differs
 * (tally_rec_diff) in *field, NULL when none.  jansson must accept every
 * line the scanner takes. */
static bool
rec_diff(const char *line, size_t len, const char **field, double *walls)
{
	struct tally *t = tally_create();
	struct tally_legrec r, jr;
	char *scratch = NULL;
	size_t scap = 0;
	bool fed, taken;
	json_error_t jerr;
	json_t *ev;

	memset(&r, 0, sizeof r);
	memset(&jr, 0, sizeof jr);
	*field = NULL;
	if ((taken = tally_line_scan(line, len, &r, &scratch, &scap, &fed))) {
		if ((ev = json_loadb(line, len, 0, &jerr)) == NULL)
			fail_msg("taken, jansson refuses: %.*s", (int)len, line);
		tally_rec_from_json(t, &jr, ev);
		*field = tally_rec_diff(&r, &jr);
		walls[0] = r.fixed[M_WALL];
		walls[1] = jr.fixed[M_WALL];
		json_decref(ev);
	}
	free(scratch);
	rec_free(&r);
	rec_free(&jr);
	tally_destroy(t);
	return taken;
}

static const char *
write_log(const char *const *lines, size_t n, size_t m,
    const char *const *more)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof path, "/tmp/test-tally-line-XXXXXX");
	assert_true((fd = mkstemp(path)) >= 0);
	assert_non_null(f = fdopen(fd, "w"));
	/* Interleaved, so jansson's lines fall between the scanner's. */
	for (size_t i = 0; i < n || i < m; i++) {
		if (i < n)
			fprintf(f, "%s\n", lines[i]);
		if (i < m)
			fprintf(f, "%s\n", more[i]);
	}
	assert_int_equal(fclose(f), 0);
	return path;
}

static int
feed_json(json_t *ev, size_t lineno, void *arg)
{
	(void)lineno;
	tally_feed(arg, ev);
	return 0;
}

struct fast {
	struct tally *t;
	size_t taken;
};

static bool
feed_line(const char *line, size_t len, size_t lineno, void *arg)
{
	struct fast *f = arg;

	(void)lineno;
	if (tally_feed_line(f->t, line, len) != TALLY_LINE_LEG)
		return false;
	f->taken++;
	return true;
}

static int
feed_fast_json(json_t *ev, size_t lineno, void *arg)
{
	struct fast *f = arg;

	(void)lineno;
	tally_feed(f->t, ev);
	return 0;
}

static char *
print(const json_t *rep, enum report_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(report_print(rep, fmt, f), 0);
	fclose(f);
	return buf;
}

struct lists {
	const struct tally *t;
	double *buf;
	size_t cap;
};

static size_t
get_ratios(void *arg, const char *cell, const char *arm, const char *metric,
    const double **ratios)
{
	struct lists *l = arg;
	size_t n = tally_ratios(l->t, cell, arm, metric, &l->buf, &l->cap);

	*ratios = l->buf;
	return n;
}

/* json and csv printed with the lists drawn one at a time from the tally:
 * the bytes of the report that holds them. */
static void
check_deferred(const struct tally *t, const json_t *full)
{
	struct lists l = { .t = t };
	struct report_lists src = { get_ratios, &l };
	json_t *rep = tally_report_deferred(t);

	for (int fmt = REPORT_JSON; fmt <= REPORT_CSV; fmt++) {
		char *want = print(full, (enum report_format)fmt), *got = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&got, &len);
		assert_non_null(f);
		assert_int_equal(report_print_lists(rep,
		    (enum report_format)fmt, f, &src), 0);
		fclose(f);
		assert_string_equal(got, want);
		free(want);
		free(got);
	}
	json_decref(rep);
	free(l.buf);
}

/* The same log both ways: the same report, in every format. */
static void
test_same_tally(void **state)
{
	size_t nt = sizeof taken / sizeof taken[0];
	size_t np = sizeof passed / sizeof passed[0];
	const char *path = write_log(taken, nt, np, passed);
	struct tally *slow = tally_create();
	struct fast fast = { .t = tally_create() };
	char err[256];
	json_t *a, *b;

	(void)state;
	assert_int_equal(tally_add_aa(slow, "aa", "base"), 0);
	assert_int_equal(tally_add_aa(fast.t, "aa", "base"), 0);
	assert_int_equal(logread_file(path, feed_json, slow, NULL, err,
	    sizeof err), 0);
	assert_int_equal(logread_file_lines(path, feed_line, feed_fast_json,
	    &fast, NULL, err, sizeof err), 0);
	unlink(path);
	assert_int_equal(fast.taken, nt);
	a = tally_report(slow);
	b = tally_report(fast.t);
	assert_true(json_equal(a, b));
	for (int fmt = REPORT_TEXT; fmt <= REPORT_MARKDOWN; fmt++) {
		char *x = print(a, (enum report_format)fmt);
		char *y = print(b, (enum report_format)fmt);
		assert_string_equal(x, y);
		free(x);
		free(y);
	}
	check_deferred(fast.t, b);
	/* The lines did reach the report. */
	assert_true(json_integer_value(json_object_get(a, "legs_counted")) > 10);
	json_decref(a);
	json_decref(b);
	tally_destroy(slow);
	tally_destroy(fast.t);
}

/* 1e-100000 times 1e1000005 overflows, and jansson refuses it; the
 * exponent's digits past the scanner's cap once made it 1e100000, and the
 * line was taken with a wall of 1. */
static void
check_big_exponent(struct tally *t)
{
	static const char head[] = "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":"
	    "\"a\",\"rep\":1,\"wall\":0.";
	size_t zeros = 99999, n = 0;
	char *line = malloc(sizeof head + zeros + 16);
	json_error_t jerr;

	assert_non_null(line);
	n += (size_t)sprintf(line, "%s", head);
	memset(line + n, '0', zeros);
	n += zeros;
	n += (size_t)sprintf(line + n, "1e1000005}");
	assert_null(json_loadb(line, n, 0, &jerr));
	assert_int_equal(tally_feed_line(t, line, n), TALLY_LINE_PASS);
	free(line);
}

static void
test_handed_back(void **state)
{
	struct tally *t = tally_create();
	json_error_t jerr;

	(void)state;
	for (size_t i = 0; i < sizeof passed / sizeof passed[0]; i++) {
		json_t *ev = json_loads(passed[i], 0, &jerr);
		if (ev == NULL)
			fail_msg("not valid JSON: %s", passed[i]);
		json_decref(ev);
		if (tally_feed_line(t, passed[i], strlen(passed[i])) !=
		    TALLY_LINE_PASS)
			fail_msg("taken: %s", passed[i]);
	}
	check_big_exponent(t);
	for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
		json_t *ev = json_loads(invalid[i], 0, &jerr);
		if (ev != NULL && json_is_object(ev))
			fail_msg("valid JSON: %s", invalid[i]);
		json_decref(ev);
		if (tally_feed_line(t, invalid[i], strlen(invalid[i])) !=
		    TALLY_LINE_PASS)
			fail_msg("taken: %s", invalid[i]);
	}
	tally_destroy(t);
}

/* line with one to three random edits of the bytes JSON is made of. */
static size_t
mutate(char *buf, size_t cap, const char *line)
{
	static const char bytes[] = "{}[]\":,0123456789.eE+- \\tfnulax\x7f\xc3";
	size_t n = strlen(line), edits = 1 + (size_t)(random() % 3);

	memcpy(buf, line, n + 1);
	for (size_t e = 0; e < edits && n > 1; e++) {
		size_t at = (size_t)random() % n;
		char c = bytes[random() % (sizeof bytes - 1)];
		switch (random() % 3) {
		case 0:
			buf[at] = c;
			break;
		case 1:
			memmove(buf + at, buf + at + 1, n - at);
			n--;
			break;
		default:
			if (n + 2 >= cap)
				break;
			memmove(buf + at + 1, buf + at, n - at + 1);
			buf[at] = c;
			n++;
		}
	}
	return n;
}

/* Random edits of the taken lines: the scanner never takes a line jansson
 * refuses, a valid one it takes gives jansson's record, and the valid ones
 * read both ways give the same report. */
static void
test_mutations(void **state)
{
	size_t nt = sizeof taken / sizeof taken[0], nvalid = 0, cap = 4096;
	char **valid = calloc(cap, sizeof *valid), buf[1024], err[256];
	struct tally *probe = tally_create(), *slow = tally_create();
	struct fast fast = { .t = tally_create() };
	const char *path;
	json_t *a, *b;

	(void)state;
	srandom(11);
	for (int i = 0; i < 20000; i++) {
		size_t n = mutate(buf, sizeof buf, taken[(size_t)random() % nt]);
		json_error_t jerr;
		json_t *ev = json_loadb(buf, n, 0, &jerr);
		bool ok = ev != NULL && json_is_object(ev);
		json_decref(ev);
		const char *field;
		double walls[2];
		if (!ok && tally_feed_line(probe, buf, n) != TALLY_LINE_PASS)
			fail_msg("took a line jansson refuses: %.*s", (int)n, buf);
		if (ok && rec_diff(buf, n, &field, walls) && field != NULL)
			fail_msg("%s differs: %.*s", field, (int)n, buf);
		if (ok && nvalid < cap && memchr(buf, '\n', n) == NULL)
			valid[nvalid++] = strndup(buf, n);
	}
	assert_true(nvalid > 1000);
	path = write_log((const char *const *)valid, nvalid, 0, NULL);
	assert_int_equal(logread_file(path, feed_json, slow, NULL, err,
	    sizeof err), 0);
	assert_int_equal(logread_file_lines(path, feed_line, feed_fast_json,
	    &fast, NULL, err, sizeof err), 0);
	unlink(path);
	assert_true(fast.taken > 0);
	a = tally_report(slow);
	b = tally_report(fast.t);
	assert_true(json_equal(a, b));
	json_decref(a);
	json_decref(b);
	for (size_t i = 0; i < nvalid; i++)
		free(valid[i]);
	free(valid);
	tally_destroy(probe);
	tally_destroy(slow);
	tally_destroy(fast.t);
}

/* A number's double, as the scanner and as jansson read it. */
static void
check_number(const char *num)
{
	char line[256];
	const char *field;
	double walls[2];

	snprintf(line, sizeof line, "{\"t\":\"leg\",\"wall\":%s}", num);
	if (!rec_diff(line, strlen(line), &field, walls))
		fail_msg("not taken: %s", num);
	if (field != NULL)
		fail_msg("%s: %s differs; wall %.17g, jansson %.17g", num,
		    field, walls[0], walls[1]);
}

/* Each taken line: jansson's record. */
static void
test_same_records(void **state)
{
	const char *field;
	double walls[2];

	(void)state;
	for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
		if (!rec_diff(taken[i], strlen(taken[i]), &field, walls))
			fail_msg("not taken: %s", taken[i]);
		if (field != NULL)
			fail_msg("%s differs: %s", field, taken[i]);
	}
}

static void
test_numbers(void **state)
{
	static const char *const fixed[] = { "0", "-0", "-0.0", "0.0", "1",
	    "123456789012345678", "-123456789012345678", "0.1", "0.3",
	    "1e22", "1e23", "9007199254740993", "9007199254740993.0",
	    "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
	    "0.000000000000000000000000000001", "1E-5", "1e+5", "1.5e-0",
	    "3.14159265358979323846264338327950288", "100000000000000000.0",
	    "0.49927954800000000000000000001" };
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		check_number(fixed[i]);
	/* Random decimal texts: digits, a point, an exponent. */
	srandom(7);
	for (int i = 0; i < 20000; i++) {
		int nd = 1 + (int)(random() % 20), point = (int)(random() % (nd + 1));
		size_t n = 0;
		if (random() % 4 == 0)
			buf[n++] = '-';
		for (int d = 0; d < nd; d++) {
			if (d == point && d > 0)
				buf[n++] = '.';
			buf[n++] = (char)('0' + ((d == 0 && nd > 1 && point != 1) ?
			    1 + random() % 9 : random() % 10));
		}
		if (point == nd && random() % 2)
			n += (size_t)snprintf(buf + n, sizeof buf - n, ".%ld",
			    random() % 1000);
		if (random() % 3 == 0)
			n += (size_t)snprintf(buf + n, sizeof buf - n, "e%ld",
			    random() % 60 - 30);
		buf[n] = '\0';
		/* Integers past 18 digits are jansson's to judge. */
		if (strpbrk(buf, ".e") == NULL && nd > 18)
			continue;
		check_number(buf);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_tally),
		cmocka_unit_test(test_same_records),
		cmocka_unit_test(test_handed_back),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_mutations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
