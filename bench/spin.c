/* A leg of a known length for make bench: spin on the clock for MS
 * milliseconds from the start of main, then exit.
 *
 *   spin MS
 */
#include <stdlib.h>
#include <time.h>

int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	volatile unsigned long x = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 100; i++)
			x++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e3 +
	    (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
	return 0;
}
