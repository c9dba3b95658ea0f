/* The round driver, running half: the round/env/resume events, for each
 * cell its server and its legs (round_leg.c), then done, the summaries and
 * the seal. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "clock.h"
#include "config.h"
#include "counters.h"
#include "event.h"
#include "procs.h"
#include "provenance.h"
#include "quiet.h"
#include "report.h"
#include "round_int.h"
#include "seal.h"
#include "server.h"
#include "template.h"

extern char **environ;

/* Grace between SIGTERM and SIGKILL when a cell's server is stopped. */
#define ROUND_SERVER_GRACE_S 2.0


bool
run_aborted(const struct run *u)
{
	return atomic_load(&u->r->aborted);
}

void
run_emit_new(struct run *u, json_t *ev)
{
	if (ev == NULL)
		return;
	round_emit(u->r, ev);
	json_decref(ev);
}

void
run_warn(struct run *u, const char *fmt, ...)
{
	json_t *ev = event_new("warning");
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_object_set_new(ev, "msg", json_string(msg));
	run_emit_new(u, ev);
}

/* Wait up to seconds (or forever when < 0) for the abort pipe, or, with
 * ctl, for a steering byte on the control pipe (drained).  No sleep: abort
 * is seen at once. */
void
run_wait(struct run *u, double seconds, bool ctl)
{
	double end = clock_now() + seconds;

	while (!run_aborted(u)) {
		struct pollfd pfd[2] = {
			{ .fd = u->r->abort_pipe[0], .events = POLLIN },
			{ .fd = u->r->ctl_pipe[0], .events = POLLIN },
		};
		int timeout = -1, n;

		if (seconds >= 0) {
			double left = end - clock_now();

			if (left <= 0)
				return;
			/* poll takes an int of ms: wait at most a day at a
			 * time (the loop comes back for the rest) */
			timeout = left > 86400.0 ? 86400000 :
			    (int)(left * 1000.0) + 1;
		}
		n = poll(pfd, ctl ? 2 : 1, timeout);
		if (n < 0 && errno != EINTR)
			return;
		if (ctl && n > 0 && pfd[1].revents != 0) {
			char buf[64];

			while (read(u->r->ctl_pipe[0], buf, sizeof buf) > 0)
				;
			return;
		}
	}
}

/* Between legs: honour a pause until resumed or aborted. */
void
run_pause_point(struct run *u)
{
	json_t *ev;

	if (!atomic_load(&u->r->paused) || run_aborted(u))
		return;
	run_emit_new(u, event_new("pause"));
	while (atomic_load(&u->r->paused) && !run_aborted(u))
		run_wait(u, -1, true);
	if (run_aborted(u))
		return;
	ev = event_new("resume");
	json_object_set_new(ev, "from", json_string("pause"));
	run_emit_new(u, ev);
}

/* --- argv and env ------------------------------------------------------ */

void
run_free_strv(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Expand every element of a template argv.  NULL with err. */
char **
run_expand_argv(char *const *tmpl, size_t n, const struct template_ctx *ctx,
    char *err, size_t errlen)
{
	char **v = calloc(n + 1, sizeof *v), terr[512];

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = template_expand(tmpl[i], ctx, terr,
		    sizeof terr)) == NULL) {
			/* template_expand writes err even when it succeeds:
			 * copy it only on failure. */
			snprintf(err, errlen, "%s", terr);
			run_free_strv(v);
			return NULL;
		}
	return v;
}

/* The inherited environment with kv merged over it. */
char **
run_envp(const struct spec_kv *kv, size_t nkv)
{
	size_t n = 0, k = 0;
	char **v;

	while (environ[n] != NULL)
		n++;
	if ((v = calloc(n + nkv + 1, sizeof *v)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool over = false;

		for (size_t j = 0; j < nkv && !over; j++) {
			size_t l = strlen(kv[j].key);

			over = strncmp(environ[i], kv[j].key, l) == 0 &&
			    environ[i][l] == '=';
		}
		if (!over && (v[k++] = strdup(environ[i])) == NULL)
			goto fail;
	}
	for (size_t j = 0; j < nkv; j++)
		if (asprintf(&v[k++], "%s=%s", kv[j].key, kv[j].val) < 0) {
			v[k - 1] = NULL;
			goto fail;
		}
	return v;
fail:
	run_free_strv(v);
	return NULL;
}

/* --- events ------------------------------------------------------------ */

static json_t *
run_names(char *const *names, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(names[i]));
	return a;
}

