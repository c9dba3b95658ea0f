/* load_chunk: a chunked body (RFC 9112 7.1) read as it streams, in pieces
 * of any size: each chunk's size line (hex digits, then extensions, each
 * ";" NAME ["=" TOKEN or QUOTED-STRING], then CRLF) gathered whole and
 * checked, the chunk's data handed to the body's check (load_resp_data)
 * and followed by exactly CRLF, then the last chunk (size 0) and the
 * trailer section, field lines as strict as the header's.
 *
 * Strict where a lax reader and a strict one would end the body at
 * different places: a size that is not hex or overflows, white space not
 * before ";" or "=", a line ending in LF alone or holding a CR, data not
 * followed by CRLF, a framing field (Content-Length, Transfer-Encoding)
 * in the trailer.  A chunk that would take the body past the size the
 * checks allow (--expect-bytes, or that of a body that had the expected
 * sha256) is refused from its size line, before its data is read. */
#include "load_int.h"

#include <limits.h>
#include <string.h>
#include <strings.h>

#include "xalloc.h"

static bool
load_chunk_hex(char c, int *v)
{
	if (c >= '0' && c <= '9')
		*v = c - '0';
	else if (c >= 'a' && c <= 'f')
		*v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		*v = c - 'A' + 10;
	else
		return false;
	return true;
}

static size_t
load_chunk_ws(const char *l, size_t i, size_t n)
{
	while (i < n && (l[i] == ' ' || l[i] == '\t'))
		i++;
	return i;
}

static size_t
load_chunk_token(const char *l, size_t i, size_t n)
{
	while (i < n && load_resp_tchar(l[i]))
		i++;
	return i;
}

/* A quoted-string from l[i] (its opening quote): the offset past its
 * closing quote, or 0 when it is not one (RFC 9110 5.6.4). */
static size_t
load_chunk_quoted(const char *l, size_t i, size_t n)
{
	for (i++; i < n; i++) {
		unsigned char c = (unsigned char)l[i];

		if (c == '"')
			return i + 1;
		if (c == '\\') {
			if (++i >= n || ((unsigned char)l[i] < 0x20 &&
			    l[i] != '\t') || l[i] == 0x7f)
				return 0;
			continue;
		}
		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return 0;
	}
	return 0;
}

/* The extensions in l[i..n): 0 they are well formed, else the offset of
 * the first byte that is not (plus one). */
static size_t
load_chunk_exts(const char *l, size_t i, size_t n)
{
	while (i < n) {
		size_t j;

		i = load_chunk_ws(l, i, n);
		if (i >= n || l[i] != ';')
			return i + 1;
		i = load_chunk_ws(l, i + 1, n);
		j = load_chunk_token(l, i, n);
		if (j == i)
			return i + 1;
		i = load_chunk_ws(l, j, n);
		if (i < n && l[i] == '=') {
			i = load_chunk_ws(l, i + 1, n);
			if (i < n && l[i] == '"')
				j = load_chunk_quoted(l, i, n);
			else
				j = load_chunk_token(l, i, n);
			if (j == 0 || j == i)
				return i + 1;
			i = j;
		} else if (i < n && i > j && l[i] != ';') {
			return i + 1;
		} else if (i == n && i > j) {
			return i;     /* white space before the line's end */
		}
	}
	return 0;
}

/* The size line in l[0..n) (its LF included): the size, or -1 refused. */
static long long
load_chunk_size(struct load_resp *r, const char *l, size_t n, char *err,
    size_t errlen)
{
	long long x = 0;
	size_t i = 0, bad;
	char show[72];
	int v;

	if (n < 2 || l[n - 2] != '\r')
		return load_fail(err, errlen, -1, "request %ld: chunk %ld's size "
		    "line ends in LF without CR (RFC 9112 7.1 wants CRLF)",
		    r->req, r->chunks + 1);
	n -= 2;
	if (memchr(l, '\r', n) != NULL || memchr(l, '\0', n) != NULL)
		return load_fail(err, errlen, -1, "request %ld: a stray CR or NUL "
		    "byte in chunk %ld's size line", r->req, r->chunks + 1);
	for (; i < n && load_chunk_hex(l[i], &v); i++) {
		if (x > (LLONG_MAX - 15) / 16)
			return load_fail(err, errlen, -1, "request %ld: chunk %ld's "
			    "size '%s' is too large", r->req, r->chunks + 1,
			    load_resp_show(l, n, show));
		x = x * 16 + v;
	}
	if (i == 0)
		return load_fail(err, errlen, -1, "request %ld: bad chunk size "
		    "'%s' in chunk %ld (hex digits)", r->req,
		    load_resp_show(l, n, show), r->chunks + 1);
	if ((bad = load_chunk_exts(l, i, n)) != 0)
		return load_fail(err, errlen, -1, "request %ld: bad chunk size "
		    "line '%s' in chunk %ld (at byte %zu: hex digits, then "
		    "';NAME[=VALUE]' extensions)", r->req,
		    load_resp_show(l, n, show), r->chunks + 1, bad);
	return x;
}

/* A chunk of size x is next: refused when it takes the body past what the
 * checks allow, before its data is read. */
static int
load_chunk_begin(struct load_resp *r, long long x, char *err,
    size_t errlen)
{
	r->chunks++;
	if (x > LLONG_MAX - r->got)
		return load_fail(err, errlen, -1, "request %ld: chunk %ld takes "
		    "the body past %lld bytes", r->req, r->chunks, LLONG_MAX);
	if (r->limit >= 0 && r->got + x > r->limit)
		return load_fail(err, errlen, -1, "request %ld: chunk %ld (%lld "
		    "bytes after %lld) takes the body past %lld bytes, the size "
		    "expected", r->req, r->chunks, x, r->got, r->limit);
	r->chunk_left = x;
	r->cstate = x == 0 ? LOAD_CHUNK_TRAILER : LOAD_CHUNK_DATA;
	return 0;
}

