/* The agent's profile ops: a profile of the server it runs (server_perf,
 * syscalls), taken here with the code the round driver uses for a local
 * server (proftree.c: the tree, its tasks, the profiler's argv, the
 * attach, the stop by SIGINT to the profiler alone; profile.c: the
 * tools, the kernel's settings, perf's call-graph options), its files
 * kept in the agent's folder for the client to copy back in pieces of
 * the size it asks for:
 *
 *   prof_start  {kind, args}: the profiler attached to the server's tree
 *   prof_stop   the profiler stopped; what the detach left
 *   prof_report {args}: perf report ARGS -i the data, into a file here
 *   prof_get    {file, offset, max}: bytes of a file, base64 (also a
 *               leg's output, "leg:NAME", for the client to keep)
 *   prof_legs   {plan, args, timeout_s}: the legs' perf profile, taken
 *               here (legs on this host): perf record ARGS -- benchtui
 *               prof-repeat over the plan the client would run, each
 *               arm's program resolved here (and its scratch folder
 *               emptied); then prof_report and
 *               prof_get as for a server's (files data, out, runs, plan)
 *
 * The load comes from the client's side, as it does for a local server.
 * One profile at a time; a new prof_start drops the last one's files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>
#include <sys/stat.h>

#include "agent_int.h"
#include "leg.h"
#include "legcmd.h"
#include "profile.h"
#include "profrepeat.h"
#include "proftree.h"
#include "rfile.h"
#include "server.h"
#include "spawn.h"
#include "spec.h"
#include "template.h"
#include "xalloc.h"

/* How long the profiler gets to attach, and to detach and write. */
#define AGENT_PROF_ATTACH_S 10.0
#define AGENT_PROF_STOP_S 120.0
/* perf report's time at most. */
#define AGENT_PROF_REPORT_S 600.0
/* The most one prof_get reads (the client asks for less to fit its
 * line limit). */
#define AGENT_PROF_GET_MAX (4 << 20)

/* The files of a profile in the agent's folder, by the names prof_get
 * takes. */
static const char *const agent_prof_files[][2] = {
	{ "out", "prof.out" },   /* the profiler's own words */
	{ "data", "prof.data" }, /* strace's table, or perf's data */
	{ "report", "prof.report" }, /* the last perf report's output */
	{ "runs", "prof.runs" }, /* prof-repeat's account of the legs' runs */
	{ "plan", "prof.plan" }, /* the plan it ran, as resolved here */
};

struct agent_prof {
	bool syscalls;
	pid_t tool;
	char *path;              /* the profiler, resolved here */
	pid_t *before;           /* the tree when it attached */
	size_t nbefore;
	int tasks;
};

static void
agent_prof_free(struct agent *a)
{
	struct agent_prof *p = a->prof;

	if (p == NULL)
		return;
	if (p->tool > 0)
		(void)proftree_stop_tool(p->tool, AGENT_PROF_STOP_S);
	free(p->path);
	free(p->before);
	free(p);
	a->prof = NULL;
}

void
agent_prof_end(struct agent *a)
{
	agent_prof_free(a);
}

/* A file of the profile: its path here (malloc'd), or NULL. */
static char *
agent_prof_path(const struct agent *a, const char *name)
{
	/* a leg's output (agent_leg.c's file), by its name there */
	if (name != NULL && strncmp(name, "leg:", 4) == 0)
		return agent_log_name_ok(name + 4) ? agent_own_file(a,
		    name + 4) : NULL;
	for (size_t i = 0; i < sizeof agent_prof_files /
	    sizeof agent_prof_files[0]; i++)
		if (name != NULL && strcmp(name, agent_prof_files[i][0]) == 0)
			return agent_own_file(a, agent_prof_files[i][1]);
	return NULL;
}

/* A new file of the profile (no link followed), or -1. */
static int
agent_prof_create(const struct agent *a, const char *name)
{
	char *path = agent_prof_path(a, name);
	int fd = rfile_create(path, O_CLOEXEC, 0644);

	free(path);
	return fd;
}

/* The profiler started over the tree as it is now, and waited on until
 * it has attached.  NULL, or the refusal. */
