/* A leg of fixed work for the real estimator benchmark: N iterations of
 * a dependent multiply-add chain (no memory, no syscalls), so every leg
 * does the same work and any difference in its time is the machine's.
 * 14M iterations take about 15 ms here; 14.7M is the +5% arm.
 *
 *   loop N
 */
#include <stdio.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	unsigned long long n = argc > 1 ? strtoull(argv[1], NULL, 10) : 0;
	volatile unsigned long long sink;
	unsigned long long x = 1;

	for (unsigned long long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
	(void)sink;
	return 0;
}
