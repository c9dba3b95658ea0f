/* benchtui load: requests over persistent connections, one in flight on
 * each, every response checked as it streams (load_resp.c) before the
 * connection carries the next.  The connections are spread over --threads
 * threads, each with its own epoll loop, read buffer and histogram; they
 * share only the request numbers (an atomic counter, so "request N" counts
 * in the order requests were sent), the first failure and the start of the
 * measured phase.
 *
 * Closed loop (the default), a connection sends its next request as soon as
 * the last bytes of its response are in hand, and checks those bytes after
 * (the check off the path between the server's two answers).  With --rate, thread t of T sends its k-th
 * request when it falls due, at t0 + (k*T + t)/R, on any idle connection,
 * and its latency runs from that due time: a server that stalls makes the
 * requests queued behind it late, and their latency says so (no
 * coordinated omission).  Every request that fell due is sent, checked and
 * counted, so a server slower than the rate makes the run longer.
 *
 * Warm-up requests (closed loop) end on every thread before the measured
 * phase starts; the phase's clock starts when the last thread is ready. */
#include "httpload.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "load_int.h"
#include "xalloc.h"

/* One read takes up to this much; bodies pass through it and are gone. */
#define LOAD_READ_BUF (256 * 1024)
#define LOAD_EVENTS 64

struct load_thread;

/* Requests in flight on each connection: --streams with --h2, else 1. */
static int
httpload_streams(const struct httpload_opts *o)
{
	return o->h2 && o->streams > 1 ? o->streams : 1;
}

struct load_conn {
	int fd, id, local_port;
	long req;                     /* the request in flight, 0 when idle */
	long served;                  /* responses on it so far */
	bool counted;                 /* req is in the measured phase */
	bool fresh;                   /* req is the first on its connection */
	bool want_out;                /* EPOLLOUT armed: the request is not out */
	bool send_waits_read;         /* TLS: the request waits for a read */
	struct load_io io;            /* what c reads and writes through */
	/* --h2: c is stream slot h2_idx of h2_owner's connection (the slot
	 * that holds the socket, the transport and h2). */
	struct load_h2 *h2;
	struct load_conn *h2_owner;
	int h2_idx;
	bool h2_drop;                 /* --new-connection: close after the read */
	double t_sent, t_due;
	size_t sent;                  /* bytes of the request sent */
	long pre_req;                 /* sent before req's last bytes were */
	bool pre_counted;             /* checked (closed loop), or 0 */
	double pre_t_sent;
	struct load_resp resp;
	struct load_conn *prev, *next; /* in flight, oldest first */
	struct load_thread *th;
};

struct load {
	const struct httpload_opts *o;
	struct load_check chk;
	struct load_target tgt;
	struct load_conn *conns;
	int nslots;                   /* conns: connections x streams (--h2) */
	struct load_thread *threads;
	int nthreads;
	FILE *evidence;
	struct load_tls *tls;         /* https://, else NULL */
	atomic_long connects;         /* connections opened */
	atomic_long next_req;         /* request numbers taken so far */
	atomic_bool stop;
	int stop_fd;                  /* an eventfd: readable once stopped */
	pthread_mutex_t mu;           /* the rest: the barrier, the failure */
	pthread_cond_t cv;
	int arrived, gen;
	double t0;
	int rc;
	char *err;
	size_t errlen;
};

struct load_thread {
	struct load *l;
	int id;
	pthread_t tid;
	bool started;
	int ep, timer_fd;
	double armed;                 /* the timer's due time, 0 disarmed */
	struct load_conn **idle;
	int nidle;
	struct load_conn *head, *tail;
	char *rbuf;
	bool measuring;
	long due_k, due_limit;        /* --rate: the next due index, the last */
	struct load_hist hist;
	struct load_ref ref;
	long counted;
	long conns;                   /* connections counted requests began */
	long long bytes;
	double t_last;
	char err[1024];
};

/* The run's first failure, kept; every thread is told to stop. */
static int
httpload_stop(struct load *l, int rc, const char *err)
{
	uint64_t one = 1;

	pthread_mutex_lock(&l->mu);
	if (l->rc == 0) {
		l->rc = rc;
		snprintf(l->err, l->errlen, "%s", err);
	}
	atomic_store(&l->stop, true);
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mu);
	if (write(l->stop_fd, &one, sizeof one) < 0) {
		/* the counter cannot overflow from one write per thread */
	}
	return -1;
}