static void
run_log_round(struct run *u)
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
	json_object_set_new(ev, "counters", run_names(s->counters, s->ncounters));
	json_object_set_new(ev, "version", json_string(BENCHTUI_VERSION));
	run_emit_new(u, ev);
}

/* The env event: a pointer to environment.json and its facts, on one line. */
static json_t *
run_log_env(struct run *u)
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
	run_emit_new(u, ev);
	return host != NULL ? host : provenance_host();
}

/* On resume: the cut, then the resume event with the host re-checked. */
static json_t *
run_log_resume(struct run *u)
{
	struct resume_state *rs = u->r->rs;
	const json_t *rec = resume_recorded_env(rs);
	json_t *ev, *host = provenance_host(), *bins, *rbins;
	const char *k;
	json_t *v;

	if (resume_torn_bytes(rs) > 0) {
		ev = event_new("log_cut");
		json_object_set_new(ev, "bytes",
		    json_integer((json_int_t)resume_torn_bytes(rs)));
		run_emit_new(u, ev);
	}
	ev = event_new("resume");
	json_object_set_new(ev, "from", json_string("restart"));
	json_object_set_new(ev, "legs_done",
	    json_integer((json_int_t)resume_legs_done(rs)));
	json_object_set_new(ev, "legs_total", json_integer((json_int_t)u->legs_total));
	json_object_set_new(ev, "host", json_incref(host));
	run_emit_new(u, ev);

	if (rec != NULL) {
		const char *keys[] = { "kernel", "hostname", "cpu_model", NULL };
		const json_t *rhost = json_object_get(rec, "host");

		if (rhost == NULL)
			rhost = rec;
		for (int i = 0; keys[i] != NULL; i++) {
			json_t *a = json_object_get(rhost, keys[i]),
			    *b = json_object_get(host, keys[i]);

			if (a != NULL && b != NULL && !json_equal(a, b))
				run_warn(u, "resume: %s differs from when the round "
				    "started (%s now, %s then)", keys[i],
				    json_string_value(b) ? json_string_value(b) : "?",
				    json_string_value(a) ? json_string_value(a) : "?");
		}
		bins = provenance_bins(u->r->spec);
		rbins = json_object_get(rec, "bins");
		json_object_foreach(bins, k, v) {
			json_t *old = json_object_get(rbins, k);

			if (old != NULL && !json_equal(old, v))
				run_warn(u, "resume: %s has changed since the round "
				    "started (sha256 %s, recorded %s)", k,
				    json_string_value(v) ? json_string_value(v) : "?",
				    json_string_value(old) ? json_string_value(old) : "?");
		}
		json_decref(bins);
	}
	return host;
}

/* Replay the log of a resumed round to the tally and the front end, so
 * both see the legs that are already done (they are not logged again). */
static void
run_replay_one(const json_t *ev, void *arg)
{
	struct round *r = arg;

	tally_feed(r->tally, ev);
	if (r->on_event != NULL)
		r->on_event(ev, r->arg);
}


/* --- servers ------------------------------------------------------------ */

