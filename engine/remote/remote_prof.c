/* The agent's client, its requests for a profile of the server there
 * (agent_prof.c): start, stop, perf report, and the files copied back in
 * pieces.  Every answer is checked (remote_check.c) before the caller
 * sees it; a refusal is the profile's failure, with the agent's words
 * (the connection stands); an answer that fails its check loses the
 * connection.  A file is copied back up to the limit the caller sets and
 * never past it, whatever the far side says of its size or sends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "clock.h"
#include "remote.h"
#include "remote_conn.h"
#include "remote_int.h"
#include "xalloc.h"

/* perf report on a large recording takes a while. */
#define REMOTE_PROF_REPORT_S 660.0
/* The most one piece asks for (the agent's own limit). */
#define REMOTE_PROF_PIECE_MAX (4 << 20)

static json_t *
remote_strv(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(v[i]));
	return a;
}

/* A prof request's answer, checked with check: a new object, or NULL
 * with err (*refused: the agent said no, the connection stands). */
static json_t *
remote_prof_call_ab(struct remote *rm, json_t *req, double timeout_s,
    int abort_fd, json_t *(*check)(const json_t *, char *, size_t),
    bool *refused, char *err, size_t errlen)
{
	const char *op = json_string_value(json_object_get(req, "op"));
	struct remote_wait w = { .deadline = clock_now() + timeout_s,
		.abort_fd = abort_fd, .release_fd = -1 };
	char name[32], why[320];
	json_t *reply, *ok;

	snprintf(name, sizeof name, "%s", op);
	*refused = false;
	/* an abort sends cancel, which ends what runs there */
	reply = remote_call(rm, req, &w);
	if (reply == NULL) {
		snprintf(err, errlen, "%s", rm->why);
		return NULL;
	}
	if (remote_refused(rm, reply, err, errlen)) {
		json_decref(reply);
		*refused = true;
		return NULL;
	}
	ok = check(reply, why, sizeof why);
	json_decref(reply);
	if (ok == NULL) {
		remote_broken(rm, "the agent's answer to %s: %s", name, why);
		snprintf(err, errlen, "%s", rm->why);
	}
	return ok;
}

static json_t *
remote_prof_call(struct remote *rm, json_t *req, double timeout_s,
    json_t *(*check)(const json_t *, char *, size_t), bool *refused,
    char *err, size_t errlen)
{
	return remote_prof_call_ab(rm, req, timeout_s, -1, check, refused, err,
	    errlen);
}

json_t *
remote_prof_start(struct remote *rm, const char *kind, char *const *args,
    size_t nargs, bool *refused, char *err, size_t errlen)
{
	return remote_prof_call(rm, json_pack("{s:s,s:s,s:o}", "op",
	    "prof_start", "kind", kind, "args", remote_strv(args, nargs)),
	    REMOTE_CALL_S, remote_check_prof_start, refused, err, errlen);
}

json_t *
remote_prof_stop(struct remote *rm, bool *refused, char *err, size_t errlen)
{
	return remote_prof_call(rm, json_pack("{s:s}", "op", "prof_stop"),
	    3 * REMOTE_CALL_S, remote_check_prof_stop, refused, err, errlen);
}

json_t *
remote_prof_legs(struct remote *rm, const json_t *plan, char *const *args,
    size_t nargs, double timeout_s, int abort_fd, bool *refused, char *err,
    size_t errlen)
{
	/* the agent's own bound on the recording, then the answer's way */
	return remote_prof_call_ab(rm, json_pack("{s:s,s:O,s:o,s:f}", "op",
	    "prof_legs", "plan", plan, "args", remote_strv(args, nargs),
	    "timeout_s", timeout_s), timeout_s + REMOTE_CALL_S, abort_fd,
	    remote_check_prof_legs, refused, err, errlen);
}

int
remote_prof_report(struct remote *rm, char *const *args, size_t nargs,
    bool *refused, char *err, size_t errlen)
{
	json_t *r = remote_prof_call(rm, json_pack("{s:s,s:o}", "op",
	    "prof_report", "args", remote_strv(args, nargs)),
	    REMOTE_PROF_REPORT_S, remote_check_prof_report, refused, err,
	    errlen);
	int rc;

	if (r == NULL)
		return -3;
	rc = (int)json_integer_value(json_object_get(r, "rc"));
	json_decref(r);
	return rc;
}

