/* The round driver, one round on several hosts ("hosts", run --host):
 * a cell's reps dealt among the hosts as whole reps (rep r to hosts[(r -
 * 1) mod n], so every pair of legs stays on one host), each host's legs
 * in its own mirror order (its j-th rep in the arm order of the plan's
 * rep j), all hosts at once: one leg in flight per host.
 *
 * One worker thread per host drives its agent (remote_leg blocks until
 * the reply); this thread alone logs, feeds the tally and the front end:
 * the workers hand it their far gate's events and their replies through
 * a queue, with a byte on a pipe to wake it.  A host whose connection
 * drops (or whose agent refuses a leg) stops its own legs only; the
 * others go on to the end of theirs, and the round then stops
 * resumably, naming the host.
 *
 * A cell's server with no host of its own runs on every host, a copy
 * each (started and stopped here, through that host's agent), and the
 * worker opens its window around each of its host's legs, so the leg
 * line's server figures are those of its own host's copy; a copy that
 * dies or whose host drops stops that host alone.  A server with a host
 * of its own (one of the hosts) runs once, for every host's legs: their
 * windows must not overlap, so the cell's legs then take turns, one in
 * flight at a time, and its loss stops the round as a single host's
 * would.  A server per leg (no host of its own) is each host's own copy
 * for each of its legs, started here before the leg is handed over and
 * stopped when its reply is taken in.  Each leg's output file is copied
 * back by its worker. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "remote.h"
#include "round_int.h"
#include "xalloc.h"

/* What a worker hands the round's thread: one of its host's gate
 * events, or the reply to its leg. */
struct hosts_msg {
	struct hosts_msg *next;
	struct hosts_worker *w;
	json_t *ev;               /* an event (new), or NULL: the reply */
	json_t *far;              /* the reply (new), or NULL: none came */
	bool lost;                /* the connection is lost */
	char err[1024];           /* why no reply came */
	/* The server's window around the leg: its open and close replies
	 * (new, or NULL), the close's round trip; srv_lost: its agent's
	 * connection was lost (srv_err why, or the agent refused). */
	json_t *opened, *closed;
	double close_ms;
	bool srv_lost;
	char srv_err[1024];
};

/* One planned leg in a host's queue. */
struct hosts_item {
	size_t i;                 /* index into the plan */
	int warmup;               /* K of a warm-up leg, else 0 */
};

struct hosts_worker {
	struct round_hosts *hs;
	const char *host;
	struct remote *rm;
	pthread_t th;
	bool th_up;
	pthread_cond_t cv;
	/* Under hs->mu: the request for the worker, and its end; the agent
	 * of the server whose window wraps the leg (NULL: none), and the
	 * leg's output file to copy back (or NULL). */
	json_t *req;
	struct remote_gate rg;
	bool gated, quit;
	struct remote *srv_rm;
	const char *out_rel;
	/* The cell's server for its legs: its own copy (own), or the one
	 * server of the cell (shared), or NULL. */
	struct round_srv *srv, *own;
	/* The round's thread's own. */
	struct round_leg *l;      /* the leg in flight, or NULL */
	struct hosts_item cur;
	bool dead;                /* lost or refused: no more legs here */
	char dead_why[1024];
	size_t left;              /* its legs not run when it stopped */
	struct hosts_item *q;
	size_t nq, qpos;
};

struct round_hosts {
	struct run *u;
	pthread_mutex_t mu;
	struct hosts_msg *head, *tail;
	int wake[2];
	struct hosts_worker *w;
	size_t n;
	/* The cell's one server (a host of its own), or NULL; while it
	 * runs, one leg is in flight at a time, the hosts taking turns
	 * from turn on. */
	struct round_srv *shared;
	size_t turn;
};

static void
round_hosts_post(struct round_hosts *hs, struct hosts_msg *m)
{
	char b = 1;

	pthread_mutex_lock(&hs->mu);
	if (hs->tail != NULL)
		hs->tail->next = m;
	else
		hs->head = m;
	hs->tail = m;
	pthread_mutex_unlock(&hs->mu);
	while (write(hs->wake[1], &b, 1) < 0 && errno == EINTR)
		;
}