static struct server *
run_server_start(struct run *u, const struct spec_cell *cell)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct spec_server *sv = cell->server;
	/* The round's bin for the cell's server: expanded for the cell alone
	 * (no ARM, no REP); when it needs more, check already made sure the
	 * server's cmd does not use ${BIN}. */
	struct template_ctx ctx = { .spec = s, .cell = cell, .rep = 0,
		.round_dir = r->dir };
	char *xbin = NULL, *bin = run_resolve_bin(s, s->bin, &ctx, &xbin,
	    u->err, sizeof u->err);
	const char *cpus = sv->cpus != NULL ? sv->cpus : s->server_cpus;
	unsigned char *mask = NULL;
	char **argv = NULL, **envp = NULL, *log = NULL;
	struct server *srv = NULL;
	json_t *ev;

	u->err[0] = '\0';
	ctx.arm = "";
	ctx.bin = bin != NULL ? bin : xbin != NULL ? xbin : "";
	ctx.scratch = "";
	if (cpus != NULL && (mask = calloc((size_t)u->ncpus, 1)) != NULL &&
	    spec_cpulist_parse(cpus, mask, u->ncpus) != 0) {
		run_warn(u, "cell %s: server cpus \"%s\" are not all on this "
		    "machine (%d cpus); the server is not pinned", cell->name,
		    cpus, u->ncpus);
		free(mask);
		mask = NULL;
	}
	if ((argv = run_expand_argv(sv->cmd, sv->ncmd, &ctx, u->err,
	    sizeof u->err)) == NULL ||
	    (envp = run_envp(sv->env, sv->nenv)) == NULL ||
	    asprintf(&log, "%s/servers/%s.log", r->dir, cell->name) < 0) {
		if (u->err[0] == '\0')
			snprintf(u->err, sizeof u->err, "out of memory");
		goto out;
	}
	ev = event_new("server");
	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "pid", json_null());
	json_object_set_new(ev, "state", json_string("starting"));
	json_object_set_new(ev, "log", json_string(log + strlen(r->dir) + 1));
	run_emit_new(u, ev);
	srv = server_start(cell, argv, envp, s->workdir, log, mask, u->ncpus,
	    r->abort_pipe[0], u->err, sizeof u->err);
	ev = event_new("server");
	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "pid", srv != NULL ?
	    json_integer(server_pid(srv)) : json_null());
	json_object_set_new(ev, "state", json_string(srv != NULL ? "ready" :
	    "died"));
	if (srv == NULL)
		json_object_set_new(ev, "msg", json_string(u->err));
	run_emit_new(u, ev);
out:
	run_free_strv(argv);
	run_free_strv(envp);
	free(log);
	free(mask);
	free(bin);
	free(xbin);
	return srv;
}

static void
run_server_stop(struct run *u, const struct spec_cell *cell,
    struct server *srv)
{
	json_t *ev;
	pid_t pid = server_pid(srv);
	const char *state = server_stop(srv, ROUND_SERVER_GRACE_S);

	/* A death the leg loop saw is logged already, with its cause. */
	if (u->srv_death_logged && strcmp(state, "died") == 0) {
		server_destroy(srv);
		return;
	}
	if (strcmp(state, "died") == 0) {
		/* Died after the last leg: log it once, with its cause. */
		run_server_died(u, cell, srv);
		server_destroy(srv);
		return;
	}
	ev = event_new("server");
	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "pid", json_integer(pid));
	json_object_set_new(ev, "state", json_string(state));
	run_emit_new(u, ev);
	server_destroy(srv);
}

/* --- the end ------------------------------------------------------------- */

/* done, the summaries, the seal.  The log is complete at "done"; the seal
 * event goes to the front end only, since appending it would change a
 * file SHA256SUMS covers. */
static int
run_finish(struct run *u, bool log_done)
{
	struct round *r = u->r;
	char sums[65];
	json_t *rep, *ev;

	if (log_done) {
		ev = event_new("done");
		json_object_set_new(ev, "legs", json_integer((json_int_t)u->legs_total));
		run_emit_new(u, ev);
		if (r->fatal) {
			snprintf(u->err, sizeof u->err, "%s", r->fatal_err);
			return ROUND_EXIT_ABORTED;
		}
	}
	rep = tally_report(r->tally);
	if (report_write_summary(r->dir, rep, false, u->err,
	    sizeof u->err) != 0) {
		json_decref(rep);
		return ROUND_EXIT_FAIL;
	}
	json_decref(rep);
	logw_sync(r->log);
	if (seal_write(r->dir, r->sign_key, sums, u->err, sizeof u->err) != 0)
		return ROUND_EXIT_FAIL;
	ev = event_new("seal");
	json_object_set_new(ev, "sha256", json_string(sums));
	if (r->on_event != NULL)
		r->on_event(ev, r->arg);
	json_decref(ev);
	return ROUND_EXIT_OK;
}

static unsigned char *
run_mask(struct run *u, const char *list, const char *field)
{
	unsigned char *mask;

	if (list == NULL || (mask = calloc((size_t)u->ncpus, 1)) == NULL)
		return NULL;
	if (spec_cpulist_parse(list, mask, u->ncpus) != 0) {
		run_warn(u, "cpus.%s: \"%s\" names cpus this machine (%d cpus) "
		    "does not have; legs are not pinned", field, list, u->ncpus);
		free(mask);
		return NULL;
	}
	return mask;
}

