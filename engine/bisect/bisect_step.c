/* A step's round: the user's round file with its arms replaced by the two
 * the step compares (the good end's build against the candidate's), and
 * the finished round's verdict read back from its summary.json. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bisect_int.h"
#include "xalloc.h"

#define BISECT_OUT "${OUT}"

/* Whether v (any JSON) holds a string with ${OUT}. */
static bool
bisect_step_has_out(const json_t *v)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_string(v))
		return strstr(json_string_value(v), BISECT_OUT) != NULL;
	if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			if (bisect_step_has_out(e))
				return true;
	} else if (json_is_object(v)) {
		json_object_foreach((json_t *)v, key, e)
			if (bisect_step_has_out(e))
				return true;
	}
	return false;
}

bool
bisect_step_uses_out(const json_t *tmpl)
{
	return bisect_step_has_out(json_object_get(tmpl, "bin")) ||
	    bisect_step_has_out(json_object_get(tmpl, "command")) ||
	    bisect_step_has_out(json_array_get(json_object_get(tmpl, "arms"),
	    0));
}

/* Every ${OUT} in v's strings replaced by out, in place. */
static void
bisect_step_fill(json_t *v, const char *out)
{
	const char *key;
	json_t *e;
	size_t i;

	if (json_is_string(v)) {
		const char *s = json_string_value(v), *p;
		struct xbuf b = { 0 };

		if (strstr(s, BISECT_OUT) == NULL)
			return;
		while ((p = strstr(s, BISECT_OUT)) != NULL) {
			xbuf_add(&b, s, (size_t)(p - s));
			xbuf_add(&b, out, strlen(out));
			s = p + strlen(BISECT_OUT);
		}
		xbuf_add(&b, s, strlen(s) + 1);
		json_string_set(v, b.p);
		free(b.p);
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, e)
			bisect_step_fill(e, out);
	} else if (json_is_object(v)) {
		json_object_foreach(v, key, e)
			bisect_step_fill(e, out);
	}
}

/* One of the two arms: the round file's first arm (its comparisons left
 * out), the round's bin when that names ${OUT}, and OUT as an arm
 * variable for the command's templates. */
static json_t *
bisect_step_arm(const json_t *tmpl, const char *name, const char *out)
{
	json_t *arm = json_deep_copy(json_array_get(json_object_get(tmpl,
	    "arms"), 0));
	json_t *bin = json_object_get(tmpl, "bin"), *vars;

	if (!json_is_object(arm)) {
		json_decref(arm);
		arm = json_object();
	}
	json_object_del(arm, "vs");
	json_object_del(arm, "aa_of");
	if (json_object_get(arm, "bin") == NULL && bisect_step_has_out(bin))
		json_object_set_new(arm, "bin", json_deep_copy(bin));
	bisect_step_fill(arm, out);
	json_object_set_new(arm, "name", json_string(name));
	if (bisect_step_has_out(json_object_get(tmpl, "command"))) {
		if (!json_is_object(vars = json_object_get(arm, "vars"))) {
			vars = json_object();
			json_object_set_new(arm, "vars", vars);
		}
		json_object_set_new(vars, "OUT", json_string(out));
	}
	return arm;
}

/* The round's reps, adaptive until decided on metric: the round file's
 * own min and max when it has them, its fixed count as the max. */
static json_t *
bisect_step_reps(const json_t *tmpl, const char *metric)
{
	json_t *r = json_object_get(tmpl, "reps");
	json_int_t min = 8, max = 40;

	if (json_is_object(r)) {
		if (json_is_integer(json_object_get(r, "min")))
			min = json_integer_value(json_object_get(r, "min"));
		if (json_is_integer(json_object_get(r, "max")))
			max = json_integer_value(json_object_get(r, "max"));
	} else if (json_is_integer(r)) {
		max = json_integer_value(r);
		min = max < 8 ? max : 8;
	}
	return json_pack("{sI sI ss ss}", "min", min, "max", max, "until",
	    "decided", "metric", metric);
}

json_t *
bisect_step_spec(const json_t *tmpl, const char *workdir, const char *name,
    const char *good_out, const char *cand_out, const char *metric)
{
	json_t *s = json_deep_copy(tmpl);
	json_t *cand = bisect_step_arm(tmpl, "candidate", cand_out);

	json_object_set_new(s, "name", json_string(name));
	json_object_set_new(s, "workdir", json_string(workdir));
	if (bisect_step_has_out(json_object_get(tmpl, "bin")))
		json_object_del(s, "bin");
	/* Rules about the user's arms name arms this round has not. */
	json_object_del(s, "fail_on");
	json_object_del(s, "profile");
	json_object_set_new(s, "reps", bisect_step_reps(tmpl, metric));
	json_object_set_new(s, "baseline", json_string("good"));
	json_object_set_new(cand, "vs", json_string("good"));
	json_object_set_new(s, "arms", json_pack("[oo]",
	    bisect_step_arm(tmpl, "good", good_out), cand));
	return s;
}

/* One cell's verdict for the candidate into v. */
static void
bisect_step_cell(const json_t *m, struct bisect_verdict *v)
{
	const json_t *ci = json_object_get(m, "ci");

	snprintf(v->verdict, sizeof v->verdict, "%s",
	    json_string_value(json_object_get(m, "verdict")) ?
	    json_string_value(json_object_get(m, "verdict")) : "unknown");
	v->estimate = json_number_value(json_object_get(m, "estimate"));
	v->lo = json_number_value(json_array_get(ci, 0));
	v->hi = json_number_value(json_array_get(ci, 1));
	v->reps = (long)json_integer_value(json_object_get(m, "n"));
}

/* How a cell's verdict ranks when cells disagree: the worse way first,
 * then the other way, then no decision, then same. */
static int
bisect_step_rank(const char *verdict, const char *worse)
{
	bool moved = strcmp(verdict, "above") == 0 ||
	    strcmp(verdict, "below") == 0;

	if (moved && (worse == NULL || strcmp(verdict, worse) == 0))
		return 0;
	if (moved)
		return 1;
	return strcmp(verdict, "same") == 0 ? 3 : 2;
}

int
bisect_step_read(const char *round_dir, const char *metric,
    const char *worse, struct bisect_verdict *v, char *err, size_t errlen)
{
	char *path = xasprintf("%s/summary.json", round_dir);
	json_error_t je;
	json_t *sum = json_load_file(path, 0, &je), *cell;
	const char *name;
	int best = 99;

	memset(v, 0, sizeof *v);
	snprintf(v->verdict, sizeof v->verdict, "unknown");
	if (sum == NULL) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		free(path);
		return -1;
	}
	json_object_foreach(json_object_get(sum, "cells"), name, cell) {
		const json_t *m = json_object_get(json_object_get(
		    json_object_get(json_object_get(cell, "arms"), "candidate"),
		    "metrics"), metric);
		struct bisect_verdict one;
		int rank;

		if (m == NULL)
			continue;
		memset(&one, 0, sizeof one);
		bisect_step_cell(m, &one);
		if ((rank = bisect_step_rank(one.verdict, worse)) < best) {
			best = rank;
			*v = one;
		}
	}
	json_decref(sum);
	if (best == 99) {
		snprintf(err, errlen, "%s: no verdict of the candidate on "
		    "metric '%s' (is the metric measured?)", path, metric);
		free(path);
		return -1;
	}
	free(path);
	return 0;
}
