/* fail_on rules (see failon.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "failon.h"
#include "spec.h"
#include "suggest.h"
#include "xalloc.h"

/* The verdicts of benchtui(1) (stats_verdict_name's words; the stats
 * unit test holds the two lists together). */
static const char *const failon_verdicts[] = { "above", "below", "same",
    "undecided", "unknown" };

static bool
failon_verdict_known(const char *v)
{
	for (size_t i = 0; i < sizeof failon_verdicts / sizeof *failon_verdicts;
	    i++)
		if (strcmp(v, failon_verdicts[i]) == 0)
			return true;
	return false;
}

static void
failon_drop_last(struct failon *f)
{
	struct failon_rule *r = &f->r[--f->n];

	free(r->text);
	free(r->arm);
	free(r->metric);
	free(r->verdict);
}

/* One rule (no comma) into f. */
static int
failon_add_one(struct failon *f, const char *text, char *err, size_t errlen)
{
	const char *colon = strrchr(text, ':'), *slash;
	struct failon_rule r = { 0 };

	if (colon == NULL) {
		snprintf(err, errlen, "'%s': not a rule (METRIC:VERDICT or "
		    "ARM/METRIC:VERDICT, e.g. wall:above)", text);
		return -1;
	}
	if (!failon_verdict_known(colon + 1)) {
		snprintf(err, errlen, "'%s': unknown verdict '%s' (above, below, "
		    "same, undecided or unknown)", text, colon + 1);
		return -1;
	}
	slash = memchr(text, '/', (size_t)(colon - text));
	r.arm = slash ? xasprintf("%.*s", (int)(slash - text), text) : NULL;
	r.metric = xasprintf("%.*s", (int)(colon - (slash ? slash + 1 : text)),
	    slash ? slash + 1 : text);
	if (r.arm != NULL && !spec_name_valid(r.arm))
		snprintf(err, errlen, "'%s': '%s' is not an arm's name", text,
		    r.arm);
	else if (r.metric[0] == '\0' || strpbrk(r.metric, " \t\n") != NULL)
		snprintf(err, errlen, "'%s': '%s' is not a metric's name", text,
		    r.metric);
	else {
		r.text = xstrdup(text);
		r.verdict = xstrdup(colon + 1);
		f->r = xreallocarray(f->r, f->n + 1, sizeof *f->r);
		f->r[f->n++] = r;
		return 0;
	}
	free(r.arm);
	free(r.metric);
	return -1;
}

int
failon_add(struct failon *f, const char *text, char *err, size_t errlen)
{
	const char *p = text, *comma;
	size_t n0 = f->n;

	/* A comma separates rules: "wall:below,wall:above" is two. */
	for (;; p = comma + 1) {
		char *one;
		int rc;
		comma = strchr(p, ',');
		one = comma ? xasprintf("%.*s", (int)(comma - p), p) :
		    xstrdup(p);
		if (one[0] == '\0') {
			snprintf(err, errlen, "'%s': an empty rule in a list "
			    "(rules are separated by one comma: "
			    "wall:below,wall:above)", text);
			rc = -1;
		} else
			rc = failon_add_one(f, one, err, errlen);
		free(one);
		if (rc != 0) {
			while (f->n > n0)
				failon_drop_last(f);
			return -1;
		}
		if (comma == NULL)
			return 0;
	}
}

void
failon_finish(struct failon *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->r[i].text);
		free(f->r[i].arm);
		free(f->r[i].metric);
		free(f->r[i].verdict);
	}
	free(f->r);
	f->r = NULL;
	f->n = 0;
}

int
failon_check_arm(const struct failon_rule *r, const struct spec *s,
    char *err, size_t errlen)
{
	if (r->arm == NULL)
		return 0;
	if (spec_arm_index(s, r->arm) < 0)
		snprintf(err, errlen, "'%s': the round has no arm '%s'", r->text,
		    r->arm);
	else if (strcmp(r->arm, s->baseline) == 0)
		snprintf(err, errlen, "'%s': %s is the baseline, which has no "
		    "verdicts of its own (the other arms are compared with it)",
		    r->text, r->arm);
	else
		return 0;
	return -1;
}

int
failon_check_spec(const struct failon_rule *r, const struct spec *s,
    char *err, size_t errlen)
{
	char why[256], list[1536];

	if (failon_check_arm(r, s, err, errlen) != 0)
		return -1;
	if (spec_metric_known(s, r->metric, why, sizeof why, list,
	    sizeof list))
		return 0;
	snprintf(err, errlen, "'%s': %s, so the rule could never match; %s",
	    r->text, why, list);
	return -1;
}

