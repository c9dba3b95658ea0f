/* The round driver, profile phase: the syscalls profile.  strace -c over
 * every task of the cell server's process tree (each process named with
 * -p, so workers forked before the profile are traced too, checked
 * through each task's TracerPid), attached after the load's warm-up,
 * while one leg of the arm runs as the load; detached by SIGINT to strace
 * alone; then the server must answer a real request and no task may be
 * traced.  Calls are divided by the leg's metrics.requests. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "legcmd.h"
#include "legmetrics.h"
#include "profile.h"
#include "proftree.h"
#include "rfile.h"
#include "round_int.h"
#include "server.h"
#include "spawn.h"
#include "xalloc.h"

/* How long strace gets to attach, and to detach and print its table. */
#define PROF_ATTACH_S 10.0
#define PROF_DETACH_S 10.0

/* A syscalls profile under way. */
struct prof_sys {
	struct run *u;
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	struct server *srv;
	char *strace;
	char rtxt[PATH_MAX], atxt[PATH_MAX], rlog[PATH_MAX], alog[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], why[512];
	const char *files[5];   /* the failed event's: txt, log, out, metrics */
	pid_t spid, before[PROF_PROCS_MAX], tracer;
	size_t nbefore;
	int txt_fd, log_fd;
	struct prof_tasks tk;   /* when it attached */
	bool aborted;
	struct prof_far far;    /* a server on another host: its agent */
};

static int
round_prof_sys_files(struct prof_sys *ps)
{
	char name[300];
	char *rel[4] = { ps->rtxt, ps->rlog, ps->rout, NULL };

	round_prof_fmt(name, sizeof name, "sys-%s-%s", ps->cell->name,
	    ps->arm->name);
	round_prof_paths(ps->u, name, ".txt", ps->rtxt, ps->atxt,
	    sizeof ps->atxt);
	round_prof_paths(ps->u, name, ".strace.log", ps->rlog, ps->alog,
	    sizeof ps->alog);
	round_prof_paths(ps->u, name, ".out", ps->rout, ps->aout,
	    sizeof ps->aout);
	ps->files[0] = ps->rtxt;
	ps->files[1] = ps->rlog;
	ps->files[2] = ps->rout;
	return round_prof_claim(ps->u, rel, ps->why, sizeof ps->why);
}

static void
round_prof_sys_failed(struct prof_sys *ps, const char *why,
    const char *const *files)
{
	round_prof_failed(ps->u, ps->cell->name, ps->arm->name, "syscalls", why,
	    files);
}

/* The rows trace names (all of them when it names none), in place; the
 * total stays every call's, so a narrowed table still says what a request
 * costs in all. */
static void
round_prof_sys_narrow(const struct spec_profile *pr, json_t *ev,
    json_t *rows)
{
	json_t *shown = json_array();

	if (pr->ntrace == 0) {
		json_decref(shown);
		return;
	}
	for (size_t i = json_array_size(rows); i-- > 0;) {
		const char *name = json_string_value(json_object_get(
		    json_array_get(rows, i), "syscall"));
		bool keep = false;

		for (size_t k = 0; k < pr->ntrace && !keep; k++)
			keep = name != NULL && strcmp(name, pr->trace[k]) == 0;
		if (!keep)
			json_array_remove(rows, i);
	}
	for (size_t k = 0; k < pr->ntrace; k++)
		json_array_append_new(shown, json_string(pr->trace[k]));
	json_object_set_new(ev, "trace", shown);
}

/* strace -f -c -p PID... over the server's processes as they are now,
 * counting every call, the table into the txt file (through its open
 * descriptor, never its name), strace's own words into the log.  0, or
 * -1 with ps->why. */
static int
round_prof_sys_spawn(struct prof_sys *ps)
{
	/* LC_ALL=C: strace's table in the C locale whatever the round's. */
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **envp = legcmd_envp(&c_locale, 1), txt[64], **argv;
	struct spawn_req sr = { .path = ps->strace, .envp = envp,
		.cwd = ps->u->r->dir, .out_fd = ps->log_fd };

	ps->nbefore = round_prof_tree(ps->spid, ps->before, PROF_PROCS_MAX);
	argv = proftree_strace_argv(ps->strace, ps->before, ps->nbefore,
	    rfile_fd_path(ps->txt_fd, txt, sizeof txt));
	sr.argv = argv;
	ps->tracer = spawn_run(&sr, NULL, ps->why, sizeof ps->why);
	if (ps->tracer > 0) {
		json_t *se = round_prof_event(ps->cell->name, ps->arm->name,
		    "syscalls", NULL);

		json_object_set_new(se, "pid", json_integer(ps->tracer));
		round_emit_new(ps->u, se);
	}
	free(argv);
	template_free_argv(envp);
	return ps->tracer > 0 ? 0 : -1;
}

