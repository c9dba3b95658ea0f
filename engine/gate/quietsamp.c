/* The quiet gate's sampler: foreign CPU from /proc/stat minus our own
 * tree, sampled in the background.
 *
 * busy = user+nice+system+irq+softirq+steal over every cpu (idle and
 * iowait are idle); own = the CPU of benchtui's own tree: the round's
 * cgroup cpu.stat (benchtui, its legs and servers, the dead included)
 * where there is one, else benchtui's /proc/PID/stat times (cutime
 * included, so a reaped leg stays counted) plus its live descendants',
 * found through the children links: O(our own processes), never a walk of
 * all of /proc.  foreign = (busy delta - own delta) / elapsed, in cores,
 * clamped at 0.
 *
 * A pinned cpu's foreign work is its busy time (user+nice+system+steal:
 * the interrupts our own loopback traffic raises are left out) minus what
 * of ours may have run on it: the legs (pinned to the client cpus, or
 * anywhere), the server (pinned to its cpus, or anywhere) and the rest of
 * our tree (benchtui itself, unpinned).  Work of ours that ran elsewhere
 * is subtracted too, so the figure errs towards quiet, never towards
 * blaming our own work on someone else.  The samples keep every cpu's
 * busy ticks, so the server's cpus are summed when asked, whichever
 * server runs.
 *
 * /proc/stat counts in ticks (USER_HZ), so one sample is only good to
 * about a tick per cpu: the gate judges the average over a window. */
#include "quietsamp.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "procs.h"

struct quietsamp_sample {
	double t;             /* CLOCK_MONOTONIC seconds */
	long long busy_all;   /* ticks, every cpu */
	long long *cpu;       /* ticks, each cpu's own busy time (ncpus) */
	double own;           /* our tree's CPU seconds */
	double legs, server;  /* of which the legs', the servers' */
	double watched;       /* the watched processes' CPU seconds */
	unsigned watch_gen;   /* which set of them */
};

struct quietsamp {
	pid_t root;
	int stat_fd;              /* /proc/stat, kept open */
	char *statbuf;
	size_t statcap;
	struct cgroup *own;       /* or NULL: the children links */
	struct cgroup *cg_legs, *cg_servers;
	double hz;
	int ncpus;
	unsigned char *client;    /* mask, or NULL: no client cpus */
	unsigned char *sib;       /* siblings not themselves client cpus */
	char *sib_list;

	/* The server running now, set by the round's thread; mu guards it. */
	pid_t srv_pid;
	unsigned char *srv_mask;  /* NULL: not pinned */
	double srv_base;          /* the CPU of the servers before it */
	double srv_last;          /* its CPU at the last sample */

	/* The watched processes (quietsamp_watch); mu guards them. */
	struct quietsamp_watch {
		pid_t pid;
		double started;       /* its start, against a reused pid */
		long long ticks;      /* its own, at the last sample */
		long long ticks0;     /* and when the watch began */
		double t0;
		size_t seen, active;  /* samples since, and those it ran in */
		bool kept;            /* judged staying */
		bool gone;            /* ended (or its pid reused): not read */
	} watch[QUIETSAMP_WATCH];
	size_t nwatch;
	unsigned watch_gen;

	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started, stop;
	bool in_leg;              /* quietsamp_leg: a leg runs since leg_t0 */
	double leg_t0;
	bool kick;                /* sample now (quietsamp_leg's end) */
	struct quietsamp_sample *ring;
	long long *ring_cpu;      /* ring_cap rows of ncpus */
	size_t ring_cap, ring_head, ring_n;
};

/* The number of cpus /proc/stat can mention: highest "cpuN" + 1, at least
 * what sysconf says is configured. */
static int
quietsamp_count_cpus(void)
{
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	int n = conf > 0 ? (int)conf : 1;
	char line[512];
	FILE *fp = fopen("/proc/stat", "re");

	if (fp == NULL)
		return n;
	while (fgets(line, sizeof line, fp) != NULL) {
		int cpu;

		if (sscanf(line, "cpu%d ", &cpu) == 1 && cpu + 1 > n)
			n = cpu + 1;
	}
	fclose(fp);
	return n;
}

