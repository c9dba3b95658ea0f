/* The quiet-box gate: the wait before a leg, on the sampler's figures
 * (quietsamp.c), its events, its budget. */
#include "quiet.h"

#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "event.h"
#include "probe.h"
#include "quietsamp.h"

/* While the gate holds, a sample event this often (the countdown). */
#define QUIET_EMIT_EVERY_S 1.0
/* The shortest interval a leg's figures are measured over. */
#define QUIET_LEG_MIN_S 0.5
/* Busy SMT siblings above this (cores, summed) earn the warning. */
#define QUIET_SMT_BUSY 0.2

struct quiet {
	struct quiet_params cfg;
	struct quietsamp *samp;
	bool warned_smt;
	bool last_ok;           /* the last quiet event said ok */
	double leg_t0;
	double spent;           /* of the budget, by every wait so far */
	double legs_s;          /* the legs' own time so far */
	bool budget_over;       /* a wait found the budget spent: no more */
	bool released_all;      /* the operator let the rest of the round go */
	struct quiettop *top;   /* the host's processes when the gate was
	                         * made, for the start-up look */
	struct probe *probe;    /* or NULL */
	bool probe_next;        /* the next wait probes */
	unsigned waits;         /* quiet_wait calls so far */
	bool stay_checked;      /* the staying rule has judged (once) */
	struct quiettop_proc cand[QUIET_STAY_MAX]; /* watched, not judged */
	size_t ncand;
	double cand_t0;
	struct quiettop_proc stay[QUIET_STAY_MAX];
	size_t nstay;
	/* The probe's "auto" rule: [key] 0 no leg yet, 1 one was CPU-bound,
	 * 2 none was (NULL until a leg ran). */
	unsigned char *bound;
	size_t nbound;
};

/* Three decimals are all the precision a tick-based figure has. */
static double
quiet_round3(double x)
{
	return round(x * 1000.0) / 1000.0;
}

struct quiet *
quiet_create(const struct quiet_params *cfg, const unsigned char *client,
    int ncpus, pid_t root_pid, struct cgroup *own)
{
	struct quiet *q = calloc(1, sizeof *q);
	double span = cfg->window_ms / 1000.0;

	if (q == NULL)
		return NULL;
	q->cfg = *cfg;
	if (span < QUIET_LEG_MIN_S)
		span = QUIET_LEG_MIN_S;
	if ((q->samp = quietsamp_create(root_pid, own, client, ncpus,
	    span)) == NULL) {
		free(q);
		return NULL;
	}
	q->top = quiettop_begin();
	if (cfg->probe)
		q->probe = probe_create(client, ncpus);
	return q;
}

void
quiet_probe_next(struct quiet *q, bool on)
{
	q->probe_next = on && q->probe != NULL;
}

void
quiet_probe_cpus(struct quiet *q, const unsigned char *mask, int ncpus)
{
	if (q->probe != NULL)
		probe_set_mask(q->probe, mask, ncpus);
}

void
quiet_set_groups(struct quiet *q, struct cgroup *legs, struct cgroup *servers)
{
	quietsamp_set_groups(q->samp, legs, servers);
}

void
quiet_set_server(struct quiet *q, pid_t pid, const unsigned char *mask,
    int ncpus)
{
	quietsamp_set_server(q->samp, pid, mask, ncpus);
}

/* How one wait is going, for its quiet events. */
struct quiet_hold {
	struct quietsamp_view v;
	struct probe_result pr; /* the last probe of this wait */
	bool probed;            /* pr is this look's */
	bool ok;
	double waited;
	double limit;        /* this wait's end: timeout_s, or the budget left */
	bool timed_out, released;
	int quick;           /* probe-only holds retried soon (QUIET_PROBE_QUICK) */
};

/* A window that is quiet held by the probe alone is probed again after
 * QUIET_PROBE_RETRY_MS, up to QUIET_PROBE_QUICK times, before the gate
 * naps a whole sample (QUIETSAMP_MS) between looks.  A guest's CPU may
 * switch between speeds a few percent apart within milliseconds (this
 * VM: 2.5%, over a 1% margin): a leg held a whole sample for it waited
 * 0.1 s, 40% of the legs of a round of `true` (8 s in 200 legs), where a
 * second probe 2 ms later finds the floor.  A slowdown that lasts (a
 * neighbour on the host) still holds the leg: past the quick tries the
 * gate waits as before. */
#define QUIET_PROBE_RETRY_MS 2
#define QUIET_PROBE_QUICK 10

