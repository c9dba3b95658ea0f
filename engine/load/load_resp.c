/* load_resp: one HTTP/1.1 response read as it arrives, in pieces of any
 * size, and checked: the header is gathered (only while it is incomplete,
 * up to LOAD_MAX_HEADER however it arrives) and checked before any of the
 * body is read, so a wrong status, size or framing ends the run without
 * reading the body; the body is then hashed (or compared with a body that
 * already passed) piece by piece and never held whole.  Interim 1xx
 * responses before the final one are read and skipped.
 *
 * The body is framed as RFC 9112 6.3 says: none for HEAD, 1xx, 204 and
 * 304; chunked (load_chunk.c) when Transfer-Encoding says so; else
 * Content-Length; else it ends when the server closes.  Strict where the
 * grammar leaves a reader a choice that would let two readers disagree on
 * where a response ends: one Content-Length value (repeats only if equal),
 * digits only; no Transfer-Encoding beside it, in HTTP/1.0, or naming
 * another coding than chunked; no folded or nameless header lines; no bare
 * CR or NUL in the status line or a header line.  Lines may end in LF alone
 * (RFC 9112 2.2 lets a reader accept that). */
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
	k->accept_encoding = o->accept_encoding;
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
	r->interim = 0;
	r->frame = LOAD_FRAME_NONE;
	r->closes = r->upgraded = false;
	r->clen = 0;
	r->got = 0;
	r->limit = -1;
	r->cstate = LOAD_CHUNK_SIZE;
	r->chunk_left = 0;
	r->chunks = 0;
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

