/* The round driver, profile phase: after a cell's timed legs, each
 * profiled arm (in the round file's arm order) gets a perf record leg, and
 * with a cell server an strace of the server under one leg's load.  Each
 * profile ends in one "profile" event; one the log already holds is not
 * taken again, and one an abort cut short is taken again on resume. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "event.h"
#include "leg.h"
#include "legmetrics.h"
#include "profdiff.h"
#include "procs.h"
#include "profile.h"
#include "legcmd.h"
#include "round_int.h"
#include "server.h"
#include "spawn.h"
#include "xalloc.h"

/* perf report's output is read whole; a flat profile is a few hundred
 * lines, a call graph a few thousand. */
#define PROF_REPORT_MAX (64u << 20)

/* snprintf for paths: a path cut at PATH_MAX names no file we write, and
 * the round folder's own paths are far shorter. */
static void __attribute__((format(printf, 3, 4)))
round_prof_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *const prof_kinds[] = { "perf", "syscalls" };

static bool
round_prof_done(struct run *u, const char *cell, const char *arm, const char *kind)
{
	return profdiff_has(tally_profiles(u->r->tally), cell, arm, kind);
}

bool
round_prof_pending(struct run *u, size_t c)
{
	const struct spec *s = u->r->spec;
	const char *cell = s->cells[c].name;

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++)
		for (int k = 0; k < 2; k++)
			if (spec_profiles(s, cell, s->arms[a].name, prof_kinds[k]) &&
			    !round_prof_done(u, cell, s->arms[a].name, prof_kinds[k]))
				return true;
	return false;
}

static json_t *
round_prof_event(const char *cell, const char *arm, const char *kind,
    const char *status)
{
	json_t *ev = event_new(status != NULL ? "profile" : "profile_start");

	json_object_set_new(ev, "cell", json_string(cell));
	json_object_set_new(ev, "arm", json_string(arm));
	json_object_set_new(ev, "kind", json_string(kind));
	if (status != NULL)
		json_object_set_new(ev, "status", json_string(status));
	return ev;
}

/* leg_run's callback once a profile leg runs: profile_start with its pid
 * (the process group a kill campaign checks is gone). */
struct prof_start {
	struct run *u;
	const char *cell, *arm, *kind;
};

static void
round_prof_started(pid_t pid, void *arg)
{
	struct prof_start *ps = arg;
	json_t *ev = round_prof_event(ps->cell, ps->arm, ps->kind, NULL);

	json_object_set_new(ev, "pid", json_integer(pid));
	round_emit_new(ps->u, ev);
}

/* A profile that could not be taken: its event, with the reason and the
 * files it left (a NULL-terminated list, or NULL). */
static void
round_prof_failed(struct run *u, const char *cell, const char *arm,
    const char *kind, const char *reason, const char *const *files)
{
	json_t *ev = round_prof_event(cell, arm, kind, "failed"), *fl = json_array();

	json_object_set_new(ev, "reason", json_string(reason));
	for (size_t i = 0; files != NULL && files[i] != NULL; i++)
		json_array_append_new(fl, json_string(files[i]));
	json_object_set_new(ev, "files", fl);
	round_emit_new(u, ev);
}

/* "legs/prof-CELL-ARM" + ext, relative to the round folder, and the same
 * absolute. */
static void
round_prof_paths(struct run *u, const char *pre, const char *cell,
    const char *arm, const char *ext, char *rel, char *abs, size_t len)
{
	round_prof_fmt(rel, len, "legs/%s-%s-%s%s", pre, cell, arm, ext);
	round_prof_fmt(abs, len, "%s/%s", u->r->dir, rel);
}

