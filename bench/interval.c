/* bench-interval: what one paired interval costs at n reps, as a report
 * meets it the first time (k from the null distribution, not memoised,
 * then the estimate and the interval), and what one two-sample comparison
 * costs at na x nb values (compare's every cell, arm and metric).
 *
 * usage: bench-interval [N...]         (default 500 1000 2000 5000)
 *        bench-interval --two NA [NB]
 *        bench-interval --next [N...]  (default 500 1000 2000)
 * --next times k alone at n when k at n - 1 was asked just before (a
 * console whose reps reach n): one step on the distribution kept.
 * Prints one JSON object: {"N": seconds, ...}, each the median of 7 runs
 * after one untimed run.  Made by meson beside benchtui, so it is the
 * same code with the same flags; make bench runs it. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "stats.h"

#define BENCH_RUNS 7

/* Ratios with a 2% effect and 3% noise, the same every run. */
static void
bench_fill(double *r, size_t n, unsigned seed, double effect)
{
	srand(seed);
	for (size_t i = 0; i < n; i++)
		r[i] = effect * exp(0.03 * ((double)rand() / RAND_MAX - 0.5));
}

/* Nothing kept from the run before: k from nothing, as first met. */
static double
bench_paired(const double *r, size_t n)
{
	double est, lo, hi, t0;

	stats_wilcoxon_forget();
	t0 = clock_now();
	stats_interval(r, n, stats_wilcoxon_k(n, 0.95), &est, &lo, &hi);
	return clock_now() - t0;
}

/* k at n just after k at n - 1. */
static double
bench_next(size_t n)
{
	double t0;

	stats_wilcoxon_forget();
	stats_wilcoxon_k(n - 1, 0.95);
	t0 = clock_now();
	stats_wilcoxon_k(n, 0.95);
	return clock_now() - t0;
}

static double
bench_two(const double *a, size_t na, const double *b, size_t nb)
{
	double est, lo, hi, t0 = clock_now();

	stats_interval2(a, na, b, nb, 0.95, &est, &lo, &hi);
	return clock_now() - t0;
}

enum bench_case { BENCH_PAIRED, BENCH_TWO, BENCH_NEXT };

/* The median of BENCH_RUNS timings of case n (after one untimed). */
static double
bench_median(size_t n, size_t nb, enum bench_case c)
{
	double *a = malloc((n + 1) * sizeof *a), *b = malloc((nb + 1) *
	    sizeof *b), t[BENCH_RUNS];

	if (a == NULL || b == NULL) {
		fprintf(stderr, "bench-interval: out of memory\n");
		exit(1);
	}
	bench_fill(a, n, 1, 1.0);
	bench_fill(b, nb, 2, 1.02);
	for (int r = -1; r < BENCH_RUNS; r++) {
		double s = c == BENCH_TWO ? bench_two(a, n, b, nb) :
		    c == BENCH_NEXT ? bench_next(nb) : bench_paired(b, nb);
		if (r >= 0)
			t[r] = s;
	}
	free(a);
	free(b);
	stats_sort(t, BENCH_RUNS);
	return t[BENCH_RUNS / 2];
}

int
main(int argc, char **argv)
{
	static const size_t dflt[] = { 500, 1000, 2000, 5000 };
	enum bench_case c = BENCH_PAIRED;
	int first = 1, nd = 4;

	if (argc >= 3 && strcmp(argv[1], "--two") == 0) {
		size_t na = strtoul(argv[2], NULL, 10);
		size_t nb = argc > 3 ? strtoul(argv[3], NULL, 10) : na;
		printf("{\"%zux%zu\": %.6f}\n", na, nb, bench_median(na, nb,
		    BENCH_TWO));
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--next") == 0) {
		c = BENCH_NEXT;
		first = 2;
		nd = 3;
	}
	printf("{");
	for (int i = first; i < (argc > first ? argc : first + nd); i++) {
		size_t n = argc > first ? strtoul(argv[i], NULL, 10) :
		    dflt[i - first];
		printf("%s\"%zu\": %.6f", i > first ? ", " : "", n,
		    bench_median(n, n, c));
		fflush(stdout);
	}
	printf("}\n");
	return 0;
}
