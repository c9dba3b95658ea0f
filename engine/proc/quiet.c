/* The quiet-box gate: foreign CPU from /proc/stat minus our own tree,
 * sampled in the background.
 *
 * busy = user+nice+system+irq+softirq+steal per cpu (idle and iowait are
 * idle); own = the CPU of benchtui's own tree: the round's cgroup cpu.stat
 * (benchtui, its legs and servers, the dead included) where there is one,
 * else benchtui's /proc/PID/stat times (cutime included, so a reaped leg
 * stays counted) plus its live descendants', found through the children
 * links (/proc/PID/task/TID/children): O(our own processes), never a walk
 * of all of /proc.  foreign = (busy delta - own delta) / elapsed, in cores,
 * clamped at 0.
 *
 * A thread takes a sample every QUIET_SAMPLE_MS into a ring spanning the
 * window, all through the round, so a leg starts at once when the last
 * window_ms was quiet; a gate that waits judges each new sample.  /proc/stat
 * counts in ticks (USER_HZ), so one sample is only good to about a tick per
 * cpu: the gate judges the average over the trailing window_ms. */
#include "quiet.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "event.h"
#include "procs.h"

/* A sample every 100 ms costs some 50 us (two small /proc reads): 0.05%
 * of a core. */
#define QUIET_SAMPLE_MS 100
/* While the gate holds, a sample event this often (the countdown). */
#define QUIET_EMIT_EVERY_S 1.0
/* The shortest interval a leg's foreign figure is measured over. */
#define QUIET_LEG_MIN_S 0.5
/* Busy SMT siblings above this (cores, summed) earn the warning. */
#define QUIET_SMT_BUSY 0.2

struct quiet_sample {
	double t;             /* CLOCK_MONOTONIC seconds */
	long long busy_all;   /* ticks, every cpu */
	long long busy_client;
	long long busy_sib;   /* SMT siblings of the client cpus */
	double own;           /* our tree's CPU seconds */
};

struct quiet {
	struct quiet_params cfg;
	pid_t root;
	struct cgroup *own;     /* or NULL: the children links */
	double hz;
	int ncpus;
	unsigned char *client;  /* mask, or NULL: no client cpus */
	unsigned char *sib;     /* siblings not themselves client cpus */
	char *sib_list;         /* for the warning */
	bool warned_smt;
	bool last_ok;           /* the last quiet event said ok */
	double leg_t0;
	double spent;           /* of budget_s, by every wait so far */
	bool released_all;      /* the operator let the rest of the round go */

	/* The ring, filled by the sampler thread; mu guards it. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started;
	bool stop;
	struct quiet_sample *ring;
	size_t ring_cap;
	size_t ring_head;       /* index of the oldest */
	size_t ring_n;
};

/* The number of cpus /proc/stat can mention: highest "cpuN" + 1, at least
 * what sysconf says is configured. */
static int
quiet_count_cpus(void)
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

static int
quiet_read_stat(const struct quiet *q, struct quiet_sample *s)
{
	char line[512];
	FILE *fp = fopen("/proc/stat", "re");

	s->busy_all = s->busy_client = s->busy_sib = 0;
	if (fp == NULL)
		return -1;
	while (fgets(line, sizeof line, fp) != NULL) {
		unsigned long long u, ni, sy, id, io, irq, sirq, st;
		long long busy;
		int cpu;

		if (strncmp(line, "cpu", 3) != 0 || line[3] < '0' ||
		    line[3] > '9')
			continue;
		st = 0;
		if (sscanf(line, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu",
		    &cpu, &u, &ni, &sy, &id, &io, &irq, &sirq, &st) < 8)
			continue;
		busy = (long long)(u + ni + sy + irq + sirq + st);
		s->busy_all += busy;
		if (cpu >= 0 && cpu < q->ncpus) {
			if (q->client != NULL && q->client[cpu])
				s->busy_client += busy;
			if (q->sib != NULL && q->sib[cpu])
				s->busy_sib += busy;
		}
	}
	fclose(fp);
	return 0;
}