/* /proc/stat into s->statbuf through the fd kept open (a pread from 0:
 * no openat per sample); the buffer grows until the file fits.  Its
 * length, or -1. */
static ssize_t
quietsamp_slurp_stat(struct quietsamp *s)
{
	for (;;) {
		ssize_t n = pread(s->stat_fd, s->statbuf, s->statcap - 1, 0);
		char *b;

		if (n < 0)
			return -1;
		if ((size_t)n < s->statcap - 1) {
			s->statbuf[n] = '\0';
			return n;
		}
		if ((b = realloc(s->statbuf, s->statcap * 2)) == NULL)
			return -1;
		s->statbuf = b;
		s->statcap *= 2;
	}
}

static int
quietsamp_read_stat(struct quietsamp *s, struct quietsamp_sample *x)
{
	char *line, *next;

	x->busy_all = 0;
	memset(x->cpu, 0, (size_t)s->ncpus * sizeof *x->cpu);
	if (s->stat_fd < 0 || quietsamp_slurp_stat(s) < 0)
		return -1;
	/* O(cpus) lines. */
	for (line = s->statbuf; line != NULL && *line != '\0'; line = next) {
		unsigned long long u, ni, sy, id, io, irq, sirq, st;
		int cpu;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		/* The cpu lines come first: the rest (intr, ...) is not
		 * parsed. */
		if (strncmp(line, "cpu", 3) != 0)
			break;
		if (line[3] < '0' || line[3] > '9')
			continue;
		st = 0;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
		    &cpu, &u, &ni, &sy, &id, &io, &irq, &sirq, &st) < 8)
			continue;
		x->busy_all += (long long)(u + ni + sy + irq + sirq + st);
		if (cpu >= 0 && cpu < s->ncpus)
			x->cpu[cpu] = (long long)(u + ni + sy + st);
	}
	return 0;
}

static double
quietsamp_cg_secs(struct cgroup *cg)
{
	long long v = cg != NULL ? cgroup_cpu_usec(cg) : -1;

	return v >= 0 ? (double)v / 1e6 : NAN;
}

static double
quietsamp_self_secs(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
		return 0;
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Our tree's CPU, the servers' and the legs' into x (mu not held: the
 * server's pid is read once, under it). */
static void
quietsamp_own(struct quietsamp *s, struct quietsamp_sample *x)
{
	double self = quietsamp_self_secs(), srv, v;
	struct cgroup *legs, *servers;
	long long ticks;
	pid_t pid;

	if (isnan(x->own = quietsamp_cg_secs(s->own))) {
		ticks = procs_tree_ticks(s->root);
		x->own = ticks < 0 ? 0 : (double)ticks / s->hz;
	}
	pthread_mutex_lock(&s->mu);
	pid = s->srv_pid;
	legs = s->cg_legs;
	servers = s->cg_servers;
	pthread_mutex_unlock(&s->mu);
	srv = quietsamp_cg_secs(servers);
	if (isnan(srv)) {
		/* One server after another, each from 0: the sum runs on. */
		ticks = pid > 0 ? procs_tree_ticks(pid) : -1;
		pthread_mutex_lock(&s->mu);
		if (ticks >= 0 && pid == s->srv_pid)
			s->srv_last = (double)ticks / s->hz;
		srv = s->srv_base + s->srv_last;
		pthread_mutex_unlock(&s->mu);
	}
	x->server = srv;
	if (isnan(v = quietsamp_cg_secs(legs)))
		v = x->own - srv - self;
	x->legs = v > 0 ? v : 0;
}

/* The watched processes' CPU into x: each one's own ticks, the last
 * read kept once it is gone; the kept ones' summed (mu not held). */
static void
quietsamp_watched(struct quietsamp *s, struct quietsamp_sample *x)
{
	struct quietsamp_watch w[QUIETSAMP_WATCH];
	long long ticks[QUIETSAMP_WATCH], sum = 0;
	size_t n;
	unsigned gen;

	pthread_mutex_lock(&s->mu);
	n = s->nwatch;
	gen = s->watch_gen;
	memcpy(w, s->watch, n * sizeof *w);
	pthread_mutex_unlock(&s->mu);
	for (size_t i = 0; i < n; i++) {
		struct procs_stat st;

		ticks[i] = -1;
		if (w[i].gone)
			continue;
		if (procs_stat(w[i].pid, &st) == 0 &&
		    st.started == w[i].started)
			ticks[i] = st.self;
		else
			ticks[i] = -2;
	}
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < n && gen == s->watch_gen; i++) {
		struct quietsamp_watch *e = &s->watch[i];

		e->seen++;
		if (ticks[i] == -2)
			e->gone = true;
		if (ticks[i] > e->ticks) {
			e->active++;
			e->ticks = ticks[i];
		}
		if (e->kept)
			sum += e->ticks;
	}
	pthread_mutex_unlock(&s->mu);
	x->watched = (double)sum / s->hz;
	x->watch_gen = gen;
}