static int
httpload_thread_fail(struct load_thread *th, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
httpload_thread_fail(struct load_thread *th, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(th->err, sizeof th->err, fmt, ap);
	va_end(ap);
	return httpload_stop(th->l, 1, th->err);
}

/* The next request number up to limit, or 0 when they are all taken. */
static long
httpload_take(struct load *l, long limit)
{
	long cur = atomic_load(&l->next_req);

	while (cur < limit)
		if (atomic_compare_exchange_weak(&l->next_req, &cur, cur + 1))
			return cur + 1;
	return 0;
}

/* Every thread ready for the measured phase (every warm-up response in);
 * the last one stops the process first when told to (hold_after_warmup: a
 * profiler attaches meanwhile), then starts the phase's clock.  false when
 * the run stopped meanwhile. */
static bool
httpload_barrier(struct load *l)
{
	bool ok;
	int gen;

	pthread_mutex_lock(&l->mu);
	gen = l->gen;
	if (++l->arrived == l->nthreads) {
		l->arrived = 0;
		l->gen++;
		if (l->o->hold_after_warmup && l->o->warmup > 0)
			raise(SIGSTOP);
		l->t0 = clock_now();
		pthread_cond_broadcast(&l->cv);
	} else {
		while (gen == l->gen && !atomic_load(&l->stop))
			pthread_cond_wait(&l->cv, &l->mu);
	}
	ok = !atomic_load(&l->stop);
	pthread_mutex_unlock(&l->mu);
	return ok;
}

/* When thread th's next --rate request is due, or 0 when it has none
 * left. */
static double
httpload_due(const struct load_thread *th)
{
	const struct load *l = th->l;
	const struct httpload_opts *o = l->o;
	double due;

	if (th->due_k >= th->due_limit)
		return 0;
	due = l->t0 + ((double)th->due_k * l->nthreads + th->id) / o->rate;
	if (o->duration_s > 0 && due >= l->t0 + o->duration_s)
		return 0;
	return due;
}

/* The next request to send now: its number (0: none now) and due time. */
static long
httpload_next(struct load_thread *th, double now, double *due)
{
	struct load *l = th->l;
	const struct httpload_opts *o = l->o;

	*due = now;
	if (!th->measuring)
		return httpload_take(l, o->warmup);
	if (o->rate > 0) {
		double d = httpload_due(th);

		if (d == 0 || d > now)
			return 0;
		th->due_k++;
		*due = d;
		return httpload_take(l, LONG_MAX);
	}
	if (o->duration_s > 0)
		return now < l->t0 + o->duration_s ?
		    httpload_take(l, LONG_MAX) : 0;
	return httpload_take(l, o->warmup + o->requests);
}

static void
httpload_epoll_out(struct load_conn *c, bool want)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP |
	    (want ? EPOLLOUT : 0), .data.ptr = c };

	if (c->want_out != want)
		(void)epoll_ctl(c->th->ep, EPOLL_CTL_MOD, c->fd, &ev);
	c->want_out = want;
}

static int httpload_h2_done(void *slot, double now);

/* c's connection (again, with --new-connection): connected, in its
 * thread's epoll set, its transport started.  0, or 1 with l->err. */
static int
httpload_open(struct load *l, struct load_conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
	    .data.ptr = c };

	c->fd = load_connect(&l->tgt, c->id, l->o->timeout_s, &c->local_port,
	    l->err, l->errlen);
	if (c->fd < 0)
		return 1;
	atomic_fetch_add(&l->connects, 1);
	c->served = 0;
	c->want_out = false;
	c->send_waits_read = false;
	if (epoll_ctl(c->th->ep, EPOLL_CTL_ADD, c->fd, &ev) != 0)
		return load_fail(l->err, l->errlen, 1, "epoll: %s",
		    strerror(errno));
	if (load_io_open(&c->io, l->tls, c->fd) != 0)
		return load_fail(l->err, l->errlen, 1, "connection %d: %s", c->id,
		    c->io.why);
	if (l->o->h2)
		c->h2 = load_h2_create(&l->tgt, l->o, &c->io, c->id,
		    httpload_h2_done);
	return 0;
}

/* c's connection closed by the load (--new-connection, or the end). */
static void
httpload_drop(struct load_conn *c)
{
	if (c->h2_owner != NULL && c->h2_owner != c) {
		c->h2 = NULL;             /* the owner's to end */
		c->fd = -1;
		return;
	}
	load_h2_destroy(c->h2);
	c->h2 = NULL;
	load_io_close(&c->io);
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
}

