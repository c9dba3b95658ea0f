/* The round driver, profile phase: the server_perf profile.  perf record
 * of every process and thread of the cell's server (each process named
 * with -p, so workers forked before the profile are recorded too) while
 * one leg of the arm runs as its load, stopped by SIGINT to perf alone:
 * one recording per run, legs/prof-CELL-ARM-server.rN.data.  The arms'
 * runs take turns in mirror order (A B, B A, ...) until every arm has
 * min_runs runs and min_samples samples, or max_s have passed; each
 * run's rows carry its number, so the arms' profiles are split by run
 * as the perf profile's are (round_prof_perf.c, perfsplit.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "clock.h"
#include "legcmd.h"
#include "profile.h"
#include "proftree.h"
#include "rfile.h"
#include "round_int.h"
#include "round_perf.h"
#include "server.h"
#include "spawn.h"
#include "template.h"
#include "xalloc.h"

/* How long perf gets to attach to a server, and to write its data. */
#define PROF_ATTACH_S 10.0
#define PROF_STOP_S 120.0

/* The far attach: perf record there, with this round's options (its
 * agent chooses the call-graph method on what its perf can do). */
static int
srvperf_far_attach(struct prof_perf *pp)
{
	const struct spec_profile *pr = pp->u->r->spec->profile;
	const json_t *st;

	if (round_prof_far_start(&pp->far, pr->srv_perf_args,
	    pr->nsrv_perf_args) != 0) {
		pp->aborted = pp->far.lost;
		round_prof_fmt(pp->why, sizeof pp->why, "%s", pp->far.why);
		return -1;
	}
	st = pp->far.started;
	pp->nbefore = (size_t)json_integer_value(json_object_get(st,
	    "processes"));
	pp->tasks = (int)json_integer_value(json_object_get(st, "tasks"));
	/* kept past this run's answer: the method as one of ours */
	for (size_t i = 0; i < 3; i++) {
		static const char *const methods[] = { "dwarf", "fp", "lbr" };
		const char *u = json_string_value(json_object_get(st, "unwind"));

		if (u != NULL && strcmp(u, methods[i]) == 0)
			pp->unwind = methods[i];
	}
	pp->fallback = json_is_true(json_object_get(st, "fallback"));
	return 0;
}

/* The far perf stopped and its words and recording copied back (the
 * recording only within agent_limits.profile_bytes: past it, it stays
 * there, and perf report runs there all the same).  Its status as a
 * local perf's (0 or -1); -2 failed (pp->why) or lost (pp->far.lost). */
static int
srvperf_far_stop(struct prof_perf *pp)
{
	int cut;

	if (round_prof_far_stop(&pp->far) == 0) {
		pp->far.copied = json_array();
		if (round_prof_far_get(&pp->far, "out", pp->out_fd, pp->rout,
		    pp->far.copied) >= 0 && (cut = round_prof_far_get(&pp->far,
		    "data", pp->data_fd, pp->rdata, pp->far.copied)) >= 0) {
			/* a recording cut short is no recording: none here */
			if (cut > 0 && ftruncate(pp->data_fd, 0) != 0)
				cut = -1;
			if (cut >= 0)
				return json_is_true(json_object_get(
				    pp->far.stopped, "stopped")) ? 0 : -1;
		}
	}
	round_prof_fmt(pp->why, sizeof pp->why, "%s", pp->far.why[0] != '\0' ?
	    pp->far.why : "the recording could not be kept");
	return -2;
}

/* The attach (round_prof_load's callback): perf record -p of the server's
 * processes as they are now, waited on until it holds an event on each of
 * their tasks.  0, or -1 with pp->why. */