static void
round_hosts_msg_free(struct hosts_msg *m)
{
	json_decref(m->ev);
	json_decref(m->far);
	json_decref(m->opened);
	json_decref(m->closed);
	free(m);
}

/* remote_leg's callback: the far gate's events, for the round's thread
 * to log (borrowed: copied). */
static void
round_hosts_event(json_t *ev, void *arg)
{
	struct hosts_worker *w = arg;
	struct hosts_msg *m = xcalloc(1, sizeof *m);

	m->w = w;
	m->ev = json_deep_copy(ev);
	round_hosts_post(w->hs, m);
}

/* The settle pause before a leg, on the worker: an abort ends it. */
static void
round_hosts_settle(const struct round *r)
{
	struct pollfd p = { .fd = r->abort_pipe[0], .events = POLLIN };
	double end = clock_now() + r->spec->settle_s, left;

	while ((left = end - clock_now()) > 0 && poll(&p, 1,
	    (int)(left * 1e3) + 1) <= 0)
		;
}

/* On the worker: the server's window opened before the leg (its host's
 * gate is the leg's own, so none here).  false when the leg is not to
 * run: the connection lost (or an abort), or the server dead. */
static bool
round_hosts_open(struct hosts_worker *w, struct remote *srv_rm,
    struct hosts_msg *m)
{
	const struct round *r = w->hs->u->r;

	m->opened = remote_open(srv_rm, NULL, r->abort_pipe[0], -1,
	    round_hosts_event, w, m->srv_err, sizeof m->srv_err);
	if (m->opened == NULL) {
		m->srv_lost = remote_lost(srv_rm, false);
		if (m->srv_lost)
			snprintf(m->srv_err, sizeof m->srv_err, "%s",
			    remote_lost_why(srv_rm));
		return false;
	}
	return !json_is_false(json_object_get(m->opened, "alive"));
}

/* On the worker: the window closed after the leg (whatever became of
 * it: the agent holds it open until then). */
static void
round_hosts_close(struct remote *srv_rm, struct hosts_msg *m)
{
	double t0 = clock_now();

	m->closed = remote_close_window(srv_rm, m->srv_err,
	    sizeof m->srv_err);
	m->close_ms = (clock_now() - t0) * 1e3;
	if (m->closed == NULL) {
		m->srv_lost = remote_lost(srv_rm, false);
		if (m->srv_lost)
			snprintf(m->srv_err, sizeof m->srv_err, "%s",
			    remote_lost_why(srv_rm));
	}
}

static void *
round_hosts_worker(void *arg)
{
	struct hosts_worker *w = arg;
	struct round_hosts *hs = w->hs;
	const struct round *r = hs->u->r;

	for (;;) {
		struct hosts_msg *m;
		struct remote_gate rg;
		struct remote *srv_rm;
		const char *out_rel;
		json_t *req;
		bool gated, started = false;

		pthread_mutex_lock(&hs->mu);
		while (w->req == NULL && !w->quit)
			pthread_cond_wait(&w->cv, &hs->mu);
		req = w->req;
		w->req = NULL;
		rg = w->rg;
		gated = w->gated;
		srv_rm = w->srv_rm;
		out_rel = w->out_rel;
		pthread_mutex_unlock(&hs->mu);
		if (req == NULL)
			return NULL;
		m = xcalloc(1, sizeof *m);
		m->w = w;
		if (r->spec->settle_s > 0)
			round_hosts_settle(r);
		if (srv_rm != NULL && !round_hosts_open(w, srv_rm, m)) {
			json_decref(req);
			round_hosts_post(hs, m);
			continue;
		}
		/* The operator's g releases this machine's gate; the far
		 * gates of several hosts are let go by G (rg) alone. */
		m->far = remote_leg(w->rm, req, r->spec->timeout_s, gated ? &rg :
		    NULL, r->abort_pipe[0], -1, round_hosts_event, w, &started,
		    m->err, sizeof m->err);
		if (m->far == NULL && remote_lost(w->rm, false)) {
			m->lost = true;
			snprintf(m->err, sizeof m->err, "%s", remote_lost_why(w->rm));
		}
		/* The cell's one server's window closes even when the leg's
		 * host was lost: its agent is another. */
		if (srv_rm != NULL && !(m->lost && srv_rm == w->rm))
			round_hosts_close(srv_rm, m);
		if (m->far != NULL && !m->lost && out_rel != NULL)
			round_far_output(r, w->rm, out_rel);
		round_hosts_post(hs, m);
	}
}

