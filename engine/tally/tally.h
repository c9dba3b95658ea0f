/* Tally: legs in, comparisons out.
 *
 * Fed the events of a round (live, or read back from a log), it keeps the
 * counted leg of every (cell, arm, rep) and computes SPEC.md's arithmetic
 * through stats.h.  report, the seal's summary and the console's ratios
 * pane all call tally_report, so they never disagree. */
#ifndef BENCHTUI_TALLY_H
#define BENCHTUI_TALLY_H

#include <jansson.h>
#include <stdbool.h>

#include "spec.h"

struct tally;
struct profdiff;

struct tally *tally_create(void);

/* Call tally_set_baseline and tally_add_aa before feeding.  tally_set_spec
 * may come after (a resume feeds the old log first): legs already fed are
 * kept and put in the spec's order. */

/* Take arms, vs and aa_of from a round file (a log inside a round folder). */
void tally_set_spec(struct tally *t, const struct spec *s);

/* The round's name when neither a spec nor a "round" event gives one (a
 * bare log: report passes the log's file name). */
void tally_set_name(struct tally *t, const char *name);

/* For a bare log: the comparison arm of every other arm (default: the first
 * arm seen in each cell), and A/A pairs (arm is a copy of of).  0, -1
 * when a name is not valid, or -2 when the pairs and the baseline disagree
 * (an arm declared a copy twice, a copy of a copy, a copy as baseline). */
int tally_set_baseline(struct tally *t, const char *arm);
int tally_add_aa(struct tally *t, const char *arm, const char *of);

/* The level of the intervals and the verdicts' margin (SPEC.md
 * "Arithmetic"); default 0.95 and 0.01, or the round file's, or a bare
 * log's round event's. */
void tally_set_stats(struct tally *t, double level, double margin);

/* A leg line's status, the one rule every reader (report, console,
 * headless, resume) uses: SPEC.md's status field, or for an earlier
 * harness's row without one, timed_out, then rc (0 ok, else failed), then
 * a signal (failed); a row with neither rc nor signal counts as ok, one
 * whose rc is null as failed. */
enum tally_leg_status {
	TALLY_LEG_NONE,      /* not a leg line */
	TALLY_LEG_OK,
	TALLY_LEG_FAILED,
	TALLY_LEG_TIMED_OUT,
	TALLY_LEG_ABORTED,
};
enum tally_leg_status tally_leg_status(const json_t *ev);

/* "ok", "failed", "timed_out", "aborted" ("?" for NONE). */
const char *tally_leg_status_name(enum tally_leg_status st);

/* How the quiet gate let a leg go (the leg line's "gate"). */
enum tally_gate {
	TALLY_GATE_NONE,     /* no gate (or a line that does not say) */
	TALLY_GATE_QUIET,
	TALLY_GATE_WAIVED,   /* the operator's g or G */
	TALLY_GATE_TIMEOUT,  /* timeout_s, on_timeout "proceed" */
	TALLY_GATE_BUDGET,   /* the round's budget_s was spent */
};
/* The one rule of a leg line's gate, every reader's: its "gate", or for a
 * line of an earlier benchtui, quiet_override (waived) and quiet_timeout
 * (timeout). */
enum tally_gate tally_leg_gate(const json_t *ev);
/* "quiet", "waived", "timeout", "budget" ("" for NONE). */
const char *tally_gate_name(enum tally_gate g);

/* Seconds the gate waited before the leg lines fed so far, summed: what a
 * resumed round has spent of its budget_s. */
double tally_gate_waited(const struct tally *t);
/* And the walls of those legs, summed: what the scaled budget grew by. */
double tally_gate_legs(const struct tally *t);

/* Counted legs that failed or timed out, over every cell; *first (may be
 * NULL) the first of them in cell, rep and arm order, as cell, arm and rep
 * (borrowed names).  where gets "CELL N, CELL N" per cell. */
struct tally_failure {
	const char *cell, *arm;
	int rep;
};
size_t tally_failed_legs(const struct tally *t, struct tally_failure *first,
    char *where, size_t wlen);

/* Feed one event.  "round" gives the name; "leg" lines are recorded (a
 * later leg line for the same cell/arm/rep replaces an aborted one); other
 * types are ignored. */
void tally_feed(struct tally *t, const json_t *ev);

/* One log line's text (without its newline), fed straight when it is a
 * leg line the tally's own reader follows, which is faster than building a
 * json_t: TALLY_LINE_LEG, a leg line (a warm-up one is not counted, as in
 * tally_feed).  TALLY_LINE_PASS for anything else (another event, a line
 * with escapes or non-ASCII text, not valid JSON...): nothing was fed, and
 * the caller parses the line and calls tally_feed.  Both ways read a leg
 * line the same. */
