/* test: */
/* The console redraws by dirty panes: each event type marks the panes that
 * show what it changed (model_take_changes -> render_touch_changes), and
 * no others.  No terminal: only the dirty mask is looked at. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "model.h"
#include "render.h"

#define HDR (1u << PANE_HEADER)
#define QUI (1u << PANE_QUIET)
#define CUR (1u << PANE_CURRENT)
#define PLN (1u << PANE_PLAN)
#define LEG (1u << PANE_LEGS)
#define RAT (1u << PANE_RATIOS)
#define FTR (1u << PANE_FOOTER)

/* Feed one event, its "ts" the (n)th second of the round when it has
 * "%s" for it. */
static void
feed(struct model *m, const char *fmt, int n)
{
	char ts[32], line[1024];
	json_t *ev;

	snprintf(ts, sizeof ts, "2026-11-29T15:00:%02d.000Z", n);
	snprintf(line, sizeof line, fmt, ts);
	ev = json_loads(line, 0, NULL);
	assert_non_null(ev);
	model_feed(m, ev);
	json_decref(ev);
}

#define ROUND "{\"t\":\"round\",\"ts\":\"%s\",\"name\":\"r\",\"reps\":2," \
	"\"cells\":[\"c\"],\"arms\":[\"a\",\"b\"],\"baseline\":\"a\"}"
#define START "{\"t\":\"leg_start\",\"ts\":\"%s\",\"cell\":\"c\"," \
	"\"arm\":\"a\",\"rep\":1,\"seq\":1,\"pid\":7}"
#define LEG_OK "{\"t\":\"leg\",\"ts\":\"%s\",\"cell\":\"c\",\"arm\":\"a\"," \
	"\"rep\":1,\"seq\":1,\"status\":\"ok\",\"rc\":0,\"wall\":1.0,\"cpu\":1.0}"
#define QUIET_OK "{\"t\":\"quiet\",\"ts\":\"%s\",\"foreign\":0.1," \
	"\"threshold\":0.5,\"ok\":true}"
#define QUIET_NO "{\"t\":\"quiet\",\"ts\":\"%s\",\"foreign\":0.9," \
	"\"threshold\":0.5,\"ok\":false}"

/* Before the event: nothing (""), a round, or a round with a leg running,
 * with or without quiet samples. */
enum before { B_NONE, B_ROUND, B_RUNNING, B_QUIET, B_DONE };

static const struct {
	const char *what;
	enum before before;
	const char *ev;
	bool replay;
	unsigned panes;
} cases[] = {
	{ "round", B_NONE, ROUND, false, HDR | FTR | CUR | QUI | PLN | RAT },
	{ "the first quiet sample", B_ROUND, QUIET_OK, false, QUI },
	{ "a quiet sample that holds the gate between legs", B_QUIET, QUIET_NO,
	    false, QUI | CUR },
	{ "leg_start", B_ROUND, START, false, CUR | PLN },
	{ "leg_start with quiet samples (their time axis moves)", B_QUIET,
	    START, false, CUR | PLN | QUI },
	{ "leg", B_RUNNING, LEG_OK, false, LEG | CUR | HDR | PLN | RAT },
	/* One the gate let go on a busy box: the quiet box counts it. */
	{ "a leg on a busy box", B_RUNNING, "{\"t\":\"leg\",\"ts\":\"%s\","
	    "\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,\"seq\":1,"
	    "\"status\":\"ok\",\"rc\":0,\"wall\":1.0,\"cpu\":1.0,"
	    "\"gate\":\"budget\",\"wait_s\":0.0}", false,
	    LEG | CUR | HDR | PLN | RAT | QUI },
	/* One whose server's host's gate let it go: that host's line. */
	{ "a leg with a server elsewhere", B_RUNNING, "{\"t\":\"leg\","
	    "\"ts\":\"%s\",\"cell\":\"c\",\"arm\":\"a\",\"rep\":1,"
	    "\"seq\":1,\"status\":\"ok\",\"rc\":0,\"wall\":1.0,"
	    "\"cpu\":1.0,\"gate\":\"quiet\",\"wait_s\":0.0,\"server\":"
	    "{\"host\":\"u@b\",\"gate\":\"quiet\"}}", false,
	    LEG | CUR | HDR | PLN | RAT | QUI },
	{ "a warm-up leg", B_ROUND, "{\"t\":\"leg\",\"ts\":\"%s\",\"cell\":\"c\","
	    "\"arm\":\"a\",\"rep\":0,\"warmup\":1,\"seq\":1,\"status\":\"ok\","
	    "\"rc\":0,\"wall\":1.0,\"cpu\":1.0}", false, LEG | CUR | RAT },
	{ "leg_state", B_RUNNING, "{\"t\":\"leg_state\",\"ts\":\"%s\",\"seq\":1,"
	    "\"state\":\"stopped\",\"signal\":\"SIGSTOP\"}", false, CUR },
	{ "leg_state of another leg", B_RUNNING, "{\"t\":\"leg_state\",\"seq\":9,"
	    "\"state\":\"stopped\"}", false, 0 },
	{ "pause", B_RUNNING, "{\"t\":\"pause\",\"ts\":\"%s\"}", false,
	    HDR | FTR | CUR | QUI },
	{ "resume", B_DONE, "{\"t\":\"resume\",\"ts\":\"%s\"}", false,
	    HDR | FTR | CUR | QUI },
	{ "abort", B_RUNNING, "{\"t\":\"abort\",\"ts\":\"%s\",\"reason\":\"x\"}",
	    false, HDR | FTR | CUR | QUI },
	{ "done", B_ROUND, "{\"t\":\"done\",\"ts\":\"%s\"}", false,
	    HDR | FTR | CUR | QUI },
	{ "seal", B_DONE, "{\"t\":\"seal\",\"ts\":\"%s\"}", false,
	    HDR | FTR | CUR | QUI },
	{ "warning", B_RUNNING, "{\"t\":\"warning\",\"ts\":\"%s\",\"msg\":\"m\"}",
	    false, FTR },
	{ "log_cut", B_RUNNING, "{\"t\":\"log_cut\",\"ts\":\"%s\",\"bytes\":3}",
	    false, FTR },
	{ "server", B_ROUND, "{\"t\":\"server\",\"ts\":\"%s\",\"cell\":\"c\","
	    "\"state\":\"ready\",\"pid\":9}", false, QUI },
	{ "profile_start", B_ROUND, "{\"t\":\"profile_start\",\"ts\":\"%s\","
	    "\"cell\":\"c\",\"arm\":\"a\",\"kind\":\"perf\"}", false, CUR },
	{ "profile", B_ROUND, "{\"t\":\"profile\",\"ts\":\"%s\",\"cell\":\"c\","
	    "\"arm\":\"a\",\"kind\":\"perf\"}", false, CUR | RAT },
	{ "look", B_ROUND, "{\"t\":\"look\",\"ts\":\"%s\",\"cell\":\"c\","
	    "\"look\":1,\"looks\":3,\"rep\":2}", false, RAT },
	{ "a type the model ignores", B_ROUND, "{\"t\":\"no-such-type\"}", false,
	    0 },
	/* A replay's clocks are the log's: any event moves them. */
	{ "a quiet sample in a replay", B_ROUND, QUIET_OK, true,
	    QUI | HDR | CUR },
	{ "a warning in a replay", B_RUNNING, "{\"t\":\"warning\",\"ts\":\"%s\","
	    "\"msg\":\"m\"}", true, FTR | HDR | CUR },
};

