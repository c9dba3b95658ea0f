/* A CPU-bound leg for the profile tests: it always spends its time in
 * prof_base, and with PROF_HOT set in its environment as much again in
 * prof_hot_extra, so a perf profile of the two arms differs in one hot
 * function by about half the samples. */
#include <stdio.h>
#include <stdlib.h>

static volatile double prof_sink;

__attribute__((noinline)) static double
prof_base(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += (double)i * 0.5;
	return s;
}

__attribute__((noinline)) static double
prof_hot_extra(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += (double)i * 0.25;
	return s;
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000L;

	prof_sink = prof_base(n);
	if (getenv("PROF_HOT") != NULL)
		prof_sink += prof_hot_extra(n);
	printf("%g\n", prof_sink);
	return 0;
}
