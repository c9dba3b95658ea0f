/* load_resp: one HTTP/1.1 response read as it arrives, in pieces of any
 * size, and checked: the header is gathered (only while it is incomplete,
 * up to LOAD_MAX_HEADER however it arrives) and checked before any of the
 * body is read, so a wrong status, size or framing ends the run without
 * reading the body; the body is then hashed (or compared with a body that
 * already passed) piece by piece and never held whole.
 *
 * Strict where the HTTP/1.1 grammar leaves a reader a choice that would let
 * two readers disagree on where a response ends: one Content-Length value
 * (repeats only if equal), digits only; no Transfer-Encoding; no folded or
 * nameless header lines; no bare CR or NUL.  Lines may end in LF alone (RFC
 * 9112 2.2 lets a reader accept that). */
#include "load_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

/* A Content-Length of more digits could overflow a long long. */
#define LOAD_CLEN_DIGITS 18

int
load_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return rc;
}

void
load_check_init(struct load_check *k, const struct httpload_opts *o)
{
	k->expect_status = o->expect_status;
	k->expect_bytes = o->expect_bytes;
	k->expect_sha256 = o->expect_sha256;
	k->head = o->method != NULL && strcmp(o->method, "HEAD") == 0;
	k->digest = o->expect_sha256[0] != '\0' || o->evidence != NULL;
}

void
load_resp_init(struct load_resp *r, const struct load_check *chk,
    struct load_ref *ref, int conn)
{
	memset(r, 0, sizeof *r);
	r->chk = chk;
	r->ref = ref;
	r->conn = conn;
	r->state = LOAD_RESP_DONE;
}

void
load_resp_start(struct load_resp *r, long req, long served)
{
	r->state = LOAD_RESP_HEADER;
	r->req = req;
	r->served = served;
	r->hlen = 0;
	r->received = 0;
	r->status = 0;
	r->clen = 0;
	r->got = 0;
	r->matching = r->hashing = r->capture = false;
	r->hex[0] = '\0';
}

void
load_resp_finish(struct load_resp *r)
{
	free(r->hbuf);
	digest_destroy(r->dctx);
	r->hbuf = NULL;
	r->dctx = NULL;
}

void
load_ref_init(struct load_ref *ref)
{
	memset(ref, 0, sizeof *ref);
	ref->good_len = -1;
}

void
load_ref_finish(struct load_ref *ref)
{
	free(ref->body);
	load_ref_init(ref);
}

/* Server text for a message: at most 60 bytes, anything but printable
 * ASCII shown as '?' (a hostile server cannot write to the terminal). */
