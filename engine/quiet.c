/* The quiet-box gate: foreign CPU from /proc/stat minus our own tree.
 *
 * busy = user+nice+system+irq+softirq+steal per cpu (idle and iowait are
 * idle); own = procs_tree_ticks(root), which includes what the tree reaped
 * (cutime), so a leg that ended between two samples still counts as ours.
 * foreign = (busy delta - own delta) / elapsed, in cores, clamped at 0.
 *
 * Both are tick counts (USER_HZ), so one sample 100 ms apart is only good to
 * about a tick per cpu.  The gate therefore judges the average over the
 * trailing window_ms, not each 100 ms sample on its own. */
#include "quiet.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "event.h"
#include "procs.h"

#define QUIET_SAMPLE_MS 100
#define QUIET_EMIT_EVERY_S 5.0
/* The shortest interval a leg's foreign figure is measured over. */
#define QUIET_LEG_MIN_S 0.5
/* Busy SMT siblings above this (cores, summed) earn the warning. */
#define QUIET_SMT_BUSY 0.2

struct quiet_sample {
	double t;             /* CLOCK_MONOTONIC seconds */
	long long busy_all;   /* ticks, every cpu */
	long long busy_client;
	long long busy_sib;   /* SMT siblings of the client cpus */
	long long own;        /* our tree's ticks */
};

struct quiet {
	struct quiet_params cfg;
	pid_t root;
	double hz;
	int ncpus;
	unsigned char *client;  /* mask, or NULL: no client cpus */
	unsigned char *sib;     /* siblings not themselves client cpus */
	char *sib_list;         /* for the warning */
	bool warned_smt;

