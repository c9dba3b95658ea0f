/* test: */
/* The model's ratios in slices (model_ratios_advance), as the console's
 * loop brings them up to date between polls: what the panes draw
 * (model_ratios_shown) stays the last complete report until a slice
 * completes the next, which then marks MODEL_CHANGE_RATIOS and is the
 * report model_ratios gives.  Fed tests/data/tui/round's log. */
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
static struct spec *spec;

static int
setup(void **state)
{
	const char *src = getenv("BENCHTUI_SOURCE_DIR");
	char path[4096], err[256];

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/tui/round/log.jsonl",
	    src ? src : ".");
	events = tu_log_events(path, &nevents);
	snprintf(path, sizeof path, "%s/tests/data/tui/round/round.json",
	    src ? src : ".");
	if (spec_load(path, NULL, &spec, err, sizeof err) != 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_events_free(events, nevents);
	spec_destroy(spec);
	return 0;
}

static bool
same_bytes(const json_t *a, const json_t *b)
{
	char *x = json_dumps(a, JSON_COMPACT), *y = json_dumps(b, JSON_COMPACT);
	bool same = x && y && strcmp(x, y) == 0;

	free(x);
	free(y);
	return same;
}

/* After every event, one-piece slices until the ratios are up to date:
 * meanwhile the panes' report is the one before; at the end it is what a
 * tally fed the same events reports. */
static void
test_slices_reach_the_report(void **state)
{
	struct model m;
	struct tally *t = tally_create();
	size_t slices = 0, completed = 0;

	(void)state;
	model_init(&m);
	model_set_spec(&m, spec);
	tally_set_spec(t, spec);
	for (size_t i = 0; i < nevents; i++) {
		const json_t *before;
		json_t *want;

		model_feed(&m, events[i]);
		tally_feed(t, events[i]);
		(void)model_take_changes(&m);
		before = model_ratios_shown(&m);
		if (before != NULL)
			json_incref((json_t *)before);
		while (!model_ratios_advance(&m, 0)) {
			slices++;
			/* Nothing complete yet: the panes keep the last. */
			if (!(model_take_changes(&m) & MODEL_CHANGE_RATIOS))
				assert_ptr_equal(model_ratios_shown(&m), before);
		}
		if (model_take_changes(&m) & MODEL_CHANGE_RATIOS)
			completed++;
		want = tally_report(t);
		assert_true(same_bytes(model_ratios_shown(&m), want));
		assert_ptr_equal(model_ratios(&m), model_ratios_shown(&m));
		json_decref(want);
		json_decref((json_t *)before);
	}
	/* Legs came in: some reports took more than one slice, and each
	 * completed one was marked for the ratios pane. */
	assert_true(slices > 0);
	assert_true(completed > 0);
	/* Up to date: a slice does nothing and says so. */
	assert_true(model_ratios_advance(&m, 0));
	assert_int_equal(model_take_changes(&m) & MODEL_CHANGE_RATIOS, 0);
	tally_destroy(t);
	model_finish(&m);
}

/* A replay stepping back restarts the model: nothing to show until the
 * first report of the new model is complete. */
static void
test_restart_forgets_the_report(void **state)
{
	struct model m;

	(void)state;
	model_init(&m);
	model_set_spec(&m, spec);
	for (size_t i = 0; i < nevents; i++)
		model_feed(&m, events[i]);
	assert_non_null(model_ratios(&m));
	model_restart(&m, spec);
	assert_null(model_ratios_shown(&m));
	for (size_t i = 0; i < nevents / 2; i++)
		model_feed(&m, events[i]);
	while (!model_ratios_advance(&m, 0))
		;
	assert_non_null(model_ratios_shown(&m));
	model_finish(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices_reach_the_report),
		cmocka_unit_test(test_restart_forgets_the_report),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
