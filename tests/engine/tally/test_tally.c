/* test: */
/* tally: hand-computed reports from small logs. */
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

#include "report.h"
#include "spec.h"
#include "tally.h"
#include "testutil.h"

#define assert_near(a, b, eps) \
	assert_true(fabs((double)(a) - (double)(b)) <= (eps))

/* Feed every line of a JSONL text. */
static void
feed(struct tally *t, const char *text)
{
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		json_error_t jerr;
		json_t *ev = json_loadb(p, len, 0, &jerr);

		if (ev == NULL)
			fail_msg("bad test line: %.*s: %s", (int)len, p, jerr.text);
		tally_feed(t, ev);
		json_decref(ev);
		p += len + (nl ? 1 : 0);
	}
}

/* rep["cells"][cell]["arms"][arm]["metrics"][metric][key] */
static json_t *
metric(json_t *rep, const char *cell, const char *arm, const char *m,
    const char *key)
{
	json_t *x = json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(json_object_get(
	    rep, "cells"), cell), "arms"), arm), "metrics"), m), key);

	assert_non_null(x);
	return x;
}

static double
num(json_t *x)
{
	assert_true(json_is_number(x));
	return json_number_value(x);
}

static json_t *
cellfloor(json_t *rep, const char *cell, const char *m)
{
	return json_object_get(json_object_get(json_object_get(json_object_get(
	    rep, "cells"), cell), "floor"), m);
}

/* "vs" is a sibling of "metrics": fetch it without the metric() path. */
static const char *
arm_vs(json_t *rep, const char *cell, const char *arm)
{
	return json_string_value(json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(rep, "cells"), cell), "arms"), arm),
	    "vs"));
}

#define LEG(cell, arm, rep, status, wall) \
	"{\"t\":\"leg\",\"cell\":\"" cell "\",\"arm\":\"" arm "\",\"rep\":" #rep \
	",\"status\":\"" status "\",\"wall\":" #wall ",\"cpu\":null}\n"

/* Whether one of the report's warnings says text. */
static bool
has_warning(json_t *rep, const char *text)
{
	return tu_has_string(json_object_get(rep, "warnings"), text, NULL);
}

/* The report of a tally fed log alone. */
static json_t *
report_of(const char *log)
{
	struct tally *t = tally_create();
	json_t *rep;

	feed(t, log);
	rep = tally_report(t);
	tally_destroy(t);
	return rep;
}

static void
test_odd_even_and_geomean(void **state)
{
	json_t *rep, *r;

	(void)state;
	/* Arm b against a (first seen): odd n = 3, ratios 2, 1, 4. */
	rep = report_of(LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 2)
	    LEG("c", "a", 2, "ok", 2) LEG("c", "b", 2, "ok", 2)
	    LEG("c", "a", 3, "ok", 1) LEG("c", "b", 3, "ok", 4)
	    /* Cell d: even n = 4, ratios 1, 3, 2, 4 -> median 2.5. */
	    LEG("d", "a", 1, "ok", 1) LEG("d", "b", 1, "ok", 1)
	    LEG("d", "a", 2, "ok", 1) LEG("d", "b", 2, "ok", 3)
	    LEG("d", "a", 3, "ok", 1) LEG("d", "b", 3, "ok", 2)
	    LEG("d", "a", 4, "ok", 1) LEG("d", "b", 4, "ok", 4));
	assert_int_equal(json_integer_value(metric(rep, "c", "b", "wall", "n")), 3);
	assert_near(num(metric(rep, "c", "b", "wall", "median")), 2, 0);
	assert_near(num(metric(rep, "c", "b", "wall", "min")), 1, 0);
	assert_near(num(metric(rep, "c", "b", "wall", "max")), 4, 0);
	assert_near(num(metric(rep, "c", "b", "wall", "geomean")), 2, 1e-12);
	r = metric(rep, "c", "b", "wall", "ratios");
	assert_int_equal(json_array_size(r), 3);
	assert_near(num(json_array_get(r, 0)), 2, 0);   /* rep order */
	assert_near(num(json_array_get(r, 2)), 4, 0);
	assert_near(num(metric(rep, "d", "b", "wall", "median")), 2.5, 0);
	assert_near(num(metric(rep, "d", "b", "wall", "geomean")),
	    pow(24, 0.25), 1e-12);
	/* The baseline has no entry; cpu is null in every leg: n/a. */
	assert_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "arms"), "a"));
	assert_int_equal(json_integer_value(metric(rep, "c", "b", "cpu", "n")), 0);
	assert_true(json_is_null(metric(rep, "c", "b", "cpu", "median")));
	/* No A/A arm: floor null, verdict unknown. */
	assert_true(json_is_null(cellfloor(rep, "c", "wall")));
	assert_string_equal(json_string_value(metric(rep, "c", "b", "wall",
	    "verdict")), "unknown");
	json_decref(rep);
}

