/* The round log: one write(2) per line, synced after important events. */
#include "logw.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"

struct logw {
	int fd;
	char *path;
};

struct logw *
logw_open(const char *path, char *err, size_t errlen)
{
	struct logw *lw = calloc(1, sizeof *lw);

	if (lw == NULL || (lw->path = strdup(path)) == NULL) {
		/* gcc -O2 with UBSan cannot prove path non-null on this branch */
		snprintf(err, errlen, "%s: out of memory", path ? path : "log");
		goto fail;
	}
	lw->fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (lw->fd < 0) {
		snprintf(err, errlen, "%s: cannot open for appending: %s", path,
		    strerror(errno));
		goto fail;
	}
	return lw;
fail:
	if (lw != NULL)
		free(lw->path);
	free(lw);
	return NULL;
}

/* Events whose loss would matter after a crash: synced before returning. */
static bool
logw_important(const char *type)
{
	static const char *const types[] = { "round", "env", "leg", "abort",
		"done", "seal", "pause", "resume", "server", "log_cut", NULL };

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
	/* The size before, so a short write can be cut back: a line is
	 * either whole or absent. */
	before = lseek(lw->fd, 0, SEEK_END);
	do
		n = write(lw->fd, line, len);
	while (n < 0 && errno == EINTR);
	e = errno;
	free(line);
	if (n == (ssize_t)len) {
		if (logw_important(event_type(ev)) && fdatasync(lw->fd) < 0 &&
		    errno != EINVAL) {
			logw_error(lw, errno, err, errlen);
			return -1;
		}
		return 0;
	}
	if (n >= 0) /* short write: the disk filled up mid-line */
		e = ENOSPC;
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
	if (fdatasync(lw->fd) < 0 && errno != EINVAL)
		return -1;
	return 0;
}

void
logw_destroy(struct logw *lw)
{
	if (lw == NULL)
		return;
	if (lw->fd >= 0)
		close(lw->fd);
	free(lw->path);
	free(lw);
}
