/* Printing a report object (tally_report) in the four formats, and the
 * round folder's summary files. */
#ifndef BENCHTUI_REPORT_H
#define BENCHTUI_REPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

enum report_format {
	REPORT_TEXT,     /* aligned table, fits 100 columns */
	REPORT_JSON,
	REPORT_CSV,      /* one row per cell, arm and metric */
	REPORT_MARKDOWN, /* pastes into a pull request */
};

/* "text", "json", "csv", "markdown" -> format; -1 when unknown. */
int report_format_parse(const char *name);

/* Those four names, NULL-terminated (for "did you mean"). */
const char *const *report_format_names(void);

/* Print rep in fmt to out.  0 or -1 (write error). */
int report_print(const json_t *rep, enum report_format fmt, FILE *out);

/* Where the ratio lists of a report built without them (a "ratios" that
 * is null, tally_report_deferred) come from: get sets *ratios (borrowed,
 * good until the next call) to the list of metric of arm in cell and
 * returns its length. */
struct report_lists {
	size_t (*get)(void *arg, const char *cell, const char *arm,
	    const char *metric, const double **ratios);
	void *arg;
};

/* report_print, with each null "ratios" printed from lists (json and csv;
 * the other formats print no lists), one at a time: the same bytes as
 * report_print of the report with its lists, without holding them all. */
int report_print_lists(const json_t *rep, enum report_format fmt, FILE *out,
    const struct report_lists *lists);

/* What compare's formats (compare.h) share: text wrapped at width,
 * continuation lines indented by indent + 2. */
void report_wrap_at(FILE *out, int width, int indent, const char *text);

/* Write DIR/summary.json and DIR/summary.md for rep; partial marks an
 * aborted round sealed on purpose.  0, or -1 with err and errno (ENOSPC:
 * the disk is full). */
int report_write_summary(const char *dir, const json_t *rep, bool partial,
    char *err, size_t errlen);

#endif
