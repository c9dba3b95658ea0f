/* test: */
/* model: the reducer fed a hand-written log (tests/data/tui/round): two
 * cells, three arms with an A/A twin, three reps, a failed leg, a noisy
 * gate, a pause, an abort and a resume. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "spec.h"
#include "tally.h"
#include "testutil.h"

static json_t **events;
static size_t nevents;
static char round_path[4096];

static int
setup(void **state)
{
	const char *src = getenv("BENCHTUI_SOURCE_DIR");
	char log[4096];

	(void)state;
	snprintf(log, sizeof log, "%s/tests/data/tui/round/log.jsonl",
	    src ? src : ".");
	snprintf(round_path, sizeof round_path,
	    "%s/tests/data/tui/round/round.json", src ? src : ".");
	events = tu_log_events(log, &nevents);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_events_free(events, nevents);
	return 0;
}

/* Feed one event written as a JSON text. */
static void
feed_text(struct model *m, const char *line)
{
	json_t *ev = json_loads(line, 0, NULL);

	assert_non_null(ev);
	model_feed(m, ev);
	json_decref(ev);
}

/* A new model fed n events written as JSON texts. */
static void
fed_model(struct model *m, const char *const *lines, size_t n)
{
	model_init(m);
	for (size_t i = 0; i < n; i++)
		feed_text(m, lines[i]);
}

static const char *
type_of(size_t i)
{
	return json_string_value(json_object_get(events[i], "t"));
}

/* Feed events until (and including) the nth event of type t; returns the
 * index after it. */
static size_t
feed_until(struct model *m, size_t from, const char *t, int nth)
{
	for (size_t i = from; i < nevents; i++) {
		model_feed(m, events[i]);
		if (strcmp(type_of(i), t) == 0 && --nth == 0)
			return i + 1;
	}
	fail_msg("no %s event", t);
	return nevents;
}

static void
test_whole_log(void **state)
{
	struct model m;

	(void)state;
	model_init(&m);
	for (size_t i = 0; i < nevents; i++)
		model_feed(&m, events[i]);
	assert_int_equal(m.state, MODEL_COMPLETE);
	assert_string_equal(m.name, "fixture");
	assert_int_equal(m.legs_total, 18);
	assert_int_equal(m.legs_done, 18);   /* the aborted leg does not count */
	assert_int_equal(m.legs_failed, 1);
	assert_int_equal(m.nlegs, 19);       /* but the table shows it */
	assert_false(m.cur_active);
	assert_int_equal(m.ncells, 2);
	assert_int_equal(m.narms, 3);
	assert_int_equal(m.reps, 3);
	for (size_t c = 0; c < 2; c++)
		for (size_t a = 0; a < 3; a++)
			for (int r = 1; r <= 3; r++) {
				bool failed = c == 0 && a == 1 && r == 2;
				assert_int_equal(model_grid_at(&m, c, a, r),
				    failed ? MODEL_BAD : MODEL_DONE);
			}
	/* The newest leg is big/.../3, and the failed one is marked. */
	assert_string_equal(m.legs[m.nlegs - 1].cell, "big");
	{
		int nfailed = 0;
		for (size_t i = 0; i < m.nlegs; i++)
			if (strcmp(m.legs[i].status, "failed") == 0) {
				nfailed++;
				assert_string_equal(m.legs[i].cell, "small");
				assert_string_equal(m.legs[i].arm, "fast");
				assert_int_equal(m.legs[i].rep, 2);
			}
		assert_int_equal(nfailed, 1);
	}
	assert_true(m.end_ts > m.start_ts);
	assert_true(model_eta(&m) == 0);
	model_finish(&m);
}

