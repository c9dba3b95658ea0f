/* load_h2: one HTTP/2 connection of benchtui load (libnghttp2), carrying
 * up to --streams requests at once, each on a stream of its own.
 *
 * The checks are load_resp.c's, the same as over HTTP/1.1: a response's
 * header block is given to it as the HTTP/1.1 header it stands for (the
 * :status as the status line, the fields as they came; nghttp2 has
 * already refused a field with CR, LF or NUL in it), and its DATA as the
 * body (framed as chunks when no content-length said how long it is), so
 * the status, the coding, the length and the sha256 are checked as they
 * stream.  A stream the server resets, or that ends before its body does,
 * fails the run.
 *
 * Bytes go through the connection's load_io (the socket, or TLS after an
 * ALPN "h2" handshake).  What a read brings is given to nghttp2 whole;
 * the requests its callbacks submit (a closed loop sends the next request
 * from the completion of the last) and the frames nghttp2 owes (window
 * updates, acks) go out in one write after it. */
#include "load_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>

#include "xalloc.h"

/* The receive windows (h2load's defaults, -w 30 and -W 30): flow control
 * never holds a response back. */
#define LOAD_H2_WINDOW ((1 << 30) - 1)

struct load_h2_stream {
	void *slot;                    /* the caller's, given back when done */
	struct load_resp *resp;
	long req;
	int32_t id;                    /* 0: no request on it */
	int status;
	bool has_length, chunked, header_done;
	size_t body_off;               /* of the request body, sent so far */
	struct xbuf hdr;               /* the header block, as HTTP/1.1 */
};

struct load_h2 {
	nghttp2_session *sess;
	struct load_io *io;
	int conn;
	load_h2_done_fn done;
	nghttp2_nv *nva;               /* the request, the same every time */
	size_t nnv;
	char **owned;                  /* the strings nva points into */
	size_t nowned;
	const char *body;              /* a request body, or NULL */
	size_t body_len;
	const uint8_t *out;            /* what nghttp2 gave to send, unsent */
	size_t out_len;
	bool reading;                  /* in nghttp2_session_mem_recv */
	bool want_write, waits_read;
	double now;                    /* when the bytes being read came */
	long served;
	char why[1024];
	int nstreams;
	struct load_h2_stream st[];
};

