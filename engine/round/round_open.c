/* The round driver, the opening: the round and env events of a new round,
 * or the cut and resume events of a resumed one (after its log is
 * replayed), then the host's warnings. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "event.h"
#include "provenance.h"
#include "round_int.h"
#include "stats.h"

static json_t *
round_open_names(char *const *names, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static void
round_open_log_round(struct run *u)
{
	const struct spec *s = u->r->spec;
	json_t *ev = event_new("round"), *arms = json_array(),
	    *cells = json_array();

	for (size_t i = 0; i < s->narms; i++)
		json_array_append_new(arms, json_string(s->arms[i].name));
	for (size_t i = 0; i < s->ncells; i++)
		json_array_append_new(cells, json_string(s->cells[i].name));
	json_object_set_new(ev, "name", json_string(s->name));
	json_object_set_new(ev, "spec_sha256", json_string(s->sha256));
	json_object_set_new(ev, "dir", json_string(u->r->dir));
	json_object_set_new(ev, "workdir", json_string(s->workdir));
	json_object_set_new(ev, "reps", json_integer(s->reps));
	json_object_set_new(ev, "legs_total", json_integer((json_int_t)u->legs_total));
	json_object_set_new(ev, "arms", arms);
	json_object_set_new(ev, "cells", cells);
	json_object_set_new(ev, "baseline", json_string(s->baseline));
	json_object_set_new(ev, "counters", round_open_names(s->counters, s->ncounters));
	json_object_set_new(ev, "version", json_string(BENCHTUI_VERSION));
	/* The leg order (resume follows it) and the arithmetic's settings
	 * (a bare copy of the log reports with them). */
	json_object_set_new(ev, "order", json_string(spec_order_name(s->order)));
	if (s->order == SPEC_ORDER_SHUFFLE)
		json_object_set_new(ev, "shuffle_seed",
		    json_integer((json_int_t)s->shuffle_seed));
	json_object_set_new(ev, "confidence", json_real(s->confidence));
	json_object_set_new(ev, "level", json_real(s->adaptive.on ?
	    stats_look_level(s->confidence, spec_looks(s, NULL, 0)) :
	    s->confidence));
	json_object_set_new(ev, "margin", json_real(s->margin));
	json_object_set_new(ev, "estimator", json_string(
	    spec_estimator_name(s->estimator)));
	json_object_set_new(ev, "fail_fast", json_integer(s->fail_fast));
	if (s->adaptive.on) {
		json_t *ad = json_object();
		json_object_set_new(ad, "min", json_integer(s->adaptive.min));
		json_object_set_new(ad, "max", json_integer(s->adaptive.max));
		json_object_set_new(ad, "until", json_string("decided"));
		json_object_set_new(ad, "metric",
		    json_string(s->adaptive.metric));
		json_object_set_new(ev, "adaptive", ad);
	}
	round_emit_new(u, ev);
}

/* The env event: a pointer to environment.json and its facts, on one line. */
static json_t *
round_open_log_env(struct run *u)
{
	char path[PATH_MAX];
	json_t *file, *ev = event_new("env"), *host = NULL;
	const char *k;
	json_t *v;

	snprintf(path, sizeof path, "%s/environment.json", u->r->dir);
	file = json_load_file(path, JSON_DECODE_ANY, NULL);
	json_object_set_new(ev, "file", json_string("environment.json"));
	if (json_is_object(file))
		json_object_foreach(file, k, v)
			if (strcmp(k, "t") != 0 && strcmp(k, "ts") != 0)
				json_object_set(ev, k, v);
	if (json_is_object(file))
		host = json_incref(file);
	json_decref(file);
	round_emit_new(u, ev);
	return host != NULL ? host : provenance_host();
}

void
round_log_cut(struct run *u)
{
	size_t bytes = resume_torn_bytes(u->r->rs);
	json_t *ev;

	if (bytes == 0)
		return;
	ev = event_new("log_cut");
	json_object_set_new(ev, "bytes", json_integer((json_int_t)bytes));
	round_emit_new(u, ev);
}

/* On resume: the cut, then the resume event with the host re-checked. */
static json_t *
round_open_log_resume(struct run *u)
{
	struct resume_state *rs = u->r->rs;
	const json_t *rec = resume_recorded_env(rs);
	json_t *ev, *host = provenance_host(), *bins, *rbins;
	const char *k;
	json_t *v;

	round_log_cut(u);
	ev = event_new("resume");
	json_object_set_new(ev, "from", json_string("restart"));
	json_object_set_new(ev, "legs_done",
	    json_integer((json_int_t)resume_legs_done(rs)));
	json_object_set_new(ev, "legs_total", json_integer((json_int_t)u->legs_total));
	json_object_set_new(ev, "host", json_incref(host));
	round_emit_new(u, ev);

	if (rec != NULL) {
		const char *keys[] = { "kernel", "hostname", "cpu_model", NULL };
		const json_t *rhost = json_object_get(rec, "host");

		if (rhost == NULL)
			rhost = rec;
		for (int i = 0; keys[i] != NULL; i++) {
			json_t *a = json_object_get(rhost, keys[i]),
			    *b = json_object_get(host, keys[i]);

			if (a != NULL && b != NULL && !json_equal(a, b))
				round_warn(u, "resume: %s differs from when the round "
				    "started (%s now, %s then)", keys[i],
				    json_string_value(b) ? json_string_value(b) : "?",
				    json_string_value(a) ? json_string_value(a) : "?");
		}
		bins = provenance_bins(u->r->spec);
		rbins = json_object_get(rec, "bins");
		json_object_foreach(bins, k, v) {
			json_t *old = json_object_get(rbins, k);

			if (old != NULL && !json_equal(old, v))
				round_warn(u, "resume: %s has changed since the round "
				    "started (sha256 %s, recorded %s)", k,
				    json_string_value(v) ? json_string_value(v) : "?",
				    json_string_value(old) ? json_string_value(old) : "?");
		}
		json_decref(bins);
	}
	return host;
}

/* One event of the replayed log: to the tally and the front end. */
static void
round_open_replay_one(const json_t *ev, void *arg)
{
	struct round *r = arg;

	tally_feed(r->tally, ev);
	if (r->on_event != NULL)
		r->on_event(ev, r->arg);
}

void
round_replay(struct round *r)
{
	resume_replay(r->rs, round_open_replay_one, r);
}

void
round_open(struct run *u)
{
	json_t *host, *warnings;

	if (u->r->rs != NULL) {
		round_replay(u->r);
		host = round_open_log_resume(u);
	} else {
		round_open_log_round(u);
		host = round_open_log_env(u);
	}
	warnings = host != NULL ? provenance_warnings(host) : NULL;
	for (size_t i = 0; i < json_array_size(warnings); i++)
		round_warn(u, "%s", json_string_value(json_array_get(warnings, i)));
	json_decref(warnings);
	json_decref(host);
}