/* Start the workers, one per host, each with its host's agent. */
static struct round_hosts *
round_hosts_new(struct run *u)
{
	const struct spec *s = u->r->spec;
	struct round_hosts *hs = xcalloc(1, sizeof *hs);

	hs->u = u;
	pthread_mutex_init(&hs->mu, NULL);
	if (pipe2(hs->wake, O_CLOEXEC | O_NONBLOCK) != 0)
		hs->wake[0] = hs->wake[1] = -1;
	hs->n = s->nhosts;
	hs->w = xcalloc(hs->n, sizeof *hs->w);
	for (size_t h = 0; h < hs->n; h++) {
		struct hosts_worker *w = &hs->w[h];

		w->hs = hs;
		w->host = s->hosts[h];
		w->rm = round_remote_legs_at(u, w->host);
		pthread_cond_init(&w->cv, NULL);
		if (w->rm == NULL || hs->wake[0] < 0) {
			w->dead = true;
			snprintf(w->dead_why, sizeof w->dead_why, "%s: not "
			    "connected", w->host);
			continue;
		}
		w->th_up = pthread_create(&w->th, NULL, round_hosts_worker,
		    w) == 0;
		if (!w->th_up) {
			w->dead = true;
			snprintf(w->dead_why, sizeof w->dead_why, "%s: no thread "
			    "to drive its agent: %s", w->host, strerror(errno));
		}
	}
	return hs;
}

void
round_hosts_end(struct run *u)
{
	struct round_hosts *hs = u->mh;

	if (hs == NULL)
		return;
	for (size_t h = 0; h < hs->n; h++) {
		struct hosts_worker *w = &hs->w[h];

		pthread_mutex_lock(&hs->mu);
		w->quit = true;
		pthread_cond_signal(&w->cv);
		pthread_mutex_unlock(&hs->mu);
		if (w->th_up)
			pthread_join(w->th, NULL);
		pthread_cond_destroy(&w->cv);
		json_decref(w->req);
		round_leg_far_free(w->l);
		free(w->q);
	}
	while (hs->head != NULL) {
		struct hosts_msg *m = hs->head;

		hs->head = m->next;
		round_hosts_msg_free(m);
	}
	if (hs->wake[0] >= 0) {
		close(hs->wake[0]);
		close(hs->wake[1]);
	}
	pthread_mutex_destroy(&hs->mu);
	free(hs->w);
	free(hs);
	u->mh = NULL;
}

static void
round_hosts_push(struct hosts_worker *w, size_t i, int warmup)
{
	w->q = xreallocarray(w->q, w->nq + 1, sizeof *w->q);
	w->q[w->nq++] = (struct hosts_item){ .i = i, .warmup = warmup };
}

static int
round_hosts_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The plan's legs of cell c's rep in plan order (narms of them) into
 * idx; false when the plan has no such rep. */
static bool
round_hosts_rep(const struct plan *p, size_t c, int rep, size_t *idx)
{
	for (size_t a = 0; a < p->narms; a++) {
		long i = plan_find(p, c, a, rep);

		if (i < 0)
			return false;
		idx[a] = (size_t)i;
	}
	qsort(idx, p->narms, sizeof *idx, round_hosts_cmp_size);
	return true;
}

/* Host h's queue for cell c: its warm-ups (in the order of its first
 * rep), then its reps (r = h + 1, h + 1 + n, ...), the j-th in the arm
 * order of the plan's rep j (a shuffled plan's own rep r), the legs done
 * before a resume left out. */
