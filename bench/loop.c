/* A leg of a known amount of work for the gate benchmark: N million
 * iterations of a dependent add chain, then exit.  Unlike spin.c (which
 * spins for a time), it takes longer on a slower cpu, so a slowdown the
 * guest cannot see shows in its wall and cpu.
 *
 *   loop N
 */
#include <stdlib.h>

int
main(int argc, char **argv)
{
	double m = argc > 1 ? atof(argv[1]) : 1.0;
	volatile unsigned long x = 0;
	long n = (long)(m * 1e6);

	for (long i = 0; i < n; i++)
		x += (unsigned long)i;
	return 0;
}
