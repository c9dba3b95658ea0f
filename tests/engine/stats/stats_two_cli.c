/* stats-two-cli: engine/stats's two-sample arithmetic on samples read from
 * stdin, for tests/engine/stats/stats_two_ref.py to hold against
 * tests/compare_ref.py.  Input, repeated: "LEVEL NA NB" then NA values of
 * A and NB of B.  Output, a line per case: "K EST LO HI" (%.17g; nan for
 * none). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "stats.h"
#include "stats_int.h"

static int
stats_two_cli_read(double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (scanf("%lf", &v[i]) != 1)
			return -1;
	return 0;
}

int
main(void)
{
	double level, est, lo, hi;
	size_t na, nb;

	while (scanf("%lf %zu %zu", &level, &na, &nb) == 3) {
		double *a = malloc((na + 1) * sizeof *a);
		double *b = malloc((nb + 1) * sizeof *b);
		double *x, *y;
		uint64_t k;
		if (a == NULL || b == NULL || stats_two_cli_read(a, na) != 0 ||
		    stats_two_cli_read(b, nb) != 0) {
			fprintf(stderr, "stats-two-cli: bad input\n");
			return 2;
		}
		x = stats_sorted_logs(a, na);
		y = stats_sorted_logs(b, nb);
		k = stats_mw_k(na, nb, level, stats_tie_sum(x, na, y, nb));
		stats_interval2(a, na, b, nb, level, &est, &lo, &hi);
		printf("%" PRIu64 " %.17g %.17g %.17g\n", k, est, lo, hi);
		free(x);
		free(y);
		free(a);
		free(b);
	}
	return 0;
}