static void
test_missing_and_failed(void **state)
{
	json_t *rep;

	(void)state;
	rep = report_of(LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 2)
	    /* rep 2: b failed */
	    LEG("c", "a", 2, "ok", 1) LEG("c", "b", 2, "failed", 9)
	    /* rep 3: a's wall missing */
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":3,\"status\":\"ok\",\"wall\":null}\n"
	    LEG("c", "b", 3, "ok", 9)
	    /* rep 4: a timed out */
	    LEG("c", "a", 4, "timed_out", 1) LEG("c", "b", 4, "ok", 9)
	    /* rep 5: legacy rows, rc 0 and rc 3 */
	    "{\"cell\":\"c\",\"arm\":\"a\",\"rep\":5,\"rc\":0,\"wall\":2}\n"
	    "{\"cell\":\"c\",\"arm\":\"b\",\"rep\":5,\"rc\":3,\"wall\":9}\n"
	    /* rep 6: legacy, both ok */
	    "{\"cell\":\"c\",\"arm\":\"a\",\"rep\":6,\"rc\":0,\"wall\":2}\n"
	    "{\"cell\":\"c\",\"arm\":\"b\",\"rep\":6,\"rc\":0,\"wall\":3}\n");
	assert_int_equal(json_integer_value(metric(rep, "c", "b", "wall", "n")), 2);
	assert_near(num(json_array_get(metric(rep, "c", "b", "wall", "ratios"), 1)),
	    1.5, 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(rep, "cells"), "c"), "legs"),
	    "failed")), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(rep, "cells"), "c"), "legs"),
	    "timed_out")), 1);
	assert_true(json_array_size(json_object_get(rep, "warnings")) >= 3);
	json_decref(rep);
}

static void
test_aborted_replaced_and_duplicates(void **state)
{
	struct tally *t = tally_create();
	json_t *rep, *w;

	(void)state;
	tally_add_aa(t, "aa", "a");
	feed(t,
	    LEG("c", "a", 1, "ok", 4) LEG("c", "aa", 1, "aborted", 100)
	    LEG("c", "aa", 1, "ok", 5)
	    LEG("c", "a", 2, "ok", 4) LEG("c", "aa", 2, "ok", 100)
	    LEG("c", "aa", 2, "ok", 3));
	rep = tally_report(t);
	w = metric(rep, "c", "aa", "wall", "ratios");
	assert_int_equal(json_array_size(w), 2);
	assert_near(num(json_array_get(w, 0)), 1.25, 0);
	assert_near(num(json_array_get(w, 1)), 0.75, 0);
	assert_near(num(cellfloor(rep, "c", "wall")), 0.25, 0);
	assert_string_equal(arm_vs(rep, "c", "aa"), "a");
	assert_true(has_warning(rep, "more than one counted"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(rep, "cells"), "c"), "legs"),
	    "aborted_seen")), 1);
	json_decref(rep);
	tally_destroy(t);
}

/* Six reps of arms a (baseline), aa (its copy) and the arms under test,
 * with wall = a's value times the factor of each rep. */
static void
feed_six(struct tally *t, const char *arm, const double f[6])
{
	char line[256];

	for (int r = 1; r <= 6; r++) {
		json_t *ev;
		snprintf(line, sizeof line, "{\"t\":\"leg\",\"cell\":\"c\","
		    "\"arm\":\"%s\",\"rep\":%d,\"status\":\"ok\","
		    "\"wall\":%.17g,\"cpu\":%.17g}", arm, r, 4 * f[r - 1],
		    f[r - 1] > 0 ? 2.0 : 0.0);
		ev = json_loads(line, 0, NULL);
		assert_non_null(ev);
		tally_feed(t, ev);
		json_decref(ev);
	}
}