static json_t *
agent_prof_attach(struct agent *a, const json_t *req, char **args)
{
	struct agent_prof *p = a->prof;
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **envp = legcmd_envp(&c_locale, 1), **argv, fdp[64], err[512];
	int out = agent_prof_create(a, "out"), data = agent_prof_create(a,
	    "data"), got = 0;
	struct spawn_req sr = { .path = p->path, .envp = envp, .cwd = a->dir,
	    .out_fd = out };
	double waited = 0;
	json_t *r = NULL;

	p->before = xcalloc(PROFTREE_MAX, sizeof *p->before);
	p->nbefore = proftree_tree(server_pid(a->srv), p->before, PROFTREE_MAX);
	p->tasks = proftree_count_tasks(p->before, p->nbefore, 0).tasks;
	if (out < 0 || data < 0) {
		r = agent_refuse(req, "failed", "the profile's files in %s: %s",
		    a->dir, strerror(errno));
		goto done;
	}
	rfile_fd_path(data, fdp, sizeof fdp);
	argv = p->syscalls ? proftree_strace_argv(p->path, p->before,
	    p->nbefore, fdp) : proftree_perf_argv(p->path, args, p->before,
	    p->nbefore, fdp);
	sr.argv = argv;
	p->tool = spawn_run(&sr, NULL, err, sizeof err);
	free(argv);
	if (p->tool <= 0) {
		r = agent_refuse(req, "failed", "%s", err);
		goto done;
	}
	while ((got = proftree_attached(p->syscalls, p->tool, p->before,
	    p->nbefore, p->tasks)) == 0 && waited < AGENT_PROF_ATTACH_S) {
		usleep(10000);
		waited += 0.01;
	}
	if (got < 0)
		p->tool = -1;
	if (got <= 0) {
		r = agent_refuse(req, "failed", "%s %s before it attached to "
		    "every task of the server's %zu processes (%d tasks)",
		    p->syscalls ? "strace" : "perf record", got < 0 ? "exited" :
		    "timed out", p->nbefore, p->tasks);
		goto done;
	}
	/* perf's events are opened, and enabled right after */
	if (!p->syscalls)
		usleep(200000);
done:
	if (out >= 0)
		close(out);
	if (data >= 0)
		close(data);
	template_free_argv(envp);
	return r;
}

static json_t *
agent_prof_start(struct agent *a, const json_t *req)
{
	const char *kind = json_string_value(json_object_get(req, "kind"));
	bool sys = kind != NULL && strcmp(kind, "syscalls") == 0;
	const char *unwind = NULL, *tool = sys ? "strace" : "perf";
	char **args = NULL, **popts = NULL, why[512];
	size_t nargs = 0, bad;
	bool chosen, dwarf;
	json_t *r;

	if (!sys && (kind == NULL || strcmp(kind, "server_perf") != 0))
		return agent_refuse(req, "malformed", "prof_start: kind must be "
		    "\"syscalls\" or \"server_perf\"");
	if ((r = agent_strv(req, json_object_get(req, "args"), "prof_start: "
	    "args", &args, &nargs)) != NULL) {
		template_free_argv(args);
		return r;
	}
	agent_prof_free(a);
	if (a->srv == NULL || !server_alive(a->srv)) {
		template_free_argv(args);
		return agent_refuse(req, "no_server", "no server runs here to "
		    "profile");
	}
	if (profile_blocked(kind, why, sizeof why) != NULL) {
		template_free_argv(args);
		return agent_refuse(req, "blocked", "%s", why);
	}
	a->prof = xcalloc(1, sizeof *a->prof);
	a->prof->syscalls = sys;
	a->prof->tool = -1;
	if ((a->prof->path = spec_resolve_program(tool, a->dir)) == NULL) {
		template_free_argv(args);
		return agent_refuse(req, "no_tool", "%s is not installed on "
		    "this host (not on PATH)", tool);
	}
	/* perf's call-graph method as a local server_perf chooses it, on
	 * what this host's perf can do */
	chosen = spec_perf_unwind(args, nargs, &bad) != NULL;
	dwarf = chosen || profile_perf_dwarf() != 0;
	if (!sys)
		popts = profile_perf_args(args, nargs, dwarf, &unwind);
	if ((r = agent_prof_attach(a, req, popts)) == NULL) {
		char *pids = proftree_pidlist(a->prof->before,
		    a->prof->nbefore);

		r = agent_reply(req, true);
		json_object_set_new(r, "processes",
		    json_integer((json_int_t)a->prof->nbefore));
		json_object_set_new(r, "tasks", json_integer(a->prof->tasks));
		json_object_set_new(r, "pids", json_string(pids));
		if (!sys) {
			json_object_set_new(r, "unwind", json_string(unwind));
			json_object_set_new(r, "fallback",
			    json_boolean(!chosen && !dwarf));
		}
		free(pids);
	}
	free(popts);
	template_free_argv(args);
	return r;
}

