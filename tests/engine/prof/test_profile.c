/* test: */
/* Profiles: the "profile" field read back, the readers of perf report's
 * and strace -c's text (captured on this project's machine, in
 * tests/data/profile), and the side-by-side comparison. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfread.h"
#include "profdiff.h"
#include "profile.h"
#include "spec.h"
#include "testutil.h"

#define HEAD \
	"{\"name\": \"r\", \"reps\": 1, \"command\": [\"/bin/true\"]," \
	" \"baseline\": \"a\", \"arms\": [{\"name\": \"a\"}, {\"name\": \"b\"}," \
	" {\"name\": \"c\"}], \"cells\": [{\"name\": \"x\"}, {\"name\": \"y\"," \
	" \"server\": {\"cmd\": [\"/bin/sleep\", \"9\"], \"ready\":" \
	" {\"tcp_port\": 9}}}],"

static char *
data(const char *name)
{
	char path[4096];
	char *text;

	snprintf(path, sizeof path, "%s/tests/data/profile/%s",
	    getenv("BENCHTUI_SOURCE_DIR"), name);
	text = profile_slurp(path, 1 << 20);
	assert_non_null(text);
	return text;
}

static struct spec *
load(const char *text)
{
	return tu_spec(text, "/tmp/inline.json");
}

static void
test_spec_defaults(void **state)
{
	struct spec *s = load(HEAD "\"profile\": {\"arms\": [\"c\", \"a\"],"
	    " \"perf\": {}}}");

	(void)state;
	assert_non_null(s->profile);
	/* kept in the round file's order */
	assert_int_equal(s->profile->narms, 2);
	assert_string_equal(s->profile->arms[0], "a");
	assert_string_equal(s->profile->arms[1], "c");
	/* every cell when none are named */
	assert_int_equal(s->profile->ncells, 2);
	assert_true(s->profile->perf);
	assert_false(s->profile->syscalls);
	/* no call-graph method: the round adds --call-graph dwarf */
	assert_int_equal(s->profile->nperf_args, 2);
	assert_string_equal(s->profile->perf_args[0], "-F");
	assert_null(spec_perf_unwind(s->profile->perf_args,
	    s->profile->nperf_args, &(size_t){ 0 }));
	assert_true(spec_profiles(s, "x", "a", "perf"));
	assert_false(spec_profiles(s, "x", "b", "perf"));
	assert_false(spec_profiles(s, "y", "a", "syscalls"));
	spec_destroy(s);
}

/* The call-graph method args choose, read the way perf reads them; one
 * benchtui cannot read back is named by its index. */
static void
test_spec_unwind(void **state)
{
	char *g[] = { "-F", "99", "-g" }, *fp[] = { "--call-graph", "fp" },
	    *dw[] = { "--call-graph=dwarf,16384" }, *lbr[] = { "--call-graph",
	    "lbr" }, *bad[] = { "-F", "99", "--call-graph", "dwarf,x" },
	    *unk[] = { "--call-graph=frames" }, *br[] = { "-F", "9", "-b" },
	    *end[] = { "--call-graph" };
	char **args;
	const char *m;
	size_t at = 99;

	(void)state;
	assert_string_equal(spec_perf_unwind(g, 3, &at), "fp");
	assert_string_equal(spec_perf_unwind(fp, 2, &at), "fp");
	assert_string_equal(spec_perf_unwind(dw, 1, &at), "dwarf");
	assert_string_equal(spec_perf_unwind(lbr, 2, &at), "lbr");
	assert_string_equal(spec_perf_unwind(bad, 4, &at), "?");
	assert_int_equal(at, 3);
	assert_string_equal(spec_perf_unwind(unk, 1, &at), "?");
	assert_int_equal(at, 0);
	assert_string_equal(spec_perf_unwind(br, 3, &at), "?");
	assert_int_equal(at, 2);
	assert_string_equal(spec_perf_unwind(end, 1, &at), "?");
	/* none chosen: dwarf added, or frame pointers where perf has none */
	args = profile_perf_args(g, 2, true, &m);
	assert_string_equal(m, "dwarf");
	assert_string_equal(args[2], "--call-graph");
	assert_string_equal(args[3], "dwarf," PROFILE_DWARF_STACK);
	assert_null(args[4]);
	free(args);
	args = profile_perf_args(g, 2, false, &m);
	assert_string_equal(m, "fp");
	assert_string_equal(args[3], "fp");
	free(args);
	args = profile_perf_args(g, 3, true, &m);
	assert_string_equal(m, "fp");
	assert_null(args[3]);
	free(args);
}

