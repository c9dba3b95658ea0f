/* A CPU-bound leg for the profile tests, built with symbols and frame
 * pointers (-O0 -fno-omit-frame-pointer) so that perf names each
 * function and its caller.  Both arms spend the same time in prof_base,
 * called by prof_common; then the environment chooses one of two code
 * paths of equal length: with PROF_HOT set, prof_hot_extra called by
 * prof_hot_path, else prof_cold_extra called by prof_cold_path.  So the
 * two arms' perf profiles differ in those two symbols (each with its
 * known caller), and the common path's shares (prof_base, prof_small)
 * are the same in both (noise).
 *
 * An A/A arm is a copy of its original (the same env): a second argument
 * "drift" (its name through ${ARM}) makes it take the hot path all the
 * same, as an A/A pair whose arms are not alike would, so that what moved
 * in the pair can be marked unstable.
 *
 * Usage: prof-hot [N [ARM]]   (N loop steps of each function; default
 * 2e8) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

__attribute__((noinline)) static double
prof_cold_extra(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += (double)i * 0.125;
	return s;
}

/* a small part of the common path: about 5% in both arms, so its share
 * stays equal even when the machine's interrupts take a few points more
 * of one arm's samples than of the other's */
__attribute__((noinline)) static double
prof_small(long n)
{
	double s = 0;

	for (long i = 0; i < n; i++)
		s += (double)i * 0.0625;
	return s;
}

/* the path both arms take */
__attribute__((noinline)) static double
prof_common(long n)
{
	return prof_base(n) + prof_small(n / 10);
}

/* the path PROF_HOT takes */
__attribute__((noinline)) static double
prof_hot_path(long n)
{
	return prof_hot_extra(n);
}

/* the path taken without PROF_HOT */
__attribute__((noinline)) static double
prof_cold_path(long n)
{
	return prof_cold_extra(n);
}

int
main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 200000000L;

	prof_sink = prof_common(n);
	if (getenv("PROF_HOT") != NULL ||
	    (argc > 2 && strcmp(argv[2], "drift") == 0))
		prof_sink += prof_hot_path(n);
	else
		prof_sink += prof_cold_path(n);
	printf("%g\n", prof_sink);
	return 0;
}