static void
quiet_emit_sample(struct quiet *q, quiet_emit_fn emit, void *arg,
    const struct quiet_hold *h)
{
	json_t *ev;

	if (emit == NULL || (ev = event_new("quiet")) == NULL)
		return;
	json_object_set_new(ev, "foreign", json_real(quiet_round3(h->v.foreign)));
	json_object_set_new(ev, "threshold",
	    json_real(q->cfg.max_foreign_cores));
	json_object_set_new(ev, "ok", json_boolean(h->ok));
	json_object_set_new(ev, "waited_s", json_real(quiet_round3(h->waited)));
	/* The pinned cpus' own foreign work, with their thresholds. */
	if (quietsamp_has_client(q->samp)) {
		json_object_set_new(ev, "client_busy", json_real(quiet_round3(
		    isnan(h->v.client_busy) ? 0 : h->v.client_busy)));
		json_object_set_new(ev, "max_client_busy",
		    json_real(q->cfg.max_client_busy));
	}
	if (!isnan(h->v.server_busy)) {
		json_object_set_new(ev, "server_busy",
		    json_real(quiet_round3(h->v.server_busy)));
		json_object_set_new(ev, "max_server_busy",
		    json_real(q->cfg.max_server_busy));
	}
	if (h->probed) {
		json_object_set_new(ev, "probe",
		    json_real(quiet_round3(h->pr.slowdown)));
		json_object_set_new(ev, "probe_max", json_real(1 +
		    q->cfg.probe_margin));
		if (h->pr.gap_us >= PROBE_GAP_US)
			json_object_set_new(ev, "probe_gap_us",
			    json_real(round(h->pr.gap_us)));
	}
	json_object_set_new(ev, "timeout_s", json_real(q->cfg.timeout_s));
	/* The countdown's end: the budget may end this wait first. */
	json_object_set_new(ev, "limit_s", json_real(quiet_round3(h->limit)));
	json_object_set_new(ev, "budget_s", json_real(quiet_round3(
	    quiet_budget(q))));
	json_object_set_new(ev, "spent_s",
	    json_real(quiet_round3(q->spent + h->waited)));
	if (h->timed_out)
		json_object_set_new(ev, "timed_out", json_true());
	if (h->released)
		json_object_set_new(ev, "override", json_true());
	emit(ev, arg);
	json_decref(ev);
}

/* SMT siblings of the client cpus that are busy share the client cpus'
 * cores: said once, as a warning. */
static void
quiet_check_smt(struct quiet *q, const struct quietsamp_view *v,
    quiet_emit_fn emit, void *arg)
{
	char msg[512];
	json_t *ev;

	if (q->warned_smt || emit == NULL || isnan(v->sib_busy) ||
	    v->sib_busy < QUIET_SMT_BUSY)
		return;
	q->warned_smt = true;
	snprintf(msg, sizeof msg,
	    "SMT siblings of the client cpus (cpu %s) are busy (%.2f cores): "
	    "they share the client cpus' cores and disturb the legs",
	    quietsamp_siblings(q->samp), v->sib_busy);
	if ((ev = event_new("warning")) == NULL)
		return;
	json_object_set_new(ev, "msg", json_string(msg));
	emit(ev, arg);
	json_decref(ev);
}

/* Whether a window is quiet: all of it seen, the machine's foreign load
 * under max_foreign_cores and each pinned cpu set's at most its max. */
static bool
quiet_window_ok(const struct quiet *q, const struct quietsamp_view *v)
{
	/* The staying load is not waited for, wherever it runs (which errs
	 * towards quiet: the legs beside it are marked). */
	double st = v->staying > 0 ? v->staying : 0;

	return v->full && v->foreign - st < q->cfg.max_foreign_cores &&
	    !(v->client_busy - st > q->cfg.max_client_busy) &&
	    !(v->server_busy - st > q->cfg.max_server_busy);
}

/* A probe for this wait; whether it found the machine as fast as its
 * floor (a probe that cannot run holds nothing). */
static bool
quiet_probe(struct quiet *q, struct quiet_hold *h)
{
	if (probe_run(q->probe, &h->pr) != 0)
		return true;
	h->probed = true;
	return h->pr.slowdown <= 1 + q->cfg.probe_margin &&
	    h->pr.gap_us < PROBE_GAP_US;
}

/* The gate's verdict on the newest window into h, the probe's too once
 * the window is quiet; false when no sample is in yet. */
