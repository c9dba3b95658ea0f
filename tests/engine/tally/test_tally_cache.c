/* test: est=10 long */
/* The tally's cached report (tally_cache.c): after every event of a log
 * fed in random order, byte for byte the report a full recompute gives,
 * whether brought up to date at once or in one-piece slices with legs
 * coming in between; and a leg costs the pieces of its own cell only
 * (counted, not timed). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "spec.h"
#include "tally.h"
#include "tally_piece.h"
#include "testutil.h"

#define REPS 12
/* Random logs a test feeds.  Each log checks every event against a full
 * recompute, so the time grows with the square of the log: under the
 * sanitizers (their build checks memory, not other orders) three, one of
 * each kind of round file, run every line that twelve do. */
#if defined(__SANITIZE_ADDRESS__)
#define SEEDS 3
#else
#define SEEDS 12
#endif

/* xorshift64*: the same logs on every machine. */
static uint64_t rng_state;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static double
rng_unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

struct evlist {
	json_t *ev[1024];
	size_t n;
};

static void
add(struct evlist *l, json_t *ev)
{
	assert_true(l->n < sizeof l->ev / sizeof l->ev[0]);
	l->ev[l->n++] = ev;
}

/* One leg line: mostly ok, some failed, timed out, aborted or
 * multiplexed; a server block in cell c1; a leg metric now and then (a
 * metric that appears late, a change of shape). */
static json_t *
leg(const char *cell, const char *arm, int rep, double factor)
{
	double u = rng_unit(), w = factor * (1 + 0.05 * rep / REPS) *
	    (1 + 0.02 * (rng_unit() - 0.5));
	json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:f, s:f, s:{s:f}, s:f}",
	    "t", "leg", "cell", cell, "arm", arm, "rep", rep, "wall", w,
	    "cpu", w * 0.9, "counters", "task-clock", w * 1e9,
	    "foreign", rng_unit() * 0.8);

	json_object_set_new(ev, "status", json_string(u < 0.06 ? "failed" :
	    u < 0.09 ? "timed_out" : u < 0.12 ? "aborted" : "ok"));
	if (u > 0.95)
		json_object_set_new(ev, "multiplexed", json_true());
	if (strcmp(cell, "c1") == 0)
		json_object_set_new(ev, "server", json_pack("{s:f}", "cpu",
		    w * 0.3));
	if (rng_unit() < 0.05)
		json_object_set_new(ev, "metrics", json_pack("{s:f}", "rps",
		    1000 / w));
	return ev;
}

static const char *const arms[] = { "base", "fast", "slow", "aa" };
static const double factors[] = { 1.0, 0.9, 1.1, 1.0 };

/* Every leg of cells x arms x reps, some twice, some outside the plan, a
 * cell and an arm no round file has, looks that decide a cell; shuffled. */
static void
make_log(struct evlist *l, const char *const *cells, size_t ncells)
{
	for (size_t c = 0; c < ncells; c++)
		for (int r = 1; r <= REPS; r++)
			for (size_t a = 0; a < 4; a++) {
				add(l, leg(cells[c], arms[a], r, factors[a]));
				if (rng_unit() < 0.04)
					add(l, leg(cells[c], arms[a], r,
					    factors[a]));
			}
	add(l, leg(cells[0], "fast", 0, 1));
	add(l, leg(cells[0], "fast", REPS + 1, 1));
	add(l, leg("nowhere", "base", 1, 1));
	add(l, leg(cells[0], "stranger", 1, 1));
	add(l, json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:b, s:{s:s}}", "t",
	    "look", "cell", cells[1], "rep", 6, "look", 1, "looks", 3,
	    "level", 0.98, "decided", 1, "verdicts", "fast", "below"));
	add(l, json_pack("{s:s, s:s, s:i, s:i, s:i, s:f, s:b}", "t", "look",
	    "cell", cells[0], "rep", 6, "look", 1, "looks", 3, "level", 0.98,
	    "decided", 0));
	for (size_t i = l->n - 1; i > 0; i--) {
		size_t j = (size_t)(rng() % (i + 1));
		json_t *x = l->ev[i];
		l->ev[i] = l->ev[j];
		l->ev[j] = x;
	}
}

static void
free_log(struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		json_decref(l->ev[i]);
	l->n = 0;
}

/* The report's bytes as report --format json writes them. */
static char *
bytes(const json_t *rep)
{
	char *s = json_dumps(rep, JSON_INDENT(2) | JSON_REAL_PRECISION(17));

	assert_non_null(s);
	return s;
}

