/* Outside text shown on a terminal: the one rule (escape.h). */
#include "escape.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The length of the UTF-8 sequence at s (n bytes there) when it is valid
 * and printable: 2 to 4.  0 when its first byte is to be escaped; -1
 * when it is valid so far but cut off by n. */
static int
escape_utf8(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	int len;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* No overlong forms, no surrogates, nothing past U+10FFFF. */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	for (int k = 1; k < len; k++) {
		if ((size_t)k >= n)
			return -1;
		if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
			return 0;
	}
	/* U+0080..U+009F: the C1 controls. */
	if (c == 0xc2 && s[1] <= 0x9f)
		return 0;
	return len;
}

size_t
escape_text(const char *in, size_t n, char *out, size_t outlen,
    unsigned flags, size_t *used)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t i = 0, o = 0;

	while (i < n) {
		unsigned char c = s[i];
		char esc[8];
		const char *rep = esc;
		size_t len = 1, rlen;
		int u;

		if (c == '\n') {
			rep = flags & ESCAPE_KEEP_LINES ? "\n" : "\\n";
		} else if (c == '\t') {
			rep = flags & ESCAPE_KEEP_LINES ? "\t" :
			    flags & ESCAPE_TAB_SPACE ? " " : "\\t";
		} else if (c == '\r') {
			rep = "\\r";
		} else if (c == '\\' && (flags & ESCAPE_BACKSLASH)) {
			rep = "\\\\";
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(esc, sizeof esc, "\\x%02x", c);
		} else if (c < 0x80) {
			esc[0] = (char)c;
			esc[1] = '\0';
		} else if ((u = escape_utf8(s + i, n - i)) > 0) {
			len = (size_t)u;
			rep = in + i;
		} else if (u < 0 && (flags & ESCAPE_PARTIAL)) {
			break;
		} else {
			snprintf(esc, sizeof esc, "\\x%02x", c);
		}
		rlen = rep == in + i ? len : strlen(rep);
		if (o + rlen + 1 > outlen)
			break;
		memcpy(out + o, rep, rlen);
		o += rlen;
		i += len;
	}
	if (outlen > 0)
		out[o] = '\0';
	if (used != NULL)
		*used = i;
	return o;
}

/* --- the stream ---------------------------------------------------------- */

struct escape_cookie {
	FILE *to;
	unsigned char carry[4];  /* an incomplete UTF-8 sequence, kept for
	                          * the next write to complete */
	size_t ncarry;
};

/* Escape and pass on in[0..n); what is left unread (an incomplete
 * sequence at the end, under ESCAPE_PARTIAL) is returned unwritten.
 * false on a write error. */
static bool
escape_stream_put(struct escape_cookie *k, const char *in, size_t n,
    unsigned flags, size_t *used)
{
	/* Every byte read becomes at most 4 written ("\xNN"). */
	char out[4 * 512 + 1];
	size_t done = 0;

	while (done < n) {
		size_t chunk = n - done < 512 ? n - done : 512, u, len;

		len = escape_text(in + done, chunk, out, sizeof out,
		    flags | (chunk < n - done ? ESCAPE_PARTIAL : 0), &u);
		if (len > 0 && fwrite(out, 1, len, k->to) != len)
			return false;
		done += u;
		if (u == 0)
			break;  /* an incomplete sequence at the very end */
	}
	*used = done;
	return true;
}

static ssize_t
escape_stream_write(void *cookie, const char *buf, size_t size)
{
	struct escape_cookie *k = cookie;
	unsigned flags = ESCAPE_KEEP_LINES | ESCAPE_PARTIAL;
	size_t done = 0, u;

	/* First complete (or give up on) the sequence the last write cut. */
	while (k->ncarry > 0 && done < size) {
		k->carry[k->ncarry++] = (unsigned char)buf[done++];
		if (!escape_stream_put(k, (const char *)k->carry, k->ncarry,
		    flags, &u))
			return 0;
		memmove(k->carry, k->carry + u, k->ncarry - u);
		k->ncarry -= u;
	}
	if (!escape_stream_put(k, buf + done, size - done, flags, &u))
		return 0;
	done += u;
	if (size - done > sizeof k->carry - k->ncarry)
		return 0;  /* cannot happen: at most 3 bytes are left */
	memcpy(k->carry + k->ncarry, buf + done, size - done);
	k->ncarry += size - done;
	return fflush(k->to) == 0 ? (ssize_t)size : 0;
}

static int
escape_stream_close(void *cookie)
{
	struct escape_cookie *k = cookie;
	size_t u;
	bool ok = true;

	/* A sequence left incomplete is not UTF-8: its bytes as \xNN. */
	if (k->ncarry > 0)
		ok = escape_stream_put(k, (const char *)k->carry, k->ncarry,
		    ESCAPE_KEEP_LINES, &u);
	ok = fflush(k->to) == 0 && ok;
	free(k);
	return ok ? 0 : EOF;
}

FILE *
escape_stream(FILE *to)
{
	struct escape_cookie *k = calloc(1, sizeof *k);
	cookie_io_functions_t io = { .write = escape_stream_write,
		.close = escape_stream_close };
	FILE *f;

	if (k == NULL)
		return NULL;
	k->to = to;
	if ((f = fopencookie(k, "w", io)) == NULL) {
		free(k);
		return NULL;
	}
	if (to == stderr)
		setvbuf(f, NULL, _IONBF, 0);
	else if (isatty(fileno(to)))
		setvbuf(f, NULL, _IOLBF, 0);
	return f;
}
