/* The ncurses console: a live round, or a replayed log, on one screen. */
#ifndef BENCHTUI_CONSOLE_H
#define BENCHTUI_CONSOLE_H

#include <stdbool.h>

struct round;

/* Run r on an engine thread and show it until the operator quits.  Returns
 * the process exit status (0 complete, 3 aborted and resumable, 1 failed).
 * theme may be NULL (default, or mono under NO_COLOR). */
int console_run_round(struct round *r, const char *theme);

/* A bisect's step: the round as console_run_round shows it, with hunt
 * (the revisions left, each finished step's verdict) in the header; the
 * console closes when the round ends on its own. */
int console_run_step(struct round *r, const char *theme, const char *hunt);

/* Show a finished (or partial) log.  speed multiplies the recorded pace;
 * instant jumps to the end. */
int console_replay(const char *log_path, double speed, bool instant,
    const char *theme);

#endif