static int
load_h2_failed(struct load_h2 *h, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int
load_h2_failed(struct load_h2 *h, const char *fmt, ...)
{
	va_list ap;

	if (h->why[0] != '\0')
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	va_start(ap, fmt);
	vsnprintf(h->why, sizeof h->why, fmt, ap);
	va_end(ap);
	return NGHTTP2_ERR_CALLBACK_FAILURE;
}

/* The response header so far, handed to load_resp.c as HTTP/1.1. */
static int
load_h2_header_done(struct load_h2 *h, struct load_h2_stream *s,
    bool end_stream)
{
	struct xbuf b = { 0 };
	size_t used;
	int rc;

	xbuf_printf(&b, "HTTP/1.1 %d -\r\n", s->status);
	if (s->hdr.len > 0)
		xbuf_add(&b, s->hdr.p, s->hdr.len);
	/* No length: the DATA frames are the body, framed as chunks. */
	s->chunked = !s->has_length && !end_stream && s->status != 204 &&
	    s->status != 304;
	if (s->chunked)
		xbuf_add(&b, "transfer-encoding: chunked\r\n", 28);
	xbuf_add(&b, "\r\n", 2);
	rc = load_resp_header(s->resp, b.p, b.len, &used, h->why,
	    sizeof h->why);
	free(b.p);
	s->header_done = true;
	if (rc < 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (rc == 0 || used != b.len)
		return load_h2_failed(h, "request %ld: the response header on "
		    "stream %d of connection %d was not taken whole", s->req,
		    s->id, h->conn);
	return 0;
}

/* Body bytes of s's response. */
static int
load_h2_body(struct load_h2 *h, struct load_h2_stream *s, const char *data,
    size_t len)
{
	size_t used;
	int rc;

	rc = load_resp_feed(s->resp, data, len, &used, h->why, sizeof h->why);
	if (rc < 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (used < len)
		return load_h2_failed(h, "request %ld: %zu bytes past the end of "
		    "the response (Content-Length %lld) on stream %d of "
		    "connection %d", s->req, len - used, s->resp->clen, s->id,
		    h->conn);
	return 0;
}

static int
load_h2_on_begin_headers(nghttp2_session *sess, const nghttp2_frame *f,
    void *arg)
{
	struct load_h2_stream *s = nghttp2_session_get_stream_user_data(sess,
	    f->hd.stream_id);

	(void)arg;
	if (s != NULL && !s->header_done) {
		s->hdr.len = 0;
		s->status = 0;
		s->has_length = false;
	}
	return 0;
}

static int
load_h2_on_header(nghttp2_session *sess, const nghttp2_frame *f,
    const uint8_t *name, size_t nlen, const uint8_t *value, size_t vlen,
    uint8_t flags, void *arg)
{
	struct load_h2_stream *s = nghttp2_session_get_stream_user_data(sess,
	    f->hd.stream_id);

	(void)flags;
	(void)arg;
	if (s == NULL || s->header_done)   /* trailers: nothing to check */
		return 0;
	if (nlen == 7 && memcmp(name, ":status", 7) == 0) {
		s->status = vlen == 3 ? atoi((const char *)value) : 0;
		return 0;
	}
	if (nlen == 14 && memcmp(name, "content-length", 14) == 0)
		s->has_length = true;
	xbuf_add(&s->hdr, (const char *)name, nlen);
	xbuf_add(&s->hdr, ": ", 2);
	xbuf_add(&s->hdr, (const char *)value, vlen);
	xbuf_add(&s->hdr, "\r\n", 2);
	return 0;
}

static int
load_h2_on_frame(nghttp2_session *sess, const nghttp2_frame *f, void *arg)
{
	struct load_h2 *h = arg;
	struct load_h2_stream *s;

	if (f->hd.type != NGHTTP2_HEADERS)
		return 0;
	s = nghttp2_session_get_stream_user_data(sess, f->hd.stream_id);
	if (s == NULL || s->header_done)
		return 0;
	/* An interim response (1xx): the final one follows. */
	if (s->status >= 100 && s->status < 200 && s->status != 101)
		return 0;
	return load_h2_header_done(h, s,
	    (f->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0);
}

static int
load_h2_on_data(nghttp2_session *sess, uint8_t flags, int32_t id,
    const uint8_t *data, size_t len, void *arg)
{
	struct load_h2 *h = arg;
	struct load_h2_stream *s = nghttp2_session_get_stream_user_data(sess,
	    id);
	char size[24];
	int rc;

	(void)flags;
	if (s == NULL || len == 0)
		return 0;
	if (!s->header_done)
		return load_h2_failed(h, "request %ld: DATA before the response "
		    "header on stream %d of connection %d", s->req, id, h->conn);
	if (!s->chunked)
		return load_h2_body(h, s, (const char *)data, len);
	snprintf(size, sizeof size, "%zx\r\n", len);
	if ((rc = load_h2_body(h, s, size, strlen(size))) != 0 ||
	    (rc = load_h2_body(h, s, (const char *)data, len)) != 0)
		return rc;
	return load_h2_body(h, s, "\r\n", 2);
}

static int
load_h2_on_close(nghttp2_session *sess, int32_t id, uint32_t code, void *arg)
{
	struct load_h2 *h = arg;
	struct load_h2_stream *s = nghttp2_session_get_stream_user_data(sess,
	    id);
	size_t used;
	int rc;

	if (s == NULL)
		return 0;
	if (code != NGHTTP2_NO_ERROR)
		return load_h2_failed(h, "request %ld: stream %d of connection %d "
		    "was reset (%s) after %zu bytes of its response", s->req, id,
		    h->conn, nghttp2_http2_strerror(code), s->resp->received);
	if (!s->header_done)
		return load_h2_failed(h, "request %ld: stream %d of connection %d "
		    "ended without a final response", s->req, id, h->conn);
	if (s->chunked && (rc = load_h2_body(h, s, "0\r\n\r\n", 5)) != 0)
		return rc;
	rc = load_resp_feed(s->resp, "", 0, &used, h->why, sizeof h->why);
	if (rc < 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (rc == 0)
		return load_h2_failed(h, "request %ld: stream %d of connection %d "
		    "ended in the middle of the body (%lld of %lld bytes)", s->req,
		    id, h->conn, s->resp->got, s->resp->clen);
	h->served++;
	if (h->done(s->slot, h->now) != 0)
		return load_h2_failed(h, "request %ld: stopped", s->req);
	return 0;
}

/* The request's fields, built once: pseudo-headers, then --header's
 * (names in lower case; Host becomes :authority, and what HTTP/2 forbids
 * is left out). */
static void
load_h2_nv(struct load_h2 *h, const struct load_target *t,
    const struct httpload_opts *o)
{
	const char *sp = memchr(t->request, ' ', t->request_len);
	char *authority = NULL;
	size_t cap = (size_t)o->nheaders + 8;

	h->nva = xcalloc(cap, sizeof *h->nva);
	h->owned = xcalloc(cap * 2, sizeof *h->owned);
#define NV_OWN(s) (h->owned[h->nowned++] = (s))
#define NV_ADD(n, v) do { \
		h->nva[h->nnv].name = (uint8_t *)(n); \
		h->nva[h->nnv].namelen = strlen(n); \
		h->nva[h->nnv].value = (uint8_t *)(v); \
		h->nva[h->nnv].valuelen = strlen(v); \
		h->nva[h->nnv].flags = NGHTTP2_NV_FLAG_NO_COPY_NAME | \
		    NGHTTP2_NV_FLAG_NO_COPY_VALUE; \
		h->nnv++; \
	} while (0)
	NV_ADD(":method", NV_OWN(xasprintf("%.*s", (int)(sp - t->request),
	    t->request)));
	NV_ADD(":scheme", t->https ? "https" : "http");
	for (int i = 0; i < o->nheaders; i++)
		if (strncasecmp(o->headers[i], "host:", 5) == 0)
			authority = NV_OWN(xstrdup(o->headers[i] + 5 +
			    strspn(o->headers[i] + 5, " \t")));
	NV_ADD(":authority", authority ? authority : t->hostport);
	NV_ADD(":path", t->path);
	NV_ADD("user-agent", "benchtui-load");
	NV_ADD("accept-encoding", o->accept_encoding != NULL ?
	    o->accept_encoding : "identity");
	for (int i = 0; i < o->nheaders; i++) {
		const char *hd = o->headers[i], *colon = strchr(hd, ':');
		char *name = NV_OWN(xasprintf("%.*s", (int)(colon - hd), hd));
		const char *v = colon + 1 + strspn(colon + 1, " \t");

		for (char *p = name; *p != '\0'; p++)
			if (*p >= 'A' && *p <= 'Z')
				*p = (char)(*p - 'A' + 'a');
		if (strcmp(name, "host") == 0 || strcmp(name, "connection") == 0 ||
		    strcmp(name, "keep-alive") == 0 || strcmp(name, "upgrade") == 0 ||
		    strcmp(name, "transfer-encoding") == 0 ||
		    strcmp(name, "proxy-connection") == 0)
			continue;
		/* A --header of the same name replaces benchtui's own. */
		for (size_t k = 4; k < 6; k++)
			if (strcmp((const char *)h->nva[k].name, name) == 0)
				h->nva[k].name = (uint8_t *)"x-benchtui-replaced";
		NV_ADD(name, v);
	}
	if (t->body_len > 0) {
		NV_ADD("content-length", NV_OWN(xasprintf("%zu", t->body_len)));
		h->body = t->request + t->request_len - t->body_len;
		h->body_len = t->body_len;
	}
#undef NV_ADD
#undef NV_OWN
	/* Replaced defaults are dropped, keeping the order of the rest. */
	for (size_t k = 4; k < 6 && k < h->nnv; k++)
		if (strcmp((const char *)h->nva[k].name,
		    "x-benchtui-replaced") == 0) {
			memmove(&h->nva[k], &h->nva[k + 1],
			    (h->nnv - k - 1) * sizeof *h->nva);
			h->nnv--;
			k--;
		}
}

static ssize_t
load_h2_read_body(nghttp2_session *sess, int32_t id, uint8_t *buf,
    size_t len, uint32_t *flags, nghttp2_data_source *src, void *arg)
{
	struct load_h2 *h = arg;
	size_t *off = src->ptr, n = h->body_len - *off;

	(void)sess;
	(void)id;
	if (n > len)
		n = len;
	memcpy(buf, h->body + *off, n);
	*off += n;
	if (*off == h->body_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

struct load_h2 *
load_h2_create(const struct load_target *t, const struct httpload_opts *o,
    struct load_io *io, int conn, load_h2_done_fn done)
{
	struct load_h2 *h = xcalloc(1, sizeof *h + (size_t)o->streams *
	    sizeof h->st[0]);
	nghttp2_session_callbacks *cb;
	nghttp2_settings_entry set[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, LOAD_H2_WINDOW },
	};

	h->io = io;
	h->conn = conn;
	h->done = done;
	h->nstreams = o->streams;
	load_h2_nv(h, t, o);
	if (nghttp2_session_callbacks_new(&cb) != 0)
		xalloc_die(sizeof *h);
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb,
	    load_h2_on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, load_h2_on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb,
	    load_h2_on_frame);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb,
	    load_h2_on_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb,
	    load_h2_on_close);
	if (nghttp2_session_client_new(&h->sess, cb, h) != 0)
		xalloc_die(sizeof *h);
	nghttp2_session_callbacks_del(cb);
	(void)nghttp2_submit_settings(h->sess, NGHTTP2_FLAG_NONE, set,
	    sizeof set / sizeof set[0]);
	(void)nghttp2_session_set_local_window_size(h->sess, NGHTTP2_FLAG_NONE,
	    0, LOAD_H2_WINDOW);
	return h;
}

void
load_h2_destroy(struct load_h2 *h)
{
	if (h == NULL)
		return;
	nghttp2_session_del(h->sess);
	for (int i = 0; i < h->nstreams; i++)
		free(h->st[i].hdr.p);
	for (size_t i = 0; i < h->nowned; i++)
		free(h->owned[i]);
	free(h->owned);
	free(h->nva);
	free(h);
}

int
load_h2_submit(struct load_h2 *h, int idx, void *slot,
    struct load_resp *resp, long req)
{
	struct load_h2_stream *s = &h->st[idx];
	nghttp2_data_provider dp = { .read_callback = load_h2_read_body };
	int32_t id;

	s->slot = slot;
	s->resp = resp;
	s->req = req;
	s->header_done = s->chunked = false;
	s->hdr.len = 0;
	s->body_off = 0;
	dp.source.ptr = &s->body_off;
	id = nghttp2_submit_request(h->sess, NULL, h->nva, h->nnv,
	    h->body != NULL ? &dp : NULL, s);
	if (id < 0) {
		snprintf(h->why, sizeof h->why, "request %ld: connection %d "
		    "takes no more requests (%s)", req, h->conn,
		    nghttp2_strerror(id));
		return -1;
	}
	s->id = id;
	return h->reading ? 0 : load_h2_flush(h);
}

int
load_h2_flush(struct load_h2 *h)
{
	ssize_t n;

	h->waits_read = h->want_write = false;
	for (;;) {
		if (h->out_len == 0) {
			n = nghttp2_session_mem_send(h->sess, &h->out);
			if (n < 0) {
				snprintf(h->why, sizeof h->why, "connection %d: HTTP/2: "
				    "%s", h->conn, nghttp2_strerror((int)n));
				return -1;
			}
			if (n == 0)
				return 0;
			h->out_len = (size_t)n;
		}
		n = load_io_send(h->io, h->out, h->out_len);
		if (n == LOAD_IO_AGAIN) {
			h->want_write = h->io->want_write;
			h->waits_read = !h->io->want_write;
			return 0;
		}
		if (n < 0) {
			snprintf(h->why, sizeof h->why, "connection %d: %s (after "
			    "%ld responses on it)", h->conn, h->io->why, h->served);
			return -1;
		}
		h->out += n;
		h->out_len -= (size_t)n;
	}
}

int
load_h2_read(struct load_h2 *h, char *buf, size_t size, double (*now)(void))
{
	ssize_t n, used;

	/* TLS reads on while it says there is more (load_tls.c). */
	for (int i = 0; i < 8 || (h->io->ssl != NULL && h->io->more); i++) {
		n = load_io_recv(h->io, buf, size);
		if (n == LOAD_IO_AGAIN) {
			h->want_write = h->want_write || h->io->want_write;
			break;
		}
		if (n == 0 || n < 0) {
			snprintf(h->why, sizeof h->why, "the server %s connection %d "
			    "(%s) after %ld responses on it; the load needs it kept "
			    "open", n == 0 ? "closed" : "broke", h->conn,
			    n == 0 ? "end of stream" : h->io->why, h->served);
			return -1;
		}
		h->now = now();
		h->reading = true;
		used = nghttp2_session_mem_recv(h->sess, (const uint8_t *)buf,
		    (size_t)n);
		h->reading = false;
		if (h->why[0] != '\0')
			return -1;
		if (used < 0) {
			snprintf(h->why, sizeof h->why, "connection %d: HTTP/2: %s "
			    "(after %ld responses on it)", h->conn,
			    nghttp2_strerror((int)used), h->served);
			return -1;
		}
		if (!h->io->more)
			break;
	}
	return load_h2_flush(h);
}

bool
load_h2_wants_write(const struct load_h2 *h)
{
	return h->want_write;
}

bool
load_h2_waits_read(const struct load_h2 *h)
{
	return h->waits_read;
}

const char *
load_h2_why(const struct load_h2 *h)
{
	return h->why;
}

int32_t
load_h2_stream(const struct load_h2 *h, int idx)
{
	return h->st[idx].id;
}
