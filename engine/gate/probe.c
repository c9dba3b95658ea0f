/* The calibration probe (probe.h): pinned, timed slices of a fixed loop,
 * each cpu against its own floor. */
#include "probe.h"

#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Probes a cpu's floor is seeded with when the probe is made. */
#define PROBE_SEED 5

struct probe {
	int ncpus;
	unsigned char *mask;    /* the legs' cpus, or NULL: any */
	cpu_set_t *home;        /* the thread's own affinity, put back */
	size_t setsize;
	long iters;             /* per slice */
	double *floor;          /* [cpu] lowest median slice, us (NAN) */
	/* The tests make a machine that is slow for a while: every probe
	 * in the first slow_s seconds reads half as slow again
	 * (BENCHTUI_PROBE_SLOW_S; a real slowdown cannot be had on
	 * demand). */
	double made_us, slow_s;
};

static double
probe_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The loop: a dependent chain of multiply-adds (a 64-bit LCG), which
 * neither the compiler nor the cpu can shorten; volatile keeps its
 * result. */
static volatile uint64_t probe_sink;

static void
probe_spin(long n)
{
	uint64_t x = probe_sink | 1;

	for (long i = 0; i < n; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	probe_sink = x;
}

static int
probe_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Pin the calling thread to the cpus of mask (NULL: all of its home);
 * with away, to its home's cpus that are not in mask instead (-1 when
 * there are none). */
static int
probe_pin_to(const struct probe *p, const unsigned char *mask, bool away)
{
	cpu_set_t *set;
	int rc, n = 0;

	if (mask == NULL)
		return sched_setaffinity(0, p->setsize, p->home);
	if ((set = CPU_ALLOC((size_t)p->ncpus)) == NULL)
		return -1;
	CPU_ZERO_S(p->setsize, set);
	for (int c = 0; c < p->ncpus; c++)
		if (away ? !mask[c] && CPU_ISSET_S((size_t)c, p->setsize,
		    p->home) : mask[c]) {
			CPU_SET_S((size_t)c, p->setsize, set);
			n++;
		}
	rc = n > 0 ? sched_setaffinity(0, p->setsize, set) : -1;
	CPU_FREE(set);
	return rc;
}

static int
probe_pin(const struct probe *p, const unsigned char *mask)
{
	return probe_pin_to(p, mask, false);
}

/* Back home, but off the leg's cpus first: a thread only allowed back on
 * them stays where it is, and the leg would start beside it. */
static void
probe_leave(const struct probe *p)
{
	(void)probe_pin_to(p, p->mask, true);
	(void)probe_pin(p, NULL);
}

/* PROBE_SLICES timed slices, sorted, on whatever cpu the thread is on;
 * the cpu it ended on (-1 when it moved meanwhile). */
static int
probe_slices(const struct probe *p, double sl[PROBE_SLICES], double *total)
{
	int c0 = sched_getcpu(), c1;
	double t0 = probe_now_us(), a = t0;

	for (int k = 0; k < PROBE_SLICES; k++) {
		double b;

		probe_spin(p->iters);
		b = probe_now_us();
		sl[k] = b - a;
		a = b;
	}
	*total = a - t0;
	c1 = sched_getcpu();
	if (p->slow_s > 0 && t0 - p->made_us < p->slow_s * 1e6) {
		for (int k = 0; k < PROBE_SLICES; k++)
			sl[k] *= 1.5;
		*total *= 1.5;
	}
	qsort(sl, PROBE_SLICES, sizeof *sl, probe_cmp);
	return c0 == c1 ? c1 : -1;
}

/* The slice count for PROBE_SLICE_US: from the fastest of a few short
 * runs. */
static void
probe_calibrate(struct probe *p)
{
	double best = INFINITY;

	for (int i = 0; i < 20; i++) {
		double a = probe_now_us(), t;

		probe_spin(1000);
		if ((t = probe_now_us() - a) > 0 && t < best)
			best = t;
	}
	p->iters = isfinite(best) ? (long)(1000.0 * PROBE_SLICE_US / best) :
	    10000;
	if (p->iters < 100)
		p->iters = 100;
	if (p->iters > 100000000)
		p->iters = 100000000;
}

int
probe_run(struct probe *p, struct probe_result *r)
{
	double sl[PROBE_SLICES], total = 0, med, fl;
	int cpu = -1;

	if (p->mask != NULL && probe_pin(p, p->mask) != 0)
		return -1;
	/* A probe that moved between cpus measured neither: once more. */
	for (int tries = 0; tries < 2 && cpu < 0; tries++)
		cpu = probe_slices(p, sl, &total);
	if (p->mask != NULL)
		probe_leave(p);
	if (cpu < 0 || cpu >= p->ncpus)
		return -1;
	med = (sl[PROBE_SLICES / 2 - 1] + sl[PROBE_SLICES / 2]) / 2;
	fl = p->floor[cpu];
	*r = (struct probe_result){ .cpu = cpu, .us = total, .slice_us = med,
	    .floor_us = fl, .slowdown = isnan(fl) || fl <= 0 ? 1 : med / fl,
	    .gap_us = sl[PROBE_SLICES - 1] - med };
	if (isnan(fl) || med < fl)
		p->floor[cpu] = med;
	return 0;
}