/* "a, b, c" of names[0..n) into buf. */
static const char *
failon_list(char *buf, size_t len, const char *const *names, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%s", i ? ", " : "",
		    names[i]);
	return n ? buf : "none";
}

static bool
failon_in(const char *name, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(name, names[i]) == 0)
			return true;
	return false;
}

int
failon_check_names(const struct failon_rule *r, size_t nrounds,
    const char *const *arms, size_t narms, const char *const *metrics,
    size_t nmetrics, char *err, size_t errlen)
{
	char hint[128], list[1024];

	if (r->arm != NULL && !failon_in(r->arm, arms, narms)) {
		snprintf(err, errlen, "'%s': %s arm '%s' with verdicts%s "
		    "(arms with verdicts: %s); the rule could never match",
		    r->text, nrounds > 1 ? "neither round has an" :
		    "the round has no", r->arm, suggest_hint(hint, sizeof hint, r->arm, arms, narms),
		    failon_list(list, sizeof list, arms, narms));
		return -1;
	}
	if (!failon_in(r->metric, metrics, nmetrics)) {
		snprintf(err, errlen, "'%s': %s metric '%s'%s (metrics: "
		    "%s); the rule could never match", r->text, nrounds > 1 ?
		    "neither round has a" : "the round has no", r->metric,
		    suggest_hint(hint, sizeof hint, r->metric, metrics,
		    nmetrics), failon_list(list, sizeof list, metrics,
		    nmetrics));
		return -1;
	}
	return 0;
}

/* The first rule of f that the verdict v of metric of arm matches, or
 * NULL. */
static const struct failon_rule *
failon_find(const struct failon *f, const char *arm, const char *metric,
    const char *v)
{
	for (size_t i = 0; i < f->n; i++)
		if ((f->r[i].arm == NULL || strcmp(f->r[i].arm, arm) == 0) &&
		    strcmp(f->r[i].metric, metric) == 0 &&
		    strcmp(f->r[i].verdict, v) == 0)
			return &f->r[i];
	return NULL;
}

/* "CELL/ARM METRIC VERDICT: EST [LO, HI] (fail_on RULE)" */
static json_t *
failon_line(const char *cell, const char *arm, const char *metric,
    const json_t *m, const struct failon_rule *r)
{
	const json_t *ci = json_object_get(m, "ci");
	char est[32] = "n/a", iv[80] = "no interval";
	char *s;
	json_t *j;

	if (json_is_number(json_object_get(m, "estimate")))
		snprintf(est, sizeof est, "%.4g", json_number_value(
		    json_object_get(m, "estimate")));
	if (json_is_array(ci))
		snprintf(iv, sizeof iv, "[%.4g, %.4g]", json_number_value(
		    json_array_get(ci, 0)), json_number_value(json_array_get(ci,
		    1)));
	s = xasprintf("%s/%s %s %s: %s %s (fail_on %s)", cell, arm, metric,
	    r->verdict, est, iv, r->text);
	j = json_string(s);
	free(s);
	return j;
}

size_t
failon_match(const struct failon *f, const json_t *rep, json_t *msgs)
{
	const char *cell, *arm, *metric;
	const json_t *c, *a, *m;
	size_t n = 0;

	if (f == NULL || f->n == 0)
		return 0;
	json_object_foreach(json_object_get(rep, "cells"), cell, c)
	json_object_foreach(json_object_get(c, "arms"), arm, a)
	json_object_foreach(json_object_get(a, "metrics"), metric, m) {
		const char *v = json_string_value(json_object_get(m, "verdict"));
		const struct failon_rule *r;
		if (v == NULL || json_is_true(json_object_get(m, "suspect")) ||
		    (r = failon_find(f, arm, metric, v)) == NULL)
			continue;
		json_array_append_new(msgs, failon_line(cell, arm, metric, m, r));
		n++;
	}
	return n;
}

void
failon_join(const json_t *msgs, char *buf, size_t len)
{
	size_t n = 0, i, total = json_array_size(msgs);
	const json_t *v;

	buf[0] = '\0';
	json_array_foreach(msgs, i, v) {
		const char *s = json_string_value(v);
		/* Room for this one and a closing "; and N more". */
		if (n + strlen(s) + 40 > len) {
			snprintf(buf + n, len - n, "%sand %zu more", n ? "; " :
			    "", total - i);
			return;
		}
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? "; " : "", s);
	}
}