static void
assert_same(const json_t *cached, struct tally *t, size_t at)
{
	json_t *full = tally_report(t);
	char *a = bytes(cached), *b = bytes(full);

	if (strcmp(a, b) != 0)
		fail_msg("after event %zu the cached report differs:\n%s\n"
		    "--- a full recompute:\n%s", at, a, b);
	free(a);
	free(b);
	json_decref(full);
}

/* Fed one event at a time, the report brought up to date at once after
 * each. */
static void
check_at_once(struct tally *t, const struct evlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		json_t *rep;
		tally_feed(t, l->ev[i]);
		assert_true(tally_report_stale(t));
		rep = tally_report_cached(t);
		assert_false(tally_report_stale(t));
		assert_same(rep, t, i);
		json_decref(rep);
	}
}

/* Fed one event at a time with one slice (one piece) of work between:
 * passes overlap the legs; whenever a pass ends with nothing fed since,
 * and at the end, the report is a full recompute's. */
static void
check_in_slices(struct tally *t, const struct evlist *l)
{
	json_t *rep;

	for (size_t i = 0; i < l->n; i++) {
		tally_feed(t, l->ev[i]);
		if ((rep = tally_report_advance(t, 0)) != NULL) {
			if (!tally_report_stale(t))
				assert_same(rep, t, i);
			json_decref(rep);
		}
		if (i % 7 == 0 && (rep = tally_report_advance(t, 0)) != NULL) {
			if (!tally_report_stale(t))
				assert_same(rep, t, i);
			json_decref(rep);
		}
	}
	/* A pass begun before the last leg ends first, the next takes it. */
	while ((rep = tally_report_advance(t, 0)) == NULL ||
	    tally_report_stale(t))
		json_decref(rep);
	assert_same(rep, t, l->n);
	json_decref(rep);
}

static const char round_text[] =
    "{\"name\":\"cached\",\"reps\":%s,\"command\":[\"/bin/true\"],"
    "\"baseline\":\"base\",\"quiet\":{\"max_foreign_cores\":0.5},"
    "\"counters\":[\"task-clock\"],"
    "\"arms\":[{\"name\":\"base\"},{\"name\":\"fast\"},"
    "{\"name\":\"slow\",\"vs\":\"fast\"},{\"name\":\"aa\",\"aa_of\":\"base\"}],"
    "\"cells\":[{\"name\":\"c1\"},{\"name\":\"c2\"},{\"name\":\"c3\"}]%s}";

/* The round file with its reps and any more fields. */
static struct spec *
spec_of(const char *reps, const char *extra)
{
	char text[sizeof round_text + 256];

	snprintf(text, sizeof text, round_text, reps, extra);
	return tu_spec(text, "/tmp/round.json");
}

static const char *const cells3[] = { "c1", "c2", "c3" };

/* With a round file: slow against fast (not the baseline), an A/A arm. */
static void
test_spec_random_order(void **state)
{
	/* Fixed reps; the floor estimator; adaptive reps (the looks'
	 * level). */
	static const char *const reps[] = { "12", "12",
	    "{\"min\":6,\"max\":12,\"until\":\"decided\",\"metric\":\"wall\"}" };
	static const char *const extra[] = { "", ",\"estimator\":\"floor\"",
	    "" };

	(void)state;
	for (uint64_t seed = 1; seed <= SEEDS; seed++) {
		struct spec *s = spec_of(reps[seed % 3], extra[seed % 3]);
		struct tally *t = tally_create(), *u = tally_create();
		struct evlist l = { .n = 0 };

		rng_state = seed * 0x9e3779b97f4a7c15ull;
		make_log(&l, cells3, 3);
		tally_set_spec(t, s);
		tally_set_spec(u, s);
		check_at_once(t, &l);
		check_in_slices(u, &l);
		free_log(&l);
		tally_destroy(t);
		tally_destroy(u);
		spec_destroy(s);
	}
}

/* A bare log: the arms as they come, --baseline and --aa, a cell without
 * the baseline's legs, a round event among the legs. */
static void
test_bare_random_order(void **state)
{
	static const char *const cells4[] = { "c1", "c2", "c3", "c4" };

	(void)state;
	for (uint64_t seed = 11; seed < 11 + SEEDS; seed++) {
		struct tally *t = tally_create(), *u = tally_create();
		struct evlist l = { .n = 0 };

		rng_state = seed * 0x9e3779b97f4a7c15ull;
		make_log(&l, cells4, 3);
		add(&l, leg("c4", "fast", 1, 1));
		add(&l, leg("c4", "slow", 1, 1.1));
		add(&l, json_pack("{s:s, s:s, s:i}", "t", "round", "name",
		    "bare", "reps", REPS));
		for (struct tally **p = (struct tally *[]){ t, u, NULL }; *p;
		    p++) {
			assert_int_equal(tally_set_baseline(*p, "base"), 0);
			assert_int_equal(tally_add_aa(*p, "aa", "base"), 0);
		}
		check_at_once(t, &l);
		check_in_slices(u, &l);
		free_log(&l);
		tally_destroy(t);
		tally_destroy(u);
	}
}

