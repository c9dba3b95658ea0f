/* Inside the report's formats: what report.c shares with report_hosts.c.
 * Not part of the engine's public surface. */
#ifndef BENCHTUI_REPORT_INT_H
#define BENCHTUI_REPORT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* A ratio in at most 7 characters; "n/a" for null. */
const char *report_ratio(char *buf, size_t len, const json_t *x);

/* "[lo, hi]" of two ratios, or "n/a" when either is missing. */
const char *report_range(char *buf, size_t len, const json_t *lo,
    const json_t *hi);

/* A round on several hosts (report_hosts.c).  Whether any metric of rep
 * has "hosts" (csv then has the columns host and differs). */
bool report_has_hosts(const json_t *rep);

/* Text: under metric m's row, a row per host and, when the hosts
 * differ, the line that says the effect depends on the machine. */
void report_text_hosts(FILE *out, const char *metric, const json_t *m);

/* Markdown: after a cell's table, each arm-metric's hosts. */
void report_markdown_hosts(FILE *out, const json_t *cell);

/* Csv: the end of metric m's row (its host empty, differs whether the
 * effect depends on the machine), then a row per host. */
void report_csv_hosts(FILE *out, const json_t *rep, const char *cell,
    const char *arm, const char *vs, const char *metric, const json_t *m);

#endif
