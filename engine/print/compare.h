/* compare: two rounds side by side (benchtui compare).  Cells, arms and
 * metrics are matched by name; for each match B against A by the
 * two-sample arithmetic of stats.h (an arm's own values, and its
 * within-round ratios against its comparison arm), and what only one
 * round has is listed.  The environments and the folders are the
 * caller's (engine/record). */
#ifndef BENCHTUI_COMPARE_H
#define BENCHTUI_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "report.h"
#include "tally.h"

/* Set "only_a", "only_b" and "cells" of SPEC.md's compare object on out,
 * comparing tally b (B) with tally a (A) at level with margin.  notes (an
 * array) gets a line for each arm whose effect cannot be compared (its
 * comparison arm differs between the rounds).  Returns the number of
 * metric entries made: 0 when the rounds have no cell, arm and metric
 * in common. */
size_t compare_build(const struct tally *a, const struct tally *b,
    double level, double margin, json_t *out, json_t *notes);

/* What report says of the round in t besides its ratios, for compare's
 * header: {"partial": BOOL|null, "legs_counted": N, "legs_total":
 * N|null, "warnings": [..]}, taken from tally_report_brief so that the
 * two commands cannot disagree on what is wrong with a folder. */
json_t *compare_round_facts(const struct tally *t);

/* Print the whole compare object (cmp: SPEC.md's keys) in fmt to out:
 * text (80 columns), json, csv (a row per cell, arm, metric and kind),
 * markdown.  notes (may be NULL) are printed under the text and markdown
 * header.  0, or -1 on a write error. */
int compare_print(const json_t *cmp, const json_t *notes,
    enum report_format fmt, FILE *out);

#endif