/* perf report into path; 0 when it ran and exited 0. */
static int
round_prof_perf_report(struct run *u, const char *perf, const char *data,
    const char *path, bool graph)
{
	char *flat[] = { (char *)perf, "report", "-i", (char *)data, "--stdio",
		"--no-children", "--sort", "symbol", "-g", "none", NULL };
	char *cg[] = { (char *)perf, "report", "-i", (char *)data, "--stdio",
		"--no-children", "--sort", "symbol", "-g", "graph,0.5,caller",
		"--percent-limit", "1", NULL };

	return profile_exec(graph ? cg : flat, u->r->dir, path,
	    u->r->abort_pipe[0], 0) == 0 ? 0 : -1;
}

/* Append src's text to f, under a heading. */
static void
round_prof_append(FILE *f, const char *heading, const char *text)
{
	fprintf(f, "\n===== %s =====\n\n%s", heading, text != NULL ? text :
	    "(perf report printed nothing)\n");
}

/* A profile leg's command as legcmd builds it (rep 0 for perf's, -1 for
 * syscalls'; their metrics files are legs/prof- and legs/sys-CELL-ARM),
 * its stale metrics file removed and its scratch folder emptied.  0; -1
 * with u->err; -2 when the scratch folder was refused (the round is
 * aborted). */
static int
round_prof_cmd(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, struct legcmd *cmd)
{
	const struct spec *s = u->r->spec;
	struct legcmd_where w = { .spec = s, .cell = (size_t)(cell - s->cells),
	    .arm = (size_t)(arm - s->arms), .rep = rep,
	    .round_dir = u->r->dir };
	char e[640];

	if (legcmd_build(&w, cmd, e, sizeof e) != 0) {
		snprintf(u->err, sizeof u->err, "%s", e);
		return -1;
	}
	(void)unlink(cmd->metrics);
	return round_leg_scratch(u, &w, cmd) != 0 ? -2 : 0;
}

/* Whether a profile of kind can be taken with tool (its path as resolved,
 * or NULL): nothing on this machine blocks it, the tool is installed and
 * the leg's command is built (rep as round_prof_cmd).  0 to go on; 1 when it
 * cannot (its failed event emitted); -1 when the scratch folder was
 * refused (the round is aborted). */
static int
round_prof_ready(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, const char *kind, const char *tool,
    const char *path, int rep, struct legcmd *cmd)
{
	char why[512], missing[64];
	const char *blocked = profile_blocked(kind, why, sizeof why);
	int rc;

	if (blocked != NULL || path == NULL) {
		snprintf(missing, sizeof missing, "%s is not installed", tool);
		round_prof_failed(u, cell->name, arm->name, kind, blocked != NULL ?
		    blocked : missing, NULL);
		return 1;
	}
	if ((rc = round_prof_cmd(u, cell, arm, rep, cmd)) == -2)
		return -1;
	if (rc != 0) {
		round_prof_failed(u, cell->name, arm->name, kind, u->err, NULL);
		u->err[0] = '\0';
		return 1;
	}
	return 0;
}

/* A perf profile's files, relative to the round folder (r) and absolute
 * (a): the data, the report, perf record's output, and the report's
 * parts while it is written. */
struct round_prof_perf_files {
	char rdata[PATH_MAX], adata[PATH_MAX], rrep[PATH_MAX], arep[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], aflat[PATH_MAX], agraph[PATH_MAX],
	    tmp[PATH_MAX], old[PATH_MAX];
};

static void
round_prof_perf_files(struct run *u, const char *cell, const char *arm,
    struct round_prof_perf_files *p)
{
	round_prof_paths(u, "prof", cell, arm, ".data", p->rdata, p->adata,
	    sizeof p->adata);
	round_prof_paths(u, "prof", cell, arm, ".report", p->rrep, p->arep,
	    sizeof p->arep);
	round_prof_paths(u, "prof", cell, arm, ".out", p->rout, p->aout,
	    sizeof p->aout);
	round_prof_fmt(p->aflat, sizeof p->aflat, "%s.flat", p->arep);
	round_prof_fmt(p->agraph, sizeof p->agraph, "%s.graph", p->arep);
	round_prof_fmt(p->tmp, sizeof p->tmp, "%s.tmp", p->arep);
	round_prof_fmt(p->old, sizeof p->old, "%s.old", p->adata);
	/* What an earlier attempt left (cut short by an abort or a kill) is
	 * not evidence: no profile event names it. */
	unlink(p->adata);
	unlink(p->old);
	unlink(p->arep);
	unlink(p->aout);
	unlink(p->aflat);
	unlink(p->agraph);
	unlink(p->tmp);
}