static void
test_verdicts_and_bias(void **state)
{
	static const double one[6] = { 1, 1, 1, 1, 1, 1 };
	static const double aa[6] = { 1.25, 0.75, 1, 1, 1, 1 };
	static const double up[6] = { 1.5, 1.25, 2, 1.5, 1.25, 1.5 };
	static const double low[6] = { 0.5, 0.75, 0.5, 0.5, 0.75, 0.5 };
	static const double same[6] = { 1, 1.0009765625, 1, 0.9990234375, 1, 1 };
	static const double mixed[6] = { 1.5, 0.5, 1.25, 0.75, 1, 1 };
	static const double zero[6] = { 0, 1.5, 1.5, 1.5, 1.5, 1.5 };
	struct tally *t = tally_create();
	json_t *rep, *ci;

	(void)state;
	tally_add_aa(t, "aa", "a");
	feed_six(t, "a", one);
	feed_six(t, "aa", aa);
	feed_six(t, "up", up);
	feed_six(t, "low", low);
	feed_six(t, "same", same);
	feed_six(t, "mixed", mixed);
	feed_six(t, "zero", zero);
	rep = tally_report(t);
	assert_near(num(json_object_get(rep, "level")), 0.95, 0);
	assert_near(num(json_object_get(rep, "margin")), 0.01, 0);
	/* 6 arms against a, 2 metrics each (wall, cpu): cycles and
	 * instructions no leg counted and nobody named take no row. */
	assert_int_equal(json_integer_value(json_object_get(rep,
	    "comparisons")), 12);
	assert_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(rep, "cells"), "c"),
	    "arms"), "up"), "metrics"), "cycles"));
	/* What the interval can see, and the reps that would see 1%:
	 * [1.25, 2] is sqrt(1.6) - 1 = 26.5% each way; 6 x (ln 1.2649 /
	 * ln 1.01)^2 = 3346.7. */
	assert_near(num(metric(rep, "c", "up", "wall", "mde")), sqrt(1.6) - 1,
	    1e-12);
	assert_int_equal(json_integer_value(metric(rep, "c", "up", "wall",
	    "reps_for_margin")), 3347);
	assert_true(json_is_null(metric(rep, "c", "zero", "wall", "mde")));
	assert_true(json_is_null(metric(rep, "c", "zero", "wall",
	    "reps_for_margin")));
	/* The floor is a description: the A/A spread, 0.25. */
	assert_near(num(cellfloor(rep, "c", "wall")), 0.25, 0);
	assert_near(num(metric(rep, "c", "aa", "wall", "spread")), 0.25, 0);
	assert_true(json_is_null(metric(rep, "c", "up", "wall", "spread")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(rep, "cells"), "c"),
	    "arms"), "aa"), "aa_of")), "a");
	assert_true(json_is_null(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(rep, "cells"), "c"),
	    "arms"), "up"), "aa_of")));
	/* n = 6 at 0.95: k = 1, the interval is [min, max] of the ratios. */
	ci = metric(rep, "c", "up", "wall", "ci");
	assert_near(num(json_array_get(ci, 0)), 1.25, 1e-12);
	assert_near(num(json_array_get(ci, 1)), 2, 1e-12);
	assert_near(num(metric(rep, "c", "up", "wall", "estimate")), 1.5, 1e-12);
	assert_near(num(metric(rep, "c", "up", "wall", "abs")), 6, 0);
	assert_near(num(metric(rep, "c", "up", "wall", "vs_abs")), 4, 0);
	assert_string_equal(json_string_value(metric(rep, "c", "up", "wall",
	    "verdict")), "above");
	assert_string_equal(json_string_value(metric(rep, "c", "low", "wall",
	    "verdict")), "below");
	assert_string_equal(json_string_value(metric(rep, "c", "same", "wall",
	    "verdict")), "same");
	assert_string_equal(json_string_value(metric(rep, "c", "mixed", "wall",
	    "verdict")), "undecided");
	assert_false(json_is_true(metric(rep, "c", "up", "wall", "suspect")));
	/* A value of 0 gives no ratio: 5 pairs, no interval at 0.95. */
	assert_int_equal(json_integer_value(metric(rep, "c", "zero", "wall",
	    "n")), 5);
	assert_true(json_is_null(metric(rep, "c", "zero", "wall", "ci")));
	assert_string_equal(json_string_value(metric(rep, "c", "zero", "wall",
	    "verdict")), "unknown");
	/* cpu: aa reads the same as a throughout; equal values -> same. */
	assert_string_equal(json_string_value(metric(rep, "c", "aa", "cpu",
	    "verdict")), "same");
	assert_int_equal(json_array_size(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "biased")), 0);
	json_decref(rep);
	tally_destroy(t);

	/* An A/A copy that reads 1.5x every time: its interval excludes 1,
	 * the cell's wall is biased and every verdict on wall is suspect. */
	t = tally_create();
	tally_add_aa(t, "aa", "a");
	feed_six(t, "a", one);
	feed_six(t, "aa", up);
	feed_six(t, "low", low);
	rep = tally_report(t);
	{
		json_t *b = json_object_get(json_object_get(json_object_get(rep,
		    "cells"), "c"), "biased");
		assert_int_equal(json_array_size(b), 1);
		assert_string_equal(json_string_value(json_array_get(b, 0)),
		    "wall");
	}
	assert_true(json_is_true(metric(rep, "c", "low", "wall", "suspect")));
	assert_true(json_is_true(metric(rep, "c", "aa", "wall", "suspect")));
	assert_false(json_is_true(metric(rep, "c", "low", "cpu", "suspect")));
	assert_string_equal(json_string_value(metric(rep, "c", "low", "wall",
	    "verdict")), "below");
	json_decref(rep);
	tally_destroy(t);
}

