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
#include <stdint.h>
#include <sys/types.h>

#include "spec.h"

struct resume_state;

/* Load DIR.  0, or -1 with err (not a round folder, unreadable log, a bad
 * line other than a torn last one).  It may cut the log, so the caller must
 * hold the round's lock first (an flock on DIR/log.jsonl: round.c, and
 * `seal --partial`), so a live benchtui's log is never cut under it. */
int resume_load(const char *dir, struct resume_state **out,
    char *err, size_t errlen);

/* The sha256 of round.json recorded in the "round" event, and the workdir. */
const char *resume_spec_sha256(const struct resume_state *rs);
const char *resume_workdir(const struct resume_state *rs);

/* The leg order the "round" event recorded: its "order" ("mirror",
 * "seed", "shuffle") and "shuffle_seed".  A round event without "order"
 * was written before the field existed, under the seed rule.  -1 when the
 * recorded order is not one this benchtui knows (or shuffle lacks its
 * seed). */
int resume_recorded_order(const struct resume_state *rs,
    enum spec_order *order, uint64_t *seed);

/* The hosts run --host gave the round (the round event's "hosts" when
 * its "hosts_given" is true), so resume deals the reps to the same
 * hosts: a JSON array of strings (borrowed), or NULL when the round file
 * chose them (or the legs ran here). */
const json_t *resume_recorded_hosts(const struct resume_state *rs);

/* The rep at which an adaptive look decided the cell (its legs past it
 * are not run), or 0. */
int resume_cell_stopped(const struct resume_state *rs, const char *cell);

/* The "env" event's host facts and binaries as recorded (borrowed). */
const json_t *resume_recorded_env(const struct resume_state *rs);

/* Whether (cell, arm, rep) has a leg line whose status is not "aborted". */
bool resume_leg_done(const struct resume_state *rs, const char *cell,
    const char *arm, int rep);
size_t resume_legs_done(const struct resume_state *rs);

/* Whether benchtui died (killed, crashed) while (cell, arm, rep) ran, in
 * any earlier run: a leg_start of it that no leg line followed.  Warm-up
 * legs are rep 0. */
bool resume_leg_died(const struct resume_state *rs, const char *cell,
    const char *arm, int rep);

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

/* When pid started, in epoch seconds (/proc/PID/stat's starttime and
 * /proc/stat's btime), to the clock tick; -1 when it is gone or a zombie.
 * The round's process ledger records it, so a later resume ends the same
 * process and never one that reused its pid. */
double resume_proc_started(pid_t pid);

#endif