static void
set_up(struct model *m, enum before b)
{
	model_init(m);
	if (b >= B_ROUND)
		feed(m, ROUND, 1);
	if (b == B_QUIET)
		feed(m, QUIET_OK, 2);
	if (b == B_RUNNING)
		feed(m, START, 2);
	if (b == B_DONE)
		feed(m, "{\"t\":\"done\",\"ts\":\"%s\"}", 2);
	(void)model_take_changes(m);
}

static void
test_each_event(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct model m;
		struct render r;

		set_up(&m, cases[i].before);
		memset(&r, 0, sizeof r);
		r.replay = cases[i].replay;
		feed(&m, cases[i].ev, 5);
		render_touch_changes(&r, model_take_changes(&m));
		if (r.dirty != cases[i].panes)
			fail_msg("%s: panes 0x%x, want 0x%x", cases[i].what,
			    r.dirty, cases[i].panes);
		/* Taken once: nothing left for the next loop. */
		assert_int_equal(model_take_changes(&m), 0);
		model_finish(&m);
	}
}

/* What the console itself sets: an abort asked, the engine gone. */
static void
test_console_setters(void **state)
{
	struct model m;
	struct render r;

	(void)state;
	set_up(&m, B_RUNNING);
	model_set_aborting(&m);
	memset(&r, 0, sizeof r);
	render_touch_changes(&r, model_take_changes(&m));
	assert_int_equal(r.dirty, HDR | FTR | CUR | QUI);
	model_set_failed(&m, "why");
	memset(&r, 0, sizeof r);
	render_touch_changes(&r, model_take_changes(&m));
	assert_int_equal(r.dirty, HDR | FTR | CUR | QUI);
	/* Stepping a replay back rebuilds everything. */
	model_restart(&m, NULL);
	memset(&r, 0, sizeof r);
	render_touch_changes(&r, model_take_changes(&m));
	assert_int_equal(r.dirty, HDR | QUI | CUR | PLN | LEG | RAT | FTR);
	model_finish(&m);
}

/* The clock's tick: the header and the running leg; the quiet box only
 * while the gate holds (it counts the wait). */
static void
test_clock(void **state)
{
	struct model m;
	struct render r;

	(void)state;
	set_up(&m, B_RUNNING);
	memset(&r, 0, sizeof r);
	render_touch_clock(&r, &m);
	assert_int_equal(r.dirty, HDR | CUR);
	model_finish(&m);
	set_up(&m, B_QUIET);
	feed(&m, QUIET_NO, 3);
	memset(&r, 0, sizeof r);
	render_touch_clock(&r, &m);
	assert_int_equal(r.dirty, HDR | CUR | QUI);
	model_finish(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_event),
		cmocka_unit_test(test_console_setters),
		cmocka_unit_test(test_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
