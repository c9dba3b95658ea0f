/* legout: a leg's output through a pipe a thread drains (legout.h).
 *
 * A thread rather than the leg's own wait loop, so the spawn path stays as
 * it is: the leg writes into a pipe of 1 MiB (when the kernel allows), and
 * the drain keeps up without ever blocking it for long. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "legout.h"
#include "rfile.h"

#define LEGOUT_BUF (64 * 1024)
#define LEGOUT_PIPE (1024 * 1024)
/* Once the leg is over, how long the drain waits for another byte from a
 * writer that is not the leg (it holds the pipe open, so no EOF comes). */
#define LEGOUT_LINGER_MS 200

struct legout {
	int rd, wr;           /* the pipe */
	int file;             /* the output file, or -1 */
	int stop[2];          /* a pipe: readable once the leg is over */
	long long max, kept, total;
	bool keep;
	bool file_err;
	pthread_t thread;
	bool started;
};

static void
legout_keep(struct legout *o, const char *buf, size_t n)
{
	size_t want, off = 0;

	if (o->file < 0 || o->file_err || o->kept >= o->max)
		return;
	want = (size_t)(o->max - o->kept) < n ? (size_t)(o->max - o->kept) : n;
	while (off < want) {
		ssize_t w = write(o->file, buf + off, want - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			/* Disk full: the output is lost, the leg is not. */
			o->file_err = true;
			return;
		}
		off += (size_t)w;
	}
	o->kept += (long long)want;
}

static void *
legout_drain(void *arg)
{
	struct legout *o = arg;
	char buf[LEGOUT_BUF];
	bool over = false;

	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = o->rd, .events = POLLIN },
			{ .fd = o->stop[0], .events = POLLIN },
		};
		int r = poll(pfd, over ? 1 : 2, over ? LEGOUT_LINGER_MS : -1);
		ssize_t n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;  /* an error, or lingered without a byte */
		if (!over && pfd[1].revents != 0)
			over = true;
		if (pfd[0].revents == 0)
			continue;
		n = read(o->rd, buf, sizeof buf);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;  /* EOF: every writer is gone */
		legout_keep(o, buf, (size_t)n);
		o->total += n;
	}
	return NULL;
}

struct legout *
legout_create(const char *path, bool keep, long long max_bytes, char *err,
    size_t errlen)
{
	struct legout *o = calloc(1, sizeof *o);
	int p[2];

	if (o == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	o->rd = o->wr = o->file = o->stop[0] = o->stop[1] = -1;
	o->max = max_bytes;
	o->keep = keep;
	if (pipe2(p, O_CLOEXEC) < 0 || (o->rd = p[0], o->wr = p[1],
	    pipe2(o->stop, O_CLOEXEC) < 0)) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		goto fail;
	}
	(void)fcntl(o->wr, F_SETPIPE_SZ, LEGOUT_PIPE);
	/* Never through a link a leg planted under legs/ (rfile.h). */
	if (keep && path != NULL && (o->file = rfile_create(path, O_CLOEXEC,
	    0644)) < 0) {
		snprintf(err, errlen, "%s: cannot create the leg's output file: "
		    "%s", path, rfile_strerror(errno));
		goto fail;
	}
	if (pthread_create(&o->thread, NULL, legout_drain, o) != 0) {
		snprintf(err, errlen, "cannot start the output drain thread");
		goto fail;
	}
	o->started = true;
	return o;
fail:
	legout_finish(o, NULL, NULL);
	return NULL;
}

int
legout_fd(const struct legout *o)
{
	return o->wr;
}

void
legout_finish(struct legout *o, long long *bytes, bool *truncated)
{
	if (o == NULL)
		return;
	if (o->wr >= 0)
		close(o->wr);
	if (o->started) {
		if (write(o->stop[1], "x", 1) < 0)
			(void)0;  /* the thread then waits for EOF alone */
		pthread_join(o->thread, NULL);
	}
	if (bytes != NULL)
		*bytes = o->total;
	if (truncated != NULL)
		*truncated = o->keep && o->total > o->kept;
	for (int i = 0; i < 2; i++)
		if (o->stop[i] >= 0)
			close(o->stop[i]);
	if (o->rd >= 0)
		close(o->rd);
	if (o->file >= 0)
		close(o->file);
	free(o);
}