/* perf record ARGS -o DATA -- the leg's own argv (the strings borrowed). */
static char **
round_prof_perf_argv(char *perf, const struct spec_profile *pr, char *data,
    char *const *leg)
{
	size_t n = 0, k = 0;
	char **argv;

	while (leg[n] != NULL)
		n++;
	argv = xcalloc(pr->nperf_args + n + 6, sizeof *argv);
	argv[k++] = perf;
	argv[k++] = "record";
	for (size_t i = 0; i < pr->nperf_args; i++)
		argv[k++] = pr->perf_args[i];
	argv[k++] = "-o";
	argv[k++] = data;
	argv[k++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[k++] = leg[i];
	return argv;
}

/* perf record of the leg's command, then its flat and call-graph reports.
 * 0 with the leg's wall time; 1 when the profile failed (its event
 * emitted); -1 when the round was aborted (its event emitted). */
static int
round_prof_perf_record(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, char *perf, const struct legcmd *cmd,
    struct round_prof_perf_files *p, double *wall)
{
	const struct spec *s = u->r->spec;
	char **argv = round_prof_perf_argv(perf, s->profile, p->adata, cmd->argv);
	struct leg_spec ls = {
		.path = perf, .argv = argv, .envp = cmd->envp, .cwd = cmd->cwd,
		.out_path = p->aout, .cpus = u->client_mask, .ncpus = u->ncpus,
		.nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = u->r->abort_pipe[0],
	};
	struct prof_start ps = { u, cell->name, arm->name, "perf" };
	const char *files[] = { p->rdata, p->rout, NULL };
	struct leg_result res;
	char why[512];
	int rc = leg_run(&ls, &res, round_prof_started, &ps, why, sizeof why);

	free(argv);
	if (rc != 0) {
		round_prof_failed(u, cell->name, arm->name, "perf", why, NULL);
		return 1;
	}
	if (res.aborted || round_aborted(u))
		goto aborted;
	if (res.timed_out || res.rc != 0 || res.signal != 0) {
		round_prof_fmt(why, sizeof why, "perf record %s (see %s)",
		    res.timed_out ? "timed out" : res.signal != 0 ?
		    "was killed by a signal" : "exited non-zero", p->rout);
		round_prof_failed(u, cell->name, arm->name, "perf", why, files + 1);
		return 1;
	}
	if (round_prof_perf_report(u, perf, p->adata, p->aflat, false) != 0 ||
	    round_prof_perf_report(u, perf, p->adata, p->agraph, true) != 0) {
		if (round_aborted(u))
			goto aborted;
		round_prof_failed(u, cell->name, arm->name, "perf", "perf report "
		    "failed on the recorded data", files);
		return 1;
	}
	*wall = res.wall;
	return 0;
aborted:
	round_emit_new(u, round_prof_event(cell->name, arm->name, "perf", "aborted"));
	return -1;
}

/* The report file: what was recorded and how, the flat profile and the
 * call graph, written beside it, synced and renamed over it.  0, or -1
 * with why. */
static int
round_prof_perf_write(const struct spec_profile *pr, const struct round_prof_perf_files *p,
    const char *cell, const char *arm, const char *event, const char *flat,
    const char *graph, char *why, size_t len)
{
	FILE *f;

	if ((f = fopen(p->tmp, "w")) == NULL) {
		round_prof_fmt(why, len, "%s: cannot create: %s", p->rrep,
		    strerror(errno));
		return -1;
	}
	fprintf(f, "benchtui profile of cell %s, arm %s: perf record", cell,
	    arm);
	for (size_t i = 0; i < pr->nperf_args; i++)
		fprintf(f, " %s", pr->perf_args[i]);
	fprintf(f, " -o %s -- the leg's command\nsampled event: %s\n",
	    p->rdata, event[0] != '\0' ? event : "unknown");
	if (profile_event_is_clock(event))
		fprintf(f, "NOTE: perf sampled its software clock (%s), not the "
		    "cycles counter: this machine has no hardware PMU (or perf "
		    "could not open it). Shares are of time on the CPU, sampled "
		    "by a timer.\n", event);
	round_prof_append(f, "flat profile by symbol (perf report --stdio "
	    "--no-children --sort symbol -g none)", flat);
	round_prof_append(f, "caller call graph (perf report --stdio --no-children "
	    "--sort symbol -g graph,0.5,caller --percent-limit 1)", graph);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		round_prof_fmt(why, len, "%s: cannot write: %s", p->rrep,
		    strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	rename(p->tmp, p->arep);
	return 0;
}

/* The perf profile of one arm.  0 to go on, -1 when the round was
 * aborted during it. */
static int
round_prof_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm)
{
	char *perf = spec_resolve_program("perf", u->r->spec->workdir),
	    *flat = NULL, *graph = NULL, why[512], event[128] = "";
	struct round_prof_perf_files p;
	struct legcmd cmd = { 0 };
	json_t *ev, *top;
	double wall = 0;
	int ret;

	round_prof_perf_files(u, cell->name, arm->name, &p);
	if ((ret = round_prof_ready(u, cell, arm, "perf", "perf", perf, 0,
	    &cmd)) == 0)
		ret = round_prof_perf_record(u, cell, arm, perf, &cmd, &p, &wall);
	if (ret != 0)
		goto out;
	flat = profile_slurp(p.aflat, PROF_REPORT_MAX);
	graph = profile_slurp(p.agraph, PROF_REPORT_MAX);
	top = profile_perf_top(flat != NULL ? flat : "", PROFILE_TOP, event,
	    sizeof event);
	if (round_prof_perf_write(u->r->spec->profile, &p, cell->name, arm->name,
	    event, flat, graph, why, sizeof why) != 0) {
		json_decref(top);
		round_prof_failed(u, cell->name, arm->name, "perf", why, NULL);
		goto out;
	}
	unlink(p.aflat);
	unlink(p.agraph);
	ev = round_prof_event(cell->name, arm->name, "perf", "ok");
	json_object_set_new(ev, "files", json_pack("[s,s,s]", p.rdata, p.rrep,
	    p.rout));
	json_object_set_new(ev, "event", json_string(event));
	json_object_set_new(ev, "software_clock",
	    json_boolean(profile_event_is_clock(event)));
	json_object_set_new(ev, "wall", json_real(wall));
	json_object_set_new(ev, "top", top);
	round_emit_new(u, ev);
out:
	unlink(p.aflat);
	unlink(p.agraph);
	unlink(p.tmp);
	free(flat);
	free(graph);
	free(perf);
	legcmd_finish(&cmd);
	return ret < 0 ? -1 : 0;
}

/* --- syscalls ------------------------------------------------------------ */

/* Server processes watched at most (its tree: a few, or a worker pool). */
#define PROF_PROCS_MAX 4096
/* How long strace gets to attach, and to detach and print its table. */
#define PROF_ATTACH_S 10.0
#define PROF_DETACH_S 10.0

struct prof_tasks {
	int tasks;      /* threads of every process of the tree */
	int by_tracer;  /* of which traced by the tracer */
	int traced;     /* of which traced by anyone */
};

/* The server's processes: root and its descendants, sorted. */
static size_t
round_prof_tree(pid_t root, pid_t *pids, size_t max)
{
	size_t n = procs_descendants(root, pids + 1, max - 1) + 1;

	pids[0] = root;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
			pid_t t = pids[j];

			pids[j] = pids[j - 1];
			pids[j - 1] = t;
		}
	return n;
}