/* Send what is left of c's request, as much as the socket takes. */
static int
httpload_send_more(struct load_conn *c)
{
	const struct load_target *t = &c->th->l->tgt;
	ssize_t n;

	c->send_waits_read = false;
	while (c->sent < t->request_len) {
		n = load_io_send(&c->io, t->request + c->sent,
		    t->request_len - c->sent);
		if (n > 0) {
			c->sent += (size_t)n;
			continue;
		}
		if (n == LOAD_IO_AGAIN) {
			c->send_waits_read = !c->io.want_write;
			httpload_epoll_out(c, c->io.want_write);
			return 0;
		}
		if (c->io.ssl != NULL && !c->io.shaken)
			return httpload_thread_fail(c->th, "request %ld: connection "
			    "%d to %s: %s", c->pre_req ? c->pre_req : c->req, c->id,
			    c->th->l->tgt.hostport, c->io.why);
		return httpload_thread_fail(c->th, "request %ld: cannot send on "
		    "connection %d (%s): the server closed or reset it after "
		    "%ld responses on it", c->pre_req ? c->pre_req : c->req, c->id,
		    c->io.why, c->served);
	}
	httpload_epoll_out(c, false);
	return 0;
}

/* c carries request req from now on: in flight, its response awaited. */
static void
httpload_start(struct load_thread *th, struct load_conn *c, long req,
    bool counted, double t_sent, double due)
{
	c->req = req;
	c->counted = counted;
	c->t_sent = t_sent;
	c->t_due = due < t_sent ? due : t_sent;
	/* --h2: the connection's first request is its first slot's. */
	c->fresh = c->served == 0 && (c->h2_owner == NULL || c->h2_owner == c);
	load_resp_start(&c->resp, req, c->served);
	c->next = NULL;
	c->prev = th->tail;
	if (th->tail != NULL)
		th->tail->next = c;
	else
		th->head = c;
	th->tail = c;
}

/* --h2: whether c's connection waits for POLLOUT, after h2 wrote (rc 0)
 * or failed (-1: the run stops). */
static int
httpload_h2_after(struct load_conn *c, int rc)
{
	struct load_conn *o = c->h2_owner, *r = c->th->head;
	const char *why;

	if (rc != 0) {
		why = load_h2_why(o->h2);
		if (strncmp(why, "request ", 8) == 0)
			return httpload_thread_fail(c->th, "%s", why);
		/* The connection's trouble: name its oldest request. */
		while (r != NULL && r->h2_owner != o)
			r = r->next;
		return httpload_thread_fail(c->th, "request %ld: %s",
		    r != NULL ? r->req : c->resp.req, why);
	}
	httpload_epoll_out(o, load_h2_wants_write(o->h2));
	return 0;
}

static int
httpload_send(struct load_thread *th, struct load_conn *c, long req,
    double due)
{
	double now = clock_now();

	/* --new-connection: the connect is part of the request's time. */
	if (c->fd < 0 && httpload_open(th->l, c) != 0) {
		char msg[1024];

		snprintf(msg, sizeof msg, "request %ld: %s", req, th->l->err);
		return httpload_stop(th->l, 1, msg);
	}
	c->sent = 0;
	httpload_start(th, c, req, th->measuring, now, due);
	if (c->h2 != NULL) {
		c->sent = th->l->tgt.request_len;   /* the h2 layer sends it */
		return httpload_h2_after(c, load_h2_submit(c->h2, c->h2_idx, c,
		    &c->resp, req));
	}
	return httpload_send_more(c);
}

/* Closed loop: the rest of c's response is in hand, so its next request
 * goes out now, before those last bytes are checked: the check then runs
 * while the server works, not between the two.  A failed check still
 * ends the run (the early request's answer is never counted). */
static int
httpload_presend(struct load_thread *th, struct load_conn *c)
{
	double due;
	long req;

	if (th->l->o->rate > 0 || th->l->o->new_connection || c->pre_req != 0 ||
	    c->sent < th->l->tgt.request_len ||
	    (req = httpload_next(th, clock_now(), &due)) == 0)
		return 0;
	c->pre_req = req;
	c->pre_counted = th->measuring;
	c->pre_t_sent = clock_now();
	c->sent = 0;
	return httpload_send_more(c);
}

/* c's response is complete and a request already went out after it. */
static void
httpload_adopt(struct load_thread *th, struct load_conn *c)
{
	long req = c->pre_req;

	c->pre_req = 0;
	httpload_start(th, c, req, c->pre_counted, c->pre_t_sent,
	    c->pre_t_sent);
}

/* Requests on the idle connections, as many as are to be sent now. */
static int
httpload_fill(struct load_thread *th)
{
	double due;
	long req;

	while (th->nidle > 0 &&
	    (req = httpload_next(th, clock_now(), &due)) != 0)
		if (httpload_send(th, th->idle[--th->nidle], req, due) != 0)
			return -1;
	return 0;
}