/* The attach (round_prof_load's callback): strace started and waited on
 * until every task of every server process is traced by it.  0, or -1
 * with ps->why (strace detached). */
static int
round_prof_sys_attach(void *arg)
{
	struct prof_sys *ps = arg;
	double waited = 0;
	int st;

	if (ps->far.rm != NULL) {
		if (round_prof_far_start(&ps->far, NULL, 0) != 0) {
			ps->aborted = ps->far.lost;
			round_prof_fmt(ps->why, sizeof ps->why, "%s", ps->far.why);
			return -1;
		}
		ps->nbefore = (size_t)json_integer_value(json_object_get(
		    ps->far.started, "processes"));
		ps->tk.tasks = (int)json_integer_value(json_object_get(
		    ps->far.started, "tasks"));
		return 0;
	}
	if (round_prof_sys_spawn(ps) != 0)
		return -1;
	for (;;) {
		ps->tk = round_prof_count_tasks(ps->before, ps->nbefore,
		    ps->tracer);
		if (ps->tk.tasks > 0 && ps->tk.by_tracer == ps->tk.tasks)
			return 0;
		if (waitpid(ps->tracer, &st, WNOHANG) == ps->tracer) {
			ps->tracer = -1;
			round_prof_fmt(ps->why, sizeof ps->why, "strace exited "
			    "before it attached to every task of the server's "
			    "%zu processes (see %s)", ps->nbefore, ps->rlog);
			return -1;
		}
		if (round_aborted(ps->u) || waited >= PROF_ATTACH_S) {
			ps->aborted = round_aborted(ps->u);
			round_prof_fmt(ps->why, sizeof ps->why, "strace attached "
			    "to %d of the %d tasks of the server's %zu processes "
			    "within %g s (see %s)", ps->tk.by_tracer,
			    ps->tk.tasks, ps->nbefore, PROF_ATTACH_S, ps->rlog);
			(void)round_prof_stop_tool(ps->tracer, PROF_DETACH_S);
			ps->tracer = -1;
			return -1;
		}
		round_wait(ps->u, 0.01, false);
		waited += 0.01;
	}
}

/* The profile's event after the detach, with what the detach left: the
 * server alive, answering a real request, no task still traced, the same
 * processes as before. */
static json_t *
round_prof_sys_event(struct prof_sys *ps, const struct prof_load *pl,
    int *traced)
{
	json_t *ev = round_prof_event(ps->cell->name, ps->arm->name, "syscalls",
	    "ok");
	pid_t after[PROF_PROCS_MAX];
	size_t nafter;
	char how[512];
	bool answers, alive, contaminated;

	json_object_set_new(ev, "files", json_pack("[s,s,s,s]", ps->rtxt,
	    ps->rlog, ps->rout, pl->cmd->metrics_rel));
	json_object_set_new(ev, "traced_threads", json_integer(ps->tk.tasks));
	json_object_set_new(ev, "traced_processes",
	    json_integer((json_int_t)ps->nbefore));
	json_object_set_new(ev, "attach", json_string(
	    round_prof_attach_words(pl)));
	json_object_set_new(ev, "load_rc", json_integer(pl->res.rc));
	if (ps->far.rm != NULL) {
		const json_t *st = ps->far.stopped;

		alive = json_is_true(json_object_get(st, "alive"));
		*traced = (int)json_integer_value(json_object_get(st,
		    "traced_after"));
		contaminated = json_is_true(json_object_get(st,
		    "contaminated"));
		json_object_set_new(ev, "host", json_string(ps->far.host));
	} else {
		nafter = round_prof_tree(ps->spid, after, PROF_PROCS_MAX);
		*traced = round_prof_count_tasks(after, nafter, 0).traced;
		alive = server_alive(ps->srv);
		contaminated = nafter != ps->nbefore || memcmp(ps->before,
		    after, ps->nbefore * sizeof *after) != 0;
	}
	answers = alive && round_prof_answers(ps->u, ps->cell, pl->cmd, how,
	    sizeof how);
	json_object_set_new(ev, "detach", json_pack("{s:s,s:b,s:b,s:s,s:i}",
	    "signal", "SIGINT to strace alone", "server_alive", alive,
	    "server_answers", answers, "check", how, "traced_after", *traced));
	json_object_set_new(ev, "contaminated", json_boolean(contaminated));
	return ev;
}

/* Why the trace cannot be used, in ps->why ("" when it can); its table
 * in *rows and *total when read. */
