/* bench-ratios: what the console's ratios cost as legs come in, on a round
 * folder (round.json and log.jsonl; bench/gen-legs.py --folder makes one).
 *
 * The model is fed the log but its last TAIL leg lines and brought up to
 * date; then the last legs come in one at a time, as in a live round:
 *  - leg: model_ratios after each (only the pieces the leg changed);
 *  - whole: tally_report of the same tally, what the console computed
 *    after every leg before (its median over a few legs);
 *  - slice: the longest call of model_ratios_advance with the console's
 *    10 ms slice, over the same legs on a second model: the longest a key
 *    waits for the ratios' work;
 *  - draw: a redraw of every pane (what a key that opens the help costs)
 *    of the whole round at 160x50, into /dev/null (median of 5).
 *
 * usage: bench-ratios DIR [TAIL]
 * Prints one JSON object: {"legs": N, "leg_median_s": ..., "leg_max_s":
 * ..., "whole_s": ..., "slice_max_s": ..., "first_s": ..., "draw_s": ...}.
 * Made by meson with the product's flags; make bench runs it. */
#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "logread.h"
#include "model.h"
#include "render.h"
#include "spec.h"
#include "stats.h"
#include "tally.h"

#define BENCH_TAIL 48
#define BENCH_WHOLE 5
#define BENCH_SLICE_S 0.01

struct bench_events {
	json_t **ev;
	size_t n, cap;
	size_t *legs;          /* indexes of the leg lines */
	size_t nlegs;
};

static int
bench_collect(json_t *ev, size_t lineno, void *arg)
{
	struct bench_events *e = arg;
	const char *t = json_string_value(json_object_get(ev, "t"));

	(void)lineno;
	if (e->n == e->cap) {
		e->cap = e->cap ? 2 * e->cap : 1024;
		e->ev = realloc(e->ev, e->cap * sizeof *e->ev);
		e->legs = realloc(e->legs, e->cap * sizeof *e->legs);
		if (e->ev == NULL || e->legs == NULL) {
			fprintf(stderr, "bench-ratios: out of memory\n");
			exit(1);
		}
	}
	if (t != NULL && strcmp(t, "leg") == 0)
		e->legs[e->nlegs++] = e->n;
	e->ev[e->n++] = json_incref(ev);
	return 0;
}

/* A model with the round file, fed events [0, upto). */
static void
bench_model(struct model *m, const struct spec *s,
    const struct bench_events *e, size_t upto)
{
	model_init(m);
	model_set_spec(m, s);
	for (size_t i = 0; i < upto; i++)
		model_feed(m, e->ev[i]);
}

/* The longest slice while each of events [from, e->n) comes in. */
static double
bench_slices(const struct spec *s, const struct bench_events *e, size_t from)
{
	struct model m;
	double worst = 0;

	bench_model(&m, s, e, from);
	(void)model_ratios(&m);
	for (size_t i = from; i < e->n; i++) {
		bool done = false;

		model_feed(&m, e->ev[i]);
		while (!done) {
			double t0 = clock_now(), took;

			done = model_ratios_advance(&m, t0 + BENCH_SLICE_S);
			took = clock_now() - t0;
			if (took > worst)
				worst = took;
		}
	}
	model_finish(&m);
	return worst;
}

/* Every pane redrawn, the help open (the median of BENCH_WHOLE draws), on
 * a terminal of 160x50 that writes into /dev/null; NAN without one. */
static double
bench_draw(struct model *m)
{
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");
	double t[BENCH_WHOLE], t0;
	struct render r;
	SCREEN *scr;

	setenv("LINES", "50", 1);
	setenv("COLUMNS", "160", 1);
	if (out == NULL || in == NULL ||
	    (scr = newterm("xterm-256color", out, in)) == NULL)
		return NAN;
	render_init(&r);
	r.overlay = OVERLAY_HELP;
	for (int i = 0; i < BENCH_WHOLE; i++) {
		render_touch_all(&r);
		t0 = clock_now();
		render_draw(&r, m, m->last_ts);
		t[i] = clock_now() - t0;
	}
	render_finish(&r);
	endwin();
	delscreen(scr);
	fclose(out);
	fclose(in);
	stats_sort(t, BENCH_WHOLE);
	return t[BENCH_WHOLE / 2];
}

int
main(int argc, char **argv)
{
	struct bench_events e = { 0 };
	struct spec *s = NULL;
	struct model m;
	char path[4096], err[512];
	size_t tail = argc > 2 ? (size_t)atol(argv[2]) : BENCH_TAIL, from, k = 0;
	double *leg, whole[BENCH_WHOLE], first, draw, t0;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-ratios DIR [TAIL]\n");
		return 2;
	}
	snprintf(path, sizeof path, "%s/round.json", argv[1]);
	if (spec_load(path, NULL, &s, err, sizeof err) != 0 ||
	    (snprintf(path, sizeof path, "%s/log.jsonl", argv[1]),
	    logread_file(path, bench_collect, &e, NULL, err, sizeof err)) != 0) {
		fprintf(stderr, "bench-ratios: %s\n", err);
		return 1;
	}
	if (tail < 1 || tail > e.nlegs)
		tail = e.nlegs;
	from = e.legs[e.nlegs - tail];
	/* A time per event fed from the first timed leg on (other events too). */
	leg = calloc(e.n - from + 1, sizeof *leg);
	bench_model(&m, s, &e, from);
	t0 = clock_now();
	(void)model_ratios(&m);
	first = clock_now() - t0;
	for (size_t i = from; i < e.n; i++) {
		model_feed(&m, e.ev[i]);
		t0 = clock_now();
		(void)model_ratios(&m);
		leg[k++] = clock_now() - t0;
		if (k <= BENCH_WHOLE) {
			json_t *rep;
			t0 = clock_now();
			rep = tally_report(m.tally);
			whole[k - 1] = clock_now() - t0;
			json_decref(rep);
		}
	}
	draw = bench_draw(&m);
	model_finish(&m);
	stats_sort(leg, k);
	stats_sort(whole, k < BENCH_WHOLE ? k : BENCH_WHOLE);
	printf("{\"legs\": %zu, \"leg_median_s\": %.6f, \"leg_max_s\": %.6f, "
	    "\"whole_s\": %.6f, \"slice_max_s\": %.6f, \"first_s\": %.6f, "
	    "\"draw_s\": %.6f}\n", k, leg[k / 2], leg[k - 1],
	    whole[(k < BENCH_WHOLE ? k : BENCH_WHOLE) / 2],
	    bench_slices(s, &e, from), first, draw);
	free(leg);
	for (size_t i = 0; i < e.n; i++)
		json_decref(e.ev[i]);
	free(e.ev);
	free(e.legs);
	spec_destroy(s);
	return 0;
}
