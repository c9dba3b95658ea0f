/* cmp-loop: a fixed amount of CPU work, LOOPS iterations set when it is
 * built.  The compare tests build it twice with different counts: the
 * same small program, a binary that changed between two rounds. */
#include <stdio.h>

#ifndef LOOPS
#define LOOPS 20000000
#endif

int
main(void)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < LOOPS; i++)
		x += i ^ (x >> 3);
	return (int)(x & 0) + (printf("%lu\n", (unsigned long)x) < 0);
}
