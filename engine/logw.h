/* The round log: append-only JSONL, crash safe.
 *
 * Each event is written with one write(2) of a whole line, so a crash can
 * only ever tear the last line.  The file is fdatasync'd after every event
 * whose loss would matter (leg, abort, done, seal, pause, resume, server) so
 * that a crash loses at most the leg in flight. */
#ifndef BENCHTUI_LOGW_H
#define BENCHTUI_LOGW_H

#include <jansson.h>
#include <stddef.h>

struct logw;

/* Open PATH for appending (created 0644, O_CLOEXEC).  NULL and a message in
 * err on failure. */
struct logw *logw_open(const char *path, char *err, size_t errlen);

/* Append one event.  0 on success; -1 with a message naming the file and the
 * errno (ENOSPC: "disk full") on failure, in which case nothing partial is
 * left behind (a short write is truncated back). */
int logw_append(struct logw *lw, const json_t *ev, char *err, size_t errlen);

/* fdatasync now.  0 or -1. */
int logw_sync(struct logw *lw);

void logw_destroy(struct logw *lw);

#endif