static void
test_ratios_match_tally(void **state)
{
	struct model m;
	struct tally *t = tally_create();
	struct spec *s = NULL;
	char err[256];
	json_t *want;

	(void)state;
	/* Bare log: both compare with the first arm seen. */
	model_init(&m);
	for (size_t i = 0; i < nevents; i++) {
		model_feed(&m, events[i]);
		tally_feed(t, events[i]);
	}
	want = tally_report(t);
	assert_true(json_equal((json_t *)model_ratios(&m), want));
	assert_non_null(json_object_get(json_object_get(model_ratios(&m), "cells"), "big"));
	json_decref(want);
	tally_destroy(t);
	model_finish(&m);

	/* With the round file: vs and aa_of from it, and a floor. */
	assert_int_equal(spec_load(round_path, NULL, &s, err, sizeof err), 0);
	t = tally_create();
	tally_set_spec(t, s);
	model_init(&m);
	model_set_spec(&m, s);
	for (size_t i = 0; i < nevents; i++) {
		model_feed(&m, events[i]);
		tally_feed(t, events[i]);
		if (i == nevents / 2) { /* and midway, while legs arrive */
			want = tally_report(t);
			assert_true(json_equal((json_t *)model_ratios(&m), want));
			json_decref(want);
		}
	}
	want = tally_report(t);
	assert_true(json_equal((json_t *)model_ratios(&m), want));
	{
		json_t *fast = json_object_get(json_object_get(json_object_get(
		    json_object_get(model_ratios(&m), "cells"), "big"), "arms"),
		    "fast");
		json_t *cyc = json_object_get(json_object_get(fast, "metrics"),
		    "cycles");
		assert_string_equal(json_string_value(json_object_get(fast, "vs")),
		    "base");
		assert_true(fabs(json_number_value(json_object_get(cyc, "median"))
		    - 0.9) < 1e-6);
		assert_true(fabs(json_number_value(json_object_get(cyc,
		    "estimate")) - 0.9) < 0.01);
		/* Fewer than 6 reps: no interval, so no verdict yet. */
		assert_string_equal(json_string_value(json_object_get(cyc,
		    "verdict")), "unknown");
	}
	json_decref(want);
	tally_destroy(t);
	model_finish(&m);
	spec_destroy(s);
}

static void
test_current_leg_and_states(void **state)
{
	struct model m;
	size_t i;

	(void)state;
	model_init(&m);
	assert_int_equal(m.state, MODEL_WAITING);
	i = feed_until(&m, 0, "round", 1);
	assert_int_equal(m.state, MODEL_RUNNING);
	i = feed_until(&m, i, "leg_start", 1);
	assert_true(m.cur_active);
	assert_string_equal(m.cur_cell, "small");
	assert_string_equal(m.cur_arm, "base");
	assert_int_equal(m.cur_rep, 1);
	assert_int_equal(m.cur_pid, 1001);
	assert_string_equal(m.cur_out, "legs/small-base-r1.out");
	assert_int_equal(model_grid_at(&m, 0, 0, 1), MODEL_RUN);
	assert_true(isnan(model_arm_median_wall(&m, "small", "base")));
	i = feed_until(&m, i, "leg", 1);
	assert_false(m.cur_active);
	assert_int_equal(m.legs_done, 1);
	assert_true(fabs(model_arm_median_wall(&m, "small", "base") - 1.0) < 1e-9);
	assert_true(model_eta(&m) > 0);

	/* The noisy gate: a not-ok sample starts the wait. */
	while (i < nevents && !(strcmp(type_of(i), "quiet") == 0 &&
	    json_is_false(json_object_get(events[i], "ok"))))
		model_feed(&m, events[i++]);
	model_feed(&m, events[i++]);
	assert_false(m.quiet_ok);
	assert_true(m.gate_wait_since > 0);
	assert_true(fabs(m.quiet_now - 0.9) < 1e-9);
	assert_true(fabs(m.quiet_threshold - 0.5) < 1e-9);
	i = feed_until(&m, i, "leg_start", 1);
	assert_true(m.gate_wait_since == 0);

	i = feed_until(&m, i, "pause", 1);
	assert_int_equal(m.state, MODEL_PAUSED);
	i = feed_until(&m, i, "resume", 1);
	assert_int_equal(m.state, MODEL_RUNNING);

	/* The operator's abort: aborting, then aborted; its leg is pending
	 * again, and a resume carries on. */
	model_set_aborting(&m);
	assert_int_equal(m.state, MODEL_ABORTING);
	i = feed_until(&m, i, "abort", 1);
	assert_int_equal(m.state, MODEL_ABORTED);
	assert_string_equal(m.abort_reason, "operator");
	assert_false(m.cur_active);
	assert_string_equal(m.legs[m.nlegs - 1].status, "aborted");
	{
		const struct model_leg *l = &m.legs[m.nlegs - 1];
		size_t c = strcmp(l->cell, "big") == 0 ? 1 : 0, a;
		for (a = 0; a < m.narms; a++)
			if (strcmp(m.arms[a], l->arm) == 0)
				break;
		assert_int_equal(model_grid_at(&m, c, a, l->rep), MODEL_PENDING);
		assert_string_equal(l->signal, "SIGKILL");
		assert_false(l->has_rc);
	}
	assert_int_equal(m.legs_done, 16);
	feed_until(&m, i, "resume", 1);
	assert_int_equal(m.state, MODEL_RUNNING);
	model_finish(&m);
}

