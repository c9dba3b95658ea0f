/* legout: a leg's output through a pipe the leg's own wait drains
 * (legout.h).
 *
 * No thread: the thread that waits for the leg polls the pipe beside the
 * leg's pidfd (leg.c) and pumps what arrives, so a leg costs no thread
 * start, no join and no wake-up of another thread at its end.  The pipe is
 * 1 MiB (when the kernel allows), so the leg is never blocked for long
 * between two pumps. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "legout.h"
#include "rfile.h"
#include "xalloc.h"

#define LEGOUT_BUF (64 * 1024)
#define LEGOUT_PIPE (1024 * 1024)
/* Once the leg is over, how long the drain waits for another byte from a
 * writer that is not the leg (it holds the pipe open, so no EOF comes). */
#define LEGOUT_LINGER_MS 200

struct legout {
	int rd, wr;           /* the pipe; rd is non-blocking */
	int file;             /* the output file, or -1 (not made yet) */
	char *path;           /* where it is made at the first byte, or NULL
	                       * (keep "none") */
	long long max, kept, total;
	bool keep;
	int werr;             /* the first failed write's errno, or 0 */
	bool eof;
};

static void
legout_keep(struct legout *o, const char *buf, size_t n)
{
	size_t want, off = 0;

	if (o->path == NULL || o->werr != 0 || o->kept >= o->max)
		return;
	/* Made at the first byte: a leg that writes nothing costs no inode
	 * (its leg line says output_bytes 0).  Never through a link a leg
	 * planted under legs/ (rfile.h). */
	if (o->file < 0 && (o->file = rfile_create(o->path, O_CLOEXEC,
	    0644)) < 0) {
		o->werr = errno;
		return;
	}
	want = (size_t)(o->max - o->kept) < n ? (size_t)(o->max - o->kept) : n;
	while (off < want) {
		ssize_t w = write(o->file, buf + off, want - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* The write's own error (ENOSPC, EIO, EFBIG): the
			 * output is cut, and the caller is told why. */
			o->werr = w < 0 ? errno : ENOSPC;
			return;
		}
		off += (size_t)w;
	}
	o->kept += (long long)want;
}

struct legout *
legout_create(const char *path, bool keep, long long max_bytes, char *err,
    size_t errlen)
{
	struct legout *o = xcalloc(1, sizeof *o);
	int p[2];

	o->rd = o->wr = o->file = -1;
	o->max = max_bytes;
	o->keep = keep;
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	o->rd = p[0];
	o->wr = p[1];
	(void)fcntl(o->rd, F_SETFL, O_NONBLOCK);
	(void)fcntl(o->wr, F_SETPIPE_SZ, LEGOUT_PIPE);
	if (keep && path != NULL)
		o->path = xstrdup(path);
	return o;
fail:
	legout_finish(o, NULL, NULL, NULL);
	return NULL;
}

int
legout_fd(const struct legout *o)
{
	return o->wr;
}

int
legout_rd(const struct legout *o)
{
	return o->eof ? -1 : o->rd;
}

bool
legout_pump(struct legout *o)
{
	char buf[LEGOUT_BUF];

	while (!o->eof) {
		ssize_t n = read(o->rd, buf, sizeof buf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return false;
		if (n <= 0) {
			o->eof = true;  /* EOF (every writer is gone), or an error */
			break;
		}
		legout_keep(o, buf, (size_t)n);
		o->total += n;
	}
	return true;
}

/* Pump until EOF, or until LEGOUT_LINGER_MS pass without a byte. */
static void
legout_drain(struct legout *o)
{
	while (!legout_pump(o)) {
		struct pollfd pfd = { .fd = o->rd, .events = POLLIN };
		int r = poll(&pfd, 1, LEGOUT_LINGER_MS);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;  /* an error, or lingered without a byte */
	}
}

void
legout_finish(struct legout *o, long long *bytes, bool *truncated,
    int *werr)
{
	if (werr != NULL)
		*werr = 0;
	if (o == NULL)
		return;
	if (o->wr >= 0) {
		close(o->wr);
		o->wr = -1;
		if (o->rd >= 0)
			legout_drain(o);
	}
	if (bytes != NULL)
		*bytes = o->total;
	if (truncated != NULL)
		*truncated = o->keep && o->total > o->kept;
	if (werr != NULL)
		*werr = o->werr;
	if (o->rd >= 0)
		close(o->rd);
	if (o->file >= 0)
		close(o->file);
	free(o->path);
	free(o);
}
