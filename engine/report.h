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

/* Print rep in fmt to out.  0 or -1 (write error). */
int report_print(const json_t *rep, enum report_format fmt, FILE *out);

/* Write DIR/summary.json and DIR/summary.md for rep; partial marks an
 * aborted round sealed on purpose.  0, or -1 with err. */
int report_write_summary(const char *dir, const json_t *rep, bool partial,
    char *err, size_t errlen);

#endif