/* Every task of every process of the tree, and who traces it (TracerPid
 * in /proc/PID/task/TID/status).  O(threads of the server). */
static struct prof_tasks
round_prof_count_tasks(const pid_t *pids, size_t n, pid_t tracer)
{
	struct prof_tasks t = { 0 };

	for (size_t i = 0; i < n; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char sp[128], *st, *tp;

			if (de->d_name[0] == '.')
				continue;
			snprintf(sp, sizeof sp, "/proc/%d/task/%.20s/status",
			    (int)pids[i], de->d_name);
			/* a thread may end between the listing and this */
			if ((st = profile_slurp(sp, 8192)) == NULL)
				continue;
			if ((tp = strstr(st, "\nTracerPid:")) != NULL) {
				long who = strtol(tp + 11, NULL, 10);

				t.tasks++;
				t.traced += who != 0;
				t.by_tracer += who == (long)tracer;
			}
			free(st);
		}
		closedir(d);
	}
	return t;
}

/* Wait (abort-aware) until pid exits: its status, or -1 after seconds. */
static int
round_prof_wait_exit(pid_t pid, double seconds)
{
	double waited = 0;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR)
			return -1;
		if (waited >= seconds)
			return -1;
		/* not round_wait: a detach must finish even during an abort */
		usleep(10000);
		waited += 0.01;
	}
}

