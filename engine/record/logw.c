/* The round log: one write(2) per line; fdatasync at once after the events
 * that close a stretch of the round, and otherwise by a background thread
 * at most every LOGW_SYNC_MS. */
#include "logw.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "event.h"
#include "rfile.h"

struct logw {
	int fd;
	char *path;

	/* The background sync: dirty is set by an append, cleared by the
	 * thread just before its fdatasync.  written counts the appends,
	 * synced the ones a finished fdatasync covers. */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started;
	bool dirty;
	unsigned long long written;
	unsigned long long synced;
	bool stop;
	int sync_errno;           /* a failed background sync, reported once */
	struct timespec last;     /* CLOCK_MONOTONIC of the last sync */
};

static void
logw_ts_add_ms(struct timespec *ts, long ms)
{
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static bool
logw_ts_before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	    (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static int
logw_fdatasync(int fd)
{
	/* EINVAL: a file that cannot be synced (a pipe in the tests). */
	return fdatasync(fd) < 0 && errno != EINVAL ? errno : 0;
}

/* Wait for a dirty log, then for LOGW_SYNC_MS after the last sync, then
 * sync: a burst of short legs costs ten syncs a second, not one a leg. */
static void *
logw_flusher(void *arg)
{
	struct logw *lw = arg;

	pthread_mutex_lock(&lw->mu);
	for (;;) {
		struct timespec due = lw->last, now;
		int e;

		while (!lw->dirty && !lw->stop)
			pthread_cond_wait(&lw->cv, &lw->mu);
		if (lw->stop)
			break;
		logw_ts_add_ms(&due, LOGW_SYNC_MS);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (logw_ts_before(&now, &due)) {
			pthread_cond_timedwait(&lw->cv, &lw->mu, &due);
			continue; /* woken early: look again */
		}
		unsigned long long gen = lw->written;

		lw->dirty = false;
		pthread_mutex_unlock(&lw->mu);
		e = logw_fdatasync(lw->fd);
		pthread_mutex_lock(&lw->mu);
		if (e == 0 && gen > lw->synced)
			lw->synced = gen;
		clock_gettime(CLOCK_MONOTONIC, &lw->last);
		if (e != 0 && lw->sync_errno == 0)
			lw->sync_errno = e;
		pthread_cond_broadcast(&lw->cv);
	}
	pthread_mutex_unlock(&lw->mu);
	return NULL;
}

struct logw *
logw_open(const char *path, char *err, size_t errlen)
{
	struct logw *lw = calloc(1, sizeof *lw);
	pthread_condattr_t ca;

	if (lw == NULL || (lw->path = strdup(path)) == NULL) {
		/* gcc -O2 with UBSan cannot prove path non-null on this branch */
		snprintf(err, errlen, "%s: out of memory", path ? path : "log");
		goto fail;
	}
	lw->fd = rfile_open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (lw->fd < 0) {
		snprintf(err, errlen, "%s: cannot open for appending: %s", path,
		    rfile_strerror(errno));
		goto fail;
	}
	pthread_mutex_init(&lw->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&lw->cv, &ca);
	pthread_condattr_destroy(&ca);
	clock_gettime(CLOCK_MONOTONIC, &lw->last);
	/* Without the thread every line is synced at once (the old way):
	 * slower, never less safe. */
	lw->started = pthread_create(&lw->thread, NULL, logw_flusher, lw) == 0;
	return lw;
fail:
	if (lw != NULL)
		free(lw->path);
	free(lw);
	return NULL;
}

/* Events after which the log is synced before the call returns: they close
 * a stretch of the round (its start, a pause, the end). */
static bool
logw_sync_now(const char *type)
{
	static const char *const types[] = { "round", "env", "abort", "done",
		"seal", "pause", "resume", "log_cut", NULL };

	if (type == NULL)
		return false;
	for (int i = 0; types[i] != NULL; i++)
		if (strcmp(type, types[i]) == 0)
			return true;
	return false;
}

static void
logw_error(const struct logw *lw, int e, char *err, size_t errlen)
{
	if (e == ENOSPC || e == EDQUOT)
		snprintf(err, errlen, "%s: disk full, cannot append to the log (%s)",
		    lw->path, strerror(e));
	else
		snprintf(err, errlen, "%s: cannot append to the log: %s",
		    lw->path, strerror(e));
}

int
logw_append(struct logw *lw, const json_t *ev, char *err, size_t errlen)
{
	size_t len;
	char *line = event_line(ev, &len);
	off_t before;
	ssize_t n;
	int e;

	if (line == NULL) {
		snprintf(err, errlen, "%s: cannot encode an event", lw->path);
		return -1;
	}
	do
		n = write(lw->fd, line, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	free(line);
	if (n == (ssize_t)len) {
		if (!lw->started || logw_sync_now(event_type(ev))) {
			if (lw->started) {
				pthread_mutex_lock(&lw->mu);
				lw->written++;
				pthread_mutex_unlock(&lw->mu);
			}
			e = logw_sync(lw) == 0 ? 0 : errno;
		}
		else {
			bool wake;

			pthread_mutex_lock(&lw->mu);
			/* Already dirty: the flusher waits for its due time
			 * and needs no wake-up (a futex call a line). */
			wake = !lw->dirty;
			lw->dirty = true;
			lw->written++;
			e = lw->sync_errno;
			lw->sync_errno = 0;
			if (wake)
				pthread_cond_signal(&lw->cv);
			pthread_mutex_unlock(&lw->mu);
		}
		if (e != 0) {
			logw_error(lw, e, err, errlen);
			return -1;
		}
		return 0;
	}
	/* A short write (the disk filled up mid-line) is cut back, so a line
	 * is either whole or absent: the size before it is the size now less
	 * what it wrote (O_APPEND, and the round's lock keeps every other
	 * writer out), asked only now rather than before every line.  A
	 * failed write wrote nothing. */
	before = -1;
	if (n >= 0) {
		e = ENOSPC;
		before = lseek(lw->fd, 0, SEEK_END);
		if (before >= 0)
			before -= n;
	}
	if (before >= 0 && ftruncate(lw->fd, before) < 0) {
		snprintf(err, errlen, "%s: cannot append to the log (%s), and "
		    "cannot cut the partial line back: %s", lw->path,
		    strerror(e), strerror(errno));
		return -1;
	}
	logw_error(lw, e, err, errlen);
	return -1;
}

int
logw_sync(struct logw *lw)
{
	unsigned long long gen = 0;
	int e;

	if (lw->started) {
		pthread_mutex_lock(&lw->mu);
		lw->dirty = false;
		gen = lw->written;
		pthread_mutex_unlock(&lw->mu);
	}
	e = logw_fdatasync(lw->fd);
	if (lw->started) {
		pthread_mutex_lock(&lw->mu);
		if (e == 0 && gen > lw->synced)
			lw->synced = gen;
		clock_gettime(CLOCK_MONOTONIC, &lw->last);
		/* A background sync that failed before this one: the kernel
		 * reports a writeback error once, so this sync may succeed
		 * over lines that never reached the disk. */
		if (e == 0)
			e = lw->sync_errno;
		lw->sync_errno = 0;
		pthread_mutex_unlock(&lw->mu);
	}
	if (e != 0) {
		errno = e;
		return -1;
	}
	return 0;
}

bool
logw_pending(struct logw *lw)
{
	bool p;

	if (!lw->started)
		return false;
	pthread_mutex_lock(&lw->mu);
	p = lw->synced < lw->written;
	pthread_mutex_unlock(&lw->mu);
	return p;
}

void
logw_destroy(struct logw *lw)
{
	if (lw == NULL)
		return;
	if (lw->started) {
		bool dirty;

		pthread_mutex_lock(&lw->mu);
		lw->stop = true;
		dirty = lw->dirty;
		pthread_cond_broadcast(&lw->cv);
		pthread_mutex_unlock(&lw->mu);
		pthread_join(lw->thread, NULL);
		if (dirty)
			(void)logw_fdatasync(lw->fd);
		pthread_mutex_destroy(&lw->mu);
		pthread_cond_destroy(&lw->cv);
	}
	if (lw->fd >= 0)
		close(lw->fd);
	free(lw->path);
	free(lw);
}
