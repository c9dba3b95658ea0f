/* Round-file fields of the leg order, the arithmetic and failure handling:
 * order, shuffle_seed, confidence, margin, fail_fast, fail_on, and reps
 * as an object (adaptive rounds).  See benchtui-round(5). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "legmetrics.h"
#include "suggest.h"
#include "spec_int.h"
#include "xalloc.h"

#define SPEC_SHUFFLE_SEED_MAX 9007199254740991LL /* 2^53 - 1 */

static int
spec_stats_order(struct parser *p, json_t *root)
{
	static const char *const names[] = { "mirror", "seed", "shuffle" };
	json_t *v = json_object_get(root, "order"), *seed;
	const char *o;
	struct spec *s = p->s;

	s->order = SPEC_ORDER_MIRROR;
	if (v != NULL) {
		size_t i;
		if ((o = json_string_value(v)) == NULL)
			return spec_perr(p, "order", "must be \"mirror\", "
			    "\"seed\" or \"shuffle\", not %s",
			    spec_json_type(v));
		for (i = 0; i < 3 && strcmp(o, names[i]) != 0; i++)
			;
		if (i == 3)
			return spec_perr(p, "order", "must be \"mirror\", "
			    "\"seed\" or \"shuffle\", not \"%s\"", o);
		s->order = (enum spec_order)i;
	}
	if ((seed = json_object_get(root, "shuffle_seed")) != NULL) {
		if (s->order != SPEC_ORDER_SHUFFLE)
			return spec_perr(p, "shuffle_seed", "only applies to "
			    "\"order\": \"shuffle\"");
		/* Below 2^53: JSON readers that hold numbers as doubles
		 * (jq, JavaScript) keep it exact. */
		if (!json_is_integer(seed) || json_integer_value(seed) < 0 ||
		    json_integer_value(seed) > SPEC_SHUFFLE_SEED_MAX)
			return spec_perr(p, "shuffle_seed", "must be an "
			    "integer from 0 to 2^53-1");
		s->shuffle_seed = (uint64_t)json_integer_value(seed);
		s->has_shuffle_seed = true;
	}
	return 0;
}

/* reps as an object: {"min": N, "max": M, "until": "decided",
 * "metric": "wall"}. */
static int
spec_stats_adaptive(struct parser *p, json_t *r)
{
	static const char *const keys[] = { "min", "max", "until", "metric",
	    NULL };
	struct spec *s = p->s;
	const char *until;
	json_t *v;

	if (spec_check_keys(p, r, "reps", keys) < 0)
		return -1;
	if (spec_want_int(p, json_object_get(r, "min"), "reps.min", 1,
	    SPEC_REPS_MAX, &s->adaptive.min) < 0 ||
	    spec_want_int(p, json_object_get(r, "max"), "reps.max", 1,
	    SPEC_REPS_MAX, &s->adaptive.max) < 0)
		return -1;
	if (s->adaptive.max < s->adaptive.min)
		return spec_perr(p, "reps.max", "(%d) is below reps.min (%d)",
		    s->adaptive.max, s->adaptive.min);
	if ((v = json_object_get(r, "until")) == NULL)
		return spec_perr(p, "reps.until", "missing (required): "
		    "\"decided\"");
	if ((until = json_string_value(v)) == NULL ||
	    strcmp(until, "decided") != 0)
		return spec_perr(p, "reps.until", "must be \"decided\"");
	if ((v = json_object_get(r, "metric")) != NULL) {
		if (spec_want_string(p, v, "reps.metric", true,
		    &s->adaptive.metric) < 0)
			return -1;
	} else
		s->adaptive.metric = xstrdup("wall");
	s->adaptive.on = true;
	s->reps = s->adaptive.max;
	return 0;
}

int
spec_parse_reps(struct parser *p, json_t *root)
{
	json_t *r = json_object_get(root, "reps");
	struct spec *s = p->s;

	/* Left out: adaptive until decided, on the headline metric, chosen
	 * once the cells are read (spec_check_adaptive_metric). */
	if (r == NULL) {
		s->adaptive.on = s->adaptive.implied = true;
		s->adaptive.min = SPEC_REPS_AUTO_MIN;
		s->adaptive.max = s->reps = SPEC_REPS_AUTO_MAX;
		return 0;
	}
	if (json_is_object(r))
		return spec_stats_adaptive(p, r);
	return spec_want_int(p, r, "reps", 1, SPEC_REPS_MAX, &p->s->reps);
}