static double
quiet_own(const struct quiet *q)
{
	long long v;

	if (q->own != NULL && (v = cgroup_cpu_usec(q->own)) >= 0)
		return (double)v / 1e6;
	v = procs_tree_ticks(q->root);
	return v < 0 ? 0 : (double)v / q->hz;
}

static void
quiet_sample_take(const struct quiet *q, struct quiet_sample *s)
{
	s->t = clock_now();
	(void)quiet_read_stat(q, s);
	s->own = quiet_own(q);
}

static double
quiet_foreign_between(const struct quiet *q, const struct quiet_sample *a,
    const struct quiet_sample *b)
{
	double el = b->t - a->t;
	double f;

	if (el <= 0)
		return 0;
	f = ((double)(b->busy_all - a->busy_all) / q->hz - (b->own - a->own)) /
	    el;
	return f > 0 ? f : 0;
}

static double
quiet_cores(const struct quiet *q, long long ticks, double el)
{
	return el > 0 && ticks > 0 ? (double)ticks / q->hz / el : 0;
}

/* Three decimals are all the precision a tick-based figure has. */
static double
quiet_round3(double x)
{
	return round(x * 1000.0) / 1000.0;
}

/* The SMT siblings of the client cpus that are not client cpus themselves,
 * from sysfs topology.  Leaves q->sib NULL when there are none. */
static void
quiet_find_siblings(struct quiet *q)
{
	unsigned char *sib = calloc((size_t)q->ncpus, 1);
	unsigned char *one = calloc((size_t)q->ncpus, 1);
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
	for (cpu = 0; cpu < q->ncpus; cpu++) {
		FILE *fp;

		if (!q->client[cpu])
			continue;
		snprintf(path, sizeof path,
		    "%s/cpu%d/topology/thread_siblings_list", root, cpu);
		fp = fopen(path, "re");
		if (fp == NULL)
			continue;
		if (fgets(buf, sizeof buf, fp) == NULL) {
			fclose(fp);
			continue;
		}
		fclose(fp);
		buf[strcspn(buf, "\n")] = '\0';
		memset(one, 0, (size_t)q->ncpus);
		if (procs_cpulist_parse(buf, one, q->ncpus) != 0)
			continue;
		for (k = 0; k < q->ncpus; k++) {
			if (one[k] && !q->client[k] && !sib[k]) {
				sib[k] = 1;
				nsib++;
			}
		}
	}
	if (nsib == 0)
		goto out;
	cap = (size_t)nsib * 12 + 1;
	q->sib_list = calloc(cap, 1);
	if (q->sib_list == NULL)
		goto out;
	for (k = 0; k < q->ncpus; k++) {
		if (sib[k])
			len += (size_t)snprintf(q->sib_list + len, cap - len,
			    "%s%d", len ? "," : "", k);
	}
	q->sib = sib;
	sib = NULL;
out:
	free(sib);
	free(one);
}

/* The i-th sample from the oldest; mu held. */
static const struct quiet_sample *
quiet_ring_at(const struct quiet *q, size_t i)
{
	return &q->ring[(q->ring_head + i) % q->ring_cap];
}

static void
quiet_ring_push(struct quiet *q, const struct quiet_sample *s)
{
	if (q->ring_n == q->ring_cap) {
		q->ring_head = (q->ring_head + 1) % q->ring_cap;
		q->ring_n--;
	}
	q->ring[(q->ring_head + q->ring_n) % q->ring_cap] = *s;
	q->ring_n++;
}

/* The base sample for a span of at least span_s ending at the newest: the
 * latest one that far back, or the oldest when the ring spans less (*full
 * false).  mu held, ring not empty. */