static int
srvperf_attach(void *arg)
{
	struct prof_perf *pp = arg;
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **envp = legcmd_envp(&c_locale, 1), data[64], **argv, *pids;
	struct spawn_req sr = { .path = pp->perf, .envp = envp,
	    .cwd = pp->u->r->dir, .out_fd = pp->out_fd };
	double waited = 0;
	int st, have = 0;

	if (pp->far.rm != NULL) {
		template_free_argv(envp);
		return srvperf_far_attach(pp);
	}
	pp->nbefore = round_prof_tree(pp->spid, pp->before, PROF_PROCS_MAX);
	pp->tasks = round_prof_count_tasks(pp->before, pp->nbefore, 0).tasks;
	pids = round_prof_pidlist(pp->before, pp->nbefore);
	argv = proftree_perf_argv(pp->perf, pp->args, pp->before,
	    pp->nbefore, rfile_fd_path(pp->data_fd, data, sizeof data));
	sr.argv = argv;
	pp->tool = spawn_run(&sr, NULL, pp->why, sizeof pp->why);
	free(argv);
	template_free_argv(envp);
	if (pp->tool > 0) {
		json_t *se = round_prof_event(pp->cell->name, pp->arm->name,
		    pp->kind, NULL);

		json_object_set_new(se, "pid", json_integer(pp->tool));
		json_object_set_new(se, "pids", json_string(pids));
		round_emit_new(pp->u, se);
	}
	free(pids);
	while (pp->tool > 0) {
		if ((have = proftree_perf_events(pp->tool)) >= pp->tasks &&
		    pp->tasks > 0) {
			/* opened; enabled right after */
			round_wait(pp->u, 0.2, false);
			return 0;
		}
		if (waitpid(pp->tool, &st, WNOHANG) == pp->tool) {
			pp->tool = -1;
			round_prof_fmt(pp->why, sizeof pp->why, "perf record exited "
			    "before it attached to the server (see %s)", pp->rout);
			return -1;
		}
		if (round_aborted(pp->u) || waited >= PROF_ATTACH_S) {
			pp->aborted = round_aborted(pp->u);
			round_prof_fmt(pp->why, sizeof pp->why, "perf record opened "
			    "%d events for the server's %d tasks within %g s (see "
			    "%s)", have, pp->tasks, PROF_ATTACH_S, pp->rout);
			(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
			pp->tool = -1;
			return -1;
		}
		round_wait(pp->u, 0.01, false);
		waited += 0.01;
	}
	return -1;
}

/* One arm's part: its command, its files, and what its runs did. */
struct srvperf_arm {
	struct legcmd cmd;
	char rrep[PATH_MAX], rout[PATH_MAX], aout[PATH_MAX];
	int out_fd, ro;         /* perf's output; the last run's data */
	long runs;
	long long samples;
	bool contaminated;
	json_t *files, *extra;
};

struct srvperf {
	struct prof_perf pp;
	struct round_srv *srv;  /* the cell's server, or NULL: one per run */
	struct srvperf_arm *a;
	json_t *rows, *list;    /* every run's rows, by run; the runs */
	char *event;            /* the sampled event */
	FILE *tmp;
	const char *stopped;
	long nruns;
	size_t nok;             /* the arms in a[] */
};

/* After one run's load: perf stopped, the server checked.  0, or 1
 * with pp->why. */
static int
srvperf_check(struct srvperf *sp, struct srvperf_arm *a, struct prof_load *pl)
{
	struct prof_perf *pp = &sp->pp;
	bool far = pp->far.rm != NULL, alive, answers, contaminated;
	int st = far ? srvperf_far_stop(pp) :
	    round_prof_stop_tool(pp->tool, PROF_STOP_S);
	pid_t after[PROF_PROCS_MAX];
	size_t nafter;
	char how[512] = "", *pids;

	pp->tool = -1;
	if (st == -2)
		return pp->far.lost ? -1 : 1;
	if (far) {
		alive = json_is_true(json_object_get(pp->far.stopped, "alive"));
		contaminated = json_is_true(json_object_get(pp->far.stopped,
		    "contaminated"));
		pids = xstrdup(json_string_value(json_object_get(
		    pp->far.started, "pids")) ?: "");
		json_object_set_new(a->extra, "host", json_string(pp->far.host));
		if (json_object_get(a->extra, "copied") == NULL)
			json_object_set_new(a->extra, "copied", json_array());
		json_array_extend(json_object_get(a->extra, "copied"),
		    pp->far.copied);
	} else {
		nafter = round_prof_tree(pp->spid, after, PROF_PROCS_MAX);
		alive = server_alive(pp->srv);
		contaminated = nafter != pp->nbefore || memcmp(pp->before,
		    after, pp->nbefore * sizeof *after) != 0;
		pids = round_prof_pidlist(pp->before, pp->nbefore);
	}
	answers = alive && round_prof_answers(pp->u, pp->cell, pl->cmd, how,
	    sizeof how);
	if (!proftree_stopped_ok(false, st))
		round_prof_fmt(pp->why, sizeof pp->why, "perf record did not "
		    "finish on SIGINT (see %s)", pp->rout);
	else if (!answers)
		round_prof_fmt(pp->why, sizeof pp->why, "the server does not "
		    "answer after the profile: %s", alive ? how : far ?
		    json_string_value(json_object_get(pp->far.stopped,
		    "death")) ?: "it died there" : server_death(pp->srv));
	else if (pl->res.timed_out || !spec_ok_rc(pp->u->r->spec, pl->res.rc) ||
	    pl->res.signal != 0)
		round_prof_fmt(pp->why, sizeof pp->why, "the load leg %s (see %s)",
		    pl->res.timed_out ? "timed out" : "failed", pp->rruns);
	/* the last run's tree stands for the arm's; a run whose tree
	 * changed marks the arm's profile contaminated */
	a->contaminated |= contaminated;
	json_object_set_new(a->extra, "pids", json_string(pids));
	json_object_set_new(a->extra, "processes", json_integer((json_int_t)
	    pp->nbefore));
	json_object_set_new(a->extra, "tasks", json_integer(pp->tasks));
	json_object_set_new(a->extra, "attach", json_string(
	    round_prof_attach_words(pl)));
	json_object_set_new(a->extra, "contaminated", json_boolean(
	    a->contaminated));
	json_object_set_new(a->extra, "check", json_string(how));
	free(pids);
	return pp->why[0] != '\0' ? 1 : 0;
}

/* perf record of the server while the load runs.  0, 1 failed (with
 * pp->why), or -1 aborted. */
static int
srvperf_record(struct srvperf *sp, struct srvperf_arm *a)
{
	struct prof_perf *pp = &sp->pp;
	struct prof_load pl = { .u = pp->u, .cell = pp->cell, .arm = pp->arm,
	    .kind = pp->kind, .cmd = &a->cmd, .out_abs = pp->aruns,
	    .attach = srvperf_attach, .arg = pp, .pf = &pp->far,
	    .hold = round_prof_hold(&a->cmd) };
	int rc = round_prof_load(&pl);

	if (pp->aborted || pl.res.aborted || round_aborted(pp->u)) {
		if (pp->tool > 0)
			(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
		pp->tool = -1;
		return -1;
	}
	if (pp->far.lost)
		return -1;
	if (rc != 0 || (pl.hold && !pl.attached)) {
		if (pp->tool > 0)
			(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
		pp->tool = -1;
		if (rc == 0)
			round_prof_fmt(pp->why, sizeof pp->why, "the load ended "
			    "before its warm-up was over (see %s)", pp->rruns);
		else if (!pl.attach_failed)
			snprintf(pp->why, sizeof pp->why, "%s", pl.why);
		return 1;
	}
	return srvperf_check(sp, a, &pl);
}

/* The run's recording read back: its rows, numbered n, joined to the
 * others.  0, 1 failed (pp->why), -1 aborted. */
static int
srvperf_read(struct srvperf *sp, struct srvperf_arm *a, size_t k)
{
	struct prof_perf *pp = &sp->pp;
	int ro = rfile_reopen(pp->data_fd, O_RDONLY);
	json_t *prof, *r;
	size_t i;

	if (ro < 0) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s cannot be read back: "
		    "%s", pp->rdata, strerror(errno));
		return 1;
	}
	if ((prof = round_prof_perf_read(pp, ro, sp->tmp)) == NULL) {
		close(ro);
		return pp->aborted ? -1 : 1;
	}
	sp->nruns++;
	json_array_foreach(json_object_get(prof, "symbols"), i, r) {
		json_object_set_new(r, "pid", json_integer(sp->nruns));
		json_array_append(sp->rows, r);
	}
	json_array_append_new(sp->list, json_pack("{s:i,s:I}", "arm", (int)k,
	    "pid", (json_int_t)sp->nruns));
	/* a run without samples names no event */
	if ((sp->event == NULL || sp->event[0] == '\0') &&
	    json_string_value(json_object_get(prof, "event")) != NULL) {
		free(sp->event);
		sp->event = xstrdup(json_string_value(json_object_get(prof,
		    "event")));
	}
	a->runs++;
	a->samples += json_integer_value(json_object_get(prof, "samples"));
	if (a->ro >= 0)
		close(a->ro);
	a->ro = ro;
	json_object_set_new(a->extra, "graph_of", json_string(pp->rdata));
	json_decref(prof);
	return 0;
}

/* The server a run loads: the cell's, or the arm's own (*own) where
 * each leg has its own.  NULL with pp->why (pp->aborted). */
static struct round_srv *
srvperf_server(struct srvperf *sp, struct round_srv **own)
{
	struct prof_perf *pp = &sp->pp;
	struct round_srv *use = sp->srv;
	const char *where;

	*own = NULL;
	if (use == NULL) {
		if ((*own = round_server_start(pp->u, pp->cell, pp->arm, 0)) ==
		    NULL) {
			pp->aborted = round_aborted(pp->u);
			round_prof_fmt(pp->why, sizeof pp->why, "the arm's server "
			    "did not come up for a run: %s", pp->u->err);
			pp->u->err[0] = '\0';
			return NULL;
		}
		use = *own;
	}
	if ((where = round_prof_server_where(pp->cell, use, pp->why,
	    sizeof pp->why)) != NULL) {
		if (where != pp->why)
			round_prof_fmt(pp->why, sizeof pp->why, "%s", where);
		return NULL;
	}
	return use;
}

/* One run of arm k: the arm's server loaded under perf record into
 * legs/prof-CELL-ARM-server.rN.data.  0, 1 failed (pp->why), -1
 * aborted. */
static int
srvperf_run(struct srvperf *sp, size_t k)
{
	struct prof_perf *pp = &sp->pp;
	struct srvperf_arm *a = &sp->a[k];
	struct round_srv *own, *use;
	char name[300], *rel[3] = { pp->rdata, pp->rruns, NULL };
	int rc;

	pp->arm = pp->arms[k];
	pp->out_fd = a->out_fd;
	snprintf(pp->rout, sizeof pp->rout, "%s", a->rout);
	round_prof_fmt(name, sizeof name, "prof-%s-%s-server.r%ld",
	    pp->cell->name, pp->arm->name, a->runs + 1);
	round_prof_paths(pp->u, name, ".data", pp->rdata, pp->adata,
	    sizeof pp->adata);
	round_prof_paths(pp->u, name, ".load.out", pp->rruns, pp->aruns,
	    sizeof pp->aruns);
	if (round_prof_claim(pp->u, rel, pp->why, sizeof pp->why) != 0)
		return 1;
	if ((pp->data_fd = rfile_create(pp->adata, O_CLOEXEC, 0644)) < 0) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot create: %s",
		    pp->rdata, rfile_strerror(errno));
		return 1;
	}
	json_array_append_new(a->files, json_string(pp->rdata));
	json_array_append_new(a->files, json_string(pp->rruns));
	if ((use = srvperf_server(sp, &own)) == NULL)
		rc = pp->aborted ? -1 : 1;
	else {
		/* a server on another host: its agent records each run */
		pp->far = (struct prof_far){ .u = pp->u, .rm =
		    round_server_agent(use), .host = round_server_host(use),
		    .cell = pp->cell->name, .arm = pp->arm->name,
		    .kind = pp->kind };
		pp->srv = round_server_here(use);
		pp->spid = pp->far.rm != NULL ? 0 : server_pid(pp->srv);
		rc = srvperf_record(sp, a);
	}
	if (pp->tool > 0)
		(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
	pp->tool = -1;
	/* a far perf never left recording after a failure here */
	if (pp->far.started != NULL && pp->far.stopped == NULL &&
	    !pp->far.lost)
		(void)round_prof_far_stop(&pp->far);
	/* the recording is read (perf report runs there, for a far one)
	 * before the server goes */
	if (rc == 0)
		rc = srvperf_read(sp, a, k);
	if (pp->far.lost)
		rc = -1;
	round_prof_far_finish(&pp->far);
	if (own != NULL)
		round_server_stop(pp->u, pp->cell, own);
	close(pp->data_fd);
	pp->data_fd = -1;
	pp->out_fd = -1;            /* the arm's, closed with it */
	return rc;
}