/* Every leg of every cell but the last two reps, ok. */
static void
feed_all(struct tally *t)
{
	for (size_t c = 0; c < 3; c++)
		for (int r = 1; r <= REPS - 2; r++)
			for (size_t a = 0; a < 4; a++) {
				json_t *ev = leg(cells3[c], arms[a], r, factors[a]);
				json_object_set_new(ev, "status", json_string("ok"));
				json_object_del(ev, "metrics");
				tally_feed(t, ev);
				json_decref(ev);
			}
}

/* Feed one ok leg of cell c2 and bring the report up to date: what was
 * built in each cell. */
static void
one_leg(struct tally *t, const char *arm, int rep, struct tally_cache_counts
    *d)
{
	struct tally_cache_counts before[3], after;
	json_t *ev = leg("c2", arm, rep, 1), *rep_json;

	for (size_t i = 0; i < 3; i++)
		tally_cache_counts(t, i, &before[i]);
	json_object_set_new(ev, "status", json_string("ok"));
	json_object_del(ev, "metrics");
	tally_feed(t, ev);
	json_decref(ev);
	rep_json = tally_report_cached(t);
	assert_same(rep_json, t, 0);
	json_decref(rep_json);
	for (size_t i = 0; i < 3; i++) {
		tally_cache_counts(t, i, &after);
		d[i].pieces = after.pieces - before[i].pieces;
		d[i].aa = after.aa - before[i].aa;
		d[i].cells = after.cells - before[i].cells;
	}
}

#define assert_built(d, p, a, c) do { \
	assert_int_equal((d).pieces, (p)); \
	assert_int_equal((d).aa, (a)); \
	assert_int_equal((d).cells, (c)); \
} while (0)

/* A leg in c2 builds pieces of c2 only: its arm's, the arms compared
 * with it, the A/A state when it is an A/A arm or its original. */
static void
test_leg_costs_its_cell(void **state)
{
	struct spec *s = spec_of("12", "");
	struct tally *t = tally_create();
	struct tally_cache_counts d[3], all;
	json_t *rep;

	(void)state;
	rng_state = 42;
	tally_set_spec(t, s);
	feed_all(t);
	rep = tally_report_cached(t);
	json_decref(rep);
	tally_cache_counts(t, 1, &all);
	assert_built(all, 4, 1, 1);

	/* fast: its own piece and slow's (slow is against fast). */
	one_leg(t, "fast", 3, d);
	assert_built(d[0], 0, 0, 0);
	assert_built(d[1], 2, 0, 1);
	assert_built(d[2], 0, 0, 0);
	/* base: its own, fast's and aa's pieces, and the A/A state. */
	one_leg(t, "base", 3, d);
	assert_built(d[0], 0, 0, 0);
	assert_built(d[1], 3, 1, 1);
	assert_built(d[2], 0, 0, 0);
	/* aa: its own piece and the A/A state. */
	one_leg(t, "aa", 3, d);
	assert_built(d[1], 1, 1, 1);
	/* slow: nobody is compared with it. */
	one_leg(t, "slow", 3, d);
	assert_built(d[0], 0, 0, 0);
	assert_built(d[1], 1, 0, 1);
	assert_built(d[2], 0, 0, 0);
	/* base at a rep no other arm has yet: what they pair with it is as
	 * it was, so only its own piece; then fast there: its own alone
	 * (slow, against fast, has no leg there either). */
	one_leg(t, "base", REPS - 1, d);
	assert_built(d[1], 1, 0, 1);
	one_leg(t, "fast", REPS - 1, d);
	assert_built(d[1], 1, 0, 1);
	/* aa there: its piece and the A/A state (it pairs with base now). */
	one_leg(t, "aa", REPS - 1, d);
	assert_built(d[1], 1, 1, 1);
	/* Nothing fed since: nothing built. */
	rep = tally_report_cached(t);
	json_decref(rep);
	for (size_t i = 0; i < 3; i++) {
		struct tally_cache_counts before = all;
		tally_cache_counts(t, i, &before);
		rep = tally_report_cached(t);
		json_decref(rep);
		tally_cache_counts(t, i, &all);
		assert_built(all, before.pieces, before.aa, before.cells);
	}
	tally_destroy(t);
	spec_destroy(s);
}