static void
round_hosts_deal(struct round_hosts *hs, size_t h, size_t c,
    const struct round_hosts_cbs *cb)
{
	const struct round *r = hs->u->r;
	const struct plan *p = &r->plan;
	struct hosts_worker *w = &hs->w[h];
	size_t *order = xcalloc(p->narms, sizeof *order);
	int j = 0;

	w->nq = w->qpos = 0;
	for (int rep = (int)h + 1; rep <= p->reps; rep += (int)hs->n) {
		bool any = false;

		j++;
		if (!round_hosts_rep(p, c, r->spec->order ==
		    SPEC_ORDER_SHUFFLE ? rep : j, order))
			break;
		for (size_t a = 0; a < p->narms; a++) {
			size_t arm = p->legs[order[a]].arm;
			long i = plan_find(p, c, arm, rep);

			if (i >= 0 && cb->todo(r, &p->legs[i])) {
				if (!any && w->nq == 0)
					for (int k = 1; k <= r->spec->warmup; k++)
						for (size_t b = 0; b < p->narms; b++)
							round_hosts_push(w,
							    order[b], k);
				round_hosts_push(w, (size_t)i, 0);
				any = true;
			}
		}
	}
	free(order);
}

/* Host w stops: its legs not run yet (the one in flight among them
 * when inflight) run on resume; the other hosts go on. */
static void
round_hosts_stop(struct hosts_worker *w, bool inflight, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
round_hosts_stop(struct hosts_worker *w, bool inflight, const char *fmt, ...)
{
	va_list ap;

	w->dead = true;
	va_start(ap, fmt);
	vsnprintf(w->dead_why, sizeof w->dead_why, fmt, ap);
	va_end(ap);
	w->left = w->nq - w->qpos + (inflight ? 1 : 0);
}

/* A server per leg: host w's own copy for its next leg (it->warmup, of
 * rep 0 as a local one's), started here before the leg's line begins.
 * false when it would not start: that host stops (its legs run on
 * resume), the others go on. */
static bool
round_hosts_leg_server(struct round_hosts *hs, struct hosts_worker *w,
    const struct hosts_item *it)
{
	struct run *u = hs->u;
	const struct spec *s = u->r->spec;
	const struct plan_leg *pl = &u->r->plan.legs[it->i];
	const struct spec_cell *cell = &s->cells[pl->cell];
	char name[REMOTE_NAME_MAX];
	bool lost;

	if (cell->server == NULL || !spec_server_per_leg(s, cell))
		return true;
	if ((w->own = round_server_start_copy(u, cell, &s->arms[pl->arm],
	    it->warmup > 0 ? 0 : pl->rep, w->host, &lost)) == NULL) {
		if (round_aborted(u))
			return false;
		round_hosts_stop(w, false, "cell %s: the server of arm %s "
		    "would not start on %s: %.800s", cell->name,
		    s->arms[pl->arm].name, remote_name(w->host, name), lost ?
		    remote_lost_why(w->rm) : u->err);
		u->err[0] = '\0';
		return false;
	}
	w->srv = w->own;
	round_ledger_note(u);
	return true;
}

/* After host w's leg: its server per leg stopped (a lost host's
 * agent ends it itself). */
static void
round_hosts_leg_server_stop(struct round_hosts *hs, struct hosts_worker *w,
    size_t c)
{
	struct run *u = hs->u;
	const struct spec_cell *cell = &u->r->spec->cells[c];

	if (w->own == NULL || !spec_server_per_leg(u->r->spec, cell))
		return;
	round_server_stop(u, cell, w->own);
	w->own = w->srv = NULL;
}

/* Hand host w its next leg: built and its leg_start logged here, run
 * by its worker.  false when the round stops (u->err). */
static bool
round_hosts_send(struct round_hosts *hs, struct hosts_worker *w)
{
	struct run *u = hs->u;
	const struct hosts_item *it = &w->q[w->qpos];
	struct remote_gate rg;
	json_t *req;

	if (!round_hosts_leg_server(hs, w, it))
		return !round_aborted(u) && !u->r->fatal;
	if ((w->l = round_leg_far_begin(u, &u->r->plan.legs[it->i], it->warmup,
	    w->host, &req, &rg)) == NULL)
		return false;
	w->cur = *it;
	w->qpos++;
	pthread_mutex_lock(&hs->mu);
	w->req = req;
	w->rg = rg;
	w->gated = round_leg_far_gated(w->l);
	w->srv_rm = round_server_agent(w->srv);
	w->out_rel = round_leg_far_out(w->l);
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&hs->mu);
	return true;
}