static void
test_legacy_and_unknown(void **state)
{
	struct model m;
	json_t *legacy = json_pack("{s:s, s:s, s:i, s:i, s:f}", "cell", "c1",
	    "arm", "a1", "rep", 1, "rc", 0, "wall", 2.5);
	json_t *unknown = json_pack("{s:s, s:s}", "t", "from_the_future", "ts",
	    "2026-11-29T15:00:00.000Z");
	json_t *seal = json_pack("{s:s, s:s}", "t", "seal", "ts",
	    "2026-11-29T15:00:09.000Z");

	(void)state;
	model_init(&m);
	model_feed(&m, unknown);
	assert_int_equal(model_take_changes(&m), MODEL_CHANGE_CLOCK);
	assert_int_equal(m.nlegs, 0);
	model_feed(&m, legacy);
	assert_int_equal(m.nlegs, 1);
	assert_string_equal(m.legs[0].status, "ok");
	assert_true(isnan(m.legs[0].cycles));  /* shown as n/a */
	assert_int_equal(m.ncells, 1);           /* the plan grows */
	assert_int_equal(model_grid_at(&m, 0, 0, 1), MODEL_DONE);
	model_feed(&m, seal);
	assert_int_equal(m.state, MODEL_SEALED);
	model_finish(&m);
	json_decref(legacy);
	json_decref(unknown);
	json_decref(seal);
}

/* The legs table's columns: the round's counters and the legs' metrics,
 * each marked seen once a leg has a value (a counter the machine lacks
 * never is); a warm-up leg is listed but not counted; warnings go to the
 * message log whole. */