static json_t *
agent_prof_stop(struct agent *a, const json_t *req)
{
	struct agent_prof *p = a->prof;
	pid_t *after;
	size_t nafter;
	int st, traced;
	json_t *r;

	if (p == NULL || p->tool <= 0)
		return agent_refuse(req, "malformed", "prof_stop: no profiler "
		    "runs (prof_start first)");
	st = proftree_stop_tool(p->tool, p->syscalls ? 10.0 :
	    AGENT_PROF_STOP_S);
	p->tool = -1;
	after = xcalloc(PROFTREE_MAX, sizeof *after);
	nafter = proftree_tree(server_pid(a->srv), after, PROFTREE_MAX);
	traced = proftree_count_tasks(after, nafter, 0).traced;
	r = agent_reply(req, true);
	json_object_set_new(r, "stopped", json_boolean(proftree_stopped_ok(
	    p->syscalls, st)));
	json_object_set_new(r, "alive", json_boolean(server_alive(a->srv)));
	if (!server_alive(a->srv))
		json_object_set_new(r, "death", json_string(server_death(
		    a->srv)));
	json_object_set_new(r, "traced_after", json_integer(traced));
	json_object_set_new(r, "contaminated", json_boolean(nafter !=
	    p->nbefore || memcmp(p->before, after, nafter * sizeof *after) !=
	    0));
	free(after);
	return r;
}

static json_t *
agent_prof_report(struct agent *a, const json_t *req)
{
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **args = NULL, **argv, **envp, in[64], *data;
	size_t nargs = 0, k = 0;
	int fd, rd, rc;
	json_t *r;

	if (a->prof == NULL || a->prof->syscalls || a->prof->tool > 0)
		return agent_refuse(req, "malformed", "prof_report: no stopped "
		    "perf profile here");
	if ((r = agent_strv(req, json_object_get(req, "args"), "prof_report: "
	    "args", &args, &nargs)) != NULL) {
		template_free_argv(args);
		return r;
	}
	data = agent_prof_path(a, "data");
	rd = rfile_open(data, O_RDONLY, 0);
	free(data);
	if (rd < 0 || (fd = agent_prof_create(a, "report")) < 0) {
		if (rd >= 0)
			close(rd);
		template_free_argv(args);
		return agent_refuse(req, "failed", "prof_report: %s",
		    strerror(errno));
	}
	argv = xcalloc(nargs + 6, sizeof *argv);
	argv[k++] = a->prof->path;
	argv[k++] = "report";
	argv[k++] = "-i";
	argv[k++] = (char *)rfile_fd_path(rd, in, sizeof in);
	for (size_t i = 0; i < nargs; i++)
		argv[k++] = args[i];
	envp = legcmd_envp(&c_locale, 1);
	rc = profile_exec_fd(argv, envp, a->dir, fd, a->wake,
	    AGENT_PROF_REPORT_S);
	template_free_argv(envp);
	free(argv);
	close(fd);
	close(rd);
	template_free_argv(args);
	r = agent_reply(req, true);
	json_object_set_new(r, "rc", json_integer(rc));
	return r;
}