static void
httpload_evidence(struct load_thread *th, const struct load_conn *c,
    double lat)
{
	const struct load_resp *r = &c->resp;
	const struct load_io *io = c->h2_owner != NULL ? &c->h2_owner->io :
	    &c->io;
	char line[1024];
	int n;

	/* One write per line: the threads share the file. */
	n = snprintf(line, sizeof line, "{\"req\":%ld,\"conn\":%d,"
	    "\"local_port\":%d,\"warmup\":%s,\"status\":%d,\"bytes\":%lld,"
	    "\"sha256\":\"%s\",\"lat_ms\":%.6f,\"framing\":\"%s\","
	    "\"interim\":%d,\"new_conn\":%s,\"closes\":%s", c->req, c->id,
	    c->local_port, c->counted ? "false" : "true", r->status, r->clen,
	    r->hex, lat * 1e3, load_resp_frame_name(r), r->interim,
	    c->fresh ? "true" : "false", r->closes ? "true" : "false");
	if (c->h2 != NULL)
		n += snprintf(line + n, sizeof line - (size_t)n, ",\"stream\":%d",
		    (int)load_h2_stream(c->h2, c->h2_idx));
	if (io->ssl != NULL)
		n += load_tls_evidence(line + n, sizeof line - (size_t)n, io);
	snprintf(line + n, sizeof line - (size_t)n, "}\n");
	fputs(line, th->l->evidence);
}

/* c's response passed: record it, and c is idle again. */
static int
httpload_complete(struct load_thread *th, struct load_conn *c, double now)
{
	const struct httpload_opts *o = th->l->o;
	double lat;

	if (c->pre_req == 0 && c->sent < th->l->tgt.request_len)
		return httpload_thread_fail(th, "request %ld: the server answered "
		    "(status %d) before the request was sent whole (%zu of %zu "
		    "bytes) on connection %d", c->req, c->resp.status, c->sent,
		    th->l->tgt.request_len, c->id);
	lat = now - (o->rate > 0 && c->counted ? c->t_due : c->t_sent);
	if (th->l->evidence != NULL)
		httpload_evidence(th, c, lat);
	if (c->counted) {
		load_hist_add(&th->hist, lat);
		th->bytes += c->resp.clen;
		th->counted++;
		th->conns += c->fresh;
		th->t_last = now;
	}
	c->served++;
	c->req = 0;
	if (o->new_connection && c->h2 != NULL)
		c->h2_drop = true;        /* nghttp2 is still reading from it */
	else if (o->new_connection || c->resp.closes)
		/* The server closes it (it said so, or its body ended at the
		 * close) or speaks another protocol on it (101): the next
		 * request opens another. */
		httpload_drop(c);
	if (c->prev != NULL)
		c->prev->next = c->next;
	else
		th->head = c->next;
	if (c->next != NULL)
		c->next->prev = c->prev;
	else
		th->tail = c->prev;
	if (c->pre_req != 0) {
		httpload_adopt(th, c);
		return 0;
	}
	th->idle[th->nidle++] = c;
	return 0;
}

/* --h2: slot's response passed; in the closed loop the next request
 * goes out on it at once (with the rest of what the read brought). */
static int
httpload_h2_done(void *slot, double now)
{
	struct load_conn *c = slot;

	if (httpload_complete(c->th, c, now) != 0)
		return -1;
	return c->h2_drop ? 0 : httpload_fill(c->th);
}

/* --h2: c's connection can be read or written (or waits for either). */
static int
httpload_h2_event(struct load_thread *th, struct load_conn *c)
{
	if (load_h2_flush(c->h2) != 0 ||
	    load_h2_read(c->h2, th->rbuf, LOAD_READ_BUF, clock_now) != 0)
		return httpload_h2_after(c, -1);
	if (c->h2_drop) {
		c->h2_drop = false;
		httpload_drop(c);
		return 0;
	}
	return httpload_h2_after(c, 0);
}

/* Bytes off c, fed to its response; 0, or -1 when the run failed. */
static int
httpload_consume(struct load_thread *th, struct load_conn *c, size_t n,
    double now)
{
	size_t off = 0, used;
	long long left;
	int rc;

	while (off < n) {
		if (c->req == 0)
			return httpload_thread_fail(th, "after request %ld: %zu "
			    "unexpected bytes on connection %d with no request in "
			    "flight", c->resp.req, n - off, c->id);
		rc = load_resp_header(&c->resp, th->rbuf + off, n - off, &used,
		    th->err, sizeof th->err);
		off += used;
		if (rc < 0)
			return httpload_stop(th->l, 1, th->err);
		if (rc == 0)
			continue;
		left = load_resp_left(&c->resp);
		if (left >= 0 && left <= (long long)(n - off) &&
		    httpload_presend(th, c) != 0)
			return -1;
		rc = load_resp_feed(&c->resp, th->rbuf + off, n - off, &used,
		    th->err, sizeof th->err);
		off += used;
		if (rc < 0)
			return httpload_stop(th->l, 1, th->err);
		/* After a 101 the bytes are another protocol's: dropped with
		 * the connection. */
		if (rc == 1 && off < n && !c->resp.upgraded)
			return httpload_thread_fail(th, "request %ld: %zu bytes past "
			    "the end of the response (%s %lld) on connection %d",
			    c->req, n - off, load_resp_frame_name(&c->resp),
			    c->resp.clen, c->id);
		if (rc == 1 && httpload_complete(th, c, now) != 0)
			return -1;
		if (rc == 1 && c->fd < 0)
			return 0;
	}
	return 0;
}

