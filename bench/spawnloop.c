/* The bare reference for make bench: N runs of a program with posix_spawn
 * and wait4, nothing else.  Prints one JSON object: the mean time per run
 * (spawn to reap, as hyperfine -N times it) and the medians of each run's
 * wall and its cpu (utime + stime from wait4), in seconds.
 *
 *   spawnloop N PROGRAM [ARG...]
 *   spawnloop -a ALT N PROGRAM [ARG...]
 *
 * With -a, every other run has its last argument replaced by ALT (the
 * first run of each pair as given, the second with ALT), and the object
 * also gives the median over the pairs of wall(ALT run) / wall(run before
 * it): a ratio of two programs measured side by side in time, so the
 * machine's drift between them cancels, as a round's paired reps do.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

extern char **environ;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main(int argc, char **argv)
{
	char *alt = NULL, *orig;
	int n, last;
	double *wall, *cpu, *ratio, t0, all;

	if (argc > 2 && strcmp(argv[1], "-a") == 0) {
		alt = argv[2];
		argv += 2;
		argc -= 2;
	}
	n = argc > 2 ? atoi(argv[1]) : 0;
	if (n <= 0 || (alt != NULL && (n % 2 != 0 || argc < 4))) {
		fprintf(stderr, "usage: spawnloop [-a ALT] N PROGRAM [ARG...] "
		    "(N even with -a)\n");
		return 2;
	}
	last = argc - 1;
	orig = argv[last];
	wall = calloc((size_t)n, sizeof *wall);
	cpu = calloc((size_t)n, sizeof *cpu);
	ratio = calloc((size_t)n, sizeof *ratio);
	if (wall == NULL || cpu == NULL || ratio == NULL)
		return 1;
	all = now();
	for (int i = 0; i < n; i++) {
		struct rusage ru;
		pid_t pid;
		int st;

		if (alt != NULL)
			argv[last] = i % 2 ? alt : orig;
		t0 = now();
		if (posix_spawn(&pid, argv[2], NULL, NULL, argv + 2, environ) != 0) {
			perror("posix_spawn");
			return 1;
		}
		if (wait4(pid, &st, 0, &ru) != pid)
			return 1;
		wall[i] = now() - t0;
		cpu[i] = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	}
	all = now() - all;
	for (int i = 1; alt != NULL && i < n; i += 2)
		ratio[i / 2] = wall[i] / wall[i - 1];
	printf("{\"runs\": %d, \"mean_s\": %.9f", n, all / n);
	if (alt != NULL)
		printf(", \"pair_ratio_median\": %.9f", median(ratio, n / 2));
	printf(", \"wall_median_s\": %.9f, \"cpu_median_s\": %.9f}\n",
	    median(wall, n), median(cpu, n));
	return 0;
}