/* Each cpu of the mask (or every cpu) gets PROBE_SEED probes: a first
 * floor that is not one probe's chance. */
static void
probe_seed(struct probe *p)
{
	unsigned char *one = calloc((size_t)p->ncpus, 1);
	unsigned char *keep = p->mask;
	struct probe_result r;

	if (one == NULL)
		return;
	p->mask = one;
	for (int c = 0; c < p->ncpus; c++) {
		if (keep != NULL ? !keep[c] : !CPU_ISSET_S((size_t)c, p->setsize,
		    p->home))
			continue;
		memset(one, 0, (size_t)p->ncpus);
		one[c] = 1;
		for (int i = 0; i < PROBE_SEED; i++)
			if (probe_run(p, &r) != 0)
				break;
	}
	p->mask = keep;
	free(one);
}

struct probe *
probe_create(const unsigned char *mask, int ncpus)
{
	struct probe *p = calloc(1, sizeof *p);
	long conf = sysconf(_SC_NPROCESSORS_CONF);

	if (p == NULL)
		return NULL;
	p->ncpus = conf > ncpus ? (int)conf : ncpus;
	if (p->ncpus < 1)
		p->ncpus = 1;
	p->setsize = CPU_ALLOC_SIZE((size_t)p->ncpus);
	p->home = CPU_ALLOC((size_t)p->ncpus);
	p->floor = malloc((size_t)p->ncpus * sizeof *p->floor);
	if (p->home == NULL || p->floor == NULL ||
	    sched_getaffinity(0, p->setsize, p->home) != 0)
		goto fail;
	for (int c = 0; c < p->ncpus; c++)
		p->floor[c] = NAN;
	if (mask != NULL) {
		if ((p->mask = calloc((size_t)p->ncpus, 1)) == NULL)
			goto fail;
		for (int c = 0; c < ncpus && c < p->ncpus; c++)
			p->mask[c] = mask[c];
	}
	probe_calibrate(p);
	probe_seed(p);
	(void)probe_pin(p, NULL);
	p->made_us = probe_now_us();
	if (getenv("BENCHTUI_PROBE_SLOW_S") != NULL)
		p->slow_s = atof(getenv("BENCHTUI_PROBE_SLOW_S"));
	return p;
fail:
	probe_destroy(p);
	return NULL;
}

void
probe_set_mask(struct probe *p, const unsigned char *mask, int ncpus)
{
	unsigned char *m = NULL;

	if (mask != NULL && (m = calloc((size_t)p->ncpus, 1)) != NULL)
		for (int c = 0; c < ncpus && c < p->ncpus; c++)
			m[c] = mask[c];
	free(p->mask);
	p->mask = m;
}

long
probe_iterations(const struct probe *p)
{
	return p->iters;
}

void
probe_destroy(struct probe *p)
{
	if (p == NULL)
		return;
	if (p->home != NULL)
		CPU_FREE(p->home);
	free(p->mask);
	free(p->floor);
	free(p);
}

bool
probe_clock_stable(char *why, size_t len)
{
	static const char *const unstable[] = { "jiffies", "refined-jiffies",
	    "pit", NULL };
	const char *path = getenv("BENCHTUI_SYSFS_CLOCKSOURCE");
	char src[64] = "";
	struct timespec res;
	FILE *fp;

	if (path == NULL || *path == '\0')
		path = "/sys/devices/system/clocksource/clocksource0/"
		    "current_clocksource";
	if ((fp = fopen(path, "re")) != NULL) {
		if (fgets(src, sizeof src, fp) == NULL)
			src[0] = '\0';
		fclose(fp);
		src[strcspn(src, "\n")] = '\0';
	}
	for (size_t i = 0; unstable[i] != NULL; i++)
		if (strcmp(src, unstable[i]) == 0) {
			snprintf(why, len, "this machine's clock (clocksource "
			    "%s) ticks too coarsely to time a probe of %.0f us",
			    src, PROBE_SLICES * PROBE_SLICE_US);
			return false;
		}
	if (clock_getres(CLOCK_MONOTONIC, &res) != 0 || res.tv_sec > 0 ||
	    res.tv_nsec > 1000) {
		snprintf(why, len, "this machine's monotonic clock resolves "
		    "%.0f ns at best, too coarse to time a probe of %.0f us",
		    (double)res.tv_sec * 1e9 + (double)res.tv_nsec,
		    PROBE_SLICES * PROBE_SLICE_US);
		return false;
	}
	snprintf(why, len, "clocksource %s", src[0] ? src : "unknown");
	return true;
}