/* The server ended c (EOF, or an error). */
static int
httpload_closed(struct load_thread *th, struct load_conn *c, int e)
{
	int rc = 0;

	/* A body that ends at close ends here. */
	if (e == 0 && c->req != 0)
		rc = load_resp_eof(&c->resp, th->err, sizeof th->err);
	if (rc < 0)
		return httpload_stop(th->l, 1, th->err);
	if (rc == 1)
		return httpload_complete(th, c, clock_now());
	if (e != 0)
		return httpload_thread_fail(th, "request %ld: connection %d "
		    "failed: %s (after %ld responses on it)", c->req != 0 ? c->req :
		    c->resp.req, c->id, strerror(e), c->served);
	if (c->req == 0)
		return httpload_thread_fail(th, "after request %ld: the server "
		    "closed connection %d (after %ld responses on it); the load "
		    "needs it kept open", c->resp.req, c->id, c->served);
	if (c->resp.received == 0)
		return httpload_thread_fail(th, "request %ld: the server closed "
		    "connection %d after %ld responses on it, without answering; "
		    "the load needs it kept open", c->req, c->id, c->served);
	return httpload_thread_fail(th, "request %ld: the server closed "
	    "connection %d in the middle of the response (%zu bytes of it "
	    "received)", c->req, c->id, c->resp.received);
}

/* c is readable: read until the socket is drained (a few reads at most,
 * so one connection cannot starve the others). */
static int
httpload_readable(struct load_thread *th, struct load_conn *c)
{
	/* TLS reads on while it says there is more: records read ahead are
	 * in OpenSSL's buffer, not the socket, and epoll would not wake. */
	for (int i = 0; i < 8 || (c->io.ssl != NULL && c->io.more); i++) {
		ssize_t n = load_io_recv(&c->io, th->rbuf, LOAD_READ_BUF);
		double now = clock_now();

		if (n == LOAD_IO_AGAIN) {
			if (c->io.want_write)
				httpload_epoll_out(c, true);
			return 0;
		}
		if (n < 0 && c->io.ssl != NULL)
			return httpload_thread_fail(th, "request %ld: connection %d: "
			    "%s (after %ld responses on it)", c->req != 0 ? c->req :
			    c->resp.req, c->id, c->io.why, c->served);
		if (n <= 0)
			return httpload_closed(th, c, n < 0 ? errno : 0);
		if (httpload_consume(th, c, (size_t)n, now) != 0)
			return -1;
		if (!c->io.more || c->fd < 0)
			return 0;
	}
	return 0;
}

/* --rate: wake when the next request falls due, if a connection is idle
 * to send it. */