static bool
quiet_look(struct quiet *q, struct quiet_hold *h, quiet_emit_fn emit,
    void *arg)
{
	bool have = quietsamp_last(q->samp, q->cfg.window_ms / 1000.0, &h->v);

	h->ok = have && quiet_window_ok(q, &h->v);
	h->probed = false;
	if (h->ok && q->probe_next)
		h->ok = quiet_probe(q, h);
	if (have && h->v.full)
		quiet_check_smt(q, &h->v, emit, arg);
	return have;
}

/* The wait ends without a quiet window: the leg still gets a probe, for
 * the record. */
static void
quiet_probe_last(struct quiet *q, struct quiet_hold *h)
{
	if (q->probe_next && !h->probed)
		(void)quiet_probe(q, h);
}

static void
quiet_seen_probe(const struct quiet_hold *h, struct quiet_seen *seen)
{
	seen->probe = h->probed ? quiet_round3(h->pr.slowdown) : NAN;
	seen->probe_us = h->probed ? round(h->pr.us * 10) / 10 : NAN;
}

static void
quiet_seen_of(const struct quietsamp_view *v, struct quiet_seen *seen)
{
	seen->foreign = quiet_round3(v->foreign);
	seen->client_busy = isnan(v->client_busy) ? NAN :
	    quiet_round3(v->client_busy);
	seen->server_busy = isnan(v->server_busy) ? NAN :
	    quiet_round3(v->server_busy);
	seen->staying = quiet_round3(v->staying);
}

void
quiet_stay_line(const struct quiet *q, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "load that stays");

	for (size_t i = 0; i < q->nstay && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s (pid %d) %.2f "
		    "cores", i == 0 ? ": " : ", ", q->stay[i].name,
		    (int)q->stay[i].pid, q->stay[i].cores);
	if (n < len)
		snprintf(buf + n, len - n, " since the round began; waiting "
		    "does not help against it, so the gate does not wait for it "
		    "again, and the legs beside it are marked \"staying\"");
}

size_t
quiet_staying(const struct quiet *q, struct quiettop_proc *out, size_t max)
{
	size_t n = q->nstay < max ? q->nstay : max;

	for (size_t i = 0; i < n; i++)
		out[i] = q->stay[i];
	return n;
}

/* The busiest foreign processes of top (at least a hundredth of a core
 * each) become the staying rule's candidates, watched from now. */
static void
quiet_stay_watch(struct quiet *q, const struct quiettop_proc *top, size_t n)
{
	q->ncand = 0;
	q->cand_t0 = clock_now();
	for (size_t i = 0; i < n && q->ncand < QUIET_STAY_MAX; i++) {
		q->cand[q->ncand++] = top[i];
		quietsamp_watch(q->samp, top[i].pid);
	}
}

/* The first wait is over: candidates not judged are not watched on
 * (nothing stayed through it). */
static void
quiet_stay_drop(struct quiet *q)
{
	if (q->ncand == 0 || q->stay_checked)
		return;
	q->stay_checked = true;
	q->ncand = 0;
	(void)quietsamp_watch_judge(q->samp, 2.0, 0, NULL, NULL, 0);
}

/* The named ones in an event. */
static void
quiet_stay_emit(struct quiet *q, quiet_emit_fn emit, void *arg)
{
	char line[768];
	json_t *ev, *procs;

	if (emit == NULL || (ev = event_new("gate")) == NULL)
		return;
	procs = json_array();
	for (size_t i = 0; i < q->nstay; i++)
		json_array_append_new(procs, json_pack("{s:i,s:s,s:f}", "pid",
		    (int)q->stay[i].pid, "name", q->stay[i].name, "cores",
		    quiet_round3(q->stay[i].cores)));
	json_object_set_new(ev, "kind", json_string("staying"));
	json_object_set_new(ev, "procs", procs);
	quiet_stay_line(q, line, sizeof line);
	json_object_set_new(ev, "msg", json_string(line));
	emit(ev, arg);
	json_decref(ev);
}

/* The staying rule on a held look of the round's first wait: find the
 * candidates (the look's busiest, else a walk now and one half a second
 * later), watch them, and judge them once (QUIET_STAY_WATCH_S on); those
 * that stay go to an event.  Whether it named any. */
