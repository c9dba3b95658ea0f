/* The bisect tests' program: a CPU loop whose cost is set at build time.
 * bisect_lib.sh commits it again and again, and one commit raises COST
 * (the work function's cost, in percent). */
#include <stdio.h>
#include <stdlib.h>

#define COST 100

unsigned long other(unsigned long x);

/* The hot function: n * COST / 100 steps of a multiply-add chain that
 * no compiler folds. */
static unsigned long __attribute__((noinline))
work(unsigned long n)
{
	unsigned long x = 1;

	for (unsigned long i = 0; i < n * COST / 100; i++) {
		x = x * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

int
main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 6000000;

	printf("%lu\n", other(work(n)));
	return 0;
}