/* More changes of an arm than it remembers between two reports: the
 * first of them (at a rep fast pairs) is not lost behind eight that fast
 * does not pair. */
static void
test_many_changes_between_reports(void **state)
{
	struct spec *s = spec_of("12", "");
	struct tally *t = tally_create();
	json_t *rep;

	(void)state;
	rng_state = 9;
	tally_set_spec(t, s);
	for (int r = 1; r <= 2; r++) {
		json_t *a = leg("c2", "base", r, 1), *b = leg("c2", "fast", r, 0.9);
		json_object_set_new(a, "status", json_string("ok"));
		json_object_set_new(b, "status", json_string("ok"));
		tally_feed(t, a);
		tally_feed(t, b);
		json_decref(a);
		json_decref(b);
	}
	rep = tally_report_cached(t);
	json_decref(rep);
	for (int r = 1; r <= 10; r++) {
		json_t *ev;
		if (r == 2)
			continue;
		ev = leg("c2", "base", r, r == 1 ? 2 : 1);
		json_object_set_new(ev, "status", json_string("ok"));
		tally_feed(t, ev);
		json_decref(ev);
	}
	rep = tally_report_cached(t);
	assert_same(rep, t, 0);
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);
}

/* Legs faster than a report: with a leg fed before every one-piece slice,
 * reports still come out (a pass takes what was stale when it began). */
static void
test_slices_finish_under_legs(void **state)
{
	struct spec *s = spec_of("12", "");
	struct tally *t = tally_create();
	size_t reports = 0;
	json_t *rep;

	(void)state;
	rng_state = 7;
	tally_set_spec(t, s);
	feed_all(t);
	for (int i = 0; i < 200; i++) {
		json_t *ev = leg("c2", i % 2 ? "fast" : "base", 1 + i % REPS, 1);
		tally_feed(t, ev);
		json_decref(ev);
		if ((rep = tally_report_advance(t, 0)) != NULL) {
			reports++;
			json_decref(rep);
		}
	}
	assert_true(reports >= 10);
	tally_destroy(t);
	spec_destroy(s);
}

/* The caps on warnings of a kind count across pieces: 36 legs above the
 * gate's threshold in 3 cells x 2 arms list the first 10 in cell, arm and
 * rep order, then say how many more. */
static void
test_warning_caps_across_pieces(void **state)
{
	static const char text[] =
	    "{\"name\":\"w\",\"reps\":6,\"command\":[\"/bin/true\"],\"baseline\":\"a\","
	    "\"quiet\":{\"max_foreign_cores\":0.5},"
	    "\"arms\":[{\"name\":\"a\"},{\"name\":\"b\"}],"
	    "\"cells\":[{\"name\":\"x\"},{\"name\":\"y\"},{\"name\":\"z\"}]}";
	struct spec *s = tu_spec(text, "/tmp/round.json");
	struct tally *t = tally_create();
	const json_t *w;
	json_t *rep;
	size_t n = 0, i;

	(void)state;
	tally_set_spec(t, s);
	for (int r = 6; r >= 1; r--)
		for (const char *const *c = (const char *const[]){ "z", "y", "x",
		    NULL }; *c; c++)
			for (const char *const *a = (const char *const[]){ "b",
			    "a", NULL }; *a; a++) {
				json_t *ev = json_pack("{s:s, s:s, s:s, s:i, s:s, "
				    "s:f, s:f}", "t", "leg", "cell", *c, "arm", *a,
				    "rep", r, "status", "ok", "wall", 1.0,
				    "foreign", 0.9);
				tally_feed(t, ev);
				json_decref(ev);
				rep = tally_report_cached(t);
				json_decref(rep);
			}
	rep = tally_report_cached(t);
	assert_same(rep, t, 0);
	json_array_foreach(json_object_get(rep, "warnings"), i, w)
		if (strstr(json_string_value(w), "foreign cores during") != NULL) {
			char want[64];
			snprintf(want, sizeof want, "x %s rep %zu:", n < 6 ? "a" :
			    "b", n % 6 + 1);
			assert_non_null(strstr(json_string_value(w), want));
			n++;
		}
	assert_int_equal(n, 10);
	assert_true(tu_has_string(json_object_get(rep, "warnings"),
	    "... and 26 more warnings of the same kind (legs with foreign",
	    NULL));
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_random_order),
		cmocka_unit_test(test_bare_random_order),
		cmocka_unit_test(test_leg_costs_its_cell),
		cmocka_unit_test(test_many_changes_between_reports),
		cmocka_unit_test(test_slices_finish_under_legs),
		cmocka_unit_test(test_warning_caps_across_pieces),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