static json_t *
agent_prof_get(struct agent *a, const json_t *req)
{
	const char *name = json_string_value(json_object_get(req, "file"));
	json_int_t off = json_integer_value(json_object_get(req, "offset")),
	    max = json_integer_value(json_object_get(req, "max"));
	char *path = agent_prof_path(a, name);
	unsigned char *buf;
	char *b64;
	struct stat st;
	ssize_t n;
	int fd;
	json_t *r;

	if (path == NULL || off < 0 || max <= 0 || max > AGENT_PROF_GET_MAX) {
		free(path);
		return agent_refuse(req, "malformed", "prof_get: file (out, "
		    "data, report, runs, plan or leg:NAME), offset >= 0 and max (1 to %d)",
		    AGENT_PROF_GET_MAX);
	}
	fd = rfile_open(path, O_RDONLY, 0);
	free(path);
	if (fd < 0 || fstat(fd, &st) != 0) {
		if (fd >= 0)
			close(fd);
		return agent_refuse(req, "failed", "prof_get: %s: %s", name,
		    strerror(errno));
	}
	buf = xmalloc((size_t)max);
	n = pread(fd, buf, (size_t)max, (off_t)off);
	close(fd);
	if (n < 0)
		n = 0;
	b64 = xmalloc(4 * (((size_t)n + 2) / 3) + 1);
	EVP_EncodeBlock((unsigned char *)b64, buf, (int)n);
	r = agent_reply(req, true);
	json_object_set_new(r, "size", json_integer((json_int_t)st.st_size));
	json_object_set_new(r, "data", json_string(b64));
	free(buf);
	free(b64);
	return r;
}

/* The plan's arms with each program resolved here (and benchtui
 * itself run with the fixed layout, as the client's side does), each
 * arm's scratch folder emptied before the first run as a local
 * profile's is.  NULL, or the refusal. */
static json_t *
agent_prof_legs_plan(struct agent *a, const json_t *req, json_t *plan)
{
	const json_t *arms = json_object_get(plan, "arms");
	const char *self = template_self_path();
	json_t *arm, *r;
	size_t i;

	if (!json_is_array(arms) || json_array_size(arms) == 0 ||
	    json_array_size(arms) > 64)
		return agent_refuse(req, "malformed", "prof_legs: plan.arms: 1 "
		    "to 64 arms");
	if (self == NULL)
		return agent_refuse(req, "failed", "prof_legs: benchtui cannot "
		    "find its own program (/proc/self/exe) here");
	json_array_foreach(arms, i, arm) {
		const char *argv0 = json_string_value(json_array_get(
		    json_object_get(arm, "argv"), 0)), *cwd = json_string_value(
		    json_object_get(arm, "cwd"));
		char *path;

		if (argv0 == NULL || cwd == NULL || !json_is_array(
		    json_object_get(arm, "env")))
			return agent_refuse(req, "malformed", "prof_legs: "
			    "plan.arms[%zu]: argv, env and cwd", i);
		if ((path = spec_resolve_program(argv0, cwd)) == NULL)
			return agent_refuse(req, "failed", "prof_legs: no program "
			    "\"%s\" (relative to %s or on PATH) on this host",
			    argv0, cwd);
		json_object_set_new(arm, "path", json_string(path));
		json_object_set_new(arm, "fixed_layout", json_boolean(strcmp(path,
		    self) == 0));
		r = json_is_string(json_object_get(arm, "scratch")) ?
		    agent_scratch(a, req, json_string_value(json_object_get(arm,
		    "scratch")), cwd, path, NULL) : NULL;
		free(path);
		if (r != NULL)
			return r;
	}
	return NULL;
}

/* perf record of prof-repeat over the plan, here, into the profile's
 * files; res its status.  NULL, or the refusal. */