	struct quiet_sample *ring; /* trailing samples while waiting */
	size_t ring_cap;
	size_t ring_n;
	struct quiet_sample leg0;
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

static void
quiet_sample_take(const struct quiet *q, struct quiet_sample *s)
{
	long long own;

	s->t = clock_now();
	(void)quiet_read_stat(q, s);
	own = procs_tree_ticks(q->root);
	s->own = own < 0 ? 0 : own;
}

static double
quiet_foreign_between(const struct quiet *q, const struct quiet_sample *a,
    const struct quiet_sample *b)
{
	double el = b->t - a->t;
	double f;

	if (el <= 0)
		return 0;
	f = (double)((b->busy_all - a->busy_all) - (b->own - a->own)) /
	    q->hz / el;
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

struct quiet *
quiet_create(const struct quiet_params *cfg, const unsigned char *client,
    int ncpus, pid_t root_pid)
{
	struct quiet *q = calloc(1, sizeof *q);
	long hz = sysconf(_SC_CLK_TCK);

	if (q == NULL)
		return NULL;
	q->cfg = *cfg;
	q->root = root_pid;
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
	q->ring_cap = (size_t)(cfg->window_ms > 0 ? cfg->window_ms : 0) /
	    QUIET_SAMPLE_MS + 4;
	q->ring = calloc(q->ring_cap, sizeof *q->ring);
	if (q->ring == NULL)
		goto fail;
	return q;
fail:
	quiet_destroy(q);
	return NULL;
}

static void
quiet_ring_push(struct quiet *q, const struct quiet_sample *s)
{
	if (q->ring_n == q->ring_cap) {
		memmove(q->ring, q->ring + 1, (q->ring_cap - 1) * sizeof *q->ring);
		q->ring_n--;
	}
	q->ring[q->ring_n++] = *s;
}

/* The base sample for a window ending at the newest sample: the latest one
 * at least window_ms older, or the oldest when the ring spans less. */
static const struct quiet_sample *
quiet_ring_base(const struct quiet *q, bool *full)
{
	const struct quiet_sample *now = &q->ring[q->ring_n - 1];
	double win = q->cfg.window_ms / 1000.0;
	size_t i;

	for (i = q->ring_n - 1; i-- > 0;) {
		if (now->t - q->ring[i].t >= win) {
			*full = true;
			return &q->ring[i];
		}
	}
	*full = false;
	return &q->ring[0];
}

static void
quiet_emit_sample(struct quiet *q, quiet_emit_fn emit, void *arg, double fg,
    bool ok, double waited, double client_busy, bool timed_out)
{
	json_t *ev;

	if (emit == NULL)
		return;
	ev = event_new("quiet");
	if (ev == NULL)
		return;
	json_object_set_new(ev, "foreign", json_real(quiet_round3(fg)));
	json_object_set_new(ev, "threshold",
	    json_real(q->cfg.max_foreign_cores));
	json_object_set_new(ev, "ok", json_boolean(ok));
	json_object_set_new(ev, "waited_s", json_real(quiet_round3(waited)));
	if (q->client != NULL)
		json_object_set_new(ev, "client_busy",
		    json_real(quiet_round3(client_busy)));
	if (timed_out)
		json_object_set_new(ev, "timed_out", json_true());
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

enum quiet_result
quiet_wait(struct quiet *q, int abort_fd, quiet_emit_fn emit, void *arg,
    double *foreign)
{
	struct quiet_sample s;
	double start, last_emit = -1e9;
	bool first = true;

	if (foreign != NULL)
		*foreign = 0;
	q->ring_n = 0;
	quiet_sample_take(q, &s);
	start = s.t;
	quiet_ring_push(q, &s);
	for (;;) {
		const struct quiet_sample *base;
		double fg, cb, waited;
		bool full, ok, over, timed_out;

		if (clock_nap(abort_fd, QUIET_SAMPLE_MS))
			return QUIET_ABORTED;
		quiet_sample_take(q, &s);
		quiet_ring_push(q, &s);
		base = quiet_ring_base(q, &full);
		fg = quiet_foreign_between(q, base, &s);
		cb = quiet_cores(q, s.busy_client - base->busy_client,
		    s.t - base->t);
		waited = s.t - start;
		over = fg >= q->cfg.max_foreign_cores;
		ok = full && !over;
		timed_out = !ok && waited >= q->cfg.timeout_s;
		if (foreign != NULL)
			*foreign = fg;
		if (full)
			quiet_check_smt(q, base, &s, emit, arg);
		/* Logged: the first sample over the threshold, then one every
		 * few seconds while over, and the last.  A sample under the
		 * threshold before the window is complete says nothing yet, so
		 * a gate that did not hold logs one event (ok). */
		if (ok || timed_out || (over && (first ||
		    s.t - last_emit >= QUIET_EMIT_EVERY_S))) {
			quiet_emit_sample(q, emit, arg, fg, ok, waited, cb,
			    timed_out);
			last_emit = s.t;
			first = false;
		}
		if (ok)
			return QUIET_OK;
		if (timed_out)
			return QUIET_TIMEOUT;
	}
}

void
quiet_leg_begin(struct quiet *q)
{
	quiet_sample_take(q, &q->leg0);
}

double
quiet_leg_end(struct quiet *q)
{
	const struct quiet_sample *base = &q->leg0;
	struct quiet_sample s;
	size_t i;

	quiet_sample_take(q, &s);
	/* One clock tick is 10 ms: over a 5 ms leg a single tick of someone
	 * else's work reads as 2 cores.  A short leg is judged over the last
	 * QUIET_LEG_MIN_S instead, reaching back into the gate's samples just
	 * before it (when the gate ran). */
	if (s.t - base->t < QUIET_LEG_MIN_S) {
		for (i = q->ring_n; i-- > 0;) {
			if (q->ring[i].t > q->leg0.t)
				continue;
			base = &q->ring[i];
			if (s.t - base->t >= QUIET_LEG_MIN_S)
				break;
		}
	}
	return quiet_round3(quiet_foreign_between(q, base, &s));
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
	free(q->client);
	free(q->sib);
	free(q->sib_list);
	free(q->ring);
	free(q);
}