static void
round_prof_sys_verdict(struct prof_sys *ps, json_t *ev, int st, int traced,
    const struct leg_result *res, json_t **rows, json_t **total)
{
	char *text = NULL, *why = ps->why;
	size_t len = sizeof ps->why;
	int fd;

	const json_t *detach = json_object_get(ev, "detach");

	/* strace prints its table and then ends by the signal it got */
	if (!proftree_stopped_ok(true, st))
		round_prof_fmt(why, len, "strace did not finish on SIGINT (see %s)",
		    ps->rlog);
	else if (!json_is_true(json_object_get(detach, "server_alive")))
		round_prof_fmt(why, len, "the server died during the trace (%s)",
		    ps->far.rm != NULL ? json_string_value(json_object_get(
		    ps->far.stopped, "death")) ?: "its agent says so" :
		    server_death(ps->srv));
	else if (!json_is_true(json_object_get(json_object_get(ev, "detach"),
	    "server_answers")))
		round_prof_fmt(why, len, "the server does not answer after strace "
		    "detached: %s", json_string_value(json_object_get(
		    json_object_get(ev, "detach"), "check")));
	else if (traced > 0)
		round_prof_fmt(why, len, "%d server tasks are still traced after "
		    "strace exited", traced);
	else if (res->timed_out || !spec_ok_rc(ps->u->r->spec, res->rc) ||
	    res->signal != 0)
		round_prof_fmt(why, len, "the load leg %s (see %s)", res->timed_out ?
		    "timed out" : "failed", ps->rout);
	else if ((fd = rfile_reopen(ps->txt_fd, O_RDONLY)) < 0 ||
	    (text = profile_slurp_fd(fd, 1 << 20)) == NULL)
		round_prof_fmt(why, len, "%s cannot be read back (see %s)",
		    ps->rtxt, ps->rlog);
	else if (profile_strace_table(text, rows, total, why, len) != 0)
		;
	else
		why[0] = '\0';
	free(text);
}

/* Calls per request, when the load leg's metrics file counted its
 * requests: per_request on each row and the total, requests on ev. */
static void
round_prof_sys_per_request(json_t *ev, const char *metrics, json_t *rows,
    json_t *total)
{
	double requests = -1;
	char why[512];
	bool absent;
	json_t *m, *r;
	size_t i;

	if ((m = legmetrics_read(metrics, 0, &absent, why, sizeof why)) !=
	    NULL && json_is_number(json_object_get(m, "requests")))
		requests = json_number_value(json_object_get(m, "requests"));
	json_decref(m);
	if (requests > 0) {
		json_array_foreach(rows, i, r)
			json_object_set_new(r, "per_request", json_real(
			    (double)json_integer_value(json_object_get(r,
			    "calls")) / requests));
		json_object_set_new(total, "per_request", json_real(
		    (double)json_integer_value(json_object_get(total,
		    "calls")) / requests));
	}
	json_object_set_new(ev, "requests", requests > 0 ?
	    json_real(requests) : json_null());
}

/* A far strace stopped and its table and words copied back: 0 (a
 * status as strace's when it ended as asked), -1, or -2 with the
 * profile's event emitted (failed, or aborted: the connection lost). */
static int
round_prof_sys_far_stop(struct prof_sys *ps)
{
	bool ok;

	if (round_prof_far_stop(&ps->far) == 0) {
		ok = json_is_true(json_object_get(ps->far.stopped, "stopped"));
		ps->far.copied = json_array();
		if (round_prof_far_get(&ps->far, "data", ps->txt_fd, ps->rtxt,
		    ps->far.copied) >= 0 && round_prof_far_get(&ps->far, "out",
		    ps->log_fd, ps->rlog, ps->far.copied) >= 0)
			return ok ? 0 : -1;
	}
	if (ps->far.lost)
		round_emit_new(ps->u, round_prof_event(ps->cell->name,
		    ps->arm->name, "syscalls", "aborted"));
	else
		round_prof_sys_failed(ps, ps->far.why, ps->files);
	return -2;
}

/* After the load: strace detached, the event with its verdict. */
static void
round_prof_sys_finish(struct prof_sys *ps, struct prof_load *pl)
{
	json_t *ev, *rows = NULL, *total = NULL;
	int st = ps->far.rm != NULL ? round_prof_sys_far_stop(ps) :
	    round_prof_stop_tool(ps->tracer, PROF_DETACH_S), traced;

	ps->tracer = -1;
	if (st == -2)
		return;
	ev = round_prof_sys_event(ps, pl, &traced);
	if (ps->far.copied != NULL)
		json_object_set(ev, "copied", ps->far.copied);
	round_prof_sys_verdict(ps, ev, st, traced, &pl->res, &rows, &total);
	if (ps->why[0] != '\0') {
		json_object_set_new(ev, "status", json_string("failed"));
		json_object_set_new(ev, "reason", json_string(ps->why));
	} else {
		round_prof_sys_per_request(ev, pl->cmd->metrics, rows, total);
		round_prof_sys_narrow(ps->u->r->spec->profile, ev, rows);
		json_object_set_new(ev, "total", total);
		json_object_set_new(ev, "top", rows);
		total = rows = NULL;
	}
	round_emit_new(ps->u, ev);
	json_decref(rows);
	json_decref(total);
}

