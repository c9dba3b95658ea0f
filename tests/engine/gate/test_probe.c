/* test: alone est=2 */
/* probe: the calibration loop, its floor, its cpu, its clock check; and
 * the quiet gate holding a leg on a slow probe.  A real slowdown cannot
 * be had on demand, so the gate's tests fake one (BENCHTUI_PROBE_SLOW_S);
 * the probe's own figures are checked against what any machine gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "probe.h"
#include "quiet.h"
#include "testutil.h"

/* Pinned to one cpu, every probe runs there, takes about its planned
 * time, never reads much faster than its floor, and leaves the thread's
 * own affinity as it was. */
static void
test_probe_pinned(void **state)
{
	int ncpu = (int)sysconf(_SC_NPROCESSORS_CONF), x = ncpu - 1;
	unsigned char *mask = calloc((size_t)ncpu, 1);
	cpu_set_t before, after;
	struct probe *p;
	struct probe_result r;
	double floor = INFINITY;

	(void)state;
	mask[x] = 1;
	assert_int_equal(sched_getaffinity(0, sizeof before, &before), 0);
	p = probe_create(mask, ncpu);
	assert_non_null(p);
	assert_true(probe_iterations(p) >= 100);
	for (int i = 0; i < 30; i++) {
		assert_int_equal(probe_run(p, &r), 0);
		assert_int_equal(r.cpu, x);
		assert_false(isnan(r.floor_us));
		/* The floor only falls, and a probe is measured against the
		 * floor before it. */
		assert_true(r.floor_us <= floor);
		floor = r.floor_us;
		assert_true(r.slowdown > 0.5);
		assert_true(r.us >= PROBE_SLICES * r.slice_us * 0.5);
		assert_true(r.gap_us >= 0);
	}
	print_message("probe: %ld iterations a slice, %.1f us, median slice "
	    "%.2f us, floor %.2f us\n", probe_iterations(p), r.us, r.slice_us,
	    r.floor_us);
	/* Calibrated to PROBE_SLICE_US a slice: within a wide band, for a
	 * loaded machine. */
	assert_true(r.floor_us > PROBE_SLICE_US / 4 &&
	    r.floor_us < PROBE_SLICE_US * 4);
	assert_int_equal(sched_getaffinity(0, sizeof after, &after), 0);
	assert_true(CPU_EQUAL(&before, &after));
	probe_destroy(p);
	free(mask);
}

/* BENCHTUI_PROBE_SLOW_S: probes read half as slow again for that long. */
static void
test_probe_slow_fake(void **state)
{
	struct probe *p;
	struct probe_result r;

	(void)state;
	setenv("BENCHTUI_PROBE_SLOW_S", "0.3", 1);
	p = probe_create(NULL, 0);
	unsetenv("BENCHTUI_PROBE_SLOW_S");
	assert_non_null(p);
	assert_int_equal(probe_run(p, &r), 0);
	print_message("slow: %.3f\n", r.slowdown);
	assert_true(r.slowdown >= 1.3);
	tu_nap_ms(350);
	assert_int_equal(probe_run(p, &r), 0);
	print_message("then: %.3f\n", r.slowdown);
	assert_true(r.slowdown < 1.3);
	probe_destroy(p);
}

static void
clocksource(const char *dir, const char *name)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s/cs", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", name);
	fclose(f);
	setenv("BENCHTUI_SYSFS_CLOCKSOURCE", path, 1);
}

/* A clock that ticks in jiffies cannot time a 100 us probe; a counting
 * clocksource can. */
static void
test_clock_stable(void **state)
{
	char dir[] = "/tmp/benchtui-test-cs-XXXXXX", why[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	clocksource(dir, "jiffies");
	assert_false(probe_clock_stable(why, sizeof why));
	assert_non_null(strstr(why, "clocksource jiffies"));
	clocksource(dir, "refined-jiffies");
	assert_false(probe_clock_stable(why, sizeof why));
	clocksource(dir, "tsc");
	assert_true(probe_clock_stable(why, sizeof why));
	clocksource(dir, "kvm-clock");
	assert_true(probe_clock_stable(why, sizeof why));
	unsetenv("BENCHTUI_SYSFS_CLOCKSOURCE");
	tu_rmtree(dir);
}

static struct quiet_params
probe_cfg(double budget_s)
{
	struct quiet_params c = {
		.max_foreign_cores = 1000, .window_ms = 200, .timeout_s = 30,
		.budget_s = budget_s, .max_client_busy = 1000,
		.max_server_busy = 1000, .probe = true, .probe_margin = 0.01,
	};
	return c;
}

static void
collect(json_t *ev, void *arg)
{
	json_array_append(arg, ev);
}

/* A slow probe holds the leg as foreign load does, until it is not slow;
 * the events say why, and the wait's figures are the last probe's.  With
 * the next wait told not to probe, there is none. */
static void
test_gate_holds_on_slow_probe(void **state)
{
	struct quiet_params c = probe_cfg(1e9);
	struct quiet *q;
	struct quiet_seen seen;
	json_t *evs = json_array(), *first;

	(void)state;
	setenv("BENCHTUI_PROBE_SLOW_S", "0.8", 1);
	q = quiet_create(&c, NULL, 0, getpid(), NULL);
	unsetenv("BENCHTUI_PROBE_SLOW_S");
	assert_non_null(q);
	quiet_probe_next(q, true);
	assert_int_equal(quiet_wait(q, -1, -1, collect, evs, &seen), QUIET_OK);
	print_message("waited %.2f s, probe %.3f (%.0f us)\n", seen.waited_s,
	    seen.probe, seen.probe_us);
	assert_true(seen.waited_s >= 0.5);
	assert_true(seen.probe <= 1.3);
	assert_true(seen.probe_us > 0);
	first = json_array_get(evs, 0);
	assert_true(json_is_false(json_object_get(first, "ok")));
	assert_true(json_number_value(json_object_get(first, "probe")) >= 1.3);
	assert_true(json_number_value(json_object_get(first, "foreign")) < 1000);
	quiet_probe_next(q, false);
	assert_int_equal(quiet_wait(q, -1, -1, NULL, NULL, &seen), QUIET_OK);
	assert_true(isnan(seen.probe));
	quiet_destroy(q);
	json_decref(evs);
}

/* Once the budget is spent the slow probe holds nothing, but is still
 * recorded: the leg runs marked budget, its probe's slowdown with it. */
static void
test_gate_budget_keeps_probe(void **state)
{
	struct quiet_params c = probe_cfg(0.3);
	struct quiet *q;
	struct quiet_seen seen;

	(void)state;
	setenv("BENCHTUI_PROBE_SLOW_S", "30", 1);
	q = quiet_create(&c, NULL, 0, getpid(), NULL);
	unsetenv("BENCHTUI_PROBE_SLOW_S");
	quiet_probe_next(q, true);
	assert_int_equal(quiet_wait(q, -1, -1, NULL, NULL, &seen),
	    QUIET_BUDGET);
	assert_true(seen.probe >= 1.3);
	assert_int_equal(quiet_wait(q, -1, -1, NULL, NULL, &seen),
	    QUIET_BUDGET);
	assert_true(seen.waited_s < 0.05);
	assert_true(seen.probe >= 1.3);
	quiet_destroy(q);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_pinned),
		cmocka_unit_test(test_probe_slow_fake),
		cmocka_unit_test(test_clock_stable),
		cmocka_unit_test(test_gate_holds_on_slow_probe),
		cmocka_unit_test(test_gate_budget_keeps_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