static void
httpload_arm(struct load_thread *th)
{
	double due = th->measuring && th->l->o->rate > 0 && th->nidle > 0 ?
	    httpload_due(th) : 0;
	struct itimerspec its = { { 0, 0 }, { 0, 0 } };

	if (due == th->armed || th->timer_fd < 0)
		return;
	its.it_value.tv_sec = (time_t)due;
	its.it_value.tv_nsec = (long)((due - (double)(time_t)due) * 1e9);
	if (due != 0 && its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0)
		its.it_value.tv_nsec = 1;
	(void)timerfd_settime(th->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
	th->armed = due;
}

/* Whether thread th has requests still to send in this phase (none in
 * flight and none to send now). */
static bool
httpload_more(const struct load_thread *th)
{
	return th->measuring && th->l->o->rate > 0 && httpload_due(th) != 0;
}

/* Wait for the sockets, the timer or a stop, and serve what woke. */
static int
httpload_wait(struct load_thread *th)
{
	struct epoll_event ev[LOAD_EVENTS];
	double timeout = th->l->o->timeout_s, now, left;
	int n, ms = -1;

	if (th->head != NULL) {
		left = th->head->t_sent + timeout - clock_now();
		ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
	}
	n = epoll_wait(th->ep, ev, LOAD_EVENTS, ms);
	if (n < 0 && errno != EINTR)
		return httpload_thread_fail(th, "epoll_wait: %s", strerror(errno));
	for (int i = 0; i < n; i++) {
		struct load_conn *c = ev[i].data.ptr;
		uint64_t x;

		if (c == NULL) {            /* the timer */
			if (read(th->timer_fd, &x, sizeof x) < 0) {
				/* already read: nothing to clear */
			}
			th->armed = 0;
			continue;
		}
		if (c == (void *)th->l)     /* the stop */
			return -1;
		if (c->h2 != NULL) {
			if (httpload_h2_event(th, c) != 0)
				return -1;
			continue;
		}
		if (((ev[i].events & EPOLLOUT) && c->want_out) ||
		    ((ev[i].events & EPOLLIN) && c->send_waits_read))
			if (httpload_send_more(c) != 0)
				return -1;
		/* TLS reads too on POLLOUT: a read may have waited for it. */
		if (((ev[i].events & ~(uint32_t)EPOLLOUT) || c->io.ssl != NULL) &&
		    httpload_readable(th, c) != 0)
			return -1;
	}
	now = clock_now();
	if (th->head != NULL && now >= th->head->t_sent + timeout)
		return httpload_thread_fail(th, "request %ld: no complete "
		    "response within %g s (--timeout; %zu bytes of it received "
		    "on connection %d)", th->head->req, timeout,
		    th->head->resp.received, th->head->id);
	return 0;
}

/* One phase (warm-up, or the measured one) on thread th. */
static int
httpload_phase(struct load_thread *th, bool measuring)
{
	th->measuring = measuring;
	for (;;) {
		if (atomic_load(&th->l->stop))
			return -1;
		if (httpload_fill(th) != 0)
			return -1;
		if (th->head == NULL && !httpload_more(th))
			return 0;
		httpload_arm(th);
		if (httpload_wait(th) != 0)
			return -1;
	}
}

static void *
httpload_thread(void *arg)
{
	struct load_thread *th = arg;

	if (httpload_phase(th, false) == 0 && httpload_barrier(th->l))
		(void)httpload_phase(th, true);
	return NULL;
}

/* After the last response: a connection the server has closed (or is
 * closing) was not kept open, and none has bytes nobody asked for. */
static int
httpload_check_open(struct load *l, long last)
{
	for (int i = 0; i < l->nslots; i++) {
		struct load_conn *c = &l->conns[i];
		struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLRDHUP };
		bool closed;
		ssize_t n = 0;
		char b;

		/* An HTTP/2 connection may carry frames of its own (pings,
		 * settings) between requests: its streams were checked. */
		if (c->fd < 0 || c->h2 != NULL || poll(&p, 1, 0) != 1)
			continue;
		closed = (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
		/* TLS: what is readable may be no data (a session ticket). */
		if (!closed && c->io.ssl != NULL &&
		    (n = load_io_recv(&c->io, &b, 1)) == LOAD_IO_AGAIN)
			continue;
		if (!closed && c->io.ssl == NULL)
			n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
		if (closed || n <= 0)
			return load_fail(l->err, l->errlen, 1, "after request %ld: "
			    "the server closed connection %d (after %ld responses "
			    "on it); the load needs it kept open", last, c->id,
			    c->served);
		return load_fail(l->err, l->errlen, 1, "after request %ld: "
		    "unexpected bytes on connection %d with no request in "
		    "flight", last, c->id);
	}
	return 0;
}

static int
httpload_write_metrics(struct load *l, const struct httpload_result *r)
{
	json_t *m = json_pack("{s:I, s:f, s:I, s:f, s:f, s:f, s:f, s:I}",
	    "requests", (json_int_t)r->requests, "rps", r->rps,
	    "bytes", (json_int_t)r->bytes, "lat_p50_ms", r->lat_p50_ms,
	    "lat_p90_ms", r->lat_p90_ms, "lat_p99_ms", r->lat_p99_ms,
	    "lat_max_ms", r->lat_max_ms,
	    "connections", (json_int_t)r->connections);
	int rc;

	if (m == NULL)
		return load_fail(l->err, l->errlen, 1, "out of memory");
	/* Numbers only (a leg's metrics are): the TLS version and cipher
	 * are in the evidence and the summary line. */
	if (r->tls) {
		json_object_set_new(m, "handshakes", json_integer(r->handshakes));
		json_object_set_new(m, "resumed", json_integer(r->resumed));
	}
	if (l->o->new_connection)
		json_object_set_new(m, "connects", json_integer(r->connects));
	rc = json_dump_file(m, l->o->metrics, JSON_COMPACT);
	json_decref(m);
	if (rc != 0)
		return load_fail(l->err, l->errlen, 1, "cannot write the metrics "
		    "file %s", l->o->metrics);
	return 0;
}

/* The counted requests' figures, over every thread. */
static void
httpload_result(struct load *l, struct httpload_result *res)
{
	struct load_hist *h = xcalloc(1, sizeof *h);
	double t_last = l->t0;

	for (int i = 0; i < l->nthreads; i++) {
		struct load_thread *th = &l->threads[i];

		load_hist_merge(h, &th->hist);
		res->requests += th->counted;
		res->connections += th->conns;
		res->bytes += th->bytes;
		if (th->t_last > t_last)
			t_last = th->t_last;
	}
	res->seconds = t_last - l->t0;
	res->rps = res->seconds > 0 ? (double)res->requests / res->seconds : 0;
	res->lat_p50_ms = load_hist_quantile(h, 0.50) / 1e6;
	res->lat_p90_ms = load_hist_quantile(h, 0.90) / 1e6;
	res->lat_p99_ms = load_hist_quantile(h, 0.99) / 1e6;
	res->lat_max_ms = (double)h->max / 1e6;
	res->connects = atomic_load(&l->connects);
	load_tls_summary(l->tls, res);
	free(h);
}

void
httpload_opts_init(struct httpload_opts *o)
{
	memset(o, 0, sizeof *o);
	o->requests = 1000;
	o->connections = 1;
	o->threads = 1;
	o->expect_status = 200;
	o->expect_bytes = -1;
	o->timeout_s = 30;
}

static int
httpload_validate(const struct httpload_opts *o, char *err, size_t errlen)
{
	if ((o->requests < 1 && !(o->duration_s > 0)) || o->warmup < 0 ||
	    o->connections < 1)
		return load_fail(err, errlen, 2, "--requests and --connections "
		    "must be at least 1, --warmup at least 0");
	if (o->threads < 1 || o->threads > o->connections)
		return load_fail(err, errlen, 2, "--threads %d: from 1 to the "
		    "--connections (%d): each thread drives connections of its "
		    "own", o->threads, o->connections);
	if (o->expect_status >= 100 && o->expect_status < 200 &&
	    o->expect_status != 101)
		return load_fail(err, errlen, 2, "--expect-status %d: an interim "
		    "response is never the final one (only 101 is)",
		    o->expect_status);
	if (o->h2 && o->new_connection && httpload_streams(o) > 1)
		return load_fail(err, errlen, 2, "--new-connection with --streams "
		    "%d: a connection per request carries one stream",
		    o->streams);
	if (!(o->rate >= 0) || !(o->duration_s >= 0) || !(o->timeout_s > 0))
		return load_fail(err, errlen, 2, "--rate and --duration must be "
		    "positive, --timeout more than 0");
	return 0;
}

/* Thread id's loop: its epoll set, its timer (--rate), its buffers. */
static int
httpload_thread_init(struct load *l, struct load_thread *th, int id)
{
	const struct httpload_opts *o = l->o;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = l };
	int n = (o->connections / l->nthreads + 1) * httpload_streams(o);

	th->l = l;
	th->id = id;
	th->timer_fd = -1;
	th->rbuf = xmalloc(LOAD_READ_BUF);
	th->idle = xcalloc((size_t)n, sizeof *th->idle);
	load_ref_init(&th->ref);
	th->due_limit = LONG_MAX;
	if (o->rate > 0 && !(o->duration_s > 0))
		th->due_limit = o->requests > id ?
		    (o->requests - id + l->nthreads - 1) / l->nthreads : 0;
	th->ep = epoll_create1(EPOLL_CLOEXEC);
	if (th->ep < 0 || epoll_ctl(th->ep, EPOLL_CTL_ADD, l->stop_fd, &ev) != 0)
		return load_fail(l->err, l->errlen, 1, "epoll: %s",
		    strerror(errno));
	if (o->rate > 0) {
		ev.data.ptr = NULL;
		th->timer_fd = timerfd_create(CLOCK_MONOTONIC,
		    TFD_NONBLOCK | TFD_CLOEXEC);
		if (th->timer_fd < 0 || epoll_ctl(th->ep, EPOLL_CTL_ADD,
		    th->timer_fd, &ev) != 0)
			return load_fail(l->err, l->errlen, 1, "timerfd: %s",
			    strerror(errno));
	}
	return 0;
}

