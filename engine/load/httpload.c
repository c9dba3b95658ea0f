/* benchtui load: HTTP/1.1 GETs over persistent connections, one request in
 * flight per connection, every response checked before the next request on
 * that connection is sent.  One thread, one poll loop; latencies go into a
 * log-linear histogram (HDR-style, 128 sub-buckets per power of two, so a
 * percentile is within 0.8% of the true value) rather than a list, so memory
 * does not grow with --requests. */
#include "httpload.h"

#include <errno.h>
#include <signal.h>
#include <jansson.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "xalloc.h"

#define HIST_SUB_BITS 7
#define HIST_SUB (1u << HIST_SUB_BITS)
#define HIST_MAX_SHIFT 34           /* 2^41 ns: ~37 minutes */
#define HIST_BUCKETS (HIST_SUB * (HIST_MAX_SHIFT + 2))
#define LOAD_READ_CHUNK (64 * 1024)
#define LOAD_MAX_HEADER (64 * 1024)

struct hist {
	uint64_t count[HIST_BUCKETS];
	uint64_t n, max;
};

static size_t
httpload_hist_index(uint64_t v)
{
	int msb, shift;
	size_t idx;

	if (v < 2 * HIST_SUB)
		return (size_t)v;
	msb = 63 - __builtin_clzll(v);
	shift = msb - HIST_SUB_BITS;
	if (shift > HIST_MAX_SHIFT)
		return HIST_BUCKETS - 1;
	idx = (size_t)HIST_SUB * (size_t)shift + (size_t)(v >> shift);
	return idx < HIST_BUCKETS ? idx : HIST_BUCKETS - 1;
}

/* The middle of bucket idx, in the units recorded. */
static double
httpload_hist_value(size_t idx)
{
	size_t shift, top;
	double lo, width;

	if (idx < 2 * HIST_SUB)
		return (double)idx;
	shift = idx / HIST_SUB - 1;
	top = idx - HIST_SUB * shift;   /* in [HIST_SUB, 2*HIST_SUB) */
	lo = (double)((uint64_t)top << shift);
	width = (double)((uint64_t)1 << shift);
	return lo + width / 2;
}

static void
httpload_hist_add(struct hist *h, uint64_t v)
{
	h->count[httpload_hist_index(v)]++;
	h->n++;
	if (v > h->max)
		h->max = v;
}

/* The value at rank ceil(p * n), never above the largest seen. */
static double
httpload_hist_quantile(const struct hist *h, double p)
{
	uint64_t rank, seen = 0;
	double v;

	if (h->n == 0)
		return 0;
	rank = (uint64_t)(p * (double)h->n);
	if ((double)rank < p * (double)h->n)
		rank++;
	if (rank < 1)
		rank = 1;
	for (size_t i = 0; i < HIST_BUCKETS; i++) {
		seen += h->count[i];
		if (seen >= rank) {
			v = httpload_hist_value(i);
			return v > (double)h->max ? (double)h->max : v;
		}
	}
	return (double)h->max;
}

struct conn {
	int fd;
	int id;              /* 1-based, as messages name it */
	int local_port;
	long req;            /* the request in flight, 0 when idle */
	long served;         /* responses received on it */
	double t_sent;
	char *buf;
	size_t len, cap;
	size_t hdr_len;      /* 0 until the header is complete */
	long long clen;
	int status;
};

struct load {
	const struct httpload_opts *o;
	char host[256], port[16], hostport[300];
	const char *path;
	char *request;
	size_t request_len;
	struct conn *conns;
	FILE *evidence;
	struct hist *hist;
	long long bytes;
	char *err;
	size_t errlen;
};

static int
httpload_fail(struct load *l, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
httpload_fail(struct load *l, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->err, l->errlen, fmt, ap);
	va_end(ap);
	return rc;
}