/* Append data[0..k) to the line or trailer kept in r->hbuf. */
static void
load_chunk_keep(struct load_resp *r, const char *data, size_t k)
{
	if (r->hcap < r->hlen + k) {
		r->hcap = xgrow(r->hcap, r->hlen + k, 256);
		r->hbuf = xrealloc(r->hbuf, r->hcap);
	}
	memcpy(r->hbuf + r->hlen, data, k);
	r->hlen += k;
}

/* The size line's bytes from data[0..n): *used taken; 0 more is to come
 * or the line was read, -1 refused. */
static int
load_chunk_line(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen)
{
	const char *lf = memchr(data, '\n', n);
	size_t k = lf != NULL ? (size_t)(lf - data) + 1 : n;
	long long x;

	*used = k;
	if (r->hlen + k > LOAD_CHUNK_LINE)
		return load_fail(err, errlen, -1, "request %ld: chunk %ld's size "
		    "line is longer than %d bytes", r->req, r->chunks + 1,
		    LOAD_CHUNK_LINE);
	if (lf == NULL || r->hlen > 0) {
		load_chunk_keep(r, data, k);
		if (lf == NULL)
			return 0;
		data = r->hbuf;
		k = r->hlen;
	}
	r->hlen = 0;
	if ((x = load_chunk_size(r, data, k, err, errlen)) < 0)
		return -1;
	return load_chunk_begin(r, x, err, errlen);
}

/* The trailer's field lines, in t[0..n) (its blank line included). */
static int
load_chunk_fields(struct load_resp *r, const char *t, size_t n, char *err,
    size_t errlen)
{
	const char *p = t, *end = t + n, *nl, *v;
	size_t vl;
	char show[72];
	int lineno = 1, rc;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL;
	    p = nl + 1, lineno++) {
		size_t k = (size_t)(nl - p);

		if (k > 0 && p[k - 1] == '\r')
			k--;
		if (k == 0)
			break;
		rc = load_resp_field_split(p, k, &v, &vl);
		if (rc <= 0)
			return load_fail(err, errlen, -1, "request %ld: trailer line "
			    "%d %s: '%s'", r->req, lineno, rc == -1 ? "is folded "
			    "(starts with white space)" : rc == -2 ? "holds a stray "
			    "CR or NUL byte" : "is not NAME: VALUE",
			    load_resp_show(p, k, show));
		if ((rc == 14 && strncasecmp(p, "Content-Length", 14) == 0) ||
		    (rc == 17 && strncasecmp(p, "Transfer-Encoding", 17) == 0))
			return load_fail(err, errlen, -1, "request %ld: trailer line "
			    "%d is %.*s, which frames a message and may not come in "
			    "a trailer (RFC 9110 6.5.1)", r->req, lineno, rc, p);
	}
	return 0;
}

/* The trailer's bytes from data[0..n): *used taken; 0 more is to come, 1
 * it ended (the body passed), -1 refused. */
static int
load_chunk_trailer(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen)
{
	size_t old = r->hlen, k, end;

	k = n < LOAD_MAX_HEADER - old ? n : LOAD_MAX_HEADER - old;
	load_chunk_keep(r, data, k);
	end = load_resp_fields_end(r->hbuf, r->hlen, old >= 2 ? old - 2 : 0);
	if (end == 0) {
		*used = k;
		if (r->hlen >= LOAD_MAX_HEADER)
			return load_fail(err, errlen, -1, "request %ld: trailer "
			    "longer than %d bytes", r->req, LOAD_MAX_HEADER);
		return 0;
	}
	*used = end - old;
	r->hlen = 0;
	if (load_chunk_fields(r, r->hbuf, end, err, errlen) != 0)
		return -1;
	return load_resp_end(r, err, errlen);
}

int
load_chunk_feed(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen)
{
	size_t off = 0, k;
	int rc;

	while (off < n) {
		switch (r->cstate) {
		case LOAD_CHUNK_SIZE:
			rc = load_chunk_line(r, data + off, n - off, &k, err,
			    errlen);
			off += k;
			if (rc != 0)
				goto out;
			break;
		case LOAD_CHUNK_DATA:
			k = n - off;
			if ((long long)k > r->chunk_left)
				k = (size_t)r->chunk_left;
			load_resp_data(r, data + off, k);
			off += k;
			if ((r->chunk_left -= (long long)k) == 0)
				r->cstate = LOAD_CHUNK_CR;
			break;
		case LOAD_CHUNK_CR:
		case LOAD_CHUNK_LF:
			if (data[off] != (r->cstate == LOAD_CHUNK_CR ? '\r' :
			    '\n')) {
				rc = load_fail(err, errlen, -1, "request %ld: chunk %ld's "
				    "data is not followed by CRLF (its size line says "
				    "it is shorter)", r->req, r->chunks);
				goto out;
			}
			off++;
			r->cstate = r->cstate == LOAD_CHUNK_CR ? LOAD_CHUNK_LF :
			    LOAD_CHUNK_SIZE;
			break;
		case LOAD_CHUNK_TRAILER:
			rc = load_chunk_trailer(r, data + off, n - off, &k, err,
			    errlen);
			off += k;
			if (rc != 0)
				goto out;
			break;
		}
	}
	rc = 0;
out:
	*used = off;
	return rc;
}