/* The threads, and the connections opened and handed out among them. */
static int
httpload_setup(struct load *l)
{
	const struct httpload_opts *o = l->o;
	int rc, s;

	l->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (l->stop_fd < 0)
		return load_fail(l->err, l->errlen, 1, "eventfd: %s",
		    strerror(errno));
	l->nthreads = o->threads;
	l->threads = xcalloc((size_t)l->nthreads, sizeof *l->threads);
	for (int i = 0; i < l->nthreads; i++)
		l->threads[i].ep = l->threads[i].timer_fd = -1;
	for (int i = 0; i < l->nthreads; i++)
		if ((rc = httpload_thread_init(l, &l->threads[i], i)) != 0)
			return rc;
	s = httpload_streams(o);
	l->nslots = o->connections * s;
	l->conns = xcalloc((size_t)l->nslots, sizeof *l->conns);
	for (int i = 0; i < l->nslots; i++)
		l->conns[i].fd = -1;
	for (int i = 0; i < l->nslots; i++) {
		struct load_conn *c = &l->conns[i];
		struct load_thread *th = &l->threads[i / s % l->nthreads];

		c->id = i / s + 1;
		c->th = th;
		load_resp_init(&c->resp, &l->chk, &th->ref, c->id);
		if (o->h2) {
			c->h2_owner = &l->conns[i - i % s];
			c->h2_idx = i % s;
		}
		if (i % s == 0 && (rc = httpload_open(l, c)) != 0)
			return rc;
		if (i % s != 0) {
			c->fd = c->h2_owner->fd;
			c->local_port = c->h2_owner->local_port;
			c->h2 = c->h2_owner->h2;
		}
		th->idle[th->nidle++] = c;
	}
	return 0;
}