static void
test_spec_syscalls(void **state)
{
	struct spec *s = load(HEAD "\"profile\": {\"arms\": [\"b\"],"
	    " \"cells\": [\"y\"], \"perf\": {\"args\": []},"
	    " \"syscalls\": {\"trace\": [\"read\", \"write\"]}}}");

	(void)state;
	assert_int_equal(s->profile->ncells, 1);
	assert_int_equal(s->profile->nperf_args, 0);
	assert_int_equal(s->profile->ntrace, 2);
	assert_string_equal(s->profile->trace[1], "write");
	assert_true(spec_profiles(s, "y", "b", "syscalls"));
	assert_true(spec_profiles(s, "y", "b", "perf"));
	assert_false(spec_profiles(s, "x", "b", NULL));
	spec_destroy(s);
	/* without a trace list, every call is shown */
	s = load(HEAD "\"profile\": {\"arms\": [\"b\"], \"syscalls\": {}}}");
	assert_int_equal(s->profile->ntrace, 0);
	/* x has no server: nothing of x is profiled */
	assert_false(spec_profiles(s, "x", "b", NULL));
	spec_destroy(s);
}

/* The software clock is told from a hardware event. */
static void
test_event_clock(void **state)
{
	(void)state;
	assert_true(profile_event_is_clock("cpu-clock:pppH"));
	assert_true(profile_event_is_clock("task-clock"));
	assert_false(profile_event_is_clock("cycles:P"));
}

/* profile_strace_table on the data file name; rows and total are the
 * caller's to release. */
static int
strace_file(const char *name, json_t **rows, json_t **total, char *err,
    size_t errlen)
{
	char *text = data(name);
	int rc = profile_strace_table(text, rows, total, err, errlen);

	free(text);
	return rc;
}

static void
test_strace_table(void **state)
{
	char err[256];
	json_t *rows, *total;

	(void)state;
	assert_int_equal(strace_file("strace-errors.txt", &rows, &total, err,
	    sizeof err), 0);
	assert_int_equal(json_array_size(rows), 3);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(rows, 1), "syscall")), "write");
	assert_int_equal(json_integer_value(json_object_get(
	    json_array_get(rows, 1), "errors")), 10);
	assert_int_equal(json_integer_value(json_object_get(total, "calls")),
	    210);
	json_decref(rows);
	json_decref(total);

	assert_int_equal(strace_file("strace-c.txt", &rows, &total, err,
	    sizeof err), 0);
	assert_int_equal(json_integer_value(json_object_get(total, "calls")),
	    4);
	json_decref(rows);
	json_decref(total);

	/* rows that do not add up to the total are refused */
	assert_int_equal(strace_file("strace-bad.txt", &rows, &total, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "add up to 210"));
	json_decref(rows);
	json_decref(total);
	/* no total row */
	assert_int_equal(profile_strace_table("nothing\n", &rows, &total, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "no total row"));
	json_decref(rows);
}

/* Which kernel settings block perf and strace, for root and for others. */
static void
test_blocked(void **state)
{
	static const struct {
		const char *kind;
		int paranoid, ptrace;
		bool root, blocked;
		const char *says;
	} t[] = {
		{ "perf", 2, 0, false, false, NULL },
		{ "perf", -1, 0, false, false, NULL },
		{ "perf", 3, 0, false, true, "perf_event_paranoid is 3" },
		{ "perf", 4, 0, true, false, NULL },
		{ "server_perf", 3, 0, false, true, "perf_event_paranoid is 3" },
		{ "server_perf", 2, 1, false, false, NULL },
		{ "syscalls", 2, 0, false, false, NULL },
		{ "syscalls", 2, -1000, false, false, NULL },
		{ "syscalls", 2, 1, false, true, "only to its own descendants" },
		{ "syscalls", 2, 1, true, false, NULL },
		{ "syscalls", 2, 2, false, true, "only root may attach" },
		{ "syscalls", 2, 2, true, false, NULL },
		{ "syscalls", 2, 3, true, true, "until reboot" },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *why = profile_blocked_by(t[i].kind, t[i].paranoid,
		    t[i].ptrace, t[i].root, buf, sizeof buf);

		if ((why != NULL) != t[i].blocked)
			fail_msg("case %zu (%s %d %d root %d): %s", i, t[i].kind,
			    t[i].paranoid, t[i].ptrace, t[i].root,
			    why ? why : "not blocked");
		if (t[i].says != NULL && strstr(why, t[i].says) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, why,
			    t[i].says);
	}
}