/* "estimator": "paired" or "floor". */
static int
spec_stats_estimator(struct parser *p, json_t *root)
{
	json_t *v = json_object_get(root, "estimator");
	const char *name;
	int e;

	p->s->estimator = SPEC_ESTIMATOR_PAIRED;
	if (v == NULL)
		return 0;
	if ((name = json_string_value(v)) == NULL)
		return spec_perr(p, "estimator", "must be \"paired\" or "
		    "\"floor\", not %s", spec_json_type(v));
	if ((e = spec_estimator_parse(name)) < 0)
		return spec_perr(p, "estimator", "must be \"paired\" or "
		    "\"floor\", not \"%s\"", name);
	p->s->estimator = (enum spec_estimator)e;
	return 0;
}

int
spec_parse_stats(struct parser *p, json_t *root)
{
	struct spec *s = p->s;
	json_t *v;
	int ff = SPEC_FAIL_FAST;

	if (spec_stats_order(p, root) < 0 ||
	    spec_stats_estimator(p, root) < 0)
		return -1;
	s->confidence = SPEC_CONFIDENCE;
	s->margin = SPEC_MARGIN;
	if ((v = json_object_get(root, "confidence")) != NULL) {
		if (spec_want_number(p, v, "confidence", 0, true,
		    &s->confidence) < 0)
			return -1;
		if (!(s->confidence < 1))
			return spec_perr(p, "confidence", "must be below 1 "
			    "(0.95 is 95%%), not %g", s->confidence);
	}
	if ((v = json_object_get(root, "margin")) != NULL &&
	    spec_want_number(p, v, "margin", 0, false, &s->margin) < 0)
		return -1;
	if ((v = json_object_get(root, "fail_fast")) != NULL &&
	    spec_want_int(p, v, "fail_fast", 0, SPEC_REPS_MAX, &ff) < 0)
		return -1;
	s->fail_fast = ff;
	if (s->adaptive.on && s->adaptive.min > s->reps)
		return spec_perr(p, "reps.min", "out of range");
	return 0;
}

int
spec_parse_fail_on(struct parser *p, json_t *j)
{
	struct spec *s = p->s;
	char path[32], err[512];
	json_t *v;
	size_t i;

	if (j == NULL)
		return 0;
	p->fail_on = j;
	if (!json_is_array(j))
		return spec_perr(p, "fail_on", "must be an array of rules "
		    "(\"METRIC:VERDICT\" or \"ARM/METRIC:VERDICT\"), not %s",
		    spec_json_type(j));
	json_array_foreach(j, i, v) {
		snprintf(path, sizeof path, "fail_on[%zu]", i);
		if (!json_is_string(v))
			return spec_perr(p, path, "must be a string (a rule such "
			    "as \"wall:above\"), not %s", spec_json_type(v));
		if (failon_add(&s->fail_on, json_string_value(v), err,
		    sizeof err) != 0)
			return spec_perr(p, path, "%s", err);
	}
	return 0;
}

size_t
spec_looks(const struct spec *s, int *at, size_t cap)
{
	size_t n = 0;
	int r;

	if (!s->adaptive.on)
		return 0;
	/* min, then each 1.5x growth rounded up, then max. */
	for (r = s->adaptive.min; r < s->adaptive.max;
	    r = (int)ceil(r * 1.5)) {
		if (at && n < cap)
			at[n] = r;
		n++;
		if (r == (int)ceil(r * 1.5))
			break;
	}
	if (at && n < cap)
		at[n] = s->adaptive.max;
	return n + 1;
}

const char *
spec_order_name(enum spec_order o)
{
	switch (o) {
	case SPEC_ORDER_SEED:    return "seed";
	case SPEC_ORDER_SHUFFLE: return "shuffle";
	case SPEC_ORDER_MIRROR:  break;
	}
	return "mirror";
}

/* Whether name is one of the round's own metrics: wall, cpu, bytes, a
 * counter, and with a server server_cpu and server_COUNTER. */