void
quietsamp_watch(struct quietsamp *s, pid_t pid)
{
	struct procs_stat st;

	if (procs_stat(pid, &st) != 0)
		return;
	pthread_mutex_lock(&s->mu);
	if (s->nwatch < QUIETSAMP_WATCH)
		s->watch[s->nwatch++] = (struct quietsamp_watch){ .pid = pid,
		    .started = st.started, .ticks = st.self,
		    .ticks0 = st.self, .t0 = clock_now() };
	s->watch_gen++;
	pthread_mutex_unlock(&s->mu);
}

size_t
quietsamp_watch_judge(struct quietsamp *s, double min_frac,
    double min_cores, pid_t *pids, double *cores, size_t max)
{
	double now = clock_now();
	size_t k = 0, out = 0;

	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->nwatch; i++) {
		struct quietsamp_watch *e = &s->watch[i];
		double c = now > e->t0 ? (double)(e->ticks - e->ticks0) /
		    s->hz / (now - e->t0) : 0;

		if (!e->kept && (e->seen == 0 || (double)e->active <
		    min_frac * (double)e->seen || c < min_cores))
			continue;
		if (!e->kept && out < max) {
			pids[out] = e->pid;
			cores[out++] = c;
		}
		e->kept = true;
		s->watch[k++] = *e;
	}
	s->nwatch = k;
	s->watch_gen++;
	pthread_mutex_unlock(&s->mu);
	return out;
}

/* The SMT siblings of the client cpus that are not client cpus themselves,
 * from sysfs topology.  Leaves s->sib NULL when there are none. */
static void
quietsamp_find_siblings(struct quietsamp *s)
{
	unsigned char *sib = calloc((size_t)s->ncpus, 1);
	unsigned char *one = calloc((size_t)s->ncpus, 1);
	/* The tests point this at a fake topology: SMT cannot be had on
	 * every machine that runs them. */
	const char *root = getenv("BENCHTUI_SYSFS_CPU");
	char buf[256], path[512];
	size_t len = 0, cap = 0;
	int cpu, k, nsib = 0;

	if (root == NULL || *root == '\0')
		root = "/sys/devices/system/cpu";
	if (sib == NULL || one == NULL)
		goto out;
	for (cpu = 0; cpu < s->ncpus; cpu++) {
		FILE *fp;

		if (!s->client[cpu])
			continue;
		snprintf(path, sizeof path,
		    "%s/cpu%d/topology/thread_siblings_list", root, cpu);
		if ((fp = fopen(path, "re")) == NULL)
			continue;
		if (fgets(buf, sizeof buf, fp) == NULL) {
			fclose(fp);
			continue;
		}
		fclose(fp);
		buf[strcspn(buf, "\n")] = '\0';
		memset(one, 0, (size_t)s->ncpus);
		if (procs_cpulist_parse(buf, one, s->ncpus) != 0)
			continue;
		for (k = 0; k < s->ncpus; k++)
			if (one[k] && !s->client[k] && !sib[k]) {
				sib[k] = 1;
				nsib++;
			}
	}
	if (nsib == 0 || (s->sib_list = calloc(cap = (size_t)nsib * 12 + 1,
	    1)) == NULL)
		goto out;
	for (k = 0; k < s->ncpus; k++)
		if (sib[k])
			len += (size_t)snprintf(s->sib_list + len, cap - len,
			    "%s%d", len ? "," : "", k);
	s->sib = sib;
	sib = NULL;
out:
	free(sib);
	free(one);
}