enum tally_line { TALLY_LINE_PASS, TALLY_LINE_LEG };
enum tally_line tally_feed_line(struct tally *t, const char *line,
    size_t len);

/* The report: SPEC.md's "report --format json" object, plus extra keys
 * documented in benchtui(1).  New reference; never NULL. */
json_t *tally_report(const struct tally *t);

/* tally_report without the "ratios" lists: for the text and markdown
 * formats and the console, which print none.  The lists of a million-leg
 * log cost about 150 MB as json reals. */
json_t *tally_report_brief(const struct tally *t);

/* tally_report with every "ratios" list null, for report_print_lists to
 * print from tally_ratios one list at a time: json and csv of a million
 * legs then never hold every list at once. */
json_t *tally_report_deferred(const struct tally *t);

/* tally_report, kept by the tally from call to call for a reader that
 * asks again and again as legs come in (the console).  Only the pieces of
 * the report that read an arm with a new leg are computed again: in the
 * leg's own cell, the arm itself, the arms compared with it, and the
 * cell's A/A floor and biased metrics when it is an A/A arm or its
 * original.  The same object as tally_report's, up to date.  A new
 * reference to an object that shares its parts with the tally's cache:
 * read it, never change it. */
json_t *tally_report_cached(struct tally *t);

/* tally_report_cached in slices, for a caller that must not wait long: work
 * on the cached report until clock_now() passes deadline (at least one
 * piece; deadline <= 0: one piece), then return.  A new reference to the
 * report when it is complete, NULL while more remains.  A leg fed while
 * a report is under way is taken in by the next one. */
json_t *tally_report_advance(struct tally *t, double deadline);

/* Whether the tally was fed since the report tally_report_cached or
 * tally_report_advance last completed (true before the first). */
bool tally_report_stale(const struct tally *t);

/* The "ratios" list tally_report gives metric of arm in cell, into *buf
 * (room for *cap values a list, grown as needed; the caller frees it).
 * Its length; 0 when there is no such list. */
size_t tally_ratios(const struct tally *t, const char *cell, const char *arm,
    const char *metric, double **buf, size_t *cap);

/* Where tally_ratios_at found the last cell and metric; zeroed before the
 * first call. */
struct tally_cursor {
	size_t cell, metric;
};

/* tally_ratios, looking the cell and metric up from cur on: a caller
 * asking in the report's order finds each at once, not by a scan of every
 * cell a list. */
size_t tally_ratios_at(const struct tally *t, struct tally_cursor *cur,
    const char *cell, const char *arm, const char *metric, double **buf,
    size_t *cap);

/* Whether the user named counter name (the round file's "counters", or a
 * bare log's round event's unless they were the machine's default): one
 * the machine did not count is then shown as n/a, where a defaulted one
 * is left out. */
bool tally_counter_named(const struct tally *t, const char *name);

/* The names the tally holds, in its order: cells, the arms of cell i
 * (legs seen, or the round file's), metrics.  NULL past the end. */
size_t tally_cell_count(const struct tally *t);
const char *tally_cell_at(const struct tally *t, size_t i);
size_t tally_arm_count(const struct tally *t, size_t cell);
const char *tally_arm_at(const struct tally *t, size_t cell, size_t arm);
size_t tally_metric_count(const struct tally *t);
const char *tally_metric_at(const struct tally *t, size_t m);

/* The arm the report compares arm of cell with (its vs or aa_of, or a
 * bare log's rule); NULL for the baseline or an arm the tally lacks. */
const char *tally_vs_of(const struct tally *t, const char *cell,
    const char *arm);

/* Arm's own values of metric in cell, in rep order, into *buf (grown as
 * needed; the caller frees it): its counted legs that are ok and in the
 * plan, whose value is present and greater than 0 (what a ratio can be
 * taken of).  How many. */
size_t tally_values(const struct tally *t, const char *cell, const char *arm,
    const char *metric, double **buf, size_t *cap);

/* The hosts the leg lines named ("host"), in the order first seen: a
 * round on several hosts has more than one. */
size_t tally_host_count(const struct tally *t);
const char *tally_host_at(const struct tally *t, size_t i);

/* tally_ratios of the reps whose legs ran on host alone (0 when the tally
 * has no such host). */
size_t tally_ratios_host(const struct tally *t, const char *cell,
    const char *arm, const char *metric, const char *host, double **buf,
    size_t *cap);

/* The "profile" events fed so far (profdiff.h), or NULL when none. */
const struct profdiff *tally_profiles(const struct tally *t);

void tally_destroy(struct tally *t);

#endif