/* A cell's progress: the legs each rep still has to run, and how far
 * the reps are complete from the first on, for an adaptive round's
 * looks (a look reads reps 1..L, so it waits for all of them). */
struct hosts_cell {
	size_t c;
	int *left;                /* [rep]: legs queued or in flight */
	int front;                /* reps 1..front are complete */
	bool decided;             /* a look decided the cell */
};

/* Host w's server found dead before its leg (inflight: that leg runs
 * on resume) or during it: logged; the cell's one server stops the
 * round (false), a host's own copy that host alone (true). */
static bool
round_hosts_server_died(struct round_hosts *hs, struct hosts_worker *w,
    const struct spec_cell *cell, bool inflight, const char *leg)
{
	struct run *u = hs->u;
	const char *when = inflight ? "before" : "during";
	char name[REMOTE_NAME_MAX];

	round_server_died(u, cell, w->srv);
	if (w->srv != hs->shared) {
		round_hosts_stop(w, inflight, "cell %s: its server on %s died "
		    "(%s) %s leg %s", cell->name, remote_name(w->host, name),
		    round_server_death(w->srv), when, leg);
		return true;
	}
	snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) %s "
	    "leg %s; the round stopped, resume continues it", cell->name,
	    round_server_death(w->srv), when, leg);
	round_abort_internal(u->r, "the cell's server died");
	return false;
}

/* The server around host w's leg: its window's replies taken in.  true
 * when the leg stands (its figures in *block); false when it does not
 * (no reply came, or the window did not open or close: the host
 * stopped, or, for the cell's one server, the round).  *go false when
 * the round stops. */
static bool
round_hosts_window(struct round_hosts *hs, struct hosts_worker *w,
    struct hosts_msg *m, json_t **block, bool *go)
{
	struct run *u = hs->u;
	const struct spec_cell *cell = &u->r->spec->cells[
	    u->r->plan.legs[w->cur.i].cell];
	const char *leg = round_leg_far_name(w->l);
	char during[200];

	*block = NULL;
	if (w->srv == NULL)
		return m->far != NULL;
	if (m->opened != NULL)
		round_server_far_opened(w->srv, m->opened);
	if (m->closed != NULL)
		*block = round_server_far_closed(w->srv, m->closed, m->close_ms);
	if (m->srv_lost || (m->opened != NULL && m->far != NULL &&
	    m->closed == NULL)) {
		snprintf(during, sizeof during, "%s leg %s", m->opened == NULL ?
		    "before" : "after", leg);
		if (w->srv == hs->shared) {
			*go = false;
			if (m->srv_lost)
				round_remote_lost(u, round_server_agent(w->srv),
				    during);
			else
				round_remote_refused(u, m->srv_err, during);
		} else {
			round_hosts_stop(w, true, "%.700s, %s (its server's "
			    "window)", m->srv_err, during);
		}
		json_decref(*block);
		*block = NULL;
		return false;
	}
	if (m->far != NULL)
		return true;
	json_decref(*block);
	*block = NULL;
	/* Dead before the leg: the leg did not run. */
	if (!round_server_alive(w->srv) &&
	    !round_hosts_server_died(hs, w, cell, true, leg))
		*go = false;
	return false;
}

/* Host w's reply (m->far, taken) into its leg line, or the host's stop.
 * false when the round stops. */
