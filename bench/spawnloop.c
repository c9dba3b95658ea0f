/* The bare reference for make bench: N runs of a program with posix_spawn
 * and wait4, nothing else.  Prints one JSON object: the mean time per run
 * (spawn to reap, as hyperfine -N times it) and the medians of each run's
 * wall and its cpu (utime + stime from wait4), in seconds.
 *
 *   spawnloop N PROGRAM [ARG...]
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
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
	int n = argc > 2 ? atoi(argv[1]) : 0;
	double *wall, *cpu, t0, all;

	if (n <= 0) {
		fprintf(stderr, "usage: spawnloop N PROGRAM [ARG...]\n");
		return 2;
	}
	wall = calloc((size_t)n, sizeof *wall);
	cpu = calloc((size_t)n, sizeof *cpu);
	if (wall == NULL || cpu == NULL)
		return 1;
	all = now();
	for (int i = 0; i < n; i++) {
		struct rusage ru;
		pid_t pid;
		int st;

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
	printf("{\"runs\": %d, \"mean_s\": %.9f, \"wall_median_s\": %.9f, "
	    "\"cpu_median_s\": %.9f}\n", n, all / n, median(wall, n),
	    median(cpu, n));
	return 0;
}
