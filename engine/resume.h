/* Reading a round folder back, for resume and `seal --partial`.
 *
 * resume_load repairs the log first: a torn last line is cut back to the
 * last whole line (the cut is reported so the caller can log it).  Then it
 * finds every leg that already has a counted leg line, and the process
 * groups of legs that were started but never finished (a killed benchtui),
 * so they can be ended before going on. */
#ifndef BENCHTUI_RESUME_H
#define BENCHTUI_RESUME_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct resume_state;

/* Load DIR, holding its lock (resume_lock_dir) until resume_destroy.  0,
 * or -1 with err (not a round folder, another benchtui holds it, unreadable
 * log, a bad line other than a torn last one). */
int resume_load(const char *dir, struct resume_state **out,
    char *err, size_t errlen);

/* Lock DIR against a second benchtui running or resuming the same round
 * (flock on the folder itself, so it never conflicts with locks on the
 * files in it).  Returns the fd that holds the lock (O_CLOEXEC; closing it,
 * or exiting, releases it), or -1 with err when another process holds it
 * (after waiting up to a second for a dying one) or DIR cannot be opened.
 * resume_load takes it itself; `run` takes it for its new folder.
 * (Added by helper G.) */
int resume_lock_dir(const char *dir, char *err, size_t errlen);

/* The sha256 of round.json recorded in the "round" event, and the workdir. */
const char *resume_spec_sha256(const struct resume_state *rs);
const char *resume_workdir(const struct resume_state *rs);

/* The "env" event's host facts and binaries as recorded (borrowed). */
const json_t *resume_recorded_env(const struct resume_state *rs);

/* Whether (cell, arm, rep) has a leg line whose status is not "aborted". */
bool resume_leg_done(const struct resume_state *rs, const char *cell,
    const char *arm, int rep);
size_t resume_legs_done(const struct resume_state *rs);

/* Bytes cut from a torn last line (0 when the log was whole). */
size_t resume_torn_bytes(const struct resume_state *rs);

/* Whether the log ends with "done" (the round completed) or "seal". */
bool resume_completed(const struct resume_state *rs);
bool resume_sealed(const struct resume_state *rs);

/* End (SIGKILL, by pgid) legs and servers that a killed benchtui left
 * running: pids from leg_start/server lines with no end, still alive and
 * still in their own process group.  Returns how many were ended. */
int resume_end_stale(const struct resume_state *rs);

/* Feed every event of the log to fn (for tally and the console). */
void resume_replay(const struct resume_state *rs,
    void (*fn)(const json_t *ev, void *arg), void *arg);

void resume_destroy(struct resume_state *rs);

#endif
