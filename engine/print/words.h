/* Words: a report's numbers as a reader takes them in.
 *
 * One place for how a value reads (adaptive units: 12.7ms, 1.4MiB,
 * 12.3k req/s, 88.1M), how a verdict reads ("chunk512 is 21.1% slower
 * than chunk4k in wall [7.3%, 46.3%]", "same within 1%", "undecided:
 * can't see less than 3.4% with 10 reps; about 113 would"), which
 * metrics a summary leads with, and the summary itself.  The headless
 * table, `report` (text and markdown), summary.md and the console on
 * quitting all print words_summary, so they say the same thing in the
 * same numbers; the console's panes and the headless leg lines format
 * their values here too. */
#ifndef BENCHTUI_WORDS_H
#define BENCHTUI_WORDS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Seconds in adaptive units, three significant digits: "850ns", "12.7us",
 * "12.7ms", "1.23s", "123s"; "n/a" for NAN. */
const char *words_secs(char *buf, size_t len, double s);

/* Bytes in binary units: "512B", "12.3KiB", "1.40MiB", "2.00GiB". */
const char *words_bytes(char *buf, size_t len, double b);

/* A count with an SI suffix: "512", "12.3k", "88.1M", "1.20G". */
const char *words_count(char *buf, size_t len, double v);

/* An absolute value of metric in the unit its name says: seconds (wall,
 * cpu, server_cpu), nanoseconds (task-clock), NAME_ms / _us / _ns, bytes
 * (bytes, NAME_bytes), requests/s (rps: "12.3k req/s"), else a count.
 * tight: no space inside ("12.3k/s"), for key=value lines. */
const char *words_value(char *buf, size_t len, const char *metric,
    double v, bool tight);

/* What a metric is called in a sentence: "requests/s", "p50 latency",
 * "p99 latency", "server cpu", else its name. */
const char *words_label(const char *metric);

/* A short column head for a metric, at most 8 characters: "req/s",
 * "p50", "task-clk", "srv-cpu"; else the name (the caller cuts it). */
const char *words_head(const char *metric);

/* s in at most width columns (counting bytes): whole when it fits, else
 * cut and marked with '~', and never cut inside a dotted part, so a cut
 * symbol cannot pass for a file name ("sum_strided.constprop.0" at 14
 * reads "sum_strided~", not "sum_strided.c").  buf (or s when whole). */
const char *words_cut(char *buf, size_t len, const char *s, int width);

/* "2.1%", "0.40%", "150%": a fraction as a percentage. */
const char *words_pct(char *buf, size_t len, double frac);

/* The verdict of arm against vs on metric, from its report object mo
 * (estimate, ci, verdict, n, mde, reps_for_margin, suspect), at the
 * report's level and margin:
 *   "chunk512 is 21.1% slower than chunk4k in wall [7.3%, 46.3%]"
 *   "same within 1% [-0.4%, +0.6%]"
 *   "undecided: can't see less than 3.4% with 10 reps; about 113 would
 *    [-1.0%, +5.9%]"
 *   "unknown: 4 reps, an interval needs 6"
 * with " SUSPECT (the A/A arms differ)" after a suspect one. */
const char *words_verdict(char *buf, size_t len, const char *arm,
    const char *vs, const char *metric, const json_t *mo, double level,
    double margin);

/* The short form for a narrow column: "above", "same", "undecided
 * +-3.4%" (what it can see), "unknown". */
const char *words_verdict_short(char *buf, size_t len, const json_t *mo);

/* The metrics a summary leads with, in order, of those in metrics (an
 * arm's "metrics" object): requests/s, p50 and p99 latency and server
 * cpu where there, then wall and cpu, then the leg's own metrics, then
 * bytes.  Counters are left to the full table.  Up to cap names
 * (borrowed from metrics); returns how many. */
size_t words_lead(const json_t *metrics, const char **names, size_t cap);

/* Whether metric is one words_lead would list. */
bool words_is_lead(const char *metric);

enum words_style {
	WORDS_TEXT,      /* aligned lines, wrapped at 100 columns */
	WORDS_MARKDOWN,  /* a table per arm */
};

/* The summary of a report object (tally_report): per cell, its A/A floor
 * and any bias, then per arm its comparison arm and reps, and for each
 * lead metric both absolute medians and the verdict in words. */
void words_summary(const json_t *rep, FILE *out, enum words_style style);

#endif