static json_t *
prof_ev(const char *arm, const char *kind, const char *top)
{
	json_t *ev = json_pack("{s:s,s:s,s:s,s:s,s:s}", "t", "profile",
	    "cell", "x", "arm", arm, "kind", kind, "status", "ok");

	json_object_set_new(ev, "top", json_loads(top, 0, NULL));
	return ev;
}

static void
feed(struct profdiff *d, json_t *ev)
{
	profdiff_feed(d, ev);
	json_decref(ev);
}

static void
test_profdiff(void **state)
{
	json_t *cells = json_loads("{\"x\": {\"arms\": {\"b\": {\"vs\": \"a\"},"
	    " \"c\": {\"vs\": \"a\"}}}}", 0, NULL);
	struct profdiff *d = profdiff_create();
	json_t *out, *cmp, *syms, *first;

	(void)state;
	feed(d, prof_ev("a", "perf", "[{\"symbol\": \"base\","
	    " \"share\": 98.0}, {\"symbol\": \"main\", \"share\": 2.0}]"));
	feed(d, prof_ev("b", "perf", "[{\"symbol\": \"base\","
	    " \"share\": 50.0}, {\"symbol\": \"hot\", \"share\": 49.0},"
	    " {\"symbol\": \"main\", \"share\": 1.0}]"));
	/* c was not profiled against anything: b's pair only */
	out = profdiff_json(d, cells);
	cmp = json_object_get(json_object_get(json_object_get(out, "x"), "b"),
	    "perf");
	assert_non_null(cmp);
	assert_string_equal(json_string_value(json_object_get(cmp, "vs")), "a");
	syms = json_object_get(cmp, "symbols");
	first = json_array_get(syms, 0);
	/* the largest move first: base falls 48 points, hot rises 49 */
	assert_string_equal(json_string_value(json_object_get(first, "symbol")),
	    "hot");
	assert_true(json_real_value(json_object_get(first, "diff")) == 49.0);
	assert_true(json_real_value(json_object_get(first, "vs_share")) == 0.0);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(syms, 1), "symbol")), "base");
	assert_true(json_real_value(json_object_get(json_array_get(syms, 1),
	    "diff")) == -48.0);
	assert_null(json_object_get(json_object_get(out, "x"), "c"));
	/* the baseline's own profile is listed, compared with nothing */
	assert_true(json_is_null(json_object_get(json_object_get(
	    json_object_get(json_object_get(out, "x"), "a"), "perf"), "vs")));
	json_decref(out);
	json_decref(cells);
	profdiff_destroy(d);
	profdiff_destroy(NULL);
}

/* perf report's folded output read back: counts, names, callers. */
static void
test_perfread(void **state)
{
	char path[4096];
	FILE *f;
	json_t *p, *first, *ev;

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/profile/perf-folded.txt",
	    getenv("BENCHTUI_SOURCE_DIR"));
	assert_non_null(f = fopen(path, "r"));
	p = perfread_parse(f);
	fclose(f);
	assert_string_equal(json_string_value(json_object_get(p, "event")),
	    "cpu-clock:pppH");
	first = json_array_get(json_object_get(p, "symbols"), 0);
	assert_string_equal(json_string_value(json_object_get(first, "object")),
	    "prof-hot");
	/* the caller is the second frame of each chain */
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(first, "callers"), 0), "caller")),
	    strcmp(json_string_value(json_object_get(first, "symbol")),
	    "prof_base") == 0 ? "prof_common" : "prof_hot_path");
	/* the rows add up to the profile's samples */
	{
		json_int_t sum = 0;
		size_t i;
		json_t *r;

		json_array_foreach(json_object_get(p, "symbols"), i, r)
			sum += json_integer_value(json_object_get(r, "samples"));
		assert_int_equal(sum, json_integer_value(json_object_get(p,
		    "samples")));
	}
	ev = json_object();
	perfread_event(ev, p, 2);
	assert_int_equal(json_array_size(json_object_get(ev, "top")), 2);
	assert_true(json_array_size(json_object_get(ev, "symbols")) >= 1);
	json_decref(ev);
	json_decref(p);

	/* a stripped binary: OBJECT+0xOFFSET, and the object's sum */
	snprintf(path, sizeof path, "%s/tests/data/profile/perf-stripped.txt",
	    getenv("BENCHTUI_SOURCE_DIR"));
	assert_non_null(f = fopen(path, "r"));
	p = perfread_parse(f);
	fclose(f);
	{
		bool named = false;
		size_t i;
		json_t *r;

		json_array_foreach(json_object_get(p, "symbols"), i, r)
			named |= strcmp(json_string_value(json_object_get(r,
			    "symbol")), "zstd+0x4ff3f") == 0;
		assert_true(named);
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(p, "objects"), 0), "object")), "[zstd]");
	json_decref(p);
}