static bool
round_hosts_reply(struct round_hosts *hs, struct hosts_worker *w,
    struct hosts_msg *m, struct hosts_cell *hc,
    const struct round_hosts_cbs *cb)
{
	struct run *u = hs->u;
	const struct plan_leg *pl = &u->r->plan.legs[w->cur.i];
	const struct spec_cell *cell = &u->r->spec->cells[pl->cell];
	struct round_leg *l = w->l;
	json_t *block;
	bool go = true, stands = round_hosts_window(hs, w, m, &block, &go),
	    died;

	if (!stands) {
		w->l = NULL;
		round_leg_far_free(l);
		if (!go || round_aborted(u))
			return false;
		/* Its leg runs again on resume; the other hosts go on. */
		if (!w->dead)
			round_hosts_stop(w, true, "%s%.900s", m->lost ? "" :
			    "the agent could not run a leg: ", m->err);
		return true;
	}
	died = w->srv != NULL && !round_server_alive(w->srv);
	w->l = NULL;
	if (round_leg_far_end(l, m->far, block, died) != 0)
		go = false;
	m->far = NULL;
	if (died && !round_hosts_server_died(hs, w, cell, false,
	    round_leg_far_name(l)))
		go = false;
	round_leg_far_free(l);
	if (go && w->cur.warmup > 0 && u->last_leg_bad)
		cb->warmup_failed(u, pl, w->cur.warmup);
	if (!go || w->cur.warmup > 0)
		return go;
	if (cb->fail_fast(u, w->cur.i))
		return false;
	if (--hc->left[pl->rep] == 0)
		while (hc->front < u->r->plan.reps &&
		    hc->left[hc->front + 1] == 0) {
			hc->front++;
			if (!hc->decided && round_look(u, hc->c, hc->front))
				hc->decided = true;
		}
	return true;
}

/* Whether host w takes its next leg: not when it stopped or has none;
 * once the cell is decided, only the rest of the rep it is in. */
static bool
round_hosts_next(const struct run *u, const struct hosts_worker *w,
    const struct hosts_cell *hc)
{
	const struct plan *p = &u->r->plan;

	if (w->dead || w->l != NULL || w->qpos >= w->nq)
		return false;
	if (hc->decided && w->qpos > 0 && w->q[w->qpos].warmup == 0 &&
	    p->legs[w->q[w->qpos].i].rep != p->legs[w->q[w->qpos - 1].i].rep)
		return false;
	return !hc->decided || w->qpos > 0;
}

/* The round's thread: the workers' messages, in the order they came. */
static bool
round_hosts_drain(struct round_hosts *hs, struct hosts_cell *hc,
    const struct round_hosts_cbs *cb)
{
	struct pollfd p = { .fd = hs->wake[0], .events = POLLIN };
	char buf[64];
	bool go = true;

	(void)poll(&p, 1, 250);
	while (read(hs->wake[0], buf, sizeof buf) > 0)
		;
	for (;;) {
		struct hosts_msg *m;

		pthread_mutex_lock(&hs->mu);
		if ((m = hs->head) != NULL && (hs->head = m->next) == NULL)
			hs->tail = NULL;
		pthread_mutex_unlock(&hs->mu);
		if (m == NULL)
			return go;
		if (m->ev != NULL)
			round_emit(hs->u->r, m->ev);
		else {
			if (!round_hosts_reply(hs, m->w, m, hc, cb))
				go = false;
			round_hosts_leg_server_stop(hs, m->w, hc->c);
		}
		round_hosts_msg_free(m);
	}
}

bool
round_hosts_cell(struct run *u, size_t c, const struct round_hosts_cbs *cb)
{
	struct round_hosts *hs;
	struct hosts_cell hc = { .c = c };
	bool go = true, busy;

	if (u->mh == NULL)
		u->mh = round_hosts_new(u);
	hs = u->mh;
	hs->turn = 0;
	hc.left = xcalloc((size_t)u->r->plan.reps + 2, sizeof *hc.left);
	for (size_t h = 0; h < hs->n; h++) {
		round_hosts_deal(hs, h, c, cb);
		for (size_t k = 0; k < hs->w[h].nq; k++)
			if (hs->w[h].q[k].warmup == 0)
				hc.left[u->r->plan.legs[hs->w[h].q[k].i].rep]++;
	}
	/* Reps an earlier session completed (nothing of them is queued)
	 * are complete, and were looked at then. */
	while (hc.front < u->r->plan.reps && hc.left[hc.front + 1] == 0)
		hc.front++;
	for (;;) {
		busy = false;
		for (size_t h = 0; h < hs->n; h++)
			busy |= hs->w[h].l != NULL;
		/* Paused: the legs in flight end, then the round holds. */
		if (go && !busy && atomic_load(&u->r->paused))
			round_pause_point(u);
		/* The cell's one server: one leg at a time, the hosts in
		 * turn. */
		for (size_t k = 0; k < hs->n; k++) {
			struct hosts_worker *w = &hs->w[(hs->turn + k) % hs->n];

			if (go && !round_aborted(u) && !u->r->fatal &&
			    !atomic_load(&u->r->paused) &&
			    (hs->shared == NULL || !busy) &&
			    round_hosts_next(u, w, &hc)) {
				if (!round_hosts_send(hs, w))
					go = false;
				else if (hs->shared != NULL)
					hs->turn = (size_t)(w - hs->w) + 1;
			}
			busy |= w->l != NULL;
		}
		if (!busy)
			break;
		if (!round_hosts_drain(hs, &hc, cb))
			go = false;
	}
	free(hc.left);
	return go && !round_aborted(u) && !u->r->fatal;
}