static bool
quiet_stay_look(struct quiet *q, const struct quiet_hold *h,
    quiet_emit_fn emit, void *arg)
{
	struct quiettop_proc top[QUIET_STAY_MAX];
	struct quiettop_more more;
	pid_t pid[QUIET_STAY_MAX];
	double cores[QUIET_STAY_MAX];
	size_t n;

	if (!q->cfg.stay || q->stay_checked || q->waits > 0 ||
	    h->v.foreign - h->v.staying < q->cfg.max_foreign_cores)
		return false;
	if (q->ncand == 0) {
		if (q->top == NULL)
			q->top = quiettop_begin();
		else if (clock_now() - quiettop_since(q->top) >= 0.5) {
			n = quiettop_end(q->top, top, QUIET_STAY_MAX, &more);
			quiettop_destroy(q->top);
			q->top = NULL;
			quiet_stay_watch(q, top, n);
			if (n == 0)
				q->stay_checked = true;
		}
		return false;
	}
	if (clock_now() - q->cand_t0 < QUIET_STAY_WATCH_S)
		return false;
	q->stay_checked = true;
	n = quietsamp_watch_judge(q->samp, QUIET_STAY_FRAC, QUIET_STAY_CORES,
	    pid, cores, QUIET_STAY_MAX);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < q->ncand; j++)
			if (q->cand[j].pid == pid[i]) {
				q->stay[q->nstay] = q->cand[j];
				q->stay[q->nstay++].cores = cores[i];
			}
	q->ncand = 0;
	if (q->nstay > 0)
		quiet_stay_emit(q, emit, arg);
	return q->nstay > 0;
}

/* Until the next sample (or ms), an abort or a release: QUIET_OK to look
 * again. */
static enum quiet_result
quiet_nap(int abort_fd, int release_fd, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = abort_fd, .events = POLLIN },
		{ .fd = release_fd, .events = POLLIN },
	};

	if (poll(pfd, 2, ms) > 0) {
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
	quiet_probe_last(q, &h);
	quiet_seen_of(&h.v, seen);
	quiet_seen_probe(&h, seen);
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
	double left = quiet_budget_left(q);
	struct quiet_hold h = { .limit = q->cfg.timeout_s };
	enum quiet_result res;

	*seen = (struct quiet_seen){ .client_busy = NAN, .server_busy = NAN,
	    .probe = NAN, .probe_us = NAN };
	if (left <= 0)
		q->budget_over = true;
	if (q->released_all || q->budget_over) {
		q->waits++;
		quiet_stay_drop(q);
		return quiet_judge_only(q, emit, arg, seen);
	}
	if (left < h.limit)
		h.limit = left;
	for (;;) {
		bool have;
		int nap_ms;

		h.waited = clock_now() - start;
		have = quiet_look(q, &h, emit, arg);
		quiet_seen_of(&h.v, seen);
		if (!h.ok && have && h.v.full && quiet_stay_look(q, &h, emit,
		    arg))
			seen->stay_named = true;
		h.timed_out = !h.ok && h.waited >= h.limit;
		if (h.timed_out)
			quiet_probe_last(q, &h);
		quiet_seen_probe(&h, seen);
		/* Logged: a change to quiet (not every leg that finds the box
		 * quiet), the first sample that is not and then one a second
		 * while the gate holds (the countdown), the end. */
		if ((h.ok && (!q->last_ok || h.waited > 0.05)) || h.timed_out ||
		    (have && h.v.full && !h.ok &&
		    h.waited - last_emit >= QUIET_EMIT_EVERY_S)) {
			quiet_emit_sample(q, emit, arg, &h);
			last_emit = h.waited;
			q->last_ok = h.ok;
		}
		if (h.ok || h.timed_out) {
			res = h.ok ? QUIET_OK : h.limit < q->cfg.timeout_s ?
			    QUIET_BUDGET : QUIET_TIMEOUT;
			break;
		}
		/* A look probes only a quiet window: held by the probe alone,
		 * probe again soon. */
		nap_ms = QUIETSAMP_MS;
		if (h.probed && h.quick < QUIET_PROBE_QUICK) {
			h.quick++;
			nap_ms = QUIET_PROBE_RETRY_MS;
		}
		if ((res = quiet_nap(abort_fd, release_fd, nap_ms)) ==
		    QUIET_ABORTED)
			break;
		if (res == QUIET_RELEASED) {
			h.waited = clock_now() - start;
			h.released = true;
			h.ok = false;
			quiet_probe_last(q, &h);
			quiet_seen_probe(&h, seen);
			quiet_emit_sample(q, emit, arg, &h);
			q->last_ok = false;
			break;
		}
	}
	seen->waited_s = clock_now() - start;
	q->spent += seen->waited_s;
	q->waits++;
	quiet_stay_drop(q);
	if (res == QUIET_BUDGET)
		q->budget_over = true;
	return res;
}

