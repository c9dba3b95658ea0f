/* drift: a leg that gets 0.5% slower with every call, as a machine that
 * warms up (or a cache that fills) would make any program.
 *
 * usage: drift STATEFILE BASE_MS
 * Call k (counted in STATEFILE, under flock) spins until its own CPU time
 * reaches BASE_MS * 1.005^k: CPU time, so that a loaded box does not add
 * noise the drift would drown in. */
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	char buf[32] = "";
	long k = 0;
	double target;
	volatile unsigned long sink = 0;
	int fd;
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: drift STATEFILE BASE_MS\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDWR | O_CREAT, 0644)) < 0 ||
	    flock(fd, LOCK_EX) != 0) {
		perror(argv[1]);
		return 1;
	}
	if ((n = read(fd, buf, sizeof buf - 1)) > 0) {
		buf[n] = '\0';
		k = atol(buf);
	}
	n = snprintf(buf, sizeof buf, "%ld\n", k + 1);
	if (pwrite(fd, buf, (size_t)n, 0) != n || close(fd) != 0) {
		perror(argv[1]);
		return 1;
	}
	target = atof(argv[2]) / 1000.0 * pow(1.005, (double)k);
	while (cpu_now() < target)
		for (int i = 0; i < 1000; i++)
			sink += (unsigned long)i;
	return 0;
}