static void
test_columns_warmup_log(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\",\"name\":\"r\","
		"\"cells\":[\"c\"],\"arms\":[\"a\"],\"reps\":1,\"legs_total\":1,"
		"\"counters\":[\"cycles\",\"task-clock\"]}",
		"{\"t\":\"leg\",\"ts\":\"2026-11-29T15:00:01.000Z\",\"cell\":\"c\","
		"\"arm\":\"a\",\"rep\":0,\"seq\":0,\"warmup\":1,\"status\":\"ok\","
		"\"rc\":0,\"wall\":1,\"counters\":{\"cycles\":null,\"task-clock\":5}}",
		"{\"t\":\"warning\",\"ts\":\"2026-11-29T15:00:01.500Z\",\"msg\":"
		"\"counter cycles is n/a: this machine has no hardware PMU\"}",
		"{\"t\":\"leg\",\"ts\":\"2026-11-29T15:00:02.000Z\",\"cell\":\"c\","
		"\"arm\":\"a\",\"rep\":1,\"seq\":1,\"status\":\"ok\",\"rc\":0,"
		"\"wall\":1,\"counters\":{\"cycles\":null,\"task-clock\":7},"
		"\"metrics\":{\"rps\":300}}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, sizeof lines / sizeof lines[0]);
	assert_int_equal(m.ncols, 3);
	assert_string_equal(m.cols[0].name, "cycles");
	assert_false(m.cols[0].seen);          /* n/a in every leg */
	assert_string_equal(m.cols[1].name, "task-clock");
	assert_true(m.cols[1].seen);
	assert_string_equal(m.cols[2].name, "rps");
	assert_true(m.cols[2].metric && m.cols[2].seen);
	assert_true(model_leg_value(&m.legs[1], &m.cols[2]) == 300);
	assert_true(isnan(model_leg_value(&m.legs[1], &m.cols[0])));
	/* the warm-up leg: listed, not counted */
	assert_int_equal(m.nlegs, 2);
	assert_int_equal(m.legs[0].warmup, 1);
	assert_int_equal(m.legs_done, 1);
	assert_int_equal(model_grid_at(&m, 0, 0, 1), MODEL_DONE);
	assert_int_equal(m.nlog, 1);
	assert_non_null(strstr(m.log[0], "15:00:01 counter cycles"));
	assert_non_null(strstr(m.log[0], "no hardware PMU"));
	model_finish(&m);
}

/* Events with missing or mistyped fields change nothing they cannot. */
static void
test_garbage(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"leg\"}",
		"{\"t\":\"leg\",\"cell\":3,\"arm\":[],\"rep\":\"x\",\"wall\":\"1\"}",
		"{\"t\":\"leg_start\",\"rep\":-4}",
		"{\"t\":\"quiet\",\"foreign\":\"lots\",\"ok\":3}",
		"{\"t\":\"round\",\"name\":null,\"cells\":[1,2],\"arms\":{},\"reps\":0}",
		"{\"t\":\"abort\",\"reason\":5,\"ts\":\"garbage\"}",
		"{\"t\":7}",
		"{}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, sizeof lines / sizeof lines[0]);
	assert_int_equal(m.ncells, 0);        /* nameless legs add no plan */
	assert_int_equal(m.nlegs, 2);         /* but are listed */
	assert_int_equal(m.state, MODEL_ABORTED);
	assert_non_null(model_ratios(&m));
	model_finish(&m);
}

static void
test_parse_ts(void **state)
{
	(void)state;
	assert_true(fabs(model_parse_ts("2026-11-29T15:04:05.123Z") -
	    1795964645.123) < 1e-6);
	assert_true(model_parse_ts("1970-01-01T00:00:01.500Z") == 1.5);
	assert_true(model_parse_ts("nonsense") == 0);
	assert_true(model_parse_ts(NULL) == 0);
}

/* A leg that stops itself shows as stopped (the console says so and that
 * an abort ends it), and as running again when continued; a leg_state of
 * another leg, or with garbage fields, changes nothing. */
static void
test_stopped_leg(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"leg_start\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"seq\":4,\"pid\":9}",
		"{\"t\":\"leg_state\",\"seq\":3,\"state\":\"stopped\"}",
		"{\"t\":\"leg_state\",\"seq\":4,\"state\":7}",
		"{\"t\":\"leg_state\",\"seq\":4,\"state\":\"stopped\",\"signal\":\"SIGTSTP\"}",
		"{\"t\":\"leg_state\",\"seq\":4,\"state\":\"running\"}",
	};
	const char *want[] = { "", "", "", "SIGTSTP", "" };
	struct model m;

	(void)state;
	model_init(&m);
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		feed_text(&m, lines[i]);
		assert_string_equal(m.cur_stopped, want[i]);
	}
	model_finish(&m);
}

/* A round on several hosts: each host has its line (the leg it runs,
 * the legs it ran), and each leg its host. */