/* The intervals: Wilson for a share, Newcombe for a difference. */
static void
test_intervals(void **state)
{
	double lo, hi;

	(void)state;
	/* 50 of 100: [0.404, 0.596] */
	profdiff_wilson(50, 100, &lo, &hi);
	assert_true(fabs(lo - 0.4038) < 1e-3 && fabs(hi - 0.5962) < 1e-3);
	/* 0 of 100: [0, 0.037] */
	profdiff_wilson(0, 100, &lo, &hi);
	assert_true(lo == 0 && fabs(hi - 0.0370) < 1e-3);
	/* Newcombe's example: 56/70 - 48/80 = 0.2, [0.0524, 0.3339] */
	profdiff_newcombe(56, 70, 48, 80, &lo, &hi);
	assert_true(fabs(lo - 0.0524) < 1e-3 && fabs(hi - 0.3339) < 1e-3);
	/* the same share in both: the interval holds 0 */
	profdiff_newcombe(1000, 2000, 1010, 2000, &lo, &hi);
	assert_true(lo < 0 && hi > 0);
}

/* Impossible and duplicate profile events are warned about. */
static void
test_profdiff_warnings(void **state)
{
	struct profdiff *d = profdiff_create();
	json_t *ev;

	(void)state;
	ev = json_loads("{\"t\": \"profile\", \"cell\": \"x\", \"arm\": "
	    "\"a\", \"kind\": \"perf\", \"status\": \"ok\", \"samples\": "
	    "10, \"top\": [{\"symbol\": \"f\", \"samples\": 20, "
	    "\"share\": 200}]}", 0, NULL);
	profdiff_feed(d, ev);
	profdiff_feed(d, ev);
	json_decref(ev);
	ev = json_loads("{\"t\": \"profile\", \"cell\": \"x\", \"arm\": "
	    "\"a\", \"kind\": \"flames\", \"status\": \"ok\"}", 0, NULL);
	profdiff_feed(d, ev);
	json_decref(ev);
	/* the second feed is a duplicate, and as impossible as the first */
	assert_int_equal(json_array_size(profdiff_warnings(d)), 4);
	assert_non_null(strstr(json_string_value(json_array_get(
	    profdiff_warnings(d), 0)), "cannot be right"));
	assert_non_null(strstr(json_string_value(json_array_get(
	    profdiff_warnings(d), 1)), "two perf profiles"));
	assert_non_null(strstr(json_string_value(json_array_get(
	    profdiff_warnings(d), 3)), "unknown kind"));
	profdiff_destroy(d);
}

/* An empty strace -c summary is zero calls, not a failure. */
static void
test_strace_empty(void **state)
{
	char err[256];
	json_t *rows, *total;

	(void)state;
	assert_int_equal(profile_strace_table("", &rows, &total, err,
	    sizeof err), 0);
	assert_int_equal(json_array_size(rows), 0);
	assert_int_equal(json_integer_value(json_object_get(total, "calls")), 0);
	json_decref(rows);
	json_decref(total);
}

/* perf's sampling rate as its options say. */
static void
test_perf_rate(void **state)
{
	char *f999[] = { "-F", "999", "-g" }, *c[] = { "-c", "500000" },
	    *none[] = { "-g" };

	(void)state;
	assert_true(profile_perf_rate(f999, 3) == 999);
	assert_true(profile_perf_rate(c, 2) == 2000);
	assert_true(profile_perf_rate(none, 1) <= 4000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_defaults),
		cmocka_unit_test(test_spec_unwind),
		cmocka_unit_test(test_spec_syscalls),
		cmocka_unit_test(test_event_clock),
		cmocka_unit_test(test_strace_table),
		cmocka_unit_test(test_profdiff),
		cmocka_unit_test(test_perfread),
		cmocka_unit_test(test_intervals),
		cmocka_unit_test(test_profdiff_warnings),
		cmocka_unit_test(test_strace_empty),
		cmocka_unit_test(test_perf_rate),
		cmocka_unit_test(test_blocked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