static void
test_leg_status(void **state)
{
	static const struct {
		const char *line;
		enum tally_leg_status want;
	} cases[] = {
		{ "{\"status\":\"ok\",\"rc\":1}", TALLY_LEG_OK },
		{ "{\"status\":\"failed\"}", TALLY_LEG_FAILED },
		{ "{\"status\":\"timed_out\"}", TALLY_LEG_TIMED_OUT },
		{ "{\"status\":\"aborted\"}", TALLY_LEG_ABORTED },
		{ "{\"status\":\"weird\"}", TALLY_LEG_FAILED },
		/* Legacy rows: timed_out, rc, signal, then nothing. */
		{ "{\"rc\":0,\"timed_out\":true}", TALLY_LEG_TIMED_OUT },
		{ "{\"rc\":0}", TALLY_LEG_OK },
		{ "{\"rc\":3}", TALLY_LEG_FAILED },
		{ "{\"rc\":null,\"signal\":9}", TALLY_LEG_FAILED },
		{ "{\"rc\":null}", TALLY_LEG_FAILED },
		{ "{\"signal\":\"SIGKILL\"}", TALLY_LEG_FAILED },
		{ "{\"signal\":null}", TALLY_LEG_OK },
		{ "{\"wall\":1}", TALLY_LEG_OK },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *ev = json_loads(cases[i].line, 0, NULL);
		assert_non_null(ev);
		if (tally_leg_status(ev) != cases[i].want)
			fail_msg("%s: got %s", cases[i].line,
			    tally_leg_status_name(tally_leg_status(ev)));
		json_decref(ev);
	}
	assert_int_equal(tally_leg_status(NULL), TALLY_LEG_NONE);
}

/* How the gate let a leg go: its "gate", or an earlier benchtui's flags;
 * nothing said is NONE. */
static void
test_leg_gate(void **state)
{
	static const struct {
		const char *line;
		enum tally_gate want;
	} cases[] = {
		{ "{\"gate\":\"quiet\"}", TALLY_GATE_QUIET },
		{ "{\"gate\":\"waived\"}", TALLY_GATE_WAIVED },
		{ "{\"gate\":\"timeout\"}", TALLY_GATE_TIMEOUT },
		{ "{\"gate\":\"budget\"}", TALLY_GATE_BUDGET },
		{ "{\"gate\":\"nonsense\"}", TALLY_GATE_NONE },
		{ "{\"gate\":\"quiet\",\"quiet_override\":true}", TALLY_GATE_QUIET },
		{ "{\"quiet_override\":true}", TALLY_GATE_WAIVED },
		{ "{\"quiet_timeout\":true}", TALLY_GATE_TIMEOUT },
		{ "{\"quiet_timeout\":false}", TALLY_GATE_NONE },
		{ "{\"wall\":1}", TALLY_GATE_NONE },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		json_t *ev = json_loads(cases[i].line, 0, NULL);
		assert_non_null(ev);
		if (tally_leg_gate(ev) != cases[i].want)
			fail_msg("%s: got \"%s\"", cases[i].line,
			    tally_gate_name(tally_leg_gate(ev)));
		json_decref(ev);
	}
	assert_int_equal(tally_leg_gate(NULL), TALLY_GATE_NONE);
}

/* The report's gate: per arm, the legs on a box that was not quiet, by
 * why (the gate let them go on a busy one, or foreign or pinned work went
 * over its threshold during them: noisy), the waits summed, the budget
 * and a release of the round said; old lines count as quiet. */