/* Run the threads to the end; 0 with res, or the first failure's status. */
static int
httpload_go(struct load *l, struct httpload_result *res)
{
	char msg[256];
	int e;

	for (int i = 0; i < l->nthreads; i++) {
		struct load_thread *th = &l->threads[i];

		if ((e = pthread_create(&th->tid, NULL, httpload_thread, th)) != 0) {
			snprintf(msg, sizeof msg, "cannot start thread %d: %s",
			    i + 1, strerror(e));
			httpload_stop(l, 1, msg);
			break;
		}
		th->started = true;
	}
	for (int i = 0; i < l->nthreads; i++)
		if (l->threads[i].started)
			pthread_join(l->threads[i].tid, NULL);
	if (l->rc != 0)
		return l->rc;
	if (httpload_check_open(l, atomic_load(&l->next_req)) != 0)
		return 1;
	httpload_result(l, res);
	return 0;
}

static void
httpload_teardown(struct load *l)
{
	if (l->conns != NULL)
		for (int i = l->nslots - 1; i >= 0; i--) {
			httpload_drop(&l->conns[i]);
			load_resp_finish(&l->conns[i].resp);
		}
	if (l->threads != NULL)
		for (int i = 0; i < l->nthreads; i++) {
			struct load_thread *th = &l->threads[i];

			if (th->ep >= 0)
				close(th->ep);
			if (th->timer_fd >= 0)
				close(th->timer_fd);
			load_ref_finish(&th->ref);
			free(th->rbuf);
			free(th->idle);
		}
	if (l->stop_fd >= 0)
		close(l->stop_fd);
	free(l->conns);
	free(l->threads);
	load_target_finish(&l->tgt);
	load_tls_destroy(l->tls);
	pthread_mutex_destroy(&l->mu);
	pthread_cond_destroy(&l->cv);
}

int
httpload_run(const struct httpload_opts *o, struct httpload_result *res,
    char *err, size_t errlen)
{
	struct load l;
	int rc;

	memset(&l, 0, sizeof l);
	memset(res, 0, sizeof *res);
	l.o = o;
	l.err = err;
	l.errlen = errlen;
	l.stop_fd = -1;
	if ((rc = httpload_validate(o, err, errlen)) != 0)
		return rc;
	load_check_init(&l.chk, o);
	pthread_mutex_init(&l.mu, NULL);
	pthread_cond_init(&l.cv, NULL);
	atomic_init(&l.next_req, 0);
	atomic_init(&l.stop, false);
	if ((rc = load_target_init(&l.tgt, o, err, errlen)) != 0)
		goto out;
	if (l.tgt.https &&
	    (rc = load_tls_create(&l.tls, o, l.tgt.host, err, errlen)) != 0)
		goto out;
	if (o->evidence != NULL &&
	    (l.evidence = fopen(o->evidence, "we")) == NULL) {
		rc = load_fail(err, errlen, 2, "cannot write the evidence file "
		    "%s: %s", o->evidence, strerror(errno));
		goto out;
	}
	if ((rc = httpload_setup(&l)) != 0)
		goto out;
	rc = httpload_go(&l, res);
	if (rc == 0 && o->metrics != NULL)
		rc = httpload_write_metrics(&l, res);
out:
	if (l.evidence != NULL && fclose(l.evidence) != 0 && rc == 0)
		rc = load_fail(err, errlen, 1, "cannot write the evidence file "
		    "%s: %s", o->evidence, strerror(errno));
	httpload_teardown(&l);
	return rc;
}
