/* The busiest processes of the host over an interval: two snapshots of
 * /proc/PID/stat (utime + stime of each process, its threads included,
 * not its reaped children), matched by pid and start time so a reused pid
 * is not taken for the old process. */
#include "quiettop.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"
#include "xalloc.h"

/* Below this a process is not worth naming (a hundredth of a core). */
#define QUIETTOP_MIN_CORES 0.01

struct quiettop {
	double t0;
	double epoch0;       /* the same moment, seconds since the epoch */
	struct procs_stat *v;
	size_t n, cap;
};

static bool
quiettop_add(const struct procs_stat *st, void *arg)
{
	struct quiettop *t = arg;

	if (t->n == t->cap) {
		t->cap = xgrow(t->cap, t->n + 1, 256);
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
	}
	t->v[t->n++] = *st;
	return false;
}

struct quiettop *
quiettop_begin(void)
{
	struct quiettop *t = xcalloc(1, sizeof *t);

	t->t0 = clock_now();
	t->epoch0 = (double)time(NULL);
	(void)procs_each(quiettop_add, t);
	if (t->n == 0) {
		quiettop_destroy(t);
		return NULL;
	}
	return t;
}

static int
quiettop_cmp_pid(const void *a, const void *b)
{
	pid_t x = ((const struct procs_stat *)a)->pid;
	pid_t y = ((const struct procs_stat *)b)->pid;

	return (x > y) - (x < y);
}

static int
quiettop_cmp_cores(const void *a, const void *b)
{
	double x = ((const struct quiettop_proc *)a)->cores;
	double y = ((const struct quiettop_proc *)b)->cores;

	return (x < y) - (x > y);
}

/* Whether pid is ours: benchtui or one of its descendants. */
static bool
quiettop_ours(pid_t pid, const pid_t *own, size_t nown)
{
	if (pid == getpid())
		return true;
	for (size_t i = 0; i < nown; i++)
		if (own[i] == pid)
			return true;
	return false;
}

size_t
quiettop_end(struct quiettop *t, struct quiettop_proc *out, size_t max,
    struct quiettop_more *more)
{
	struct quiettop now = { 0 };
	struct quiettop_proc *all;
	double el, hz = (double)sysconf(_SC_CLK_TCK);
	pid_t own[256];
	size_t nown = procs_descendants(getpid(), own, 256), n = 0;

	*more = (struct quiettop_more){ .seen = 0 };
	if (t == NULL || max == 0)
		return 0;
	(void)procs_each(quiettop_add, &now);
	el = clock_now() - t->t0;
	if (el <= 0 || hz <= 0) {
		free(now.v);
		return 0;
	}
	qsort(t->v, t->n, sizeof *t->v, quiettop_cmp_pid);
	all = xcalloc(now.n + 1, sizeof *all);
	/* O(processes * log processes). */
	for (size_t i = 0; i < now.n; i++) {
		const struct procs_stat *b = &now.v[i], *a;
		long long ticks = b->self;

		if (quiettop_ours(b->pid, own, nown))
			continue;
		a = bsearch(b, t->v, t->n, sizeof *t->v, quiettop_cmp_pid);
		/* The same process, not a new one under its pid; one the first
		 * walk missed, though it started before, cannot be told. */
		if (a != NULL && a->started == b->started) {
			double kids = (double)((b->ticks - b->self) -
			    (a->ticks - a->self)) / hz / el;

			ticks -= a->self;
			if (kids > more->reaper.cores) {
				more->reaper.pid = b->pid;
				memcpy(more->reaper.name, b->comm,
				    sizeof more->reaper.name);
				more->reaper.cores = kids;
			}
		} else if (b->started < t->epoch0 - 1)
			continue;
		if (ticks > 0)
			more->seen += (double)ticks / hz / el;
		if ((double)ticks / hz / el < QUIETTOP_MIN_CORES)
			continue;
		all[n].pid = b->pid;
		memcpy(all[n].name, b->comm, sizeof all[n].name);
		all[n].cores = (double)ticks / hz / el;
		n++;
	}
	qsort(all, n, sizeof *all, quiettop_cmp_cores);
	if (n > max)
		n = max;
	memcpy(out, all, n * sizeof *out);
	free(all);
	free(now.v);
	return n;
}

double
quiettop_since(const struct quiettop *t)
{
	return t->t0;
}

void
quiettop_destroy(struct quiettop *t)
{
	if (t == NULL)
		return;
	free(t->v);
	free(t);
}
