/* fail_on rules (the round file's `fail_on`, and --fail-on of run,
 * resume, report and compare): "METRIC:VERDICT", or "ARM/METRIC:VERDICT"
 * for one arm.  A completed round (a report, a comparison) whose verdict
 * of a metric matches a rule, and is not suspect, ends with exit 6, so a
 * CI job fails on a regression.  The rules are checked when read (the
 * round file's by check); matching reads a report or compare object
 * (cells / CELL / arms / ARM / metrics / METRIC: verdict, estimate, ci,
 * suspect). */
#ifndef BENCHTUI_FAILON_H
#define BENCHTUI_FAILON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct failon_rule {
	char *text;        /* as written */
	char *arm;         /* NULL: any arm */
	char *metric;
	char *verdict;     /* above, below, same, undecided or unknown */
};

struct failon {
	struct failon_rule *r;
	size_t n;
};

/* Add rule text to f: one rule, or several separated by commas
 * ("wall:below,wall:above" is two rules).  0, or -1 with err saying what
 * is wrong with it (the caller names where it came from): no ':', an
 * unknown verdict, an empty metric or rule, an arm that is not a name;
 * then none of text's rules is added. */
int failon_add(struct failon *f, const char *text, char *err, size_t errlen);

void failon_finish(struct failon *f);

/* Whether rule r can match in round s: an arm it names is one of s's,
 * and not the baseline (which has no verdicts of its own).  0, or -1
 * with err. */
struct spec;
int failon_check_arm(const struct failon_rule *r, const struct spec *s,
    char *err, size_t errlen);

/* failon_check_arm, and the metric one round s can have
 * (spec_metric_known), with the nearest name when it is a slip.  0, or
 * -1 with err. */
int failon_check_spec(const struct failon_rule *r, const struct spec *s,
    char *err, size_t errlen);

/* Whether rule r can match the rounds read back: its arm (when it names
 * one) among arms[0..narms), the arms with verdicts, and its metric among
 * metrics[0..nmetrics).  0, or -1 with err naming what is missing, the
 * nearest name and the list (nrounds: 1 for report, 2 for compare). */
int failon_check_names(const struct failon_rule *r, size_t nrounds,
    const char *const *arms, size_t narms, const char *const *metrics,
    size_t nmetrics, char *err, size_t errlen);

/* The matches of f in rep (a report or compare object): each appended to
 * msgs as "CELL/ARM METRIC VERDICT: ESTIMATE [LO, HI] (fail_on RULE)".
 * Verdicts marked suspect never match.  How many. */
size_t failon_match(const struct failon *f, const json_t *rep, json_t *msgs);

/* msgs (failon_match's) on one line for an error buffer: "; "-joined, cut
 * with "and N more" to fit len. */
void failon_join(const json_t *msgs, char *buf, size_t len);

#endif
