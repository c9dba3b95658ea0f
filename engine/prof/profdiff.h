/* Each profiled arm beside its comparison arm (SPEC.md "Profiles"): symbol
 * and object shares with 95% intervals from the sample counts, their
 * difference in points with its interval, the time per run it stands for,
 * largest moves first, noise marked; the callers of the symbols that moved
 * most; syscalls per request side by side with their ratio.  Fed the
 * "profile" events of a round; report (every format), the summaries and
 * the console all print what profdiff_json builds. */
#ifndef BENCHTUI_PROFDIFF_H
#define BENCHTUI_PROFDIFF_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

struct profdiff;

struct profdiff *profdiff_create(void);
void profdiff_destroy(struct profdiff *d);

/* Keep a "profile" event (borrowed).  A later one for the same cell, arm
 * and kind replaces an earlier one; "aborted" ones are not kept.  Events
 * that cannot be (an unknown kind, a share outside 0..100, samples that
 * do not add up) are kept with a warning (profdiff_warnings). */
void profdiff_feed(struct profdiff *d, const json_t *ev);

/* Whether that profile was taken (fed, and not aborted). */
bool profdiff_has(const struct profdiff *d, const char *cell,
    const char *arm, const char *kind);

/* Whether any profile was fed. */
bool profdiff_any(const struct profdiff *d);

/* What profdiff_feed found wrong in the events: an array of strings
 * (borrowed; empty when nothing). */
const json_t *profdiff_warnings(const struct profdiff *d);

/* The 95% Wilson score interval of a share of k in n, as fractions
 * (0, 0 when n is 0). */
void profdiff_wilson(long long k, long long n, double *lo, double *hi);

/* Newcombe's interval (from two Wilson intervals) of the difference of
 * the shares k1/n1 - k2/n2, as fractions. */
void profdiff_newcombe(long long k1, long long n1, long long k2,
    long long n2, double *lo, double *hi);

/* The report's "profiles": {CELL: {ARM: {KIND: {...}}}}, each profile's
 * status, reason, files, event, runs and samples (and the comparison
 * arm's), and its rows: "symbols" for perf and server_perf (largest time
 * moved first), "callers" of the most-moved symbols, "syscalls" for
 * syscalls.  benchtui(1) lists every field.  cells is the report's
 * "cells" (each arm's "vs" and median cpu); an arm absent there is
 * compared with nothing.  New reference. */
json_t *profdiff_json(const struct profdiff *d, const json_t *cells);

/* Print profiles (profdiff_json) as text, markdown or csv; nothing when
 * there are none.  At most limit rows per profile (0: all). */
enum profdiff_format { PROFDIFF_TEXT, PROFDIFF_MARKDOWN, PROFDIFF_CSV };
void profdiff_print(const json_t *profiles, enum profdiff_format fmt,
    size_t limit, FILE *out);

/* The differential view in a few lines, for the headless summary: each
 * profile's counts or failure, the symbols that moved (beyond noise) with
 * their interval, or every system call per request in each arm and the
 * call that moved most.  Nothing when there are no profiles. */
void profdiff_brief(const json_t *profiles, FILE *out);

#endif