/* The trace itself, once the files and the command are ready. */
static int
round_prof_sys_trace(struct prof_sys *ps, struct legcmd *cmd)
{
	struct prof_load pl = { .u = ps->u, .cell = ps->cell, .arm = ps->arm,
	    .kind = "syscalls", .cmd = cmd, .out_abs = ps->aout,
	    .attach = round_prof_sys_attach, .arg = ps, .pf = &ps->far,
	    .hold = round_prof_hold(cmd) };
	int rc;

	if ((ps->txt_fd = rfile_create(ps->atxt, O_CLOEXEC, 0644)) < 0 ||
	    (ps->log_fd = rfile_create(ps->alog, O_CLOEXEC, 0644)) < 0) {
		round_prof_fmt(ps->why, sizeof ps->why, "%s: cannot create: %s",
		    ps->txt_fd < 0 ? ps->rtxt : ps->rlog, rfile_strerror(errno));
		round_prof_sys_failed(ps, ps->why, NULL);
		return 0;
	}
	ps->files[3] = cmd->metrics_rel;
	rc = round_prof_load(&pl);
	if (ps->aborted || pl.res.aborted || round_aborted(ps->u)) {
		if (ps->far.started != NULL && ps->far.stopped == NULL &&
		    !ps->far.lost)
			(void)round_prof_far_stop(&ps->far);
		if (ps->tracer > 0)
			(void)round_prof_stop_tool(ps->tracer, PROF_DETACH_S);
		ps->tracer = -1;
		round_emit_new(ps->u, round_prof_event(ps->cell->name,
		    ps->arm->name, "syscalls", "aborted"));
		return -1;
	}
	if (rc != 0 || (pl.hold && !pl.attached)) {
		if (ps->tracer > 0)
			(void)round_prof_stop_tool(ps->tracer, PROF_DETACH_S);
		ps->tracer = -1;
		if (rc == 0)
			round_prof_fmt(ps->why, sizeof ps->why, "the load ended "
			    "before its warm-up was over (see %s)", ps->rout);
		else if (!pl.attach_failed)
			snprintf(ps->why, sizeof ps->why, "%s", pl.why);
		round_prof_sys_failed(ps, ps->why, ps->files);
		return 0;
	}
	round_prof_sys_finish(ps, &pl);
	return 0;
}

int
round_prof_syscalls(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, struct round_srv *srv)
{
	struct prof_sys ps = { .u = u, .cell = cell, .arm = arm,
		.srv = round_server_here(srv), .tracer = -1, .txt_fd = -1,
		.log_fd = -1 };
	struct legcmd cmd = { 0 };
	const char *where;
	char wbuf[512];
	int ret = 0;

	ps.strace = spec_resolve_program("strace", u->r->spec->workdir);
	ps.far = (struct prof_far){ .u = u, .rm = round_server_agent(srv),
	    .host = round_server_host(srv), .cell = cell->name,
	    .arm = arm->name, .kind = "syscalls" };
	if (round_prof_sys_files(&ps) != 0)
		round_prof_sys_failed(&ps, ps.why, NULL);
	else if ((where = round_prof_server_where(cell, srv, wbuf,
	    sizeof wbuf)) != NULL)
		round_prof_sys_failed(&ps, where, NULL);
	else {
		ps.spid = ps.far.rm != NULL ? 0 : server_pid(ps.srv);
		ret = round_prof_ready(u, cell, arm, "syscalls", ps.far.rm !=
		    NULL ? NULL : "strace", ps.strace, -1, &cmd);
		if (ret == 0)
			ret = round_prof_sys_trace(&ps, &cmd);
	}
	if (ps.tracer > 0)
		(void)round_prof_stop_tool(ps.tracer, PROF_DETACH_S);
	/* a far strace never left attached after a failure here */
	if (ps.far.started != NULL && ps.far.stopped == NULL && !ps.far.lost)
		(void)round_prof_far_stop(&ps.far);
	round_prof_far_finish(&ps.far);
	if (ps.txt_fd >= 0)
		close(ps.txt_fd);
	if (ps.log_fd >= 0)
		close(ps.log_fd);
	free(ps.strace);
	legcmd_finish(&cmd);
	return ret < 0 ? -1 : 0;
}
