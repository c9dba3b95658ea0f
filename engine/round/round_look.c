/* The round driver, adaptive looks: after the reps of the schedule
 * (spec_looks), a cell's verdicts on the round's metric are read from the
 * tally at the looks' Bonferroni level, logged as a look event, and the
 * cell stops once every arm that is not an A/A copy is decided. */
#include <stdlib.h>
#include <string.h>

#include "event.h"
#include "round_int.h"
#include "stats.h"

/* Whether rep is one of the schedule's looks; *k its 1-based index and
 * *nl how many there are. */
static bool
round_look_is_look(const struct spec *s, int rep, size_t *k, size_t *nl)
{
	int at[64];
	size_t n = spec_looks(s, at, 64);

	*nl = n;
	for (size_t i = 0; i < n && i < 64; i++)
		if (at[i] == rep) {
			*k = i + 1;
			return true;
		}
	return false;
}

bool
round_look(struct run *u, size_t c, int rep)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const char *cname = s->cells[c].name;
	json_t *rep_json, *arms, *arm, *ev, *verdicts;
	const char *aname;
	size_t k = 0, nl = 0;
	bool decided = true;

	if (!s->adaptive.on || !round_look_is_look(s, rep, &k, &nl))
		return false;
	/* O(legs so far) per look: a few looks per cell. */
	rep_json = tally_report_brief(r->tally);
	arms = json_object_get(json_object_get(json_object_get(rep_json,
	    "cells"), cname), "arms");
	verdicts = json_object();
	json_object_foreach(arms, aname, arm) {
		const char *v = json_string_value(json_object_get(
		    json_object_get(json_object_get(arm, "metrics"),
		    s->adaptive.metric), "verdict"));
		if (json_is_string(json_object_get(arm, "aa_of")))
			continue;
		if (v == NULL)
			v = "unknown";
		json_object_set_new(verdicts, aname, json_string(v));
		if (strcmp(v, "above") != 0 && strcmp(v, "below") != 0 &&
		    strcmp(v, "same") != 0)
			decided = false;
	}
	ev = event_new("look");
	json_object_set_new(ev, "cell", json_string(cname));
	json_object_set_new(ev, "rep", json_integer(rep));
	json_object_set_new(ev, "look", json_integer((json_int_t)k));
	json_object_set_new(ev, "looks", json_integer((json_int_t)nl));
	json_object_set_new(ev, "level", json_real(stats_look_level(
	    s->confidence, nl)));
	json_object_set_new(ev, "metric", json_string(s->adaptive.metric));
	json_object_set_new(ev, "decided", json_boolean(decided));
	json_object_set_new(ev, "verdicts", verdicts);
	round_emit_new(u, ev);
	json_decref(rep_json);
	return decided;
}