static json_t *
agent_prof_legs_run(struct agent *a, const json_t *req, json_t *plan,
    char **popts, double timeout_s, struct leg_result *res)
{
	const json_t *arm0 = json_array_get(json_object_get(plan, "arms"), 0);
	char **envp = NULL, **argv, fp[3][64], err[512];
	int data = agent_prof_create(a, "data"), runs = agent_prof_create(a,
	    "runs"), pl = agent_prof_create(a, "plan"), persona, rc;
	char *out = agent_prof_path(a, "out");
	size_t nenv = 0;
	json_t *r = NULL;

	if (data < 0 || runs < 0 || pl < 0 ||
	    json_dumpfd(plan, pl, JSON_COMPACT) != 0) {
		r = agent_refuse(req, "failed", "the profile's files in %s: %s",
		    a->dir, strerror(errno));
		goto done;
	}
	if ((r = agent_strv(req, json_object_get(arm0, "env"), "prof_legs: "
	    "plan.arms[0].env", &envp, &nenv)) != NULL)
		goto done;
	argv = profrepeat_perf_argv(a->prof->path, popts, rfile_fd_path(data,
	    fp[0], 64), template_self_path(), rfile_fd_path(pl, fp[1], 64),
	    rfile_fd_path(runs, fp[2], 64));
	{
		struct leg_spec ls = { .path = a->prof->path, .argv = argv,
			.envp = envp, .cwd = json_string_value(json_object_get(
			arm0, "cwd")), .out_path = out, .timeout_s = timeout_s,
			.abort_fd = a->wake };

		profrepeat_layout_fix(&persona);
		rc = leg_run(&ls, res, NULL, NULL, err, sizeof err);
		profrepeat_layout_restore(persona);
	}
	free(argv);
	if (rc != 0)
		r = agent_refuse(req, "failed", "prof_legs: %s", err);
done:
	template_free_argv(envp);
	free(out);
	if (data >= 0)
		close(data);
	if (runs >= 0)
		close(runs);
	if (pl >= 0)
		close(pl);
	return r;
}

static json_t *
agent_prof_legs(struct agent *a, const json_t *req)
{
	const json_t *t = json_object_get(req, "timeout_s");
	json_t *plan = json_deep_copy(json_object_get(req, "plan")), *r;
	char **args = NULL, **popts = NULL, why[512], *perf;
	const char *unwind = NULL;
	size_t nargs = 0, bad;
	struct leg_result res;
	bool chosen, dwarf;

	agent_prof_free(a);
	if (!json_is_object(plan) || !json_is_number(t) ||
	    json_number_value(t) <= 0 || json_number_value(t) > 1e6) {
		json_decref(plan);
		return agent_refuse(req, "malformed", "prof_legs: plan (an "
		    "object) and timeout_s (seconds) are wanted");
	}
	if ((r = agent_strv(req, json_object_get(req, "args"), "prof_legs: "
	    "args", &args, &nargs)) != NULL ||
	    (r = agent_prof_legs_plan(a, req, plan)) != NULL)
		goto done;
	if (profile_blocked("perf", why, sizeof why) != NULL) {
		r = agent_refuse(req, "blocked", "%s", why);
		goto done;
	}
	if ((perf = spec_resolve_program("perf", a->dir)) == NULL) {
		r = agent_refuse(req, "no_tool", "perf is not installed on this "
		    "host (not on PATH)");
		goto done;
	}
	/* prof_report and prof_get then serve this recording */
	a->prof = xcalloc(1, sizeof *a->prof);
	a->prof->tool = -1;
	a->prof->path = perf;
	chosen = spec_perf_unwind(args, nargs, &bad) != NULL;
	dwarf = chosen || profile_perf_dwarf() != 0;
	popts = profile_perf_args(args, nargs, dwarf, &unwind);
	if ((r = agent_prof_legs_run(a, req, plan, popts,
	    json_number_value(t), &res)) != NULL)
		goto done;
	r = agent_reply(req, true);
	json_object_set_new(r, "rc", json_integer(res.rc));
	json_object_set_new(r, "signal", json_integer(res.signal));
	json_object_set_new(r, "timed_out", json_boolean(res.timed_out));
	json_object_set_new(r, "aborted", json_boolean(res.aborted));
	json_object_set_new(r, "wall", json_real(res.wall));
	json_object_set_new(r, "unwind", json_string(unwind));
	json_object_set_new(r, "fallback", json_boolean(!chosen && !dwarf));
done:
	free(popts);
	template_free_argv(args);
	json_decref(plan);
	return r;
}

json_t *
agent_prof(struct agent *a, const char *op, const json_t *req)
{
	if (a->dir == NULL)
		return agent_refuse(req, "failed", "no folder here: %s",
		    a->dir_err);
	if (strcmp(op, "prof_start") == 0)
		return agent_prof_start(a, req);
	if (strcmp(op, "prof_stop") == 0)
		return agent_prof_stop(a, req);
	if (strcmp(op, "prof_report") == 0)
		return agent_prof_report(a, req);
	if (strcmp(op, "prof_legs") == 0)
		return agent_prof_legs(a, req);
	return agent_prof_get(a, req);
}
