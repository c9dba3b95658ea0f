/* The round log: append-only JSONL, crash safe.
 *
 * Each event is written with one write(2) of a whole line, so a crash of
 * benchtui (kill -9) can only ever tear the last line: a completed write is
 * in the kernel's page cache and survives the process.  Against power loss
 * the file is fdatasync'd at most every LOGW_SYNC_MS by a background
 * thread, so no written line stays unsynced longer than about that, without
 * a sync (a tenth of a millisecond or more) between every two legs; and at
 * once after the events that end or stop a stretch of the round (round,
 * env, resume, log_cut, pause, abort, done, seal). */
#ifndef BENCHTUI_LOGW_H
#define BENCHTUI_LOGW_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The longest a written line waits for its fdatasync. */
#define LOGW_SYNC_MS 100

struct logw;

/* Open PATH for appending (created 0644, O_CLOEXEC).  NULL and a message in
 * err on failure. */
struct logw *logw_open(const char *path, char *err, size_t errlen);

/* Append one event.  0 on success; -1 with a message naming the file and the
 * errno (ENOSPC: "disk full") on failure, in which case nothing partial is
 * left behind (a short write is truncated back).  A background fdatasync
 * that failed since the last call is reported here. */
int logw_append(struct logw *lw, const json_t *ev, char *err, size_t errlen);

/* fdatasync now.  0, or -1 with errno: this sync's error, or one a
 * background sync met since the last call (each is reported once). */
int logw_sync(struct logw *lw);

/* Whether a written line still waits for its fdatasync. */
bool logw_pending(struct logw *lw);

/* Sync what is pending, stop the background thread, close. */
void logw_destroy(struct logw *lw);

#endif