static void
test_several_hosts(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"round\",\"name\":\"r\",\"hosts\":[\"ha\",\"hb\"]}",
		"{\"t\":\"leg_start\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"seq\":3,\"host\":\"hb\"}",
		"{\"t\":\"leg\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"seq\":3,\"host\":\"hb\",\"status\":\"ok\",\"rc\":0,\"wall\":0.1,\"cpu\":0.1}",
		"{\"t\":\"leg_start\",\"cell\":\"c\",\"arm\":\"b\",\"rep\":2,\"seq\":4,\"host\":\"hb\"}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, 3);
	assert_true(m.several_hosts);
	assert_int_equal(m.nhosts, 2);
	assert_string_equal(m.hosts[0].name, "ha");
	assert_int_equal(m.hosts[1].legs, 1);
	assert_string_equal(m.hosts[1].leg, "");
	assert_int_equal(m.nlegs, 1);
	assert_string_equal(m.legs[0].host, "hb");
	feed_text(&m, lines[3]);
	assert_string_equal(m.hosts[1].leg, "c b r2");
	assert_int_equal(m.hosts[0].legs, 0);
	model_finish(&m);
}

/* A failed profile goes to the message log with its reason; an ok one
 * does not. */
static void
test_profile_failed_logged(void **state)
{
	static const char *const lines[] = {
		"{\"t\": \"profile\", \"ts\": \"2026-01-01T00:00:00.000Z\","
		" \"cell\": \"c\", \"arm\": \"a\", \"kind\": \"perf\","
		" \"status\": \"ok\", \"top\": []}",
		"{\"t\": \"profile\", \"ts\": \"2026-01-01T00:00:01.000Z\","
		" \"cell\": \"c\", \"arm\": \"b\", \"kind\": \"syscalls\","
		" \"status\": \"failed\", \"reason\": \"strace attached to 1 of "
		"3 tasks\"}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, 1);
	assert_string_equal(model_last_warning(&m), "");
	feed_text(&m, lines[1]);
	assert_string_equal(model_last_warning(&m), "profile c b syscalls "
	    "failed: strace attached to 1 of 3 tasks");
	model_finish(&m);
}

/* The ETA runs the legs to come at what a leg took without its wait, and
 * adds what the gate waited a leg, at most what is left of budget_s; none
 * once the budget is spent or G released the rest of the round. */
static void
test_eta_gate_waits(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\","
		"\"name\":\"g\",\"legs_total\":10,"
		"\"quiet\":{\"enabled\":true,\"budget_s\":30}}",
		/* Two legs, 1 s of running each, after waits of 9 s. */
		"{\"t\":\"leg\",\"ts\":\"2026-11-29T15:00:10.000Z\","
		"\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"status\":\"ok\","
		"\"wall\":1,\"gate\":\"quiet\",\"wait_s\":9}",
		"{\"t\":\"leg\",\"ts\":\"2026-11-29T15:00:20.000Z\","
		"\"cell\":\"c\",\"arm\":\"a\",\"rep\":2,\"status\":\"ok\","
		"\"wall\":1,\"gate\":\"quiet\",\"wait_s\":9}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, 2);
	feed_text(&m, lines[2]);
	/* 8 legs to come: 8 s of running, and 8 x 9 s of waits bounded
	 * by the 30 - 18 s of budget left. */
	assert_float_equal(model_eta(&m), 8.0 + 12.0, 1e-6);
	feed_text(&m, "{\"t\":\"gate\",\"ts\":\"2026-11-29T15:00:20.100Z\","
	    "\"kind\":\"release\",\"scope\":\"round\"}");
	assert_true(m.gate_released_all);
	assert_float_equal(model_eta(&m), 8.0, 1e-6);
	model_finish(&m);

	fed_model(&m, lines, 3);
	feed_text(&m, "{\"t\":\"gate\",\"ts\":\"2026-11-29T15:00:20.100Z\","
	    "\"kind\":\"budget\",\"budget_s\":30,\"spent_s\":30}");
	assert_float_equal(model_eta(&m), 8.0, 1e-6);
	model_finish(&m);
}

/* A server's host's gate: its samples (held on its server's pinned cpus,
 * with its countdown and its probe) and how it let each leg go. */
static void
test_host_gate(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\","
		"\"name\":\"h\",\"legs_total\":4}",
		"{\"t\":\"quiet\",\"ts\":\"2026-11-29T15:00:01.000Z\","
		"\"host\":\"u@b\",\"foreign\":0.9,\"ok\":false,"
		"\"server_busy\":0.95,\"max_server_busy\":0.1,\"probe\":1.5,"
		"\"probe_max\":1.01,\"waited_s\":2,\"limit_s\":5}",
		"{\"t\":\"leg\",\"ts\":\"2026-11-29T15:00:10.000Z\","
		"\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"status\":\"ok\","
		"\"wall\":1,\"gate\":\"budget\",\"wait_s\":5,"
		"\"server\":{\"host\":\"u@b\",\"gate\":\"budget\"}}",
	};
	const struct model_host *h;
	struct model m;

	(void)state;
	fed_model(&m, lines, 2);
	assert_int_equal(m.nhosts, 1);
	h = &m.hosts[0];
	assert_string_equal(h->name, "u@b");
	assert_true(h->holding);
	assert_true(m.gate_wait_since > 0);
	assert_float_equal(h->server_busy, 0.95, 1e-9);
	assert_float_equal(h->server_max, 0.1, 1e-9);
	assert_float_equal(h->probe, 1.5, 1e-9);
	assert_float_equal(h->limit - h->waited, 3, 1e-9);
	assert_string_equal(h->last_gate, "");
	feed_text(&m, lines[2]);
	assert_string_equal(h->last_gate, "budget");
	model_finish(&m);
}