/* SIGINT to strace alone (never its group, never the server): it detaches
 * and prints its table.  Its exit status, or -1 when it had to be killed. */
static int
round_prof_detach(pid_t tracer)
{
	int st;

	kill(tracer, SIGINT);
	if ((st = round_prof_wait_exit(tracer, PROF_DETACH_S)) >= 0)
		return st;
	kill(tracer, SIGKILL);
	(void)round_prof_wait_exit(tracer, 3.0);
	return -1;
}

/* A syscalls profile under way: its files, relative to the round folder
 * (r) and absolute (a), the server's processes when strace started, and
 * strace itself. */
struct prof_sys {
	struct run *u;
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	struct server *srv;
	char rtxt[PATH_MAX], atxt[PATH_MAX], rlog[PATH_MAX], alog[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], why[512];
	const char *files[5];   /* the failed event's: txt, log, out, metrics */
	pid_t spid, before[PROF_PROCS_MAX], tracer;
	size_t nbefore;
	int fd;                 /* strace's own output (the log) */
	struct prof_tasks tk;   /* when it attached */
};

static void
round_prof_sys_files(struct prof_sys *ps)
{
	const char *cell = ps->cell->name, *arm = ps->arm->name;

	round_prof_paths(ps->u, "sys", cell, arm, ".txt", ps->rtxt, ps->atxt,
	    sizeof ps->atxt);
	round_prof_paths(ps->u, "sys", cell, arm, ".strace.log", ps->rlog, ps->alog,
	    sizeof ps->alog);
	round_prof_paths(ps->u, "sys", cell, arm, ".out", ps->rout, ps->aout,
	    sizeof ps->aout);
	ps->files[0] = ps->rtxt;
	ps->files[1] = ps->rlog;
	ps->files[2] = ps->rout;
	unlink(ps->atxt);
	unlink(ps->alog);
	unlink(ps->aout);
}

static void
round_prof_sys_failed(struct prof_sys *ps, const char *why, const char *const *files)
{
	round_prof_failed(ps->u, ps->cell->name, ps->arm->name, "syscalls", why,
	    files);
}

