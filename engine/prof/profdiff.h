/* Each profiled arm beside its comparison arm (SPEC.md "Profiles"): symbol
 * shares and their difference in points, largest moves first; syscalls per
 * request side by side.  Fed the "profile" events of a round; report, the
 * summaries and the console all print what profdiff_json builds. */
#ifndef BENCHTUI_PROFDIFF_H
#define BENCHTUI_PROFDIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct profdiff;

struct profdiff *profdiff_create(void);
void profdiff_destroy(struct profdiff *d);

/* Keep a "profile" event (borrowed).  A later one for the same cell, arm
 * and kind replaces an earlier one; "aborted" ones are not kept. */
void profdiff_feed(struct profdiff *d, const json_t *ev);

/* Whether that profile was taken (fed, and not aborted). */
bool profdiff_has(const struct profdiff *d, const char *cell,
    const char *arm, const char *kind);

/* Whether any profile was fed. */
bool profdiff_any(const struct profdiff *d);

/* The report's "profiles": {CELL: {ARM: {KIND: {"status", "vs" (the
 * comparison arm when it was profiled too, else null), "reason", "event",
 * "files", and "symbols" [{"symbol", "share", "vs_share", "diff"}] for
 * perf, "syscalls" [{"syscall", "calls", "per_request", "vs_calls",
 * "vs_per_request", "diff"}] for syscalls, largest |diff| first}}}}.
 * cells is the report's "cells" (each arm's "vs"); an arm absent there is
 * compared with nothing.  New reference. */
json_t *profdiff_json(const struct profdiff *d, const json_t *cells);

/* Print profiles (profdiff_json) as text or markdown; nothing when there
 * are none.  At most limit rows per profile (0: all). */
void profdiff_print(const json_t *profiles, bool markdown, size_t limit,
    FILE *out);

#endif