/* An abort whose reason is longer than the header holds: the message
 * log and the footer have it whole; a short one stays the header's. */
static void
test_long_abort_logged(void **state)
{
	static const char *const lines[] = {
		"{\"t\":\"round\",\"ts\":\"2026-11-29T15:00:00.000Z\","
		"\"name\":\"h\",\"legs_total\":4}",
		"{\"t\":\"abort\",\"ts\":\"2026-11-29T15:00:01.000Z\","
		"\"reason\":\"user@aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."
		"bbbbbbbbbbbb.invalid: ssh: Could not resolve hostname; no leg "
		"ran: the round stopped, resume connects again\"}",
		"{\"t\":\"abort\",\"ts\":\"2026-11-29T15:00:02.000Z\","
		"\"reason\":\"operator\"}",
	};
	struct model m;

	(void)state;
	fed_model(&m, lines, 2);
	assert_int_equal(m.state, MODEL_ABORTED);
	assert_int_equal(m.nlog, 1);
	assert_string_equal(model_last_warning(&m), "stopped: user@aaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaa...bbbbbbbbbbbb.invalid: ssh: Could "
	    "not resolve hostname; no leg ran: the round stopped, resume "
	    "connects again");
	model_finish(&m);
	fed_model(&m, lines + 2, 1);
	assert_string_equal(m.abort_reason, "operator");
	assert_int_equal(m.nlog, 0);
	model_finish(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eta_gate_waits),
		cmocka_unit_test(test_host_gate),
		cmocka_unit_test(test_whole_log),
		cmocka_unit_test(test_profile_failed_logged),
		cmocka_unit_test(test_ratios_match_tally),
		cmocka_unit_test(test_current_leg_and_states),
		cmocka_unit_test(test_legacy_and_unknown),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_columns_warmup_log),
		cmocka_unit_test(test_parse_ts),
		cmocka_unit_test(test_stopped_leg),
		cmocka_unit_test(test_several_hosts),
		cmocka_unit_test(test_long_abort_logged),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
