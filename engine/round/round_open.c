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
	/* The machine's default, not the user's choice: a reader leaves out
	 * those that never counted. */
	if (!s->counters_given)
		json_object_set_new(ev, "counters_default", json_true());
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
	/* The gate's settings: its budget for the console's ETA, its
	 * thresholds for a report of a bare log. */
	json_object_set_new(ev, "quiet", spec_quiet_json(&s->quiet));
	/* The hosts the reps are dealt among (rep r to hosts[(r - 1) mod
	 * n]), and whether run --host chose them: resume deals to the same
	 * ones. */
	if (s->nhosts > 0) {
		json_object_set_new(ev, "hosts", round_open_names(s->hosts,
		    s->nhosts));
		json_object_set_new(ev, "hosts_given",
		    json_boolean(u->r->hosts_given));
		if (s->nhosts > 1)
			json_object_set_new(ev, "deal", json_string("rep"));
	}
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

/* A new round whose servers run elsewhere: environment.json gains their
 * hosts (this machine's entry is there already) before the env event
 * copies it, and before any leg. */
static void
round_open_env_hosts(struct run *u)
{
	char path[PATH_MAX], e[640] = "it cannot be read";
	json_t *env, *hosts = NULL;

	if (u->nhosts == 0)
		return;
	snprintf(path, sizeof path, "%s/environment.json", u->r->dir);
	env = json_load_file(path, 0, NULL);
	if (env != NULL) {
		json_t *old = json_object_get(env, "hosts"), *e;
		size_t i;

		/* This machine's entry stays; the servers' hosts are now's. */
		hosts = json_array();
		json_array_foreach(old, i, e)
			if (json_is_null(json_object_get(e, "host")))
				json_array_append(hosts, e);
		json_object_set_new(env, "hosts", hosts);
	}
	if (json_is_array(hosts))
		round_remote_add_hosts(u, hosts);
	if (!json_is_array(hosts) || round_env_write(u->r, env, true, e,
	    sizeof e) != 0)
		round_warn(u, "environment.json: the servers' hosts are not "
		    "recorded: %s", e);
	json_decref(env);
}

/* A host's entry in hosts[] by its name, or NULL. */
static const json_t *
round_open_host_entry(const json_t *hosts, const char *host)
{
	size_t i;
	json_t *e;

	json_array_foreach(hosts, i, e) {
		const char *h = json_string_value(json_object_get(e, "host"));

		if (h != NULL && strcmp(h, host) == 0)
			return e;
	}
	return NULL;
}

/* The facts of a host (this machine's, a server's) a resumed round
 * checks against when it began. */
static const char *const round_open_host_keys[] = { "kernel", "hostname",
    "cpu_model", NULL };

/* One key of a host's facts (or its binaries) as the round began (a)
 * and now (b): a warning when they differ.  host NULL: this machine, the
 * warning naming none. */
static void
round_open_host_diff(struct run *u, const char *host, const char *what,
    const json_t *a, const json_t *b)
{
	if (a == NULL || b == NULL || json_equal(a, b))
		return;
	round_warn(u, "resume: %s%s%s differs from when the round started "
	    "(%s now, %s then)", host != NULL ? host : "", host != NULL ?
	    ": " : "", what, json_string_value(b) ? json_string_value(b) :
	    "?", json_string_value(a) ? json_string_value(a) : "?");
}

/* On resume: the servers' hosts as their agents say now, into the
 * resume event; what changed since the round began is warned about.  A
 * host the first session never reached (no leg ran then) is recorded in
 * environment.json now. */
static void
round_open_resume_hosts(struct run *u, json_t *ev, const json_t *rec)
{
	const char *const *keys = round_open_host_keys;
	const json_t *rhosts = json_object_get(rec, "hosts");
	json_t *now = json_array(), *e;
	bool unreached = false;
	const char *k;
	size_t i;

	round_remote_add_hosts(u, now);
	json_array_foreach(now, i, e) {
		const char *host = json_string_value(json_object_get(e, "host"));
		const json_t *old = round_open_host_entry(rhosts, host);
		json_t *v;

		unreached |= old == NULL || json_object_get(old, "facts") == NULL;
		for (size_t j = 0; old != NULL && keys[j] != NULL; j++)
			round_open_host_diff(u, host, keys[j], json_object_get(
			    json_object_get(old, "facts"), keys[j]),
			    json_object_get(json_object_get(e, "facts"), keys[j]));
		json_object_foreach(json_object_get(e, "bins"), k, v)
			round_open_host_diff(u, host, k, json_object_get(
			    json_object_get(old, "bins"), k), v);
	}
	json_object_set_new(ev, "hosts", now);
	if (unreached && resume_legs_done(u->r->rs) == 0)
		round_open_env_hosts(u);
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
	/* resume_load wrote it to the log with the cut itself. */
	round_emit_seen(u->r, ev);
	json_decref(ev);
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
	if (u->r->files_changed != NULL)
		json_object_set(ev, "files_changed", u->r->files_changed);
	if (u->nhosts > 0)
		round_open_resume_hosts(u, ev, rec);
	round_emit_new(u, ev);

	if (rec != NULL) {
		const char *const *keys = round_open_host_keys;
		const json_t *rhost = json_object_get(rec, "host");

		if (rhost == NULL)
			rhost = rec;
		for (int i = 0; keys[i] != NULL; i++)
			round_open_host_diff(u, NULL, keys[i], json_object_get(
			    rhost, keys[i]), json_object_get(host, keys[i]));
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

	/* The servers' hosts first: their facts open the log with this
	 * machine's.  One that cannot be reached stops the round before any
	 * leg (u->err says why). */
	(void)round_remote_connect(u);
	if (u->r->rs != NULL) {
		round_replay(u->r);
		host = round_open_log_resume(u);
	} else {
		round_open_log_round(u);
		round_open_env_hosts(u);
		host = round_open_log_env(u);
	}
	warnings = host != NULL ? provenance_warnings(host) : NULL;
	for (size_t i = 0; i < json_array_size(warnings); i++)
		round_warn(u, "%s", json_string_value(json_array_get(warnings, i)));
	json_decref(warnings);
	json_decref(host);
}