/* An abort during the trace: strace detached, the aborted event.  -1. */
static int
round_prof_sys_aborted(struct prof_sys *ps)
{
	if (ps->tracer > 0)
		(void)round_prof_detach(ps->tracer);
	ps->tracer = -1;
	round_emit_new(ps->u, round_prof_event(ps->cell->name, ps->arm->name,
	    "syscalls", "aborted"));
	return -1;
}

/* strace's -e argument: trace=NAME,NAME... (malloc'd). */
static char *
round_prof_trace_arg(const struct spec_profile *pr)
{
	size_t tl = 0;
	char *trace;

	for (size_t i = 0; i < pr->ntrace; i++)
		tl += strlen(pr->trace[i]) + 1;
	trace = xmalloc(tl + 8);
	strcpy(trace, "trace=");
	for (size_t i = 0; i < pr->ntrace; i++) {
		if (i > 0)
			strcat(trace, ",");
		strcat(trace, pr->trace[i]);
	}
	return trace;
}


/* strace -f -c on the server, its output to the log, the server's
 * processes noted first; its profile_start event.  0, or 1 when it could
 * not start (the failed event emitted). */
static int
round_prof_sys_spawn(struct prof_sys *ps, char *strace)
{
	/* LC_ALL=C: strace's table in the C locale whatever the round's. */
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char pidbuf[32], *trace = round_prof_trace_arg(ps->u->r->spec->profile),
	    **envp = legcmd_envp(&c_locale, 1);
	char *sargv[] = { strace, "-f", "-c", "-e", trace, "-p", pidbuf, "-o",
		ps->atxt, NULL };
	struct spawn_req sr = { .path = strace, .argv = sargv, .envp = envp,
		.cwd = ps->u->r->dir };
	json_t *se;

	snprintf(pidbuf, sizeof pidbuf, "%d", (int)ps->spid);
	if ((ps->fd = open(ps->alog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0) {
		round_prof_fmt(ps->why, sizeof ps->why, "%s: cannot create: %s",
		    ps->rlog, strerror(errno));
		round_prof_sys_failed(ps, ps->why, NULL);
		goto out;
	}
	ps->nbefore = round_prof_tree(ps->spid, ps->before, PROF_PROCS_MAX);
	sr.out_fd = ps->fd;
	if ((ps->tracer = spawn_run(&sr, NULL, ps->why, sizeof ps->why)) < 0) {
		round_prof_sys_failed(ps, ps->why, NULL);
		goto out;
	}
	se = round_prof_event(ps->cell->name, ps->arm->name, "syscalls", NULL);
	json_object_set_new(se, "pid", json_integer(ps->tracer));
	round_emit_new(ps->u, se);
out:
	free(trace);
	template_free_argv(envp);
	return ps->tracer > 0 ? 0 : 1;
}

/* Wait until every thread of every server process is traced by strace.
 * 0; 1 when strace ended or did not attach in time (the failed event
 * emitted); -1 when the round was aborted. */
static int
round_prof_sys_attached(struct prof_sys *ps)
{
	double waited = 0;
	int st;

	for (;;) {
		ps->tk = round_prof_count_tasks(ps->before, ps->nbefore, ps->tracer);
		if (ps->tk.tasks > 0 && ps->tk.by_tracer == ps->tk.tasks)
			return 0;
		if (waitpid(ps->tracer, &st, WNOHANG) == ps->tracer) {
			ps->tracer = -1;
			round_prof_fmt(ps->why, sizeof ps->why, "strace exited before "
			    "it attached to every server thread (see %s)",
			    ps->rlog);
			round_prof_sys_failed(ps, ps->why, ps->files);
			return 1;
		}
		if (round_aborted(ps->u))
			return round_prof_sys_aborted(ps);
		if (waited >= PROF_ATTACH_S) {
			round_prof_fmt(ps->why, sizeof ps->why, "strace attached to %d "
			    "of the server's %d threads within %g s (see %s)",
			    ps->tk.by_tracer, ps->tk.tasks, PROF_ATTACH_S,
			    ps->rlog);
			(void)round_prof_detach(ps->tracer);
			ps->tracer = -1;
			round_prof_sys_failed(ps, ps->why, ps->files);
			return 1;
		}
		round_wait(ps->u, 0.01, false);
		waited += 0.01;
	}
}

/* One leg of the arm as the server's load while strace is attached, then
 * strace detached (its exit status in *st).  0; 1 when the leg could not
 * run (the failed event emitted); -1 when the round was aborted. */
static int
round_prof_sys_load(struct prof_sys *ps, const struct legcmd *cmd,
    struct leg_result *res, int *st)
{
	const struct spec *s = ps->u->r->spec;
	struct leg_spec ls = {
		.path = cmd->exec_path, .argv = cmd->argv, .envp = cmd->envp,
		.cwd = s->workdir, .out_path = ps->aout,
		.cpus = ps->u->client_mask, .ncpus = ps->u->ncpus,
		.nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = ps->u->r->abort_pipe[0],
	};

	if (leg_run(&ls, res, NULL, NULL, ps->why, sizeof ps->why) != 0) {
		(void)round_prof_detach(ps->tracer);
		ps->tracer = -1;
		round_prof_sys_failed(ps, ps->why, ps->files);
		return 1;
	}
	if (res->aborted || round_aborted(ps->u))
		return round_prof_sys_aborted(ps);
	*st = round_prof_detach(ps->tracer);
	ps->tracer = -1;
	return 0;
}

/* The profile's event after the detach, with what the detach left: the
 * server alive, answering, no thread still traced (*traced: how many
 * are), the same processes as before. */
static json_t *
round_prof_sys_event(struct prof_sys *ps, const struct legcmd *cmd,
    const struct leg_result *res, int *traced)
{
	json_t *ev = round_prof_event(ps->cell->name, ps->arm->name, "syscalls",
	    "ok");
	pid_t after[PROF_PROCS_MAX];
	size_t nafter;

	json_object_set_new(ev, "files", json_pack("[s,s,s,s]", ps->rtxt,
	    ps->rlog, ps->rout, cmd->metrics_rel));
	json_object_set_new(ev, "traced_threads", json_integer(ps->tk.tasks));
	json_object_set_new(ev, "load_rc", json_integer(res->rc));
	nafter = round_prof_tree(ps->spid, after, PROF_PROCS_MAX);
	*traced = round_prof_count_tasks(after, nafter, 0).traced;
	json_object_set_new(ev, "detach", json_pack("{s:s,s:b,s:b,s:i}",
	    "signal", "SIGINT to strace alone", "server_alive",
	    server_alive(ps->srv), "server_answers",
	    server_port_accepts(ps->cell->server->tcp_port, 5000), "traced_after",
	    *traced));
	json_object_set_new(ev, "contaminated", json_boolean(
	    nafter != ps->nbefore || memcmp(ps->before, after,
	    ps->nbefore * sizeof *after) != 0));
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

	/* strace prints its table and then ends by the signal it got */
	if (st < 0 || !(WIFEXITED(st) || (WIFSIGNALED(st) &&
	    WTERMSIG(st) == SIGINT)))
		round_prof_fmt(why, len, "strace did not finish on SIGINT (see %s)",
		    ps->rlog);
	else if (!server_alive(ps->srv))
		round_prof_fmt(why, len, "the server died during the trace (%s)",
		    server_death(ps->srv));
	else if (!json_is_true(json_object_get(json_object_get(ev, "detach"),
	    "server_answers")))
		round_prof_fmt(why, len, "the server does not answer on port %d "
		    "after strace detached", ps->cell->server->tcp_port);
	else if (traced > 0)
		round_prof_fmt(why, len, "%d server threads are still traced after "
		    "strace exited", traced);
	else if (res->timed_out || res->rc != 0 || res->signal != 0)
		round_prof_fmt(why, len, "the load leg %s (see %s)", res->timed_out ?
		    "timed out" : "failed", ps->rout);
	else if ((text = profile_slurp(ps->atxt, 1 << 20)) == NULL)
		round_prof_fmt(why, len, "strace wrote no table (see %s)", ps->rlog);
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

/* The syscalls profile of one arm: strace attached to every thread of the
 * cell's server while one leg of the arm runs as its load.  0 to go on, -1
 * when the round was aborted during it. */
static int
round_prof_syscalls(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, struct server *srv)
{
	char *strace = spec_resolve_program("strace", u->r->spec->workdir);
	struct prof_sys ps = { .u = u, .cell = cell, .arm = arm, .srv = srv,
		.tracer = -1, .fd = -1 };
	struct legcmd cmd = { 0 };
	struct leg_result res;
	json_t *ev, *rows = NULL, *total = NULL;
	int ret = 1, st = -1, traced;

	round_prof_sys_files(&ps);
	if (srv == NULL || !server_alive(srv))
		round_prof_sys_failed(&ps, "the cell's server is not running", NULL);
	else {
		ps.spid = server_pid(srv);
		ret = round_prof_ready(u, cell, arm, "syscalls", "strace", strace, -1,
		    &cmd);
	}
	if (ret == 0) {
		ps.files[3] = cmd.metrics_rel;
		if ((ret = round_prof_sys_spawn(&ps, strace)) == 0 &&
		    (ret = round_prof_sys_attached(&ps)) == 0)
			ret = round_prof_sys_load(&ps, &cmd, &res, &st);
	}
	if (ret == 0) {
		ev = round_prof_sys_event(&ps, &cmd, &res, &traced);
		round_prof_sys_verdict(&ps, ev, st, traced, &res, &rows, &total);
		if (ps.why[0] != '\0') {
			json_object_set_new(ev, "status", json_string("failed"));
			json_object_set_new(ev, "reason", json_string(ps.why));
		} else {
			round_prof_sys_per_request(ev, cmd.metrics, rows, total);
			json_object_set_new(ev, "total", total);
			json_object_set_new(ev, "top", rows);
			total = rows = NULL;
		}
		round_emit_new(u, ev);
	}
	if (ps.tracer > 0)
		(void)round_prof_detach(ps.tracer);
	if (ps.fd >= 0)
		close(ps.fd);
	json_decref(rows);
	json_decref(total);
	free(strace);
	legcmd_finish(&cmd);
	return ret < 0 ? -1 : 0;
}

int
round_prof_cell(struct run *u, size_t c, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[c];

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++) {
		const struct spec_arm *arm = &s->arms[a];
		bool perf = spec_profiles(s, cell->name, arm->name, "perf") &&
		    !round_prof_done(u, cell->name, arm->name, "perf");
		bool sys = spec_profiles(s, cell->name, arm->name, "syscalls") &&
		    !round_prof_done(u, cell->name, arm->name, "syscalls");
		struct server *own = NULL, *use = srv;
		int rc = 0;

		if (!perf && !sys)
			continue;
		round_pause_point(u);
		if (round_aborted(u))
			return -1;
		/* Servers per leg: the arm's own server, up for its profiles
		 * as for its legs (rep 0: outside the timed reps). */
		if (srv == NULL && cell->server != NULL &&
		    spec_server_per_leg(s, cell)) {
			if ((own = round_server_start(u, cell, arm, 0)) == NULL)
				return -1;
			use = own;
		}
		if (perf)
			rc = round_prof_perf(u, cell, arm);
		if (rc == 0 && sys && !round_aborted(u))
			rc = round_prof_syscalls(u, cell, arm, use);
		if (own != NULL)
			round_server_stop(u, cell, own);
		if (rc != 0 || round_aborted(u))
			return -1;
	}
	return 0;
}
