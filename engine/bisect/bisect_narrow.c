/* Narrowing, as git bisect does on a line of commits: the first bad
 * commit lies after the last good one and at or before the first bad one;
 * the next to test is the untested revision nearest the middle of that
 * range, so a skipped one is stepped around, and when only skipped ones
 * are left the hunt ends with the range they hide. */
#include <stdlib.h>

#include "bisect_int.h"

void
bisect_narrow(const struct bisect_range *r, struct bisect_next *nx)
{
	long lo = -1, hi = (long)r->n - 1, mid, best = -1;

	/* Linear in the range's revisions (a few thousand at most). */
	for (long i = 0; i < (long)r->n; i++)
		if (r->mark[i] == BISECT_GOOD && i > lo)
			lo = i;
	for (long i = (long)r->n - 1; i > lo; i--)
		if (r->mark[i] == BISECT_BAD)
			hi = i;
	nx->lo = lo;
	nx->hi = hi;
	nx->left = 0;
	mid = lo + (hi - lo) / 2;
	for (long i = lo + 1; i < hi; i++) {
		if (r->mark[i] != BISECT_UNTESTED)
			continue;
		nx->left++;
		/* Nearest the middle; of two as near, the older (git's
		 * bisection weighs the same way on a line). */
		if (best < 0 || labs(i - mid) < labs(best - mid))
			best = i;
	}
	nx->pick = best;
}