static const char *
load_resp_show(const char *s, size_t n, char out[72])
{
	size_t k = n > 60 ? 60 : n;

	for (size_t i = 0; i < k; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(out + k, n > k ? "..." : "");
	return out;
}

/* The offset just past the blank line that ends a header in b[0..len)
 * ("\n\n" or "\n\r\n", or a blank first line), looking at newlines from
 * from on; 0 when there is none yet. */
static size_t
load_resp_header_end(const char *b, size_t len, size_t from)
{
	const char *p;
	size_t k;

	if (from == 0 && len > 0 && b[0] == '\n')
		return 1;
	if (from == 0 && len > 1 && b[0] == '\r' && b[1] == '\n')
		return 2;
	while (from < len && (p = memchr(b + from, '\n', len - from)) != NULL) {
		k = (size_t)(p - b);
		if (k + 1 < len && b[k + 1] == '\n')
			return k + 2;
		if (k + 2 < len && b[k + 1] == '\r' && b[k + 2] == '\n')
			return k + 3;
		from = k + 1;
	}
	return 0;
}

static bool
load_resp_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

/* Whether the comma list v[0..len) holds token (case-insensitive). */
static bool
load_resp_has_token(const char *v, size_t len, const char *token)
{
	size_t tl = strlen(token);

	for (size_t i = 0; i + tl <= len; i++)
		if (strncasecmp(v + i, token, tl) == 0 &&
		    (i == 0 || v[i - 1] == ',' || v[i - 1] == ' ') &&
		    (i + tl == len || v[i + tl] == ',' || v[i + tl] == ' '))
			return true;
	return false;
}

/* What the header lines said, gathered before they are judged. */
struct load_hdr {
	bool http10, have_clen, close, keep_alive;
	long long clen;
};

static int
load_resp_status_line(struct load_resp *r, const char *l, size_t n,
    struct load_hdr *h, char *err, size_t errlen)
{
	char show[72];

	if (n < 9 || memcmp(l, "HTTP/1.", 7) != 0 ||
	    (l[7] != '0' && l[7] != '1') || l[8] != ' ')
		return load_fail(err, errlen, -1, "request %ld: connection %d: "
		    "not an HTTP/1.x response: '%s'", r->req, r->conn,
		    load_resp_show(l, n, show));
	if (n < 12 || l[9] < '1' || l[9] > '9' || l[10] < '0' || l[10] > '9' ||
	    l[11] < '0' || l[11] > '9' || (n > 12 && l[12] != ' '))
		return load_fail(err, errlen, -1, "request %ld: bad status line "
		    "'%s'", r->req, load_resp_show(l, n, show));
	h->http10 = l[7] == '0';
	r->status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	if (r->status != r->chk->expect_status)
		return load_fail(err, errlen, -1, "request %ld: status %d, "
		    "expected %d", r->req, r->status, r->chk->expect_status);
	return 0;
}

/* A Content-Length value: digits only, a list only of equal values, and
 * equal to any earlier one. */
static int
load_resp_clen(struct load_resp *r, const char *v, size_t vl,
    struct load_hdr *h, char *err, size_t errlen)
{
	const char *p = v, *end = v + vl;
	char show[72];

	while (p <= end) {
		const char *comma = memchr(p, ',', (size_t)(end - p));
		const char *e = comma != NULL ? comma : end;
		long long x = 0;
		size_t nd;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
			e--;
		nd = (size_t)(e - p);
		if (nd == 0 || strspn(p, "0123456789") < nd)
			return load_fail(err, errlen, -1, "request %ld: bad "
			    "Content-Length '%s' (digits only)", r->req,
			    load_resp_show(v, vl, show));
		if (nd > LOAD_CLEN_DIGITS)
			return load_fail(err, errlen, -1, "request %ld: "
			    "Content-Length '%s' is too large", r->req,
			    load_resp_show(v, vl, show));
		for (; p < e; p++)
			x = x * 10 + (*p - '0');
		if (h->have_clen && x != h->clen)
			return load_fail(err, errlen, -1, "request %ld: two "
			    "Content-Length values that differ (%lld and %lld); "
			    "where the body ends is ambiguous", r->req, h->clen,
			    x);
		h->have_clen = true;
		h->clen = x;
		if (comma == NULL)
			break;
		p = comma + 1;
	}
	return 0;
}

/* One "Name: value" line (CR and LF gone). */
static int
load_resp_field(struct load_resp *r, const char *l, size_t n, int lineno,
    struct load_hdr *h, char *err, size_t errlen)
{
	const char *colon = memchr(l, ':', n), *v;
	size_t nl, vl;
	char show[72];

	if (l[0] == ' ' || l[0] == '\t')
		return load_fail(err, errlen, -1, "request %ld: header line %d "
		    "is folded (starts with white space), which HTTP/1.1 "
		    "forbids", r->req, lineno + 1);
	nl = colon != NULL ? (size_t)(colon - l) : 0;
	for (size_t i = 0; i < nl; i++)
		if (!load_resp_tchar(l[i]))
			nl = 0;
	if (nl == 0)
		return load_fail(err, errlen, -1, "request %ld: header line %d "
		    "is not NAME: VALUE: '%s'", r->req, lineno + 1,
		    load_resp_show(l, n, show));
	v = colon + 1;
	vl = n - nl - 1;
	while (vl > 0 && (*v == ' ' || *v == '\t'))
		v++, vl--;
	while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
		vl--;
	if (nl == 14 && strncasecmp(l, "Content-Length", nl) == 0)
		return load_resp_clen(r, v, vl, h, err, errlen);
	if (nl == 17 && strncasecmp(l, "Transfer-Encoding", nl) == 0)
		return load_fail(err, errlen, -1, "request %ld: "
		    "Transfer-Encoding: %s, expected a Content-Length", r->req,
		    load_resp_show(v, vl, show));
	if (nl == 16 && strncasecmp(l, "Content-Encoding", nl) == 0 &&
	    !(vl == 8 && strncasecmp(v, "identity", 8) == 0))
		return load_fail(err, errlen, -1, "request %ld: Content-Encoding: "
		    "%s, expected none (the body is checked as sent)", r->req,
		    load_resp_show(v, vl, show));
	if (nl == 10 && strncasecmp(l, "Connection", nl) == 0) {
		h->close |= load_resp_has_token(v, vl, "close");
		h->keep_alive |= load_resp_has_token(v, vl, "keep-alive");
	}
	return 0;
}

/* The header's lines, in h[0..hl) (its blank line included). */
static int
load_resp_lines(struct load_resp *r, const char *hdr, size_t hl,
    struct load_hdr *h, char *err, size_t errlen)
{
	const char *p = hdr, *end = hdr + hl, *nl;
	int lineno = 0, rc;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL;
	    p = nl + 1, lineno++) {
		size_t n = (size_t)(nl - p);

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (lineno > 0 && n == 0)
			break;
		if (lineno > 0 && (memchr(p, '\r', n) != NULL ||
		    memchr(p, '\0', n) != NULL))
			return load_fail(err, errlen, -1, "request %ld: a stray CR "
			    "or NUL byte in header line %d", r->req, lineno + 1);
		rc = lineno == 0 ?
		    load_resp_status_line(r, p, n, h, err, errlen) :
		    load_resp_field(r, p, n, lineno, h, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* The body's framing and size, from the header, before any of it is read:
 * sets r->clen and what reading it will do. */
static int
load_resp_framing(struct load_resp *r, const struct load_hdr *h, char *err,
    size_t errlen)
{
	const struct load_check *k = r->chk;
	struct load_ref *ref = r->ref;
	bool bodyless = k->head || r->status == 204 || r->status == 304 ||
	    r->status < 200;
	long long size = h->have_clen ? h->clen : 0;

	if (!h->have_clen && !bodyless)
		return load_fail(err, errlen, -1, "request %ld: no Content-Length",
		    r->req);
	if (h->close)
		return load_fail(err, errlen, -1, "request %ld: the server closes "
		    "connection %d after this response (Connection: close, "
		    "after %ld responses on it); the load needs it kept open",
		    r->req, r->conn, r->served + 1);
	if (h->http10 && !h->keep_alive)
		return load_fail(err, errlen, -1, "request %ld: the server answered "
		    "HTTP/1.0 without keep-alive, so it closes connection %d "
		    "after each response; the load needs a persistent "
		    "connection", r->req, r->conn);
	if (k->expect_bytes >= 0 && size != k->expect_bytes)
		return load_fail(err, errlen, -1, "request %ld: body is %lld bytes, "
		    "expected %lld", r->req, size, k->expect_bytes);
	r->clen = bodyless ? 0 : size;
	if (ref->good_len >= 0 && r->clen != ref->good_len)
		return load_fail(err, errlen, -1, "request %ld: body is %lld bytes, "
		    "but a body of %lld bytes had the expected sha256", r->req,
		    r->clen, ref->good_len);
	if (!k->digest)
		return 0;
	r->matching = ref->set && ref->len == (size_t)r->clen;
	r->hashing = !r->matching;
	r->capture = !ref->set && r->clen <= LOAD_REF_MAX;
	if (r->hashing) {
		if (r->dctx == NULL)
			r->dctx = digest_create();
		digest_start(r->dctx);
	}
	if (r->capture && ref->cap < (size_t)r->clen) {
		ref->cap = (size_t)r->clen;
		ref->body = xrealloc(ref->body, ref->cap);
	}
	return 0;
}

/* Take header bytes from data[0..n): 1 the header is complete and passed
 * (*off past its blank line), 0 more is to come (all taken), -1 it failed. */
static int
load_resp_take_header(struct load_resp *r, const char *data, size_t n,
    size_t *off, char *err, size_t errlen)
{
	size_t old = r->hlen, end, k;
	const char *hdr;
	struct load_hdr h = { 0 };

	if (old == 0) {
		end = load_resp_header_end(data, n < LOAD_MAX_HEADER ? n :
		    LOAD_MAX_HEADER, 0);
		k = end != 0 ? end : (n < LOAD_MAX_HEADER ? n : LOAD_MAX_HEADER);
		hdr = data;
	} else {
		k = n < LOAD_MAX_HEADER - old ? n : LOAD_MAX_HEADER - old;
		end = 0;
		hdr = r->hbuf;
	}
	if (end == 0 && k > 0) {
		if (r->hcap < old + k) {
			r->hcap = xgrow(r->hcap, old + k, 4096);
			r->hbuf = xrealloc(r->hbuf, r->hcap);
		}
		memcpy(r->hbuf + old, data, k);
		r->hlen = old + k;
		hdr = r->hbuf;
		end = load_resp_header_end(r->hbuf, r->hlen, old >= 2 ? old - 2 : 0);
		if (end != 0)
			k = end - old;
	}
	*off = k;
	r->received += k;
	if (end == 0) {
		size_t have = old + k;
		const char *nl = memchr(r->hbuf, '\n', have);

		/* A wrong status line ends the run as soon as it is whole, as
		 * the whole header would (its first check), however the bytes
		 * came. */
		if (nl != NULL) {
			size_t ln = (size_t)(nl - r->hbuf);

			if (ln > 0 && r->hbuf[ln - 1] == '\r')
				ln--;
			if (load_resp_status_line(r, r->hbuf, ln, &h, err,
			    errlen) != 0)
				return -1;
		}
		if (have >= LOAD_MAX_HEADER)
			return load_fail(err, errlen, -1, "request %ld: response "
			    "header longer than %d bytes", r->req,
			    LOAD_MAX_HEADER);
		return 0;
	}
	r->hlen = 0;
	if (load_resp_lines(r, hdr, end, &h, err, errlen) != 0 ||
	    load_resp_framing(r, &h, err, errlen) != 0)
		return -1;
	r->state = LOAD_RESP_BODY;
	return 1;
}

static void
load_resp_body(struct load_resp *r, const char *d, size_t n)
{
	if (r->matching && memcmp(r->ref->body + r->got, d, n) != 0) {
		/* Not the kept body after all: hash what matched of it, then go
		 * on hashing. */
		r->matching = false;
		r->hashing = true;
		if (r->dctx == NULL)
			r->dctx = digest_create();
		digest_start(r->dctx);
		digest_update(r->dctx, r->ref->body, (size_t)r->got);
	}
	if (r->hashing)
		digest_update(r->dctx, d, n);
	if (r->capture)
		memcpy(r->ref->body + r->got, d, n);
	r->got += (long long)n;
}

static int
load_resp_done(struct load_resp *r, char *err, size_t errlen)
{
	const struct load_check *k = r->chk;
	struct load_ref *ref = r->ref;

	r->state = LOAD_RESP_DONE;
	if (k->digest) {
		if (r->matching)
			memcpy(r->hex, ref->hex, DIGEST_HEX_LEN);
		else
			digest_finish(r->dctx, r->hex);
	}
	if (k->expect_sha256[0] != '\0' &&
	    strcasecmp(r->hex, k->expect_sha256) != 0)
		return load_fail(err, errlen, -1, "request %ld: body sha256 is %s, "
		    "expected %s", r->req, r->hex, k->expect_sha256);
	if (k->expect_sha256[0] != '\0')
		ref->good_len = r->clen;
	if (r->capture && r->hex[0] != '\0') {
		ref->set = true;
		ref->len = (size_t)r->clen;
		memcpy(ref->hex, r->hex, DIGEST_HEX_LEN);
	}
	return 1;
}

int
load_resp_header(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen)
{
	*used = 0;
	if (r->state != LOAD_RESP_HEADER)
		return 1;
	return load_resp_take_header(r, data, n, used, err, errlen);
}

long long
load_resp_left(const struct load_resp *r)
{
	return r->state == LOAD_RESP_BODY ? r->clen - r->got : -1;
}

int
load_resp_feed(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen)
{
	size_t off = 0, take;
	int rc;

	if ((rc = load_resp_header(r, data, n, &off, err, errlen)) != 1) {
		*used = off;
		return rc;
	}
	*used = off;
	if (r->state != LOAD_RESP_BODY)
		return 1;
	take = n - off;
	if ((long long)take > r->clen - r->got)
		take = (size_t)(r->clen - r->got);
	if (take > 0)
		load_resp_body(r, data + off, take);
	r->received += take;
	*used = off + take;
	if (r->got < r->clen)
		return 0;
	return load_resp_done(r, err, errlen);
}

int
httpload_check_response(const char *buf, size_t len, size_t chunk,
    const struct httpload_opts *o, char *err, size_t errlen)
{
	struct httpload_opts dflt;
	struct load_check k;
	struct load_ref ref;
	struct load_resp r;
	size_t off = 0, used, step;
	int rc = 0;

	if (o == NULL) {
		httpload_opts_init(&dflt);
		o = &dflt;
	}
	load_check_init(&k, o);
	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	load_resp_start(&r, 1, 0);
	while (off < len && rc == 0) {
		step = chunk == 0 || chunk > len - off ? len - off : chunk;
		rc = load_resp_feed(&r, buf + off, step, &used, err, errlen);
		off += used;
	}
	if (rc == 1 && off < len)
		rc = load_fail(err, errlen, -1, "request 1: %zu bytes past the end "
		    "of the response on connection 1", len - off);
	load_resp_finish(&r);
	load_ref_finish(&ref);
	return rc == 1 ? 0 : rc == 0 ? 2 : 1;
}