/* http://HOST[:PORT][/PATH]: no userinfo, no TLS. */
static int
httpload_parse_url(struct load *l, const char *url)
{
	const char *p, *slash, *colon, *hend;
	size_t hlen;

	if (strncmp(url, "http://", 7) != 0)
		return httpload_fail(l, 2, "URL %s: only http:// URLs are "
		    "supported", url);
	p = url + 7;
	slash = strchr(p, '/');
	hend = slash ? slash : p + strlen(p);
	if (memchr(p, '@', (size_t)(hend - p)) != NULL)
		return httpload_fail(l, 2, "URL %s: user names are not supported",
		    url);
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(hend - p));

		if (rb == NULL)
			return httpload_fail(l, 2, "URL %s: unclosed '['", url);
		hlen = (size_t)(rb - p - 1);
		if (hlen == 0 || hlen >= sizeof l->host)
			return httpload_fail(l, 2, "URL %s: bad host", url);
		memcpy(l->host, p + 1, hlen);
		l->host[hlen] = '\0';
		colon = rb[1] == ':' ? rb + 1 : NULL;
		if (rb + 1 != hend && colon == NULL)
			return httpload_fail(l, 2, "URL %s: bad host", url);
	} else {
		colon = memchr(p, ':', (size_t)(hend - p));
		hlen = (size_t)((colon ? colon : hend) - p);
		if (hlen == 0 || hlen >= sizeof l->host)
			return httpload_fail(l, 2, "URL %s: no host", url);
		memcpy(l->host, p, hlen);
		l->host[hlen] = '\0';
	}
	if (colon != NULL) {
		size_t plen = (size_t)(hend - colon - 1);
		char *end;
		long port;

		if (plen == 0 || plen >= sizeof l->port)
			return httpload_fail(l, 2, "URL %s: bad port", url);
		memcpy(l->port, colon + 1, plen);
		l->port[plen] = '\0';
		port = strtol(l->port, &end, 10);
		if (*end != '\0' || port < 1 || port > 65535)
			return httpload_fail(l, 2, "URL %s: bad port '%s'", url,
			    l->port);
	} else {
		strcpy(l->port, "80");
	}
	snprintf(l->hostport, sizeof l->hostport, "%.*s",
	    (int)(hend - p), p);
	l->path = slash ? slash : "/";
	return 0;
}

static int
httpload_build_request(struct load *l)
{
	const struct httpload_opts *o = l->o;
	size_t cap = 256 + strlen(l->path) + strlen(l->hostport);
	size_t n;
	char *r;

	for (int i = 0; i < o->nheaders; i++)
		cap += strlen(o->headers[i]) + 2;
	r = xmalloc(cap);
	n = (size_t)snprintf(r, cap, "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "User-Agent: benchtui-load\r\nAccept-Encoding: identity\r\n",
	    l->path, l->hostport);
	for (int i = 0; i < o->nheaders; i++)
		n += (size_t)snprintf(r + n, cap - n, "%s\r\n", o->headers[i]);
	n += (size_t)snprintf(r + n, cap - n, "\r\n");
	l->request = r;
	l->request_len = n;
	return 0;
}

static int
httpload_connect(struct load *l, struct conn *c)
{
	struct addrinfo hints, *ai = NULL, *a;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	int fd = -1, gai, one = 1, saved = 0;

	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	gai = getaddrinfo(l->host, l->port, &hints, &ai);
	if (gai != 0)
		return httpload_fail(l, 1, "cannot resolve %s: %s", l->host,
		    gai_strerror(gai));
	for (a = ai; a != NULL; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC,
		    a->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return httpload_fail(l, 1, "connection %d: cannot connect to %s: %s",
		    c->id, l->hostport, strerror(saved));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	c->fd = fd;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET)
			c->local_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			c->local_port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	return 0;
}