const char *
load_resp_show(const char *s, size_t n, char out[72])
{
	size_t k = n > 60 ? 60 : n;

	for (size_t i = 0; i < k; i++)
		out[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	strcpy(out + k, n > k ? "..." : "");
	return out;
}

/* A blank line is "\n\n" or "\n\r\n" in b, or a blank first line. */
size_t
load_resp_fields_end(const char *b, size_t len, size_t from)
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

/* The next element of the comma list [*p, end) (RFC 9110 5.6.1: white
 * space around elements, empty elements skipped), its parameters (";...")
 * cut off: false at the list's end. */
static bool
load_resp_list_next(const char **p, const char *end, const char **e,
    size_t *el)
{
	for (;;) {
		const char *s = *p, *comma, *stop, *semi;

		if (s >= end)
			return false;
		comma = memchr(s, ',', (size_t)(end - s));
		stop = comma != NULL ? comma : end;
		*p = comma != NULL ? comma + 1 : end;
		semi = memchr(s, ';', (size_t)(stop - s));
		if (semi != NULL)
			stop = semi;
		while (s < stop && (*s == ' ' || *s == '\t'))
			s++;
		while (stop > s && (stop[-1] == ' ' || stop[-1] == '\t'))
			stop--;
		if (stop > s) {
			*e = s;
			*el = (size_t)(stop - s);
			return true;
		}
	}
}

/* Whether the comma list v[0..len) holds token (case-insensitive). */
static bool
load_resp_has_token(const char *v, size_t len, const char *token)
{
	const char *p = v, *e;
	size_t el, tl = strlen(token);

	while (load_resp_list_next(&p, v + len, &e, &el))
		if (el == tl && strncasecmp(e, token, el) == 0)
			return true;
	return false;
}

/* What the header lines said, gathered before they are judged. */
struct load_hdr {
	bool http10, have_clen, close, keep_alive;
	long long clen;
	int te;                        /* Transfer-Encoding lines */
	int chunked;                   /* chunked codings named */
	bool te_last_chunked;          /* the last coding named is chunked */
};

/* The status line: a refusal only (set_status false) while the rest of the
 * header is still to come, else the status too. */
static int
load_resp_status_line(struct load_resp *r, const char *l, size_t n,
    struct load_hdr *h, char *err, size_t errlen)
{
	const struct load_check *k = r->chk;
	char show[72];
	int status;

	/* HTTP-version is "HTTP/" DIGIT "." DIGIT; a 1.x above 1.1 is read as
	 * 1.1 (RFC 9110 6.2). */
	if (n < 9 || memcmp(l, "HTTP/1.", 7) != 0 || l[7] < '0' ||
	    l[7] > '9' || l[8] != ' ')
		return load_fail(err, errlen, -1, "request %ld: connection %d: "
		    "not an HTTP/1.x response: '%s'%s", r->req, r->conn,
		    load_resp_show(l, n, show), r->served > 0 ? " (the previous "
		    "response's body may be longer than its framing said)" : "");
	if (memchr(l, '\r', n) != NULL || memchr(l, '\0', n) != NULL)
		return load_fail(err, errlen, -1, "request %ld: a stray CR or NUL "
		    "byte in the status line", r->req);
	if (n < 12 || l[9] < '1' || l[9] > '9' || l[10] < '0' || l[10] > '9' ||
	    l[11] < '0' || l[11] > '9' || (n > 12 && l[12] != ' '))
		return load_fail(err, errlen, -1, "request %ld: bad status line "
		    "'%s'", r->req, load_resp_show(l, n, show));
	h->http10 = l[7] == '0';
	status = (l[9] - '0') * 100 + (l[10] - '0') * 10 + (l[11] - '0');
	r->status = status;
	if (status == 101 && k->expect_status != 101)
		return load_fail(err, errlen, -1, "request %ld: status 101 "
		    "Switching Protocols, expected %d: the connection would no "
		    "longer speak HTTP (--expect-status 101 accepts it)", r->req,
		    k->expect_status);
	/* An interim response: the final one follows (RFC 9110 15.2). */
	if (status < 200 && status != 101)
		return 0;
	if (status != k->expect_status)
		return load_fail(err, errlen, -1, "request %ld: status %d, "
		    "expected %d", r->req, status, k->expect_status);
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

/* Transfer-Encoding: only chunked (the request offered no other transfer
 * coding, RFC 9112 7.4), once, and last (6.1). */
static int
load_resp_te(struct load_resp *r, const char *v, size_t vl,
    struct load_hdr *h, char *err, size_t errlen)
{
	const char *p = v, *e;
	size_t el;
	char show[72];

	h->te++;
	while (load_resp_list_next(&p, v + vl, &e, &el)) {
		h->te_last_chunked = el == 7 && strncasecmp(e, "chunked", 7) == 0;
		if (!h->te_last_chunked)
			return load_fail(err, errlen, -1, "request %ld: "
			    "Transfer-Encoding: %s: a transfer coding other than "
			    "chunked, which the request did not offer", r->req,
			    load_resp_show(v, vl, show));
		if (++h->chunked > 1)
			return load_fail(err, errlen, -1, "request %ld: "
			    "Transfer-Encoding names chunked twice (RFC 9112 "
			    "6.1)", r->req);
	}
	return 0;
}

/* Content-Encoding: none, or codings --accept-encoding named (the body is
 * then checked as sent). */
static int
load_resp_coding(struct load_resp *r, const char *v, size_t vl,
    char *err, size_t errlen)
{
	const char *acc = r->chk->accept_encoding, *p = v, *e, *q, *a;
	size_t el, al;
	char show[72];
	bool named;

	while (load_resp_list_next(&p, v + vl, &e, &el)) {
		if (el == 8 && strncasecmp(e, "identity", 8) == 0)
			continue;
		if (acc == NULL)
			return load_fail(err, errlen, -1, "request %ld: "
			    "Content-Encoding: %s, expected none (the body is "
			    "checked as sent; --accept-encoding asks for a coding)",
			    r->req, load_resp_show(v, vl, show));
		named = false;
		for (q = acc; !named && load_resp_list_next(&q, acc + strlen(acc),
		    &a, &al);)
			named = (al == el && strncasecmp(a, e, el) == 0) ||
			    (al == 1 && *a == '*');
		if (!named)
			return load_fail(err, errlen, -1, "request %ld: "
			    "Content-Encoding: %s, which --accept-encoding '%s' "
			    "does not name", r->req, load_resp_show(v, vl, show),
			    acc);
	}
	return 0;
}

/* load_resp_field_split, inlined where every header line goes. */
static inline __attribute__((always_inline)) int
load_resp_split(const char *l, size_t n, const char **v, size_t *vl)
{
	const char *colon = memchr(l, ':', n);
	size_t nl;

	if (n > 0 && (l[0] == ' ' || l[0] == '\t'))
		return -1;
	if (memchr(l, '\r', n) != NULL || memchr(l, '\0', n) != NULL)
		return -2;
	nl = colon != NULL ? (size_t)(colon - l) : 0;
	for (size_t i = 0; i < nl; i++)
		if (!load_resp_tchar(l[i]))
			return 0;
	if (nl == 0)
		return 0;
	*v = colon + 1;
	*vl = n - nl - 1;
	while (*vl > 0 && (**v == ' ' || **v == '\t'))
		(*v)++, (*vl)--;
	while (*vl > 0 && ((*v)[*vl - 1] == ' ' || (*v)[*vl - 1] == '\t'))
		(*vl)--;
	return (int)nl;
}

int
load_resp_field_split(const char *l, size_t n, const char **v, size_t *vl)
{
	return load_resp_split(l, n, v, vl);
}

/* One "Name: value" line (CR and LF gone). */
static int
load_resp_field(struct load_resp *r, const char *l, size_t n, int lineno,
    struct load_hdr *h, char *err, size_t errlen)
{
	const char *v = NULL;
	size_t nl, vl = 0;
	char show[72];
	int rc = load_resp_split(l, n, &v, &vl);

	if (rc == -1)
		return load_fail(err, errlen, -1, "request %ld: header line %d "
		    "is folded (starts with white space), which HTTP/1.1 "
		    "forbids", r->req, lineno + 1);
	if (rc == -2)
		return load_fail(err, errlen, -1, "request %ld: a stray CR or NUL "
		    "byte in header line %d", r->req, lineno + 1);
	if (rc == 0)
		return load_fail(err, errlen, -1, "request %ld: header line %d "
		    "is not NAME: VALUE: '%s'", r->req, lineno + 1,
		    load_resp_show(l, n, show));
	nl = (size_t)rc;
	if (nl == 14 && strncasecmp(l, "Content-Length", nl) == 0)
		return load_resp_clen(r, v, vl, h, err, errlen);
	if (nl == 17 && strncasecmp(l, "Transfer-Encoding", nl) == 0)
		return load_resp_te(r, v, vl, h, err, errlen);
	if (nl == 16 && strncasecmp(l, "Content-Encoding", nl) == 0)
		return load_resp_coding(r, v, vl, err, errlen);
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
		rc = lineno == 0 ?
		    load_resp_status_line(r, p, n, h, err, errlen) :
		    load_resp_field(r, p, n, lineno, h, err, errlen);
		if (rc != 0)
			return rc;
	}
	return 0;
}

/* How the body ends (RFC 9112 6.3), and whether the connection does after
 * it (9.3): r->frame, r->closes. */
static int
load_resp_frame(struct load_resp *r, const struct load_hdr *h, char *err,
    size_t errlen)
{
	const struct load_check *k = r->chk;

	if (h->te > 0 && h->have_clen)
		return load_fail(err, errlen, -1, "request %ld: both "
		    "Transfer-Encoding and Content-Length: where the body ends "
		    "is ambiguous (RFC 9112 6.3)", r->req);
	if (h->te > 0 && h->http10)
		return load_fail(err, errlen, -1, "request %ld: Transfer-Encoding "
		    "in an HTTP/1.0 response, whose framing is then faulty "
		    "(RFC 9112 6.1)", r->req);
	if (h->te > 0 && !h->te_last_chunked)
		return load_fail(err, errlen, -1, "request %ld: Transfer-Encoding "
		    "names no coding", r->req);
	r->closes = h->close || (h->http10 && !h->keep_alive);
	if (r->status == 101) {
		r->upgraded = r->closes = true;
		r->frame = LOAD_FRAME_NONE;
	} else if (k->head || r->status == 204 || r->status == 304)
		r->frame = LOAD_FRAME_NONE;
	else if (h->te > 0)
		r->frame = LOAD_FRAME_CHUNKED;
	else if (h->have_clen)
		r->frame = LOAD_FRAME_LENGTH;
	else {
		r->frame = LOAD_FRAME_CLOSE;
		r->closes = true;
	}
	return 0;
}

/* The body's framing and size, from the header, before any of it is read:
 * sets r->clen (a length known now) or r->limit, and what reading it will
 * do. */
static int
load_resp_framing(struct load_resp *r, const struct load_hdr *h, char *err,
    size_t errlen)
{
	const struct load_check *k = r->chk;
	struct load_ref *ref = r->ref;
	bool known;
	long long size = h->have_clen ? h->clen : 0;

	if (load_resp_frame(r, h, err, errlen) != 0)
		return -1;
	known = r->frame == LOAD_FRAME_NONE || r->frame == LOAD_FRAME_LENGTH;
	if (known && k->expect_bytes >= 0 && size != k->expect_bytes &&
	    !(r->frame == LOAD_FRAME_NONE && !h->have_clen && h->te > 0))
		return load_fail(err, errlen, -1, "request %ld: body is %lld bytes, "
		    "expected %lld", r->req, size, k->expect_bytes);
	r->clen = r->frame == LOAD_FRAME_LENGTH ? size : 0;
	if (known && ref->good_len >= 0 && r->clen != ref->good_len)
		return load_fail(err, errlen, -1, "request %ld: body is %lld bytes, "
		    "but a body of %lld bytes had the expected sha256", r->req,
		    r->clen, ref->good_len);
	r->limit = k->expect_bytes >= 0 ? k->expect_bytes : ref->good_len;
	if (!k->digest)
		return 0;
	r->matching = ref->set && (!known || ref->len == (size_t)r->clen);
	r->hashing = !r->matching;
	r->capture = !ref->set && (!known || r->clen <= LOAD_REF_MAX);
	if (r->hashing) {
		if (r->dctx == NULL)
			r->dctx = digest_create();
		digest_start(r->dctx);
	}
	if (r->capture && known && ref->cap < (size_t)r->clen) {
		ref->cap = (size_t)r->clen;
		ref->body = xrealloc(ref->body, ref->cap);
	}
	return 0;
}

/* Take header bytes from data[0..n): 1 the header is complete and passed
 * (*off past its blank line), 0 more is to come (all taken, or an interim
 * response's header: the final one starts at *off), -1 it failed. */
static int
load_resp_take_header(struct load_resp *r, const char *data, size_t n,
    size_t *off, char *err, size_t errlen)
{
	size_t old = r->hlen, end, k;
	const char *hdr;
	struct load_hdr h = { 0 };

	if (old == 0) {
		end = load_resp_fields_end(data, n < LOAD_MAX_HEADER ? n :
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
		end = load_resp_fields_end(r->hbuf, r->hlen, old >= 2 ? old - 2 : 0);
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
	if (load_resp_lines(r, hdr, end, &h, err, errlen) != 0)
		return -1;
	if (r->status < 200 && r->status != 101) {
		r->interim++;
		return 0;
	}
	if (load_resp_framing(r, &h, err, errlen) != 0)
		return -1;
	r->state = LOAD_RESP_BODY;
	return 1;
}

/* Stop matching the kept body: hash what matched of it, then go on
 * hashing. */
static void
load_resp_unmatch(struct load_resp *r)
{
	r->matching = false;
	r->hashing = true;
	if (r->dctx == NULL)
		r->dctx = digest_create();
	digest_start(r->dctx);
	digest_update(r->dctx, r->ref->body, (size_t)r->got);
}

void
load_resp_data(struct load_resp *r, const char *d, size_t n)
{
	struct load_ref *ref = r->ref;
	size_t need = (size_t)r->got + n;

	if (n == 0)
		return;
	if (r->matching && (need > ref->len ||
	    memcmp(ref->body + r->got, d, n) != 0))
		load_resp_unmatch(r);
	if (r->hashing)
		digest_update(r->dctx, d, n);
	if (r->capture && need > LOAD_REF_MAX)
		r->capture = false;
	if (r->capture) {
		if (ref->cap < need) {
			ref->cap = xgrow(ref->cap, need, 64 * 1024);
			ref->body = xrealloc(ref->body, ref->cap);
		}
		memcpy(ref->body + r->got, d, n);
	}
	r->got += (long long)n;
}

int
load_resp_end(struct load_resp *r, char *err, size_t errlen)
{
	const struct load_check *k = r->chk;
	struct load_ref *ref = r->ref;

	r->state = LOAD_RESP_DONE;
	if (r->frame == LOAD_FRAME_CHUNKED || r->frame == LOAD_FRAME_CLOSE) {
		r->clen = r->got;
		if (k->expect_bytes >= 0 && r->got != k->expect_bytes)
			return load_fail(err, errlen, -1, "request %ld: body is %lld "
			    "bytes (%s), expected %lld", r->req, r->got,
			    load_resp_frame_name(r), k->expect_bytes);
		if (ref->good_len >= 0 && r->got != ref->good_len)
			return load_fail(err, errlen, -1, "request %ld: body is %lld "
			    "bytes, but a body of %lld bytes had the expected "
			    "sha256", r->req, r->got, ref->good_len);
		if (r->matching && (size_t)r->got != ref->len)
			load_resp_unmatch(r);
	}
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
	if (r->state != LOAD_RESP_BODY || r->closes ||
	    (r->frame != LOAD_FRAME_LENGTH && r->frame != LOAD_FRAME_NONE))
		return -1;
	return r->clen - r->got;
}

const char *
load_resp_frame_name(const struct load_resp *r)
{
	static const char *const names[] = {
		[LOAD_FRAME_NONE] = "none", [LOAD_FRAME_LENGTH] = "length",
		[LOAD_FRAME_CHUNKED] = "chunked", [LOAD_FRAME_CLOSE] = "close",
	};

	return r->upgraded ? "upgrade" : names[r->frame];
}

/* Body bytes of a body that ends at close: all of them, up to the most
 * the checks allow. */
static int
load_resp_close_body(struct load_resp *r, const char *d, size_t n,
    char *err, size_t errlen)
{
	if (r->limit >= 0 && (long long)n > r->limit - r->got)
		return load_fail(err, errlen, -1, "request %ld: the body (ended "
		    "by the server's close) runs past %lld bytes, the size "
		    "expected", r->req, r->limit);
	load_resp_data(r, d, n);
	return 0;
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
	if (r->frame == LOAD_FRAME_CHUNKED) {
		rc = load_chunk_feed(r, data + off, take, &take, err, errlen);
		r->received += take;
		*used = off + take;
		return rc;
	}
	if (r->frame == LOAD_FRAME_CLOSE) {
		r->received += take;
		*used = n;
		return load_resp_close_body(r, data + off, take, err, errlen);
	}
	if ((long long)take > r->clen - r->got)
		take = (size_t)(r->clen - r->got);
	if (take > 0)
		load_resp_data(r, data + off, take);
	r->received += take;
	*used = off + take;
	if (r->got < r->clen)
		return 0;
	return load_resp_end(r, err, errlen);
}

int
load_resp_eof(struct load_resp *r, char *err, size_t errlen)
{
	if (r->state != LOAD_RESP_BODY || r->frame != LOAD_FRAME_CLOSE)
		return 0;
	return load_resp_end(r, err, errlen);
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
	if (rc == 0)
		rc = load_resp_eof(&r, err, errlen);
	if (rc == 1 && off < len && !r.upgraded)
		rc = load_fail(err, errlen, -1, "request 1: %zu bytes past the end "
		    "of the response (%s) on connection 1", len - off,
		    load_resp_frame_name(&r));
	load_resp_finish(&r);
	load_ref_finish(&ref);
	return rc == 1 ? 0 : rc == 0 ? 2 : 1;
}