/* The i-th sample from the oldest; mu held. */
static struct quietsamp_sample *
quietsamp_at(const struct quietsamp *s, size_t i)
{
	return &s->ring[(s->ring_head + i) % s->ring_cap];
}

/* Copy x into the ring (its cpu row too); mu held. */
static void
quietsamp_push(struct quietsamp *s, const struct quietsamp_sample *x)
{
	struct quietsamp_sample *slot;
	long long *row;

	if (s->ring_n == s->ring_cap) {
		s->ring_head = (s->ring_head + 1) % s->ring_cap;
		s->ring_n--;
	}
	slot = quietsamp_at(s, s->ring_n);
	row = slot->cpu;
	*slot = *x;
	slot->cpu = row;
	memcpy(row, x->cpu, (size_t)s->ncpus * sizeof *row);
	s->ring_n++;
}

static void *
quietsamp_thread(void *arg)
{
	struct quietsamp *s = arg;
	struct quietsamp_sample x = { 0 };
	long long *row = calloc((size_t)s->ncpus, sizeof *row);

	pthread_mutex_lock(&s->mu);
	while (!s->stop && row != NULL) {
		struct timespec due;

		pthread_mutex_unlock(&s->mu);
		x.cpu = row;
		x.t = clock_now();
		(void)quietsamp_read_stat(s, &x);
		quietsamp_own(s, &x);
		quietsamp_watched(s, &x);
		pthread_mutex_lock(&s->mu);
		quietsamp_push(s, &x);
		s->kick = false;
		pthread_cond_broadcast(&s->cv);
		clock_gettime(CLOCK_MONOTONIC, &due);
		/* Deep in a long leg nothing judges the samples until it
		 * ends (which asks for one): one every few seconds. */
		due.tv_nsec += (s->in_leg && clock_now() - s->leg_t0 >=
		    QUIETSAMP_SLOW_AFTER_S ? QUIETSAMP_SLOW_MS : QUIETSAMP_MS) *
		    1000000L;
		while (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		while (!s->stop && !s->kick && pthread_cond_timedwait(&s->cv,
		    &s->mu, &due) != ETIMEDOUT)
			;
	}
	/* No more samples (even when row could not be had): none is
	 * waited for. */
	s->stop = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
	free(row);
	return NULL;
}

struct quietsamp *
quietsamp_create(pid_t root_pid, struct cgroup *own,
    const unsigned char *client, int ncpus, double span_s)
{
	struct quietsamp *s = calloc(1, sizeof *s);
	long hz = sysconf(_SC_CLK_TCK);
	pthread_condattr_t ca;

	if (s == NULL)
		return NULL;
	s->root = root_pid;
	s->own = own;
	s->stat_fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	s->statcap = 8192;
	if ((s->statbuf = malloc(s->statcap)) == NULL)
		goto fail;
	s->hz = hz > 0 ? (double)hz : 100.0;
	s->ncpus = quietsamp_count_cpus();
	if (client != NULL && ncpus > 0) {
		if ((s->client = calloc((size_t)s->ncpus, 1)) == NULL)
			goto fail;
		for (int i = 0; i < ncpus && i < s->ncpus; i++)
			s->client[i] = client[i];
		quietsamp_find_siblings(s);
	}
	s->ring_cap = (size_t)(span_s * 1000.0 / QUIETSAMP_MS) + 4;
	s->ring = calloc(s->ring_cap, sizeof *s->ring);
	s->ring_cpu = calloc(s->ring_cap * (size_t)s->ncpus,
	    sizeof *s->ring_cpu);
	if (s->ring == NULL || s->ring_cpu == NULL)
		goto fail;
	for (size_t i = 0; i < s->ring_cap; i++)
		s->ring[i].cpu = s->ring_cpu + i * (size_t)s->ncpus;
	pthread_mutex_init(&s->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&s->thread, NULL, quietsamp_thread, s) != 0) {
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
		goto fail;
	}
	s->started = true;
	return s;
fail:
	quietsamp_destroy(s);
	return NULL;
}