static int
httpload_send(struct load *l, struct conn *c, long req)
{
	size_t off = 0;
	ssize_t n;

	c->req = req;
	c->len = 0;
	c->hdr_len = 0;
	c->t_sent = clock_now();
	/* One small request per connection with nothing else in flight: the
	 * socket's send buffer is empty, so this does not block for long. */
	while (off < l->request_len) {
		n = send(c->fd, l->request + off, l->request_len - off,
		    MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return httpload_fail(l, 1, "request %ld: cannot send on "
			    "connection %d (%s): the server closed or reset it "
			    "after %ld responses on it", req, c->id,
			    strerror(errno), c->served);
		off += (size_t)n;
	}
	return 0;
}

/* Header value of name in hdr[0..len), or NULL; *vlen its length. */
static const char *
httpload_header(const char *hdr, size_t len, const char *name, size_t *vlen)
{
	size_t nl = strlen(name);
	const char *p = memchr(hdr, '\n', len), *end = hdr + len;

	while (p != NULL && p + 1 < end) {
		const char *line = p + 1, *eol = memchr(line, '\n',
		    (size_t)(end - line));
		const char *v;

		if (eol == NULL)
			eol = end;
		if ((size_t)(eol - line) > nl && line[nl] == ':' &&
		    strncasecmp(line, name, nl) == 0) {
			v = line + nl + 1;
			while (v < eol && (*v == ' ' || *v == '\t'))
				v++;
			*vlen = (size_t)(eol - v);
			while (*vlen > 0 && (v[*vlen - 1] == '\r' ||
			    v[*vlen - 1] == ' ' || v[*vlen - 1] == '\t'))
				(*vlen)--;
			return v;
		}
		p = eol < end ? eol : NULL;
	}
	return NULL;
}

/* Whether the comma list v[0..len) holds token (case-insensitive). */
static bool
httpload_has_token(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i + tl <= len; i++)
		if (strncasecmp(v + i, token, tl) == 0 &&
		    (i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == len || v[i + tl] == ',' || v[i + tl] == ' '))
			return true;
	return false;
}

/* The header is complete in c->buf: check what it says before the body. */
static int
httpload_check_header(struct load *l, struct conn *c)
{
	const char *h = c->buf, *v;
	size_t hl = c->hdr_len, vl;
	bool http10;
	char *end;
	long long clen;

	if (hl < 12 || strncmp(h, "HTTP/1.", 7) != 0 ||
	    (h[7] != '0' && h[7] != '1') || h[8] != ' ')
		return httpload_fail(l, 1, "request %ld: connection %d: not an "
		    "HTTP/1.x response: '%.*s'", c->req, c->id,
		    (int)strcspn(h, "\r\n") > 60 ? 60 : (int)strcspn(h, "\r\n"),
		    h);
	http10 = h[7] == '0';
	c->status = (int)strtol(h + 9, &end, 10);
	if (end != h + 12)
		return httpload_fail(l, 1, "request %ld: bad status line '%.*s'",
		    c->req, (int)strcspn(h, "\r\n"), h);
	if (c->status != l->o->expect_status)
		return httpload_fail(l, 1, "request %ld: status %d, expected %d",
		    c->req, c->status, l->o->expect_status);
	if ((v = httpload_header(h, hl, "Content-Encoding", &vl)) != NULL &&
	    !(vl == 8 && strncasecmp(v, "identity", 8) == 0))
		return httpload_fail(l, 1, "request %ld: Content-Encoding: %.*s, "
		    "expected none (the body is checked as sent)", c->req,
		    (int)vl, v);
	if ((v = httpload_header(h, hl, "Transfer-Encoding", &vl)) != NULL)
		return httpload_fail(l, 1, "request %ld: Transfer-Encoding: %.*s, "
		    "expected a Content-Length", c->req, (int)vl, v);
	if ((v = httpload_header(h, hl, "Content-Length", &vl)) == NULL)
		return httpload_fail(l, 1, "request %ld: no Content-Length",
		    c->req);
	clen = strtoll(v, &end, 10);
	if (end != v + vl || vl == 0 || clen < 0)
		return httpload_fail(l, 1, "request %ld: bad Content-Length '%.*s'",
		    c->req, (int)vl, v);
	c->clen = clen;
	v = httpload_header(h, hl, "Connection", &vl);
	if (v != NULL && httpload_has_token(v, vl, "close"))
		return httpload_fail(l, 1, "request %ld: the server closes "
		    "connection %d after this response (Connection: close, "
		    "after %ld responses on it); the load needs it kept open",
		    c->req, c->id, c->served + 1);
	if (http10 && (v == NULL || !httpload_has_token(v, vl, "keep-alive")))
		return httpload_fail(l, 1, "request %ld: the server answered "
		    "HTTP/1.0 without keep-alive, so it closes connection %d "
		    "after each response; the load needs a persistent "
		    "connection", c->req, c->id);
	return 0;
}