static const struct quiet_sample *
quiet_ring_base(const struct quiet *q, double span_s, bool *full)
{
	const struct quiet_sample *now = quiet_ring_at(q, q->ring_n - 1);

	for (size_t i = q->ring_n - 1; i-- > 0;) {
		const struct quiet_sample *s = quiet_ring_at(q, i);

		if (now->t - s->t >= span_s) {
			*full = true;
			return s;
		}
	}
	*full = false;
	return quiet_ring_at(q, 0);
}

static void *
quiet_sampler(void *arg)
{
	struct quiet *q = arg;
	struct quiet_sample s;

	pthread_mutex_lock(&q->mu);
	while (!q->stop) {
		struct timespec due;

		pthread_mutex_unlock(&q->mu);
		quiet_sample_take(q, &s);
		pthread_mutex_lock(&q->mu);
		quiet_ring_push(q, &s);
		pthread_cond_broadcast(&q->cv);
		clock_gettime(CLOCK_MONOTONIC, &due);
		due.tv_nsec += QUIET_SAMPLE_MS * 1000000L;
		if (due.tv_nsec >= 1000000000L) {
			due.tv_sec++;
			due.tv_nsec -= 1000000000L;
		}
		while (!q->stop && pthread_cond_timedwait(&q->cv, &q->mu,
		    &due) != ETIMEDOUT)
			;
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

struct quiet *
quiet_create(const struct quiet_params *cfg, const unsigned char *client,
    int ncpus, pid_t root_pid, struct cgroup *own)
{
	struct quiet *q = calloc(1, sizeof *q);
	long hz = sysconf(_SC_CLK_TCK);
	pthread_condattr_t ca;
	double span;

	if (q == NULL)
		return NULL;
	q->cfg = *cfg;
	q->root = root_pid;
	q->own = own;
	q->hz = hz > 0 ? (double)hz : 100.0;
	q->ncpus = quiet_count_cpus();
	if (client != NULL && ncpus > 0) {
		q->client = calloc((size_t)q->ncpus, 1);
		if (q->client == NULL)
			goto fail;
		for (int i = 0; i < ncpus && i < q->ncpus; i++)
			q->client[i] = client[i];
		quiet_find_siblings(q);
	}
	span = cfg->window_ms / 1000.0;
	if (span < QUIET_LEG_MIN_S)
		span = QUIET_LEG_MIN_S;
	q->ring_cap = (size_t)(span * 1000.0 / QUIET_SAMPLE_MS) + 4;
	q->ring = calloc(q->ring_cap, sizeof *q->ring);
	if (q->ring == NULL)
		goto fail;
	pthread_mutex_init(&q->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&q->thread, NULL, quiet_sampler, q) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
		goto fail;
	}
	q->started = true;
	return q;
fail:
	quiet_destroy(q);
	return NULL;
}

/* How one wait is going, for its quiet events. */
struct quiet_hold {
	double fg, cb;       /* the window's foreign and client cores */
	bool ok;
	double waited;
	double limit;        /* this wait's end: timeout_s, or the budget left */
	bool timed_out, released;
};

static void
quiet_emit_sample(struct quiet *q, quiet_emit_fn emit, void *arg,
    const struct quiet_hold *h)
{
	json_t *ev;

	if (emit == NULL)
		return;
	ev = event_new("quiet");
	if (ev == NULL)
		return;
	json_object_set_new(ev, "foreign", json_real(quiet_round3(h->fg)));
	json_object_set_new(ev, "threshold",
	    json_real(q->cfg.max_foreign_cores));
	json_object_set_new(ev, "ok", json_boolean(h->ok));
	json_object_set_new(ev, "waited_s", json_real(quiet_round3(h->waited)));
	if (q->client != NULL)
		json_object_set_new(ev, "client_busy",
		    json_real(quiet_round3(h->cb)));
	json_object_set_new(ev, "timeout_s", json_real(q->cfg.timeout_s));
	/* The countdown's end: the budget may end this wait first. */
	json_object_set_new(ev, "limit_s", json_real(quiet_round3(h->limit)));
	json_object_set_new(ev, "budget_s", json_real(q->cfg.budget_s));
	json_object_set_new(ev, "spent_s",
	    json_real(quiet_round3(q->spent + h->waited)));
	if (h->timed_out)
		json_object_set_new(ev, "timed_out", json_true());
	if (h->released)
		json_object_set_new(ev, "override", json_true());
	emit(ev, arg);
	json_decref(ev);
}

static void
quiet_check_smt(struct quiet *q, const struct quiet_sample *a,
    const struct quiet_sample *b, quiet_emit_fn emit, void *arg)
{
	double busy;
	json_t *ev;
	char msg[512];

	if (q->sib == NULL || q->warned_smt || emit == NULL)
		return;
	busy = quiet_cores(q, b->busy_sib - a->busy_sib, b->t - a->t);
	if (busy < QUIET_SMT_BUSY)
		return;
	q->warned_smt = true;
	snprintf(msg, sizeof msg,
	    "SMT siblings of the client cpus (cpu %s) are busy (%.2f cores): "
	    "they share the client cpus' cores and disturb the legs",
	    q->sib_list, busy);
	ev = event_new("warning");
	if (ev == NULL)
		return;
	json_object_set_new(ev, "msg", json_string(msg));
	emit(ev, arg);
	json_decref(ev);
}

/* The gate's verdict on the newest window; mu held, ring not empty. */
static void
quiet_judge(struct quiet *q, double *fg, double *cb, bool *full,
    const struct quiet_sample **base, const struct quiet_sample **now)
{
	*now = quiet_ring_at(q, q->ring_n - 1);
	*base = quiet_ring_base(q, q->cfg.window_ms / 1000.0, full);
	*fg = quiet_foreign_between(q, *base, *now);
	*cb = quiet_cores(q, (*now)->busy_client - (*base)->busy_client,
	    (*now)->t - (*base)->t);
}

/* The gate's verdict on the newest window into h (and what it saw into
 * seen); false when no sample is in yet. */
static bool
quiet_look(struct quiet *q, struct quiet_hold *h, quiet_emit_fn emit,
    void *arg)
{
	const struct quiet_sample *base = NULL, *now = NULL;
	struct quiet_sample b, n;
	bool full = false, have;

	pthread_mutex_lock(&q->mu);
	have = q->ring_n > 0;
	if (have) {
		quiet_judge(q, &h->fg, &h->cb, &full, &base, &now);
		b = *base;
		n = *now;
	}
	pthread_mutex_unlock(&q->mu);
	h->ok = full && !(h->fg >= q->cfg.max_foreign_cores);
	if (full)
		quiet_check_smt(q, &b, &n, emit, arg);
	return have;
}

/* Until the next sample, an abort or a release: QUIET_OK to look again. */
static enum quiet_result
quiet_nap(int abort_fd, int release_fd)
{
	struct pollfd pfd[2] = {
		{ .fd = abort_fd, .events = POLLIN },
		{ .fd = release_fd, .events = POLLIN },
	};

	if (poll(pfd, 2, QUIET_SAMPLE_MS) > 0) {
		if (abort_fd >= 0 && pfd[0].revents != 0)
			return QUIET_ABORTED;
		if (release_fd >= 0 && pfd[1].revents != 0)
			return QUIET_RELEASED;
	}
	return QUIET_OK;
}

/* Once the budget is spent or the round released: the last window judged
 * and logged when the verdict changes, no wait. */
static enum quiet_result
quiet_judge_only(struct quiet *q, quiet_emit_fn emit, void *arg,
    struct quiet_seen *seen)
{
	struct quiet_hold h = { .limit = 0 };

	(void)quiet_look(q, &h, emit, arg);
	seen->foreign = h.fg;
	if (h.ok != q->last_ok)
		quiet_emit_sample(q, emit, arg, &h);
	q->last_ok = h.ok;
	if (h.ok)
		return QUIET_OK;
	return q->released_all ? QUIET_RELEASED : QUIET_BUDGET;
}

enum quiet_result
quiet_wait(struct quiet *q, int abort_fd, int release_fd, quiet_emit_fn emit,
    void *arg, struct quiet_seen *seen)
{
	double start = clock_now(), last_emit = -1e9;
	double left = q->cfg.budget_s - q->spent;
	struct quiet_hold h = { .limit = q->cfg.timeout_s };
	enum quiet_result res;

	*seen = (struct quiet_seen){ 0 };
	if (q->released_all || left <= 0)
		return quiet_judge_only(q, emit, arg, seen);
	if (left < h.limit)
		h.limit = left;
	for (;;) {
		bool over, have;

		h.waited = clock_now() - start;
		have = quiet_look(q, &h, emit, arg);
		seen->foreign = h.fg;
		over = have && h.fg >= q->cfg.max_foreign_cores;
		h.timed_out = !h.ok && h.waited >= h.limit;
		/* Logged: a change to quiet (not every leg that finds the box
		 * quiet), the first sample over the threshold and then one a
		 * second while the gate holds (the countdown), the end. */
		if ((h.ok && (!q->last_ok || h.waited > 0.05)) || h.timed_out ||
		    (over && h.waited - last_emit >= QUIET_EMIT_EVERY_S)) {
			quiet_emit_sample(q, emit, arg, &h);
			last_emit = h.waited;
			q->last_ok = h.ok;
		}
		if (h.ok || h.timed_out) {
			res = h.ok ? QUIET_OK : h.limit < q->cfg.timeout_s ?
			    QUIET_BUDGET : QUIET_TIMEOUT;
			break;
		}
		if ((res = quiet_nap(abort_fd, release_fd)) == QUIET_ABORTED)
			break;
		if (res == QUIET_RELEASED) {
			h.waited = clock_now() - start;
			h.released = true;
			h.ok = false;
			quiet_emit_sample(q, emit, arg, &h);
			q->last_ok = false;
			break;
		}
	}
	seen->waited_s = clock_now() - start;
	q->spent += seen->waited_s;
	return res;
}

void
quiet_release_all(struct quiet *q)
{
	q->released_all = true;
}

double
quiet_spent(const struct quiet *q)
{
	return q->spent;
}

void
quiet_set_spent(struct quiet *q, double spent_s)
{
	q->spent = spent_s > 0 ? spent_s : 0;
}

void
quiet_leg_begin(struct quiet *q)
{
	q->leg_t0 = clock_now();
}

double
quiet_leg_end(struct quiet *q)
{
	const struct quiet_sample *now, *base = NULL;
	double fg = 0;

	pthread_mutex_lock(&q->mu);
	if (q->ring_n < 2)
		goto out;
	now = quiet_ring_at(q, q->ring_n - 1);
	/* The last sample taken at or before the leg began, reaching further
	 * back when that spans less than QUIET_LEG_MIN_S: over a 5 ms leg a
	 * single 10 ms tick of someone else's work reads as 2 cores.  No
	 * sample is taken for the leg itself: the newest is at most
	 * QUIET_SAMPLE_MS old. */
	for (size_t i = q->ring_n - 1; i-- > 0;) {
		const struct quiet_sample *s = quiet_ring_at(q, i);

		base = s;
		if (s->t <= q->leg_t0 && now->t - s->t >= QUIET_LEG_MIN_S)
			break;
	}
	fg = quiet_foreign_between(q, base, now);
out:
	pthread_mutex_unlock(&q->mu);
	return quiet_round3(fg);
}

double
quiet_threshold(const struct quiet *q)
{
	return q->cfg.max_foreign_cores;
}

void
quiet_destroy(struct quiet *q)
{
	if (q == NULL)
		return;
	if (q->started) {
		pthread_mutex_lock(&q->mu);
		q->stop = true;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->mu);
		pthread_join(q->thread, NULL);
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
	}
	free(q->client);
	free(q->sib);
	free(q->sib_list);
	free(q->ring);
	free(q);
}