void
quietsamp_leg(struct quietsamp *s, bool running)
{
	double t = clock_now();

	pthread_mutex_lock(&s->mu);
	s->in_leg = running;
	s->leg_t0 = t;
	/* After a long leg the newest sample may be a second old: one now,
	 * so the leg's figures and the next window end at its end.  A short
	 * leg's samples are fresh, and it waits for none. */
	if (!running && s->started && s->ring_n > 0 &&
	    t - quietsamp_at(s, s->ring_n - 1)->t > QUIETSAMP_MS / 1000.0) {
		s->kick = true;
		pthread_cond_broadcast(&s->cv);
		while (!s->stop && quietsamp_at(s, s->ring_n - 1)->t < t)
			pthread_cond_wait(&s->cv, &s->mu);
	}
	pthread_mutex_unlock(&s->mu);
}

void
quietsamp_set_groups(struct quietsamp *s, struct cgroup *legs,
    struct cgroup *servers)
{
	pthread_mutex_lock(&s->mu);
	s->cg_legs = legs;
	s->cg_servers = servers;
	pthread_mutex_unlock(&s->mu);
}

void
quietsamp_set_server(struct quietsamp *s, pid_t pid,
    const unsigned char *mask, int ncpus)
{
	pthread_mutex_lock(&s->mu);
	s->srv_base += s->srv_last;
	s->srv_last = 0;
	s->srv_pid = pid;
	free(s->srv_mask);
	s->srv_mask = NULL;
	if (pid > 0 && mask != NULL && ncpus > 0 &&
	    (s->srv_mask = calloc((size_t)s->ncpus, 1)) != NULL)
		for (int i = 0; i < ncpus && i < s->ncpus; i++)
			s->srv_mask[i] = mask[i];
	pthread_mutex_unlock(&s->mu);
}

/* Busy seconds of the cpus in mask between a and b. */
static double
quietsamp_mask_secs(const struct quietsamp *s, const unsigned char *mask,
    const struct quietsamp_sample *a, const struct quietsamp_sample *b)
{
	long long t = 0;

	for (int c = 0; c < s->ncpus; c++)
		if (mask[c])
			t += b->cpu[c] - a->cpu[c];
	return t > 0 ? (double)t / s->hz : 0;
}

static bool
quietsamp_overlap(const struct quietsamp *s, const unsigned char *a,
    const unsigned char *b)
{
	for (int c = 0; c < s->ncpus; c++)
		if (a[c] && b[c])
			return true;
	return false;
}

static double
quietsamp_cores(double secs, double el)
{
	return el > 0 && secs > 0 ? secs / el : 0;
}