static void
test_gate_counts(void **state)
{
	json_t *rep = report_of(
	    "{\"t\":\"round\",\"name\":\"g\",\"quiet\":{\"max_client_busy\":0.2}}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"wall\":1,"
	    "\"gate\":\"quiet\",\"wait_s\":1.5}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,\"wall\":1,"
	    "\"gate\":\"waived\",\"wait_s\":2.0}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"wall\":1,"
	    "\"gate\":\"quiet\",\"client_busy\":0.15}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":2,\"wall\":1,"
	    "\"gate\":\"quiet\",\"client_busy\":0.25}\n"
	    "{\"t\":\"gate\",\"kind\":\"budget\"}\n"
	    "{\"t\":\"leg\",\"cell\":\"d\",\"arm\":\"b\",\"rep\":1,\"wall\":1,"
	    "\"gate\":\"budget\",\"wait_s\":0.5}\n"
	    "{\"t\":\"leg\",\"cell\":\"d\",\"arm\":\"a\",\"rep\":1,\"wall\":1,"
	    "\"quiet_timeout\":true}\n"
	    "{\"t\":\"leg\",\"cell\":\"d\",\"arm\":\"a\",\"rep\":2,\"wall\":1,"
	    "\"foreign\":0.9,\"threshold\":0.5}\n"
	    "{\"t\":\"leg\",\"cell\":\"d\",\"arm\":\"b\",\"rep\":2,\"wall\":1}\n");
	json_t *g = json_object_get(rep, "gate");
	json_t *a = json_object_get(json_object_get(g, "arms"), "a");
	json_t *b = json_object_get(json_object_get(g, "arms"), "b");

	(void)state;
	assert_near(num(json_object_get(g, "waited_s")), 4.0, 1e-9);
	assert_true(json_is_true(json_object_get(g, "budget_spent")));
	assert_true(json_is_false(json_object_get(g, "released")));
	/* a: quiet, quiet (0.15 under the round's 0.2), timeout, noisy. */
	assert_int_equal(json_integer_value(json_object_get(a, "legs")), 4);
	assert_int_equal(json_integer_value(json_object_get(a, "not_quiet")), 2);
	assert_int_equal(json_integer_value(json_object_get(a, "timeout")), 1);
	assert_int_equal(json_integer_value(json_object_get(a, "noisy")), 1);
	/* b: waived, pinned cpu over 0.2, budget, nothing said. */
	assert_int_equal(json_integer_value(json_object_get(b, "not_quiet")), 3);
	assert_int_equal(json_integer_value(json_object_get(b, "waived")), 1);
	assert_int_equal(json_integer_value(json_object_get(b, "budget")), 1);
	assert_int_equal(json_integer_value(json_object_get(b, "noisy")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(rep, "cells"), "d"), "legs"),
	    "not_quiet")), 3);
	assert_true(has_warning(rep, "spent its budget_s"));
	assert_true(has_warning(rep, "a pinned cpu was busy"));
	json_decref(rep);
}

static void
test_baseline_flag(void **state)
{
	struct tally *t = tally_create();
	json_t *rep;

	(void)state;
	assert_int_equal(tally_set_baseline(t, "b"), 0);
	assert_int_equal(tally_set_baseline(t, "9bad"), -1);
	assert_int_equal(tally_add_aa(t, "x", "x"), -1);
	/* Contradictions, as a round file's check refuses them. */
	assert_int_equal(tally_add_aa(t, "b", "a"), -2);	/* the baseline */
	assert_int_equal(tally_add_aa(t, "aa", "a"), 0);
	assert_int_equal(tally_add_aa(t, "aa", "c"), -2);	/* declared twice */
	assert_int_equal(tally_add_aa(t, "x", "aa"), -2);	/* copy of a copy */
	assert_int_equal(tally_add_aa(t, "a", "c"), -2);	/* a's copy copies */
	assert_int_equal(tally_set_baseline(t, "aa"), -2);
	assert_int_equal(tally_set_baseline(t, "b"), 0);
	feed(t, LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 2));
	rep = tally_report(t);
	assert_string_equal(arm_vs(rep, "c", "a"), "b");
	assert_near(num(metric(rep, "c", "a", "wall", "median")), 0.5, 0);
	json_decref(rep);
	tally_destroy(t);
}