void
quiet_release_all(struct quiet *q)
{
	q->released_all = true;
}

double
quiet_budget(const struct quiet *q)
{
	if (q->cfg.budget_s >= 0)
		return q->cfg.budget_s;
	return QUIET_BUDGET_BASE_S + QUIET_BUDGET_SHARE * q->legs_s;
}

double
quiet_budget_left(const struct quiet *q)
{
	double left = quiet_budget(q) - q->spent;

	return q->budget_over || left < 0 ? 0 : left;
}

double
quiet_spent(const struct quiet *q)
{
	return q->spent;
}

void
quiet_spend(struct quiet *q, double secs)
{
	if (secs > 0)
		q->spent += secs;
	if (quiet_budget_left(q) <= 0)
		q->budget_over = true;
}

void
quiet_legs_ran(struct quiet *q, double secs)
{
	if (secs > 0)
		q->legs_s += secs;
}

void
quiet_set_history(struct quiet *q, double spent_s, double legs_s)
{
	q->spent = spent_s > 0 ? spent_s : 0;
	q->legs_s = legs_s > 0 ? legs_s : 0;
}

void
quiet_set_budget_left(struct quiet *q, double total_s, double left_s)
{
	left_s = left_s > 0 ? left_s : 0;
	q->cfg.budget_s = total_s >= left_s ? total_s : left_s;
	q->spent = q->cfg.budget_s - left_s;
	q->budget_over = false;
}

void
quiet_budget_words(const struct quiet *q, char *buf, size_t len)
{
	if (q->cfg.budget_s >= 0)
		snprintf(buf, len, "budget_s %g s", q->cfg.budget_s);
	else
		snprintf(buf, len, "%g s plus %g%% of the legs' time, %.1f s "
		    "so far", QUIET_BUDGET_BASE_S, QUIET_BUDGET_SHARE * 100,
		    quiet_budget(q));
}

static const char *const quiet_words[] = { [QUIET_OK] = "quiet",
    [QUIET_TIMEOUT] = "timeout", [QUIET_RELEASED] = "released",
    [QUIET_BUDGET] = "budget" };

const char *
quiet_result_word(enum quiet_result res)
{
	if ((size_t)res >= sizeof quiet_words / sizeof quiet_words[0])
		return NULL;
	return quiet_words[res];
}

bool
quiet_result_of_word(const char *word, enum quiet_result *res)
{
	for (size_t i = 0; word != NULL &&
	    i < sizeof quiet_words / sizeof quiet_words[0]; i++)
		if (quiet_words[i] != NULL && strcmp(word, quiet_words[i]) == 0) {
			*res = (enum quiet_result)i;
			return true;
		}
	return false;
}

void
quiet_probe_leg_ran(struct quiet *q, size_t key, size_t nkeys,
    double cpu_s, double wall_s)
{
	if (!(wall_s > 0) || key >= nkeys)
		return;
	if (q->bound == NULL) {
		if ((q->bound = calloc(nkeys, 1)) == NULL)
			return;  /* no record: every leg probes, as before one ran */
		q->nbound = nkeys;
	}
	if (key < q->nbound && q->bound[key] != 1)
		q->bound[key] = cpu_s >= QUIET_PROBE_CPU_BOUND * wall_s ? 1 : 2;
}

bool
quiet_probe_auto(const struct quiet *q, size_t key)
{
	return q->bound == NULL || key >= q->nbound || q->bound[key] != 2;
}

void
quiet_leg_begin(struct quiet *q)
{
	q->leg_t0 = clock_now();
	quietsamp_leg(q->samp, true);
}

double
quiet_leg_end(struct quiet *q, struct quiet_seen *during)
{
	struct quietsamp_view v;
	struct quiet_seen seen = { .client_busy = NAN, .server_busy = NAN,
	    .staying = 0 };

	quietsamp_leg(q->samp, false);
	q->legs_s += clock_now() - q->leg_t0;
	if (quietsamp_since(q->samp, q->leg_t0, QUIET_LEG_MIN_S, &v))
		quiet_seen_of(&v, &seen);
	if (during != NULL)
		*during = seen;
	return seen.foreign;
}