/* Whether every arm has its runs and its samples. */
static bool
srvperf_enough(const struct srvperf *sp)
{
	for (size_t k = 0; k < sp->pp.narms; k++)
		if (sp->a[k].runs < sp->pp.min_runs ||
		    sp->a[k].samples < sp->pp.min_samples)
			return false;
	return true;
}

/* Passes over the arms in mirror order (A B, B A, ...), as the perf
 * profile's runner takes them (profrepeat.c), until every arm has
 * enough or max_s have passed (at the end of a pass).  0, 1 failed,
 * -1 aborted. */
static int
srvperf_loop(struct srvperf *sp)
{
	double t0 = clock_now();
	int rc;

	for (long pass = 0;; pass++) {
		for (size_t i = 0; i < sp->pp.narms; i++) {
			size_t k = pass % 2 == 0 ? i : sp->pp.narms - 1 - i;

			round_pause_point(sp->pp.u);
			if (round_aborted(sp->pp.u))
				return -1;
			if ((rc = srvperf_run(sp, k)) != 0)
				return rc;
		}
		if (srvperf_enough(sp)) {
			sp->stopped = "samples";
			return 0;
		}
		if (clock_now() - t0 >= sp->pp.max_s) {
			sp->stopped = "max_s";
			return 0;
		}
	}
}