static void
httpload_evidence(struct load *l, const struct conn *c, double lat,
    const char *hex)
{
	if (l->evidence == NULL)
		return;
	fprintf(l->evidence, "{\"req\":%ld,\"conn\":%d,\"local_port\":%d,"
	    "\"warmup\":%s,\"status\":%d,\"bytes\":%lld,\"sha256\":\"%s\","
	    "\"lat_ms\":%.6f}\n", c->req, c->id, c->local_port,
	    c->req <= l->o->warmup ? "true" : "false", c->status, c->clen,
	    hex, lat * 1e3);
}

/* The body is complete: check it and record the response. */
static int
httpload_finish(struct load *l, struct conn *c, double now)
{
	const struct httpload_opts *o = l->o;
	const char *body = c->buf + c->hdr_len;
	size_t blen = c->len - c->hdr_len;
	char hex[DIGEST_HEX_LEN] = "";
	double lat = now - c->t_sent;

	if ((long long)blen > c->clen)
		return httpload_fail(l, 1, "request %ld: %zu bytes past the "
		    "Content-Length of %lld on connection %d", c->req,
		    blen - (size_t)c->clen, c->clen, c->id);
	if (o->expect_bytes >= 0 && c->clen != o->expect_bytes)
		return httpload_fail(l, 1, "request %ld: body is %lld bytes, "
		    "expected %lld", c->req, c->clen, o->expect_bytes);
	if (o->expect_sha256[0] != '\0' || l->evidence != NULL)
		digest_buf(body, blen, hex);
	if (o->expect_sha256[0] != '\0' &&
	    strcasecmp(hex, o->expect_sha256) != 0)
		return httpload_fail(l, 1, "request %ld: body sha256 is %s, "
		    "expected %s", c->req, hex, o->expect_sha256);
	httpload_evidence(l, c, lat, hex);
	if (c->req > o->warmup) {
		double ns = lat * 1e9;

		httpload_hist_add(l->hist, ns > 0 ? (uint64_t)ns : 0);
		l->bytes += c->clen;
	}
	c->served++;
	c->req = 0;
	return 0;
}

int
httpload_check_response(const char *buf, size_t len,
    const struct httpload_opts *o, char *err, size_t errlen)
{
	struct httpload_opts dflt;
	struct load l;
	struct conn c;
	struct hist h;
	const char *e;
	int rc;

	if (o == NULL) {
		httpload_opts_init(&dflt);
		o = &dflt;
	}
	memset(&l, 0, sizeof l);
	memset(&c, 0, sizeof c);
	memset(&h, 0, sizeof h);
	l.o = o;
	l.err = err;
	l.errlen = errlen;
	l.hist = &h;
	c.id = 1;
	c.req = 1;
	/* The header parser reads a NUL-terminated buffer, as httpload_read
	 * keeps it. */
	c.buf = xmalloc(len + 1);
	memcpy(c.buf, buf, len);
	c.buf[len] = '\0';
	c.len = c.cap = len;
	if ((e = memmem(c.buf, len, "\r\n\r\n", 4)) == NULL) {
		rc = len > LOAD_MAX_HEADER ? httpload_fail(&l, 1, "response header "
		    "longer than %d bytes", LOAD_MAX_HEADER) : 2;
		goto out;
	}
	c.hdr_len = (size_t)(e - c.buf) + 4;
	if ((rc = httpload_check_header(&l, &c)) != 0)
		goto out;
	if ((long long)(c.len - c.hdr_len) < c.clen) {
		rc = 2;
		goto out;
	}
	rc = httpload_finish(&l, &c, clock_now());
out:
	free(c.buf);
	return rc;
}

/* Read what has arrived on c.  1 when its response is complete, 0 when
 * more is to come, -1 on a failed check. */