/* A piece's size: what fits a line under the connection's limit once
 * base64 makes 4 bytes of 3, at most what is left to take. */
static size_t
remote_prof_piece(const struct remote *rm, long long left)
{
	size_t line = rm->from.max > 0 ? rm->from.max : (1u << 20);
	size_t piece = line > 1024 ? (line - 512) / 4 * 3 : 256;

	if (piece > REMOTE_PROF_PIECE_MAX)
		piece = REMOTE_PROF_PIECE_MAX;
	return (long long)piece > left ? (size_t)left : piece;
}

/* One piece: its bytes into buf (at most max), the far file's size in
 * *size.  The count, 0 at the end, or -1 (refused, or lost with err). */
static long long
remote_prof_get1(struct remote *rm, const char *file, long long off,
    size_t max, unsigned char *buf, long long *size, bool *refused,
    char *err, size_t errlen)
{
	json_t *req = json_pack("{s:s,s:s,s:I,s:I}", "op", "prof_get", "file",
	    file, "offset", (json_int_t)off, "max", (json_int_t)max);
	json_t *reply = remote_call_plain(rm, req, REMOTE_CALL_S), *d, *sz;
	const char *b64;
	size_t n;
	int got;

	*refused = false;
	if (reply == NULL) {
		snprintf(err, errlen, "%s", rm->why);
		return -1;
	}
	if (remote_refused(rm, reply, err, errlen)) {
		json_decref(reply);
		*refused = true;
		return -1;
	}
	d = json_object_get(reply, "data");
	sz = json_object_get(reply, "size");
	b64 = json_string_value(d);
	n = b64 != NULL ? json_string_length(d) : 0;
	/* base64 of at most max bytes, and a size a file can have */
	if (b64 == NULL || n % 4 != 0 || n / 4 * 3 > max + 2 ||
	    !json_is_integer(sz) || json_integer_value(sz) < 0 ||
	    json_integer_value(sz) > (1LL << 50) ||
	    (got = n > 0 ? EVP_DecodeBlock(buf, (const unsigned char *)b64,
	    (int)n) : 0) < 0) {
		json_decref(reply);
		remote_broken(rm, "the agent's answer to prof_get: data is not "
		    "base64 of at most %zu bytes, or size is not a file's", max);
		snprintf(err, errlen, "%s", rm->why);
		return -1;
	}
	/* EVP_DecodeBlock counts the padding's zero bytes in */
	if (n > 0 && b64[n - 1] == '=')
		got -= b64[n - 2] == '=' ? 2 : 1;
	*size = json_integer_value(sz);
	json_decref(reply);
	if (got < 0 || (size_t)got > max) {
		remote_broken(rm, "the agent's answer to prof_get: %d bytes for "
		    "the %zu asked", got, max);
		snprintf(err, errlen, "%s", rm->why);
		return -1;
	}
	return got;
}

int
remote_prof_get(struct remote *rm, const char *file, int fd,
    long long limit, struct remote_fetch *f, bool *refused, char *err,
    size_t errlen)
{
	unsigned char *buf;
	long long size = 0, n;

	memset(f, 0, sizeof *f);
	*refused = false;
	buf = xmalloc(remote_prof_piece(rm, REMOTE_PROF_PIECE_MAX) + 3);
	while (f->bytes < limit) {
		size_t max = remote_prof_piece(rm, limit - f->bytes);

		n = remote_prof_get1(rm, file, f->bytes, max, buf, &size,
		    refused, err, errlen);
		if (n < 0) {
			free(buf);
			return -1;
		}
		if (n == 0)
			break;
		if (write(fd, buf, (size_t)n) != n) {
			snprintf(err, errlen, "cannot write what %s sent: %s",
			    rm->name, strerror(errno));
			free(buf);
			return -1;
		}
		f->bytes += n;
		if (f->bytes >= size)
			break;
	}
	free(buf);
	f->size = size > f->bytes ? size : f->bytes;
	/* what is left there past the limit is not copied */
	f->cut = f->bytes >= limit && size > f->bytes;
	return 0;
}