int
round_run(struct round *r, char *err, size_t errlen)
{
	struct run u = { .r = r };
	const struct spec *s = r->spec;
	json_t *host = NULL, *warnings;
	bool failed = false, stop = false;
	int rc;

	procs_become_subreaper();
	u.legs_total = r->plan.n;
	u.ncpus = get_nprocs_conf();
	u.ctr = counters_create((const char *const *)s->counters,
	    (int)s->ncounters);
	u.ctr_warned = calloc(s->ncounters + 1, sizeof *u.ctr_warned);

	if (r->rs != NULL && resume_completed(r->rs)) {
		/* Killed between "done" and the seal: the log is complete and
		 * stays as it is; only the summaries and the seal are left. */
		resume_replay(r->rs, run_replay_one, r);
		rc = run_finish(&u, false);
		goto end;
	}
	if (r->rs != NULL) {
		resume_replay(r->rs, run_replay_one, r);
		host = run_log_resume(&u);
	} else {
		run_log_round(&u);
		host = run_log_env(&u);
	}
	warnings = host != NULL ? provenance_warnings(host) : NULL;
	for (size_t i = 0; i < json_array_size(warnings); i++)
		run_warn(&u, "%s", json_string_value(json_array_get(warnings, i)));
	json_decref(warnings);
	json_decref(host);
	u.client_mask = run_mask(&u, s->client_cpus, "client");
	u.quiet = quiet_create(&s->quiet, s->client_cpus, getpid());
	if (u.quiet == NULL && s->quiet.enabled)
		run_warn(&u, "the quiet gate could not be set up (/proc/stat); "
		    "legs run ungated");

	for (size_t c = 0; c < s->ncells && !stop && !r->fatal; c++) {
		const struct spec_cell *cell = &s->cells[c];
		struct server *srv = NULL;
		size_t todo = 0;

		for (size_t i = 0; i < r->plan.n; i++) {
			const struct plan_leg *pl = &r->plan.legs[i];

			if (pl->cell == c && (r->rs == NULL ||
			    !resume_leg_done(r->rs, cell->name,
			    s->arms[pl->arm].name, pl->rep)))
				todo++;
		}
		if (todo == 0)
			continue;
		u.srv_death_logged = false;
		if (cell->server != NULL) {
			run_pause_point(&u);
			if (run_aborted(&u))
				break;
			if ((srv = run_server_start(&u, cell)) == NULL) {
				if (!run_aborted(&u))
					failed = true;
				break;
			}
		}
		for (size_t i = 0; i < r->plan.n && !stop; i++) {
			const struct plan_leg *pl = &r->plan.legs[i];

			if (pl->cell != c || (r->rs != NULL &&
			    resume_leg_done(r->rs, cell->name,
			    s->arms[pl->arm].name, pl->rep)))
				continue;
			if (run_leg(&u, pl, srv, &failed) != 0)
				stop = true;
		}
		if (srv != NULL)
			run_server_stop(&u, cell, srv);
	}

	if (failed || run_aborted(&u) || r->fatal) {
		const char *reason = atomic_load(&r->abort_reason);
		json_t *ev = event_new("abort");

		if (r->fatal)
			snprintf(u.err, sizeof u.err, "%s; the round stopped, "
			    "resume continues it once this is fixed", r->fatal_err);
		else if (u.err[0] == '\0')
			snprintf(u.err, sizeof u.err, "aborted (%s); resume "
			    "continues the round", reason != NULL ? reason : "abort");
		json_object_set_new(ev, "reason", json_string(failed || r->fatal ?
		    u.err : reason != NULL ? reason : "abort"));
		run_emit_new(&u, ev);
		rc = failed ? ROUND_EXIT_FAIL : ROUND_EXIT_ABORTED;
	} else {
		rc = run_finish(&u, r->rs == NULL || !resume_completed(r->rs));
	}
end:
	if (rc != ROUND_EXIT_OK)
		snprintf(err, errlen, "%s", u.err);
	/* The servers are stopped by now: nothing of ours may outlive the
	 * round. */
	(void)procs_end_descendants(getpid(), NULL, 0, 1.0);
	procs_reap_orphans(NULL, 0);
	quiet_destroy(u.quiet);
	counters_destroy(u.ctr);
	free(u.ctr_warned);
	free(u.client_mask);
	return rc;
}