/* Every arm's profile failed, naming its files. */
static void
srvperf_failed(struct srvperf *sp)
{
	for (size_t k = 0; k < sp->pp.narms; k++) {
		struct srvperf_arm *a = &sp->a[k];
		json_t *ev = round_prof_event(sp->pp.cell->name,
		    sp->pp.arms[k]->name, sp->pp.kind, "failed");

		json_object_set_new(ev, "reason", json_string(sp->pp.why));
		json_array_append_new(a->files, json_string(a->rout));
		json_object_set(ev, "files", a->files);
		round_emit_new(sp->pp.u, ev);
	}
}

/* The runs' rows split by arm and run: each arm's report and event. */
static void
srvperf_emit(struct srvperf *sp, double wall)
{
	struct prof_perf *pp = &sp->pp;
	json_t *prof = json_pack("{s:s,s:O}", "event", sp->event != NULL ?
	    sp->event : "", "symbols", sp->rows),
	    *arms = json_array(), *ev;
	int *ro = xcalloc(pp->narms, sizeof *ro);

	pp->arm_files = json_array();
	pp->arm_extra = json_array();
	for (size_t k = 0; k < pp->narms; k++) {
		struct srvperf_arm *a = &sp->a[k];

		json_array_append_new(arms, json_pack("{s:I}", "runs",
		    (json_int_t)a->runs));
		json_array_insert_new(a->files, 0, json_string(a->rrep));
		json_array_insert_new(a->files, 1, json_string(a->rout));
		json_array_append(pp->arm_files, a->files);
		json_array_append(pp->arm_extra, a->extra);
		ro[k] = a->ro;
	}
	pp->arm_ro = ro;
	pp->split = json_pack("{s:i,s:O,s:o}", "self", 0, "list", sp->list,
	    "arms", arms);
	ev = round_prof_event(pp->cell->name, pp->arms[0]->name, pp->kind,
	    "ok");
	json_object_set_new(ev, "stopped", json_string(sp->stopped));
	json_object_set_new(ev, "wall", json_real(wall));
	json_object_set_new(ev, "order", json_string("mirror"));
	json_object_set_new(ev, "min_samples", json_integer(pp->min_samples));
	json_object_set_new(ev, "min_runs", json_integer(pp->min_runs));
	json_object_set_new(ev, "max_s", json_real(pp->max_s));
	json_object_set_new(ev, "event", json_string(sp->event != NULL ?
	    sp->event : ""));
	json_object_set_new(ev, "software_clock", json_boolean(
	    profile_event_is_clock(sp->event != NULL ? sp->event : "")));
	round_prof_perf_unwind(pp, ev);
	round_prof_perf_arms(pp, prof, ev, -1, sp->tmp);
	json_decref(ev);
	json_decref(prof);
	free(ro);
}