static int
httpload_read(struct load *l, struct conn *c, double *now)
{
	ssize_t n;

	if (c->cap - c->len < LOAD_READ_CHUNK) {
		c->cap = xgrow(c->cap, c->cap + 1, 2 * LOAD_READ_CHUNK);
		c->buf = xrealloc(c->buf, c->cap);
	}
	n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, MSG_DONTWAIT);
	*now = clock_now();
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n < 0)
		return httpload_fail(l, -1, "request %ld: connection %d failed: %s "
		    "(after %ld responses on it)", c->req, c->id,
		    strerror(errno), c->served);
	if (n == 0) {
		if (c->len == 0)
			return httpload_fail(l, -1, "request %ld: the server closed "
			    "connection %d after %ld responses on it, without "
			    "answering; the load needs it kept open", c->req,
			    c->id, c->served);
		return httpload_fail(l, -1, "request %ld: the server closed "
		    "connection %d in the middle of the response (%zu bytes "
		    "of it received)", c->req, c->id, c->len);
	}
	c->len += (size_t)n;
	c->buf[c->len] = '\0';
	if (c->hdr_len == 0) {
		char *e = memmem(c->buf, c->len, "\r\n\r\n", 4);

		if (e == NULL) {
			if (c->len > LOAD_MAX_HEADER)
				return httpload_fail(l, -1, "request %ld: response "
				    "header longer than %d bytes", c->req,
				    LOAD_MAX_HEADER);
			return 0;
		}
		c->hdr_len = (size_t)(e - c->buf) + 4;
		if (httpload_check_header(l, c) != 0)
			return -1;
	}
	if ((long long)(c->len - c->hdr_len) < c->clen)
		return 0;
	return httpload_finish(l, c, *now) == 0 ? 1 : -1;
}

/* After the last response: a connection the server has closed (or is
 * closing) was not kept open. */
static int
httpload_check_open(struct load *l, long last)
{
	for (int i = 0; i < l->o->connections; i++) {
		struct conn *c = &l->conns[i];
		struct pollfd p = { .fd = c->fd, .events = POLLIN | POLLRDHUP };
		char b;

		if (poll(&p, 1, 0) != 1)
			continue;
		if ((p.revents & (POLLRDHUP | POLLHUP | POLLERR)) ||
		    recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0)
			return httpload_fail(l, 1, "after request %ld: the server "
			    "closed connection %d (after %ld responses on it); "
			    "the load needs it kept open", last, c->id,
			    c->served);
		return httpload_fail(l, 1, "after request %ld: unexpected bytes "
		    "on connection %d with no request in flight", last, c->id);
	}
	return 0;
}

static int
httpload_write_metrics(struct load *l, const struct httpload_result *r)
{
	json_t *m = json_pack("{s:I, s:f, s:I, s:f, s:f, s:f, s:f}",
	    "requests", (json_int_t)r->requests, "rps", r->rps,
	    "bytes", (json_int_t)r->bytes, "lat_p50_ms", r->lat_p50_ms,
	    "lat_p90_ms", r->lat_p90_ms, "lat_p99_ms", r->lat_p99_ms,
	    "lat_max_ms", r->lat_max_ms);
	int rc;

	if (m == NULL)
		return httpload_fail(l, 1, "out of memory");
	rc = json_dump_file(m, l->o->metrics, JSON_COMPACT);
	json_decref(m);
	if (rc != 0)
		return httpload_fail(l, 1, "cannot write the metrics file %s",
		    l->o->metrics);
	return 0;
}

void
httpload_opts_init(struct httpload_opts *o)
{
	memset(o, 0, sizeof *o);
	o->requests = 1000;
	o->connections = 1;
	o->expect_status = 200;
	o->expect_bytes = -1;
	o->timeout_s = 30;
}

/* Requests sent and not yet answered. */
static int
httpload_in_flight(const struct load *l)
{
	int n = 0;

	for (int i = 0; i < l->o->connections; i++)
		n += l->conns[i].req != 0;
	return n;
}

/* Whether request next may go now: with hold_after_warmup, the first
 * counted request waits for the warm-up's last responses, and then this
 * process stops itself (a profiler attaches to the server meanwhile). */
static bool
httpload_may_send(struct load *l, long next, bool *held)
{
	const struct httpload_opts *o = l->o;

	if (next != o->warmup + 1 || o->warmup <= 0 || !o->hold_after_warmup ||
	    *held)
		return true;
	if (httpload_in_flight(l) > 0)
		return false;
	*held = true;
	raise(SIGSTOP);
	return true;
}

/* The loop: every idle connection gets the next request; poll waits for
 * any response.  O(connections) per wake-up, and --connections is small. */
