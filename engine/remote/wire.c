/* The agent protocol's lines: a buffered reader that counts lines and
 * never holds more than one line past WIRE_LINE_MAX, and a writer of one
 * compact object per line. */
#include "config.h"

#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "quiet.h"
#include "xalloc.h"

/* How much of a bad line a message quotes. */
#define WIRE_QUOTE 60

void
wire_in_init(struct wire_in *in, int fd)
{
	memset(in, 0, sizeof *in);
	in->fd = fd;
}

void
wire_in_free(struct wire_in *in)
{
	free(in->buf);
	in->buf = NULL;
	in->len = in->cap = 0;
}

bool
wire_pending(const struct wire_in *in)
{
	return in->len > 0 && memchr(in->buf, '\n', in->len) != NULL;
}

const char *
wire_version(void)
{
	return BENCHTUI_VERSION;
}

json_t *
wire_quiet_json(const struct quiet_params *q)
{
	return json_pack("{s:f,s:i,s:f,s:f,s:f,s:b,s:f}", "max_foreign_cores",
	    q->max_foreign_cores, "window_ms", q->window_ms, "timeout_s",
	    q->timeout_s, "budget_s", q->budget_s, "max_server_busy",
	    q->max_server_busy, "probe", q->probe, "probe_margin",
	    q->probe_margin);
}

long long
wire_protocol_of(const json_t *hello)
{
	const json_t *p = json_object_get(hello, "protocol");

	return json_is_integer(p) ? (long long)json_integer_value(p) : 1;
}

/* The start of a bad line for its message: control bytes as '?'. */
static void
wire_quote(const char *s, size_t n, char *out, size_t len)
{
	size_t k = 0;

	for (size_t i = 0; i < n && i < WIRE_QUOTE && k + 4 < len; i++)
		out[k++] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' :
		    s[i];
	if (n > WIRE_QUOTE && k + 4 < len) {
		memcpy(out + k, "...", 3);
		k += 3;
	}
	out[k] = '\0';
}

/* Take the line ending at nl out of the buffer and parse it. */
static enum wire_got
wire_take(struct wire_in *in, char *nl, json_t **msg, char *err,
    size_t errlen)
{
	size_t n = (size_t)(nl - in->buf);
	char quote[WIRE_QUOTE + 8];
	enum wire_got got = WIRE_MSG;
	json_error_t je;
	json_t *j;

	in->line++;
	j = json_loadb(in->buf, n, JSON_REJECT_DUPLICATES, &je);
	wire_quote(in->buf, n, quote, sizeof quote);
	if (j == NULL) {
		snprintf(err, errlen, "line %lu: not JSON (%s): '%s'", in->line,
		    je.text, quote);
		got = WIRE_BAD;
	} else if (!json_is_object(j)) {
		snprintf(err, errlen, "line %lu: not a JSON object: '%s'",
		    in->line, quote);
		json_decref(j);
		got = WIRE_BAD;
	} else {
		*msg = j;
	}
	memmove(in->buf, nl + 1, in->len - n - 1);
	in->len -= n + 1;
	return got;
}

/* Wait for fd or wake_fd until deadline (< 0: none).  1: fd readable;
 * 0: timed out; 2: woken; -1 with errno. */
static int
wire_wait(const struct wire_in *in, double deadline, int wake_fd)
{
	struct pollfd p[2] = { { .fd = in->fd, .events = POLLIN },
		{ .fd = wake_fd, .events = POLLIN } };
	int ms = -1, n;

	if (deadline >= 0) {
		double left = deadline - clock_now();

		ms = left > 0 ? (int)(left * 1000.0) + 1 : 0;
	}
	n = poll(p, wake_fd >= 0 ? 2 : 1, ms);
	if (n < 0)
		return errno == EINTR ? 0 : -1;
	if (n == 0)
		return 0;
	if (p[0].revents != 0)
		return 1;
	return 2;
}

/* Read what fd has into the buffer.  0, or -1 with errno (EOF sets
 * in->eof). */
static int
wire_fill(struct wire_in *in)
{
	ssize_t n;

	if (in->cap - in->len < 4096) {
		in->cap = xgrow(in->cap, in->len + 4096, 8192);
		in->buf = xrealloc(in->buf, in->cap);
	}
	n = read(in->fd, in->buf + in->len, in->cap - in->len);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (n == 0)
		in->eof = true;
	in->len += (size_t)n;
	return 0;
}

static size_t
wire_max(const struct wire_in *in)
{
	return in->max > 0 ? in->max : WIRE_LINE_MAX;
}

/* A line past its limit: named, and dropped up to its newline (strict:
 * not read further, so a line without end costs no time). */
static enum wire_got
wire_too_long(struct wire_in *in, char *err, size_t errlen)
{
	char quote[WIRE_QUOTE + 8];

	in->line++;
	wire_quote(in->buf, in->len, quote, sizeof quote);
	snprintf(err, errlen, "line %lu: longer than %zu bytes (the limit on "
	    "a line): '%s'", in->line, wire_max(in), quote);
	if (in->strict) {
		in->len = 0;
		return WIRE_BAD;
	}
	for (;;) {
		char *nl = memchr(in->buf, '\n', in->len);

		if (nl != NULL) {
			in->len -= (size_t)(nl + 1 - in->buf);
			memmove(in->buf, nl + 1, in->len);
			return WIRE_BAD;
		}
		in->len = 0;
		if (in->eof || wire_fill(in) != 0)
			return WIRE_BAD;
	}
}

enum wire_got
wire_read(struct wire_in *in, int timeout_ms, int wake_fd, json_t **msg,
    char *err, size_t errlen)
{
	double deadline = timeout_ms >= 0 ? clock_now() + timeout_ms / 1e3 : -1;

	*msg = NULL;
	for (;;) {
		char *nl = in->len > 0 ? memchr(in->buf, '\n', in->len) : NULL;
		int w;

		if ((nl != NULL && (size_t)(nl - in->buf) > wire_max(in)) ||
		    (nl == NULL && in->len > wire_max(in)))
			return wire_too_long(in, err, errlen);
		if (nl != NULL)
			return wire_take(in, nl, msg, err, errlen);
		if (in->eof && in->len > 0) {
			char quote[WIRE_QUOTE + 8];

			in->line++;
			wire_quote(in->buf, in->len, quote, sizeof quote);
			snprintf(err, errlen, "line %lu: cut short (no newline "
			    "before the end): '%s'", in->line, quote);
			in->len = 0;
			return WIRE_BAD;
		}
		if (in->eof)
			return WIRE_EOF;
		if ((w = wire_wait(in, deadline, wake_fd)) < 0 ||
		    (w == 1 && wire_fill(in) != 0)) {
			snprintf(err, errlen, "read: %s", strerror(errno));
			return WIRE_IO;
		}
		if (w == 2)
			return WIRE_WOKEN;
		if (w == 0 && deadline >= 0 && clock_now() >= deadline)
			return WIRE_TIMEOUT;
	}
}

int
wire_write(int fd, const json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	size_t n, off = 0;

	if (text == NULL) {
		errno = EINVAL;
		return -1;
	}
	n = strlen(text);
	text = xrealloc(text, n + 2);
	text[n++] = '\n';
	while (off < n) {
		/* A socket is written without SIGPIPE: a peer that has gone
		 * is an error here, never the death of the writer. */
		ssize_t w = send(fd, text + off, n - off, MSG_NOSIGNAL);

		if (w < 0 && errno == ENOTSOCK)
			w = write(fd, text + off, n - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			free(text);
			return -1;
		}
		off += (size_t)w;
	}
	free(text);
	return 0;
}