bool
round_hosts_servers(struct run *u, size_t c)
{
	const struct spec_cell *cell = &u->r->spec->cells[c];
	struct round_hosts *hs;
	char name[REMOTE_NAME_MAX];

	/* a server per leg: each host starts its own around each of its
	 * legs (round_hosts_send) */
	if (cell->server == NULL || spec_server_per_leg(u->r->spec, cell))
		return true;
	if (u->mh == NULL)
		u->mh = round_hosts_new(u);
	hs = u->mh;
	if (!cell->server->on_hosts) {
		if ((hs->shared = round_server_start(u, cell, NULL, 0)) == NULL) {
			round_server_wont_start(u);
			return false;
		}
		for (size_t h = 0; h < hs->n; h++)
			hs->w[h].srv = hs->shared;
		return true;
	}
	for (size_t h = 0; h < hs->n && !round_aborted(u); h++) {
		struct hosts_worker *w = &hs->w[h];
		bool lost;

		if (w->dead)
			continue;
		round_pause_point(u);
		if ((w->own = round_server_start_copy(u, cell, NULL, 0,
		    w->host, &lost)) == NULL) {
			/* That host's legs stop; resume starts it again. */
			if (!round_aborted(u))
				round_hosts_stop(w, false, "cell %s: its server "
				    "would not start on %s: %.800s", cell->name,
				    remote_name(w->host, name), lost ?
				    remote_lost_why(w->rm) : u->err);
			continue;
		}
		w->srv = w->own;
	}
	round_ledger_note(u);
	return !round_aborted(u) && !u->r->fatal;
}

bool
round_hosts_prof_srv(struct run *u, struct round_srv **srv)
{
	struct round_hosts *hs = u->mh;

	*srv = NULL;
	if (hs == NULL || hs->n == 0)
		return true;
	/* w[] is in the order of "hosts": w[0] is the first host */
	if (hs->w[0].dead)
		return false;
	*srv = hs->shared != NULL ? hs->shared : hs->w[0].srv;
	return true;
}

void
round_hosts_servers_stop(struct run *u, size_t c)
{
	const struct spec_cell *cell = &u->r->spec->cells[c];
	struct round_hosts *hs = u->mh;

	for (size_t h = 0; hs != NULL && h < hs->n; h++) {
		struct hosts_worker *w = &hs->w[h];

		if (w->own != NULL)
			round_server_stop(u, cell, w->own);
		w->own = w->srv = NULL;
	}
	if (hs != NULL && hs->shared != NULL) {
		round_server_stop(u, cell, hs->shared);
		hs->shared = NULL;
	}
}

bool
round_hosts_lost(struct run *u)
{
	struct round_hosts *hs = u->mh;
	size_t n = 0, k = 0;

	for (size_t h = 0; hs != NULL && h < hs->n; h++)
		n += hs->w[h].dead;
	if (n == 0 || round_aborted(u))
		return false;
	for (size_t h = 0; h < hs->n; h++) {
		const struct hosts_worker *w = &hs->w[h];

		if (!w->dead)
			continue;
		k += (size_t)snprintf(u->err + k, sizeof u->err - k, "%s%.400s",
		    k > 0 ? "; " : "", w->dead_why);
		if (k >= sizeof u->err)
			break;
	}
	if (k < sizeof u->err)
		snprintf(u->err + k, sizeof u->err - k, "; %s legs stopped there, "
		    "the other hosts ran theirs; the round stopped, resume "
		    "reconnects", n > 1 ? "their" : "its");
	u->stop_logged_err = true;
	round_abort_internal(u->r, "a legs' host was lost");
	return true;
}