/* The view of the span from a to b; mu held. */
static void
quietsamp_view_of(const struct quietsamp *s, const struct quietsamp_sample *a,
    const struct quietsamp_sample *b, struct quietsamp_view *v)
{
	double el = b->t - a->t, own = b->own - a->own;
	double legs = b->legs - a->legs, srv = b->server - a->server, other;

	legs = legs > 0 ? legs : 0;
	srv = srv > 0 ? srv : 0;
	other = own - legs - srv > 0 ? own - legs - srv : 0;
	v->t0 = a->t;
	v->t1 = b->t;
	v->foreign = quietsamp_cores((double)(b->busy_all - a->busy_all) /
	    s->hz - own, el);
	v->client_busy = v->server_busy = v->sib_busy = NAN;
	if (s->client != NULL)
		v->client_busy = quietsamp_cores(quietsamp_mask_secs(s,
		    s->client, a, b) - legs - other - (s->srv_mask == NULL ||
		    quietsamp_overlap(s, s->srv_mask, s->client) ? srv : 0),
		    el);
	if (s->srv_mask != NULL)
		v->server_busy = quietsamp_cores(quietsamp_mask_secs(s,
		    s->srv_mask, a, b) - srv - other - (s->client == NULL ||
		    quietsamp_overlap(s, s->client, s->srv_mask) ? legs : 0),
		    el);
	if (s->sib != NULL)
		v->sib_busy = quietsamp_cores(quietsamp_mask_secs(s, s->sib, a,
		    b), el);
	/* Only over a span the same set was watched through. */
	v->staying = a->watch_gen == b->watch_gen ?
	    quietsamp_cores(b->watched - a->watched, el) : 0;
	if (v->staying > v->foreign)
		v->staying = v->foreign;
}

bool
quietsamp_last(struct quietsamp *s, double span_s, struct quietsamp_view *v)
{
	const struct quietsamp_sample *now, *base;

	pthread_mutex_lock(&s->mu);
	if (s->ring_n == 0) {
		pthread_mutex_unlock(&s->mu);
		*v = (struct quietsamp_view){ .full = false, .staying = 0 };
		v->client_busy = v->server_busy = v->sib_busy = NAN;
		return false;
	}
	now = quietsamp_at(s, s->ring_n - 1);
	/* The latest sample span_s back, or the oldest when the ring spans
	 * less. */
	base = quietsamp_at(s, 0);
	v->full = false;
	for (size_t i = s->ring_n - 1; i-- > 0;)
		if (now->t - quietsamp_at(s, i)->t >= span_s) {
			base = quietsamp_at(s, i);
			v->full = true;
			break;
		}
	quietsamp_view_of(s, base, now, v);
	pthread_mutex_unlock(&s->mu);
	return true;
}

bool
quietsamp_since(struct quietsamp *s, double t0, double min_s,
    struct quietsamp_view *v)
{
	const struct quietsamp_sample *now, *base = NULL;

	pthread_mutex_lock(&s->mu);
	if (s->ring_n < 2) {
		pthread_mutex_unlock(&s->mu);
		return false;
	}
	now = quietsamp_at(s, s->ring_n - 1);
	/* A 5 ms leg over a single 10 ms tick of someone else's work would
	 * read as 2 cores: the span reaches back to min_s at least.  The
	 * newest sample is at most QUIETSAMP_MS old. */
	for (size_t i = s->ring_n - 1; i-- > 0;) {
		base = quietsamp_at(s, i);
		if (base->t <= t0 && now->t - base->t >= min_s)
			break;
	}
	quietsamp_view_of(s, base, now, v);
	v->full = true;
	pthread_mutex_unlock(&s->mu);
	return true;
}

const char *
quietsamp_siblings(const struct quietsamp *s)
{
	return s->sib_list;
}

bool
quietsamp_has_client(const struct quietsamp *s)
{
	return s->client != NULL;
}

void
quietsamp_destroy(struct quietsamp *s)
{
	if (s == NULL)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->mu);
		s->stop = true;
		pthread_cond_broadcast(&s->cv);
		pthread_mutex_unlock(&s->mu);
		pthread_join(s->thread, NULL);
		pthread_mutex_destroy(&s->mu);
		pthread_cond_destroy(&s->cv);
	}
	if (s->stat_fd >= 0)
		close(s->stat_fd);
	free(s->statbuf);
	free(s->client);
	free(s->sib);
	free(s->sib_list);
	free(s->srv_mask);
	free(s->ring_cpu);
	free(s->ring);
	free(s);
}