/* Each arm's command and its files (report, perf's output); an arm
 * that cannot be profiled fails alone.  The arms left, or -1 when the
 * round was aborted. */
static long
srvperf_arms(struct srvperf *sp, const struct spec_arm *const *arms,
    size_t narms, const struct spec_arm **ok)
{
	struct prof_perf *pp = &sp->pp;
	size_t n = 0;

	for (size_t k = 0; k < narms && k < ROUND_PROF_ARMS_MAX; k++) {
		struct srvperf_arm *a = &sp->a[n];
		char name[300], arep[PATH_MAX], *rel[3] = { a->rrep, a->rout,
		    NULL };
		/* a far server's perf is its agent's to look for */
		int rc = round_prof_ready(pp->u, pp->cell, arms[k], pp->kind,
		    spec_server_remote(pp->cell->server) ? NULL :
		    "perf", pp->perf, -2, &a->cmd);

		if (rc < 0)
			return -1;
		if (rc > 0) {
			memset(&a->cmd, 0, sizeof a->cmd);
			continue;
		}
		round_prof_fmt(name, sizeof name, "prof-%s-%s-server",
		    pp->cell->name, arms[k]->name);
		round_prof_paths(pp->u, name, ".report", a->rrep, arep,
		    sizeof arep);
		round_prof_paths(pp->u, name, ".out", a->rout, a->aout,
		    sizeof a->aout);
		if (round_prof_claim(pp->u, rel, pp->why, sizeof pp->why) != 0 ||
		    (a->out_fd = rfile_create(a->aout, O_CLOEXEC, 0644)) < 0) {
			if (pp->why[0] == '\0')
				round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot "
				    "create: %s", a->rout, rfile_strerror(errno));
			round_prof_failed(pp->u, pp->cell->name, arms[k]->name,
			    pp->kind, pp->why, NULL);
			legcmd_finish(&a->cmd);
			memset(&a->cmd, 0, sizeof a->cmd);
			a->out_fd = -1;
			continue;
		}
		a->ro = -1;
		a->files = json_array();
		a->extra = json_object();
		ok[n++] = arms[k];
		sp->nok = n;
	}
	return (long)n;
}

