/* benchtui's two estimators as a filter, for bench/noise.py and the
 * tests: the same functions the tally calls (stats.h, stats_floor.h), so
 * a simulation measures the arithmetic the reports use, not a copy.
 *
 * Each input line is one comparison:
 *     LEVEL MARGIN N A1 .. AN B1 .. BN
 * (the arm's values and its comparison arm's, rep by rep, all > 0); each
 * output line
 *     paired EST LO HI VERDICT floor EST LO HI VERDICT
 * with LO and HI "nan" when there is no interval.  %.17g, so a reader gets
 * the doubles back exactly.  Exit 2 on a line it cannot read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "stats_floor.h"
#include "xalloc.h"

static void
estimate_print(const char *name, double est, double lo, double hi,
    bool has_ci, double margin)
{
	printf("%s %.17g %.17g %.17g %s", name, est, lo, hi,
	    stats_verdict_name(stats_verdict(has_ci, lo, hi, margin)));
}

/* One line's comparison; false when the line is malformed. */
static bool
estimate_line(char *line, double **buf, size_t *cap)
{
	char *p = line, *end;
	double level, margin, est, lo, hi, *a, *b, *r;
	long n;
	bool ci;

	level = strtod(p, &end);
	margin = strtod(end, &p);
	n = strtol(p, &end, 10);
	if (end == p || n < 0 || n > 10000000 || !(level > 0 && level < 1))
		return false;
	if ((size_t)n * 3 + 1 > *cap) {
		*cap = (size_t)n * 3 + 1;
		*buf = xreallocarray(*buf, *cap, sizeof **buf);
	}
	a = *buf;
	b = a + n;
	r = b + n;
	for (long i = 0; i < 2 * n; i++) {
		p = end;
		a[i] = strtod(p, &end);
		if (end == p || !(a[i] > 0))
			return false;
	}
	stats_ratios(a, b, NULL, (size_t)n, r);
	ci = stats_interval(r, (size_t)n, n ? stats_wilcoxon_k((size_t)n,
	    level) : 0, &est, &lo, &hi);
	estimate_print("paired", est, lo, hi, ci, margin);
	ci = stats_floor_interval(a, b, (size_t)n, level, &est, &lo, &hi);
	putchar(' ');
	estimate_print("floor", est, lo, hi, ci, margin);
	putchar('\n');
	return true;
}

int
main(void)
{
	char *line = NULL;
	size_t len = 0, cap = 0, lineno = 0;
	double *buf = NULL;

	while (getline(&line, &len, stdin) > 0) {
		lineno++;
		if (!estimate_line(line, &buf, &cap)) {
			fprintf(stderr, "estimate: line %zu: want LEVEL MARGIN "
			    "N and 2N values > 0\n", lineno);
			return 2;
		}
		/* Line by line, so a reader can ask a look at a time. */
		fflush(stdout);
	}
	free(line);
	free(buf);
	return 0;
}