static int
httpload_loop(struct load *l, struct httpload_result *res)
{
	const struct httpload_opts *o = l->o;
	long total = o->warmup + o->requests, next = 1, done = 0;
	int nc = o->connections;
	struct pollfd *pfd = xcalloc((size_t)nc, sizeof *pfd);
	double t0 = 0, t1 = 0, now = 0;
	int rc = 0;
	bool held = false;

	while (done < total) {
		int np = 0, pr;

		for (int i = 0; i < nc; i++) {
			struct conn *c = &l->conns[i];

			if (c->req == 0 && next <= total &&
			    httpload_may_send(l, next, &held)) {
				if (next == o->warmup + 1)
					t0 = clock_now();
				if ((rc = httpload_send(l, c, next++)) != 0)
					goto out;
			}
			if (c->req != 0) {
				pfd[np].fd = c->fd;
				pfd[np].events = POLLIN;
				pfd[np].revents = 0;
				np++;
			}
		}
		pr = poll(pfd, (nfds_t)np, (int)(o->timeout_s * 1000));
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			long oldest = 0;

			for (int i = 0; i < nc; i++)
				if (l->conns[i].req != 0 &&
				    (oldest == 0 || l->conns[i].req < oldest))
					oldest = l->conns[i].req;
			rc = httpload_fail(l, 1, "request %ld: no response within "
			    "%g s", oldest, o->timeout_s);
			goto out;
		}
		for (int i = 0, k = 0; i < nc; i++) {
			struct conn *c = &l->conns[i];
			int r;

			if (c->req == 0)
				continue;
			if (pfd[k++].revents == 0)
				continue;
			r = httpload_read(l, c, &now);
			if (r < 0) {
				rc = 1;
				goto out;
			}
			if (r == 1) {
				done++;
				t1 = now;
			}
		}
	}
	if ((rc = httpload_check_open(l, total)) != 0)
		goto out;
	res->requests = o->requests;
	res->seconds = t1 - t0;
	res->rps = res->seconds > 0 ? (double)o->requests / res->seconds : 0;
	res->bytes = l->bytes;
	res->lat_p50_ms = httpload_hist_quantile(l->hist, 0.50) / 1e6;
	res->lat_p90_ms = httpload_hist_quantile(l->hist, 0.90) / 1e6;
	res->lat_p99_ms = httpload_hist_quantile(l->hist, 0.99) / 1e6;
	res->lat_max_ms = (double)l->hist->max / 1e6;
out:
	free(pfd);
	return rc;
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
	if (o->requests < 1 || o->warmup < 0 || o->connections < 1)
		return httpload_fail(&l, 2, "--requests and --connections must be "
		    "at least 1, --warmup at least 0");
	if ((rc = httpload_parse_url(&l, o->url)) != 0)
		return rc;
	if ((rc = httpload_build_request(&l)) != 0)
		return rc;
	l.hist = xcalloc(1, sizeof *l.hist);
	l.conns = xcalloc((size_t)o->connections, sizeof *l.conns);
	for (int i = 0; i < o->connections; i++) {
		l.conns[i].fd = -1;
		l.conns[i].id = i + 1;
	}
	if (o->evidence != NULL &&
	    (l.evidence = fopen(o->evidence, "we")) == NULL) {
		rc = httpload_fail(&l, 2, "cannot write the evidence file %s: %s",
		    o->evidence, strerror(errno));
		goto out;
	}
	for (int i = 0; i < o->connections; i++)
		if ((rc = httpload_connect(&l, &l.conns[i])) != 0)
			goto out;
	rc = httpload_loop(&l, res);
	if (rc == 0 && o->metrics != NULL)
		rc = httpload_write_metrics(&l, res);
out:
	if (l.evidence != NULL && fclose(l.evidence) != 0 && rc == 0)
		rc = httpload_fail(&l, 1, "cannot write the evidence file %s: %s",
		    o->evidence, strerror(errno));
	if (l.conns != NULL)
		for (int i = 0; i < o->connections; i++) {
			if (l.conns[i].fd >= 0)
				close(l.conns[i].fd);
			free(l.conns[i].buf);
		}
	free(l.conns);
	free(l.hist);
	free(l.request);
	return rc;
}