static void
test_spec_vs_and_partial(void **state)
{
	static const char round[] =
	    "{\"name\":\"r\",\"reps\":2,\"command\":[\"/bin/true\"],"
	    "\"baseline\":\"base\",\"quiet\":{\"max_foreign_cores\":0.5},"
	    "\"arms\":[{\"name\":\"base\"},{\"name\":\"mid\"},"
	    "{\"name\":\"top\",\"vs\":\"mid\"}],"
	    "\"cells\":[{\"name\":\"one\"},{\"name\":\"two\"}]}";
	struct tally *t = tally_create();
	struct spec *s = tu_spec(round, "/tmp/round.json");
	json_t *rep;

	(void)state;
	tally_set_spec(t, s);
	/* Cell two's legs come first; the report follows the spec's order. */
	feed(t,
	    "{\"t\":\"round\",\"name\":\"ignored\"}\n"
	    LEG("two", "base", 1, "ok", 1) LEG("two", "mid", 1, "ok", 2)
	    LEG("two", "top", 1, "ok", 3)
	    LEG("one", "base", 1, "ok", 1) LEG("one", "mid", 1, "ok", 2)
	    "{\"t\":\"leg\",\"cell\":\"one\",\"arm\":\"top\",\"rep\":1,"
	    "\"status\":\"ok\",\"wall\":6,\"foreign\":0.75}\n"
	    LEG("one", "stray", 1, "ok", 1));
	rep = tally_report(t);
	assert_string_equal(json_string_value(json_object_get(rep, "round")), "r");
	assert_string_equal(json_object_iter_key(json_object_iter(
	    json_object_get(rep, "cells"))), "one");
	assert_string_equal(arm_vs(rep, "one", "top"), "mid");
	assert_near(num(metric(rep, "one", "top", "wall", "median")), 3, 0);
	assert_near(num(metric(rep, "two", "top", "wall", "median")), 1.5, 0);
	assert_true(json_is_true(json_object_get(rep, "partial")));
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_total")), 12);
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_counted")), 6);
	/* foreign 0.75 > the round's 0.5, and the stray arm was ignored. */
	assert_true(has_warning(rep, "foreign cores"));
	assert_true(has_warning(rep, "not in round.json"));
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);
}

/* A resume feeds the old log before the spec arrives. */
static void
test_spec_after_feed(void **state)
{
	static const char round[] =
	    "{\"name\":\"r\",\"reps\":1,\"command\":[\"/bin/true\"],"
	    "\"baseline\":\"base\",\"arms\":[{\"name\":\"base\"},"
	    "{\"name\":\"new\"}],\"cells\":[{\"name\":\"one\"},{\"name\":\"two\"}]}";
	struct tally *t = tally_create();
	struct spec *s = tu_spec(round, "/tmp/round.json");
	json_t *rep;

	(void)state;
	feed(t, LEG("two", "new", 1, "ok", 3) LEG("two", "base", 1, "ok", 2)
	    LEG("gone", "base", 1, "ok", 2) LEG("two", "old", 1, "ok", 2));
	tally_set_spec(t, s);
	feed(t, LEG("one", "base", 1, "ok", 1) LEG("one", "new", 1, "ok", 4));
	rep = tally_report(t);
	assert_string_equal(json_object_iter_key(json_object_iter(
	    json_object_get(rep, "cells"))), "one");
	assert_string_equal(arm_vs(rep, "two", "new"), "base");
	assert_near(num(metric(rep, "two", "new", "wall", "median")), 1.5, 0);
	assert_near(num(metric(rep, "one", "new", "wall", "median")), 4, 0);
	assert_false(json_is_true(json_object_get(rep, "partial")));
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_counted")), 4);
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);
}

static void
test_counters_ipc_order(void **state)
{
	json_t *rep, *ms;
	const char *keys[8];
	const char *k;
	json_t *v;
	size_t n = 0;

	(void)state;
	rep = report_of(
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"status\":\"ok\","
	    "\"wall\":1,\"cpu\":1,\"cycles\":1000,\"instructions\":2000,"
	    "\"counters\":{\"cycles\":1000,\"instructions\":2000,\"task-clock\":5}}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,\"status\":\"ok\","
	    "\"wall\":1,\"cpu\":1,\"cycles\":null,\"instructions\":null,"
	    "\"counters\":{\"page-faults\":7,\"cycles\":2000,\"instructions\":3000,"
	    "\"task-clock\":10},\"multiplexed\":[\"cycles\"]}\n");
	ms = json_object_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "arms"), "b"), "metrics");
	json_object_foreach(ms, k, v)
		if (n < 8)
			keys[n++] = k;
	assert_int_equal(n, 6);
	assert_string_equal(keys[0], "wall");
	assert_string_equal(keys[3], "instructions");
	assert_string_equal(keys[4], "task-clock");
	assert_string_equal(keys[5], "page-faults");
	/* cycles null at top level: taken from counters. */
	assert_near(num(metric(rep, "c", "b", "cycles", "median")), 2, 0);
	assert_near(num(metric(rep, "c", "b", "task-clock", "median")), 2, 0);
	assert_near(num(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "ipc"), "a")), 2, 0);
	assert_near(num(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "ipc"), "b")), 1.5, 0);
	assert_true(json_is_null(json_object_get(rep, "partial")));
	json_decref(rep);
}