int
quiet_startup(struct quiet *q, int abort_fd, struct quiet_startup *out)
{
	struct quietsamp_view v;
	double t0 = clock_now(), span = q->cfg.window_ms / 1000.0;

	*out = (struct quiet_startup){ .span_s = 0 };
	/* Until the gate has one window of samples (the first leg's gate
	 * judges the same window, so the look costs no pause of its own);
	 * once the gate waits no more (a resumed round that spent its
	 * budget), over what samples there are. */
	while (!quietsamp_last(q->samp, span, &v) || (!v.full &&
	    !q->released_all && quiet_budget_left(q) > 0))
		if (quiet_nap(abort_fd, -1, QUIETSAMP_MS) == QUIET_ABORTED)
			return -1;
	out->waited_s = clock_now() - t0;
	q->spent += out->waited_s;
	out->span_s = v.t1 - v.t0;
	quiet_seen_of(&v, &out->seen);
	out->busy = v.foreign >= q->cfg.max_foreign_cores;
	if (out->busy)
		out->ntop = quiettop_end(q->top, out->top, QUIET_STARTUP_TOP,
		    &out->more);
	/* On a busy box the look's busiest are the staying rule's
	 * candidates, watched through the first wait. */
	if (out->busy && q->cfg.stay)
		quiet_stay_watch(q, out->top, out->ntop);
	quiettop_destroy(q->top);
	q->top = NULL;
	return 0;
}

void
quiet_startup_line(const struct quiet *q, const struct quiet_startup *s,
    char *buf, size_t len)
{
	size_t n;

	n = (size_t)snprintf(buf, len, "the box is %s: %.2f foreign cores over "
	    "the last %.1f s (max_foreign_cores %g)", s->busy ?
	    "already busy" : "quiet", s->seen.foreign, s->span_s,
	    q->cfg.max_foreign_cores);
	for (size_t i = 0; i < s->ntop && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s (pid %d) %.2f",
		    i == 0 ? "; busiest: " : ", ", s->top[i].name,
		    (int)s->top[i].pid, s->top[i].cores);
	/* What no walk of /proc saw: processes that came and went (a
	 * build's compilers), most under one parent. */
	if (s->busy && s->seen.foreign - s->more.seen >= 0.1 && n < len) {
		n += (size_t)snprintf(buf + n, len - n, "%s%.2f cores by "
		    "processes that came and went", s->ntop ? ", " :
		    "; busiest: ", s->seen.foreign - s->more.seen);
		if (s->more.reaper.pid > 0 && s->more.reaper.cores >= 0.1 &&
		    n < len)
			snprintf(buf + n, len - n, " (most under %s, pid %d)",
			    s->more.reaper.name, (int)s->more.reaper.pid);
	}
}

json_t *
quiet_startup_event(const struct quiet *q, const struct quiet_startup *s)
{
	json_t *ev = event_new("gate"), *top = json_array();
	char line[1024];

	json_object_set_new(ev, "kind", json_string("startup"));
	json_object_set_new(ev, "span_s", json_real(quiet_round3(s->span_s)));
	json_object_set_new(ev, "foreign", json_real(s->seen.foreign));
	json_object_set_new(ev, "threshold",
	    json_real(q->cfg.max_foreign_cores));
	if (!isnan(s->seen.client_busy))
		json_object_set_new(ev, "client_busy",
		    json_real(s->seen.client_busy));
	json_object_set_new(ev, "busy", json_boolean(s->busy));
	for (size_t i = 0; i < s->ntop; i++)
		json_array_append_new(top, json_pack("{s:i,s:s,s:f}", "pid",
		    (int)s->top[i].pid, "name", s->top[i].name, "cores",
		    quiet_round3(s->top[i].cores)));
	json_object_set_new(ev, "top", top);
	if (s->busy)
		json_object_set_new(ev, "unseen", json_real(quiet_round3(
		    s->seen.foreign > s->more.seen ? s->seen.foreign -
		    s->more.seen : 0)));
	if (s->more.reaper.pid > 0)
		json_object_set_new(ev, "reaper", json_pack("{s:i,s:s,s:f}",
		    "pid", (int)s->more.reaper.pid, "name", s->more.reaper.name,
		    "cores", quiet_round3(s->more.reaper.cores)));
	quiet_startup_line(q, s, line, sizeof line);
	json_object_set_new(ev, "msg", json_string(line));
	return ev;
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
	quietsamp_destroy(q->samp);
	quiettop_destroy(q->top);
	probe_destroy(q->probe);
	free(q->bound);
	free(q);
}