static bool
spec_stats_builtin_metric(const struct spec *s, const char *name,
    bool server)
{
	if (strcmp(name, "wall") == 0 || strcmp(name, "cpu") == 0 ||
	    strcmp(name, "bytes") == 0 ||
	    (server && strcmp(name, "server_cpu") == 0))
		return true;
	if (server && strncmp(name, "server_", 7) == 0)
		name += 7;
	for (size_t i = 0; i < s->ncounters; i++)
		if (strcmp(name, s->counters[i]) == 0)
			return true;
	return false;
}

/* Whether the round has a server, and whether its legs can write their
 * own numbers (${METRICS}: as round_metrics_plan, any spelling of it
 * counts). */
static void
spec_stats_round_kind(const struct spec *s, bool *server, bool *own)
{
	*server = false;
	for (size_t c = 0; c < s->ncells; c++)
		*server = *server || s->cells[c].server != NULL;
	*own = s->raw == NULL || memmem(s->raw, s->rawlen, "METRICS", 7) != NULL;
}

bool
spec_metric_known(const struct spec *s, const char *m, char *why,
    size_t len, char *metrics, size_t mlen)
{
	const char *names[64] = { "wall", "cpu", "bytes" };
	char list[1024], hint[128];
	size_t n = 0, nn = 3;
	bool server, own;

	spec_stats_round_kind(s, &server, &own);
	if (spec_stats_builtin_metric(s, m, server))
		return true;
	/* A leg's own numbers: only the legs know their names. */
	if (own && legmetrics_name_ok(m))
		return true;
	n += (size_t)snprintf(list, sizeof list, "wall, cpu, bytes");
	for (size_t i = 0; i < s->ncounters && n < sizeof list; i++) {
		n += (size_t)snprintf(list + n, sizeof list - n, ", %s",
		    s->counters[i]);
		if (nn < sizeof names / sizeof names[0])
			names[nn++] = s->counters[i];
	}
	if (server && n < sizeof list)
		n += (size_t)snprintf(list + n, sizeof list - n, ", server_cpu "
		    "and server_ with a counter");
	snprintf(why, len, "\"%s\" is not a metric of this round%s",
	    m, suggest_hint(hint, sizeof hint, m, names, nn));
	snprintf(metrics, mlen, "its metrics are %s%s", list, own ?
	    ", or a name a leg writes to ${METRICS} ([a-z][a-z0-9_]*)" :
	    " (a leg's own names need ${METRICS} in the command)");
	return false;
}

int
spec_check_adaptive_metric(struct parser *p)
{
	struct spec *s = p->s;
	char why[256], list[1536];
	bool server, own;

	if (!s->adaptive.on)
		return 0;
	/* reps left out: requests/s where a server round's legs can write
	 * it (benchtui load --metrics), else the legs' cpu. */
	if (s->adaptive.metric == NULL && s->adaptive.implied) {
		spec_stats_round_kind(s, &server, &own);
		s->adaptive.metric = xstrdup(server && own ? "rps" : "cpu");
	}
	if (s->adaptive.metric == NULL ||
	    spec_metric_known(s, s->adaptive.metric, why, sizeof why, list,
	    sizeof list))
		return 0;
	return spec_perr(p, "reps.metric", "%s, so no look could decide on it "
	    "and every cell would run to max; %s", why, list);
}

/* fail_on's rules against the round's arms and metrics, once the
 * counters are known: a rule that names neither can never fire. */
int
spec_check_fail_on(struct parser *p)
{
	char path[32], err[2048];
	json_t *v;
	size_t i;

	/* Element by element again, so the message names the element a
	 * list's rule came from. */
	json_array_foreach(p->fail_on, i, v) {
		struct failon one = { 0 };
		int rc = failon_add(&one, json_string_value(v), err, sizeof err);
		for (size_t k = 0; rc == 0 && k < one.n; k++)
			rc = failon_check_spec(&one.r[k], p->s, err, sizeof err);
		failon_finish(&one);
		if (rc != 0) {
			snprintf(path, sizeof path, "fail_on[%zu]", i);
			return spec_perr(p, path, "%s", err);
		}
	}
	return 0;
}

const char *
spec_estimator_name(enum spec_estimator e)
{
	return e == SPEC_ESTIMATOR_FLOOR ? "floor" : "paired";
}

int
spec_estimator_parse(const char *name)
{
	if (strcmp(name, "paired") == 0)
		return SPEC_ESTIMATOR_PAIRED;
	if (strcmp(name, "floor") == 0)
		return SPEC_ESTIMATOR_FLOOR;
	return -1;
}