int
round_prof_server_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *const *arms, size_t narms, struct round_srv *srv)
{
	const struct spec_profile *pr = u->r->spec->profile;
	const struct spec_arm *ok[ROUND_PROF_ARMS_MAX];
	struct srvperf sp = { .pp = { .u = u, .cell = cell, .arm = arms[0],
	    .kind = "server_perf", .data_fd = -1, .runs_fd = -1, .out_fd = -1,
	    .plan_fd = -1, .tool = -1, .zero_ok = true,
	    .min_samples = pr->srv_min_samples,
	    .min_runs = pr->srv_min_runs, .max_s = pr->srv_max_s },
	    .srv = srv, .rows = json_array(), .list = json_array() };
	struct prof_perf *pp = &sp.pp;
	char wbuf[512];
	const char *where;
	double t0 = clock_now();
	long n = 0;
	int rc = 0;

	pp->perf = spec_resolve_program("perf", u->r->spec->workdir);
	round_prof_perf_args(pp);
	sp.a = xcalloc(ROUND_PROF_ARMS_MAX, sizeof *sp.a);
	for (size_t k = 0; k < narms && k < ROUND_PROF_ARMS_MAX; k++)
		ok[k] = arms[k];
	pp->arms = ok;
	pp->narms = narms < ROUND_PROF_ARMS_MAX ? narms : ROUND_PROF_ARMS_MAX;
	/* a server elsewhere (or none) fails every arm at once */
	if (srv != NULL && (where = round_prof_server_where(cell, srv, wbuf,
	    sizeof wbuf)) != NULL)
		round_prof_perf_failed(pp, where, false);
	else if ((n = srvperf_arms(&sp, arms, narms, ok)) < 0)
		rc = -1;
	else if (n > 0) {
		pp->narms = (size_t)n;
		if ((sp.tmp = tmpfile()) == NULL) {
			round_prof_fmt(pp->why, sizeof pp->why, "no temporary file "
			    "for perf report: %s", strerror(errno));
			srvperf_failed(&sp);
		} else if ((rc = srvperf_loop(&sp)) > 0) {
			srvperf_failed(&sp);
			rc = 0;
		} else if (rc < 0) {
			(void)round_prof_perf_aborted(pp);
		} else {
			srvperf_emit(&sp, clock_now() - t0);
		}
	}
	for (size_t k = 0; k < sp.nok; k++) {
		if (sp.a[k].out_fd >= 0)
			close(sp.a[k].out_fd);
		if (sp.a[k].ro >= 0)
			close(sp.a[k].ro);
		json_decref(sp.a[k].files);
		json_decref(sp.a[k].extra);
		legcmd_finish(&sp.a[k].cmd);
	}
	if (sp.tmp != NULL)
		fclose(sp.tmp);
	json_decref(pp->arm_files);
	json_decref(pp->arm_extra);
	json_decref(sp.rows);
	json_decref(sp.list);
	free(sp.event);
	free(sp.a);
	round_prof_perf_close(pp);
	return rc < 0 ? -1 : 0;
}