/* The file's text, which must not be empty. */
static char *
slurp(const char *path)
{
	size_t len = 0;
	char *text = tu_slurp(NULL, path, &len);

	assert_non_null(text);
	assert_true(len > 0);
	return text;
}

static void
test_summary_and_brief(void **state)
{
	struct tally *t = tally_create();
	char dir[] = "/tmp/test-summary-XXXXXX", path[64], err[256];
	json_t *rep, *brief, *back;
	char *md;

	(void)state;
	assert_non_null(mkdtemp(dir));
	feed(t, "{\"t\":\"round\",\"name\":\"sum\"}\n"
	    LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 2));
	rep = tally_report(t);
	brief = tally_report_brief(t);
	assert_non_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(json_object_get(
	    rep, "cells"), "c"), "arms"), "b"), "metrics"), "wall"), "ratios"));
	assert_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_object_get(json_object_get(
	    brief, "cells"), "c"), "arms"), "b"), "metrics"), "wall"), "ratios"));

	assert_int_equal(report_write_summary(dir, rep, true, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	back = json_load_file(path, 0, NULL);
	assert_non_null(back);
	assert_true(json_is_true(json_object_get(back, "partial")));
	assert_near(num(metric(back, "c", "b", "wall", "median")), 2, 0);
	json_decref(back);
	snprintf(path, sizeof path, "%s/summary.md", dir);
	md = slurp(path);
	assert_true(strncmp(md, "# ", 2) == 0);
	assert_non_null(strstr(md, "PARTIAL"));
	assert_non_null(strstr(md, "| b | a | wall | 1 |"));
	unlink(path);
	assert_int_equal(report_write_summary(dir, rep, false, err, sizeof err), 0);
	md = slurp(path);
	assert_null(strstr(md, "PARTIAL"));
	unlink(path);
	snprintf(path, sizeof path, "%s/summary.json", dir);
	unlink(path);
	rmdir(dir);
	/* An unwritable folder: -1 and a message naming the file. */
	assert_int_equal(report_write_summary("/nonexistent", rep, false, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/"));
	json_decref(rep);
	json_decref(brief);
	tally_destroy(t);
}

/* Leg lines outside the plan -- a rep past reps, rep 0, an arm or cell
 * round.json does not have -- are named in the warnings and counted
 * nowhere (counted could exceed planned); values no leg can have (wall
 * 1e308, negative, zero) are named and left out of every figure. */
static void
test_outside_plan_and_implausible(void **state)
{
	static const char round[] =
	    "{\"name\":\"r\",\"reps\":2,\"command\":[\"/bin/true\"],"
	    "\"baseline\":\"base\",\"arms\":[{\"name\":\"base\"},"
	    "{\"name\":\"mid\"}],\"cells\":[{\"name\":\"one\"}]}";
	struct tally *t = tally_create();
	struct spec *s = tu_spec(round, "/tmp/round.json");
	json_t *rep;

	(void)state;
	tally_set_spec(t, s);
	feed(t, LEG("one", "base", 1, "ok", 1) LEG("one", "mid", 1, "ok", 2)
	    LEG("one", "base", 2, "ok", 1) LEG("one", "mid", 2, "ok", 2)
	    LEG("one", "base", 3, "ok", 100) LEG("one", "mid", 3, "ok", 1)
	    LEG("one", "base", 0, "ok", 100) LEG("one", "mid", 0, "ok", 1)
	    LEG("one", "stray", 1, "ok", 1) LEG("nope", "base", 1, "ok", 1));
	rep = tally_report(t);
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_counted")), 4);
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_total")), 4);
	assert_int_equal(json_integer_value(metric(rep, "one", "mid", "wall", "n")), 2);
	assert_near(num(metric(rep, "one", "mid", "wall", "median")), 2, 0);
	assert_true(has_warning(rep, "one base rep 3: a leg line outside the plan"));
	assert_true(has_warning(rep, "one mid rep 0: a leg line outside the plan"));
	assert_true(has_warning(rep, "one stray rep 1: a leg line of a cell or arm"));
	assert_true(has_warning(rep, "nope base rep 1: a leg line of a cell or arm"));
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);

	/* A bare log: the round event's reps are the plan. */
	rep = report_of("{\"t\":\"round\",\"name\":\"r\",\"reps\":1}\n"
	    LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 2)
	    LEG("c", "a", 2, "ok", 1) LEG("c", "b", 2, "ok", 9));
	assert_int_equal(json_integer_value(json_object_get(rep, "legs_counted")), 2);
	assert_true(has_warning(rep, "c b rep 2: a leg line outside the plan"));
	json_decref(rep);

	rep = report_of(LEG("c", "a", 1, "ok", 1) LEG("c", "b", 1, "ok", 1e308)
	    LEG("c", "a", 2, "ok", 1) LEG("c", "b", 2, "ok", -1)
	    LEG("c", "a", 3, "ok", 1) LEG("c", "b", 3, "ok", 0)
	    LEG("c", "a", 4, "ok", 1) LEG("c", "b", 4, "ok", 2)
	    LEG("c", "a", 5, "ok", 1) LEG("c", "b", 5, "ok", 2)
	    LEG("c", "a", 6, "ok", 1.7e308) LEG("c", "b", 6, "ok", 2));
	assert_int_equal(json_integer_value(metric(rep, "c", "b", "wall", "n")), 2);
	assert_near(num(metric(rep, "c", "b", "wall", "abs")), 2, 0);
	assert_near(num(metric(rep, "c", "b", "wall", "max")), 2, 0);
	assert_true(has_warning(rep, "c b rep 1: wall 1e+308 is not a value"));
	assert_true(has_warning(rep, "c b rep 2: wall -1 is not a value"));
	assert_true(has_warning(rep, "c b rep 3: wall 0 is not a value"));
	json_decref(rep);
}

/* Rows follow what was counted and what was asked for: a counter no leg
 * counted is left out unless the round file names it (then n/a), both
 * from a round file and from a bare log's round event; bytes is a metric
 * once a leg leaves some. */
static void
test_named_counters_and_bytes(void **state)
{
	static const char *const log =
	    "{\"t\":\"round\",\"name\":\"r\",\"counters\":[\"cycles\","
	    "\"page-faults\"]}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,"
	    "\"status\":\"ok\",\"wall\":1,\"cpu\":1,\"cycles\":null,"
	    "\"instructions\":null,\"bytes\":100,\"counters\":{\"cycles\":"
	    "null,\"page-faults\":3}}\n"
	    "{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":1,"
	    "\"status\":\"ok\",\"wall\":1,\"cpu\":1,\"cycles\":null,"
	    "\"instructions\":null,\"bytes\":50,\"counters\":{\"cycles\":"
	    "null,\"page-faults\":3}}\n";
	const char *round = "{\"name\": \"r\", \"reps\": 1, \"command\": "
	    "[\"/bin/true\"], \"baseline\": \"a\", \"arms\": [{\"name\": "
	    "\"a\"}, {\"name\": \"b\"}], \"cells\": [{\"name\": \"c\"}]}";
	struct spec *s;
	struct tally *t;
	json_t *rep, *ms;

	(void)state;
	/* The round event names cycles: n/a, shown; instructions not. */
	rep = report_of(log);
	ms = json_object_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "arms"), "b"), "metrics");
	assert_int_equal(json_integer_value(metric(rep, "c", "b", "cycles",
	    "n")), 0);
	assert_null(json_object_get(ms, "instructions"));
	assert_near(num(metric(rep, "c", "b", "bytes", "median")), 0.5, 0);
	assert_near(num(metric(rep, "c", "b", "bytes", "abs")), 50, 0);
	assert_non_null(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "floor"), "cycles"));
	json_decref(rep);
	/* A round file without counters: the machine's default, so cycles
	 * that never counted are left out whatever the log's event says. */
	s = tu_spec(round, "/tmp/round.json");
	t = tally_create();
	tally_set_spec(t, s);
	feed(t, log);
	rep = tally_report(t);
	ms = json_object_get(json_object_get(json_object_get(json_object_get(
	    json_object_get(rep, "cells"), "c"), "arms"), "b"), "metrics");
	assert_null(json_object_get(ms, "cycles"));
	assert_non_null(json_object_get(ms, "page-faults"));
	assert_non_null(json_object_get(ms, "wall"));
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd_even_and_geomean),
		cmocka_unit_test(test_missing_and_failed),
		cmocka_unit_test(test_aborted_replaced_and_duplicates),
		cmocka_unit_test(test_verdicts_and_bias),
		cmocka_unit_test(test_leg_status),
		cmocka_unit_test(test_leg_gate),
		cmocka_unit_test(test_gate_counts),
		cmocka_unit_test(test_baseline_flag),
		cmocka_unit_test(test_spec_vs_and_partial),
		cmocka_unit_test(test_spec_after_feed),
		cmocka_unit_test(test_counters_ipc_order),
		cmocka_unit_test(test_summary_and_brief),
		cmocka_unit_test(test_outside_plan_and_implausible),
		cmocka_unit_test(test_named_counters_and_bytes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
