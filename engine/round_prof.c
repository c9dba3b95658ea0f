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
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
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

/* perf report's output is read whole; a flat profile is a few hundred
 * lines, a call graph a few thousand. */
#define PROF_REPORT_MAX (64u << 20)

/* snprintf for paths: a path cut at PATH_MAX names no file we write, and
 * the round folder's own paths are far shorter. */
static void __attribute__((format(printf, 3, 4)))
prof_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static const char *const prof_kinds[] = { "perf", "syscalls" };

static bool
prof_done(struct run *u, const char *cell, const char *arm, const char *kind)
{
	return profdiff_has(tally_profiles(u->r->tally), cell, arm, kind);
}

bool
run_prof_pending(struct run *u, size_t c)
{
	const struct spec *s = u->r->spec;
	const char *cell = s->cells[c].name;

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++)
		for (int k = 0; k < 2; k++)
			if (spec_profiles(s, cell, s->arms[a].name, prof_kinds[k]) &&
			    !prof_done(u, cell, s->arms[a].name, prof_kinds[k]))
				return true;
	return false;
}

static json_t *
prof_event(const char *cell, const char *arm, const char *kind,
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
prof_started(pid_t pid, void *arg)
{
	struct prof_start *ps = arg;
	json_t *ev = prof_event(ps->cell, ps->arm, ps->kind, NULL);

	json_object_set_new(ev, "pid", json_integer(pid));
	run_emit_new(ps->u, ev);
}

/* A profile that could not be taken: its event, with the reason and the
 * files it left (a NULL-terminated list, or NULL). */
static void
prof_failed(struct run *u, const char *cell, const char *arm,
    const char *kind, const char *reason, const char *const *files)
{
	json_t *ev = prof_event(cell, arm, kind, "failed"), *fl = json_array();

	json_object_set_new(ev, "reason", json_string(reason));
	for (size_t i = 0; files != NULL && files[i] != NULL; i++)
		json_array_append_new(fl, json_string(files[i]));
	json_object_set_new(ev, "files", fl);
	run_emit_new(u, ev);
}

/* "legs/prof-CELL-ARM" + ext, relative to the round folder, and the same
 * absolute. */
static void
prof_paths(struct run *u, const char *pre, const char *cell,
    const char *arm, const char *ext, char *rel, char *abs, size_t len)
{
	prof_fmt(rel, len, "legs/%s-%s-%s%s", pre, cell, arm, ext);
	prof_fmt(abs, len, "%s/%s", u->r->dir, rel);
}

/* perf report into path; 0 when it ran and exited 0. */
static int
prof_perf_report(struct run *u, const char *perf, const char *data,
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
prof_append(FILE *f, const char *heading, const char *text)
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
prof_cmd(struct run *u, const struct spec_cell *cell,
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
	return run_leg_scratch(u, &w, cmd) != 0 ? -2 : 0;
}

/* The perf profile of one arm.  0 to go on, -1 when the round was
 * aborted during it. */
static int
prof_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm)
{
	const struct spec *s = u->r->spec;
	const struct spec_profile *pr = s->profile;
	char rdata[PATH_MAX], adata[PATH_MAX], rrep[PATH_MAX], arep[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], aflat[PATH_MAX], agraph[PATH_MAX],
	    tmp[PATH_MAX], old[PATH_MAX], why[512], event[128] = "";
	char *perf = spec_resolve_program("perf", s->workdir), **argv = NULL,
	    *flat = NULL, *graph = NULL;
	struct legcmd cmd = { 0 };
	const char *blocked;
	struct leg_result res;
	json_t *ev, *top = NULL;
	size_t n = 0;
	int ret = 0;
	FILE *f;

	prof_paths(u, "prof", cell->name, arm->name, ".data", rdata, adata,
	    sizeof adata);
	prof_paths(u, "prof", cell->name, arm->name, ".report", rrep, arep,
	    sizeof arep);
	prof_paths(u, "prof", cell->name, arm->name, ".out", rout, aout,
	    sizeof aout);
	prof_fmt(aflat, sizeof aflat, "%s.flat", arep);
	prof_fmt(agraph, sizeof agraph, "%s.graph", arep);
	prof_fmt(tmp, sizeof tmp, "%s.tmp", arep);
	prof_fmt(old, sizeof old, "%s.old", adata);
	/* What an earlier attempt left (cut short by an abort or a kill) is
	 * not evidence: no profile event names it. */
	unlink(adata);
	unlink(old);
	unlink(arep);
	unlink(aout);
	unlink(aflat);
	unlink(agraph);
	unlink(tmp);

	if ((blocked = profile_blocked("perf", why, sizeof why)) != NULL ||
	    perf == NULL) {
		prof_failed(u, cell->name, arm->name, "perf", blocked != NULL ?
		    blocked : "perf is not installed", NULL);
		goto out;
	}
	if ((ret = prof_cmd(u, cell, arm, 0, &cmd)) != 0) {
		if (ret == -2)
			goto out;
		ret = 0;
		prof_failed(u, cell->name, arm->name, "perf", u->err, NULL);
		u->err[0] = '\0';
		goto out;
	}
	/* perf record ARGS -o DATA -- the leg's own argv */
	while (cmd.argv[n] != NULL)
		n++;
	if ((argv = calloc(pr->nperf_args + n + 6, sizeof *argv)) == NULL)
		goto out;
	{
		size_t k = 0;

		argv[k++] = perf;
		argv[k++] = "record";
		for (size_t i = 0; i < pr->nperf_args; i++)
			argv[k++] = pr->perf_args[i];
		argv[k++] = "-o";
		argv[k++] = adata;
		argv[k++] = "--";
		for (size_t i = 0; i < n; i++)
			argv[k++] = cmd.argv[i];
	}
	struct leg_spec ls = {
		.path = perf, .argv = argv, .envp = cmd.envp, .cwd = cmd.cwd,
		.out_path = aout, .cpus = u->client_mask, .ncpus = u->ncpus,
		.nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = u->r->abort_pipe[0],
	};
	struct prof_start ps = { u, cell->name, arm->name, "perf" };
	if (leg_run(&ls, &res, prof_started, &ps, why, sizeof why) != 0) {
		prof_failed(u, cell->name, arm->name, "perf", why, NULL);
		goto out;
	}
	if (res.aborted || run_aborted(u)) {
		run_emit_new(u, prof_event(cell->name, arm->name, "perf",
		    "aborted"));
		ret = -1;
		goto out;
	}
	if (res.timed_out || res.rc != 0 || res.signal != 0) {
		const char *files[] = { rout, NULL };

		prof_fmt(why, sizeof why, "perf record %s (see %s)",
		    res.timed_out ? "timed out" : res.signal != 0 ?
		    "was killed by a signal" : "exited non-zero", rout);
		prof_failed(u, cell->name, arm->name, "perf", why, files);
		goto out;
	}
	if (prof_perf_report(u, perf, adata, aflat, false) != 0 ||
	    prof_perf_report(u, perf, adata, agraph, true) != 0) {
		if (run_aborted(u)) {
			run_emit_new(u, prof_event(cell->name, arm->name, "perf",
			    "aborted"));
			ret = -1;
			goto out;
		}
		const char *files[] = { rdata, rout, NULL };

		prof_failed(u, cell->name, arm->name, "perf", "perf report "
		    "failed on the recorded data", files);
		goto out;
	}
	flat = profile_slurp(aflat, PROF_REPORT_MAX);
	graph = profile_slurp(agraph, PROF_REPORT_MAX);
	top = profile_perf_top(flat != NULL ? flat : "", PROFILE_TOP, event,
	    sizeof event);
	if ((f = fopen(tmp, "w")) == NULL) {
		prof_fmt(why, sizeof why, "%s: cannot create: %s", rrep,
		    strerror(errno));
		prof_failed(u, cell->name, arm->name, "perf", why, NULL);
		goto out;
	}
	fprintf(f, "benchtui profile of cell %s, arm %s: perf record", cell->name,
	    arm->name);
	for (size_t i = 0; i < pr->nperf_args; i++)
		fprintf(f, " %s", pr->perf_args[i]);
	fprintf(f, " -o %s -- the leg's command\nsampled event: %s\n", rdata,
	    event[0] != '\0' ? event : "unknown");
	if (profile_event_is_clock(event))
		fprintf(f, "NOTE: perf sampled its software clock (%s), not the "
		    "cycles counter: this machine has no hardware PMU (or perf "
		    "could not open it). Shares are of time on the CPU, sampled "
		    "by a timer.\n", event);
	prof_append(f, "flat profile by symbol (perf report --stdio "
	    "--no-children --sort symbol -g none)", flat);
	prof_append(f, "caller call graph (perf report --stdio --no-children "
	    "--sort symbol -g graph,0.5,caller --percent-limit 1)", graph);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) != 0) {
		prof_fmt(why, sizeof why, "%s: cannot write: %s", rrep,
		    strerror(errno));
		fclose(f);
		prof_failed(u, cell->name, arm->name, "perf", why, NULL);
		goto out;
	}
	fclose(f);
	rename(tmp, arep);
	unlink(aflat);
	unlink(agraph);
	ev = prof_event(cell->name, arm->name, "perf", "ok");
	json_object_set_new(ev, "files", json_pack("[s,s,s]", rdata, rrep,
	    rout));
	json_object_set_new(ev, "event", json_string(event));
	json_object_set_new(ev, "software_clock",
	    json_boolean(profile_event_is_clock(event)));
	json_object_set_new(ev, "wall", json_real(res.wall));
	json_object_set_new(ev, "top", top);
	top = NULL;
	run_emit_new(u, ev);
out:
	unlink(aflat);
	unlink(agraph);
	unlink(tmp);
	json_decref(top);
	free(flat);
	free(graph);
	free(argv);
	free(perf);
	legcmd_finish(&cmd);
	return ret;
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
prof_tree(pid_t root, pid_t *pids, size_t max)
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
prof_count_tasks(const pid_t *pids, size_t n, pid_t tracer)
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

/* Whether 127.0.0.1:port accepts a connection within a few seconds. */
static bool
prof_answers(int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct timeval tv = { .tv_sec = 5 };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
	ok = connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

/* Wait (abort-aware) until pid exits: its status, or -1 after seconds. */
static int
prof_wait_exit(pid_t pid, double seconds)
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
		/* not run_wait: a detach must finish even during an abort */
		usleep(10000);
		waited += 0.01;
	}
}

/* SIGINT to strace alone (never its group, never the server): it detaches
 * and prints its table.  Its exit status, or -1 when it had to be killed. */
static int
prof_detach(pid_t tracer)
{
	int st;

	kill(tracer, SIGINT);
	if ((st = prof_wait_exit(tracer, PROF_DETACH_S)) >= 0)
		return st;
	kill(tracer, SIGKILL);
	(void)prof_wait_exit(tracer, 3.0);
	return -1;
}

/* The syscalls profile of one arm: strace attached to every thread of the
 * cell's server while one leg of the arm runs as its load.  0 to go on, -1
 * when the round was aborted during it. */
static int
prof_syscalls(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_profile *pr = s->profile;
	char rtxt[PATH_MAX], atxt[PATH_MAX], rlog[PATH_MAX], alog[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], why[512], pidbuf[32], *trace = NULL;
	char *strace = spec_resolve_program("strace", s->workdir), *text = NULL;
	char **envp = NULL;
	const char *blocked;
	const char *files[5] = { NULL };
	pid_t before[PROF_PROCS_MAX], after[PROF_PROCS_MAX], tracer = -1,
	    spid;
	size_t nbefore, nafter, tl = 0;
	struct legcmd cmd = { 0 };
	struct prof_tasks tk = { 0 };
	struct leg_result res;
	json_t *ev, *rows = NULL, *total = NULL, *m;
	double waited = 0, requests = -1;
	int ret = 0, fd = -1, st;
	bool absent;

	prof_paths(u, "sys", cell->name, arm->name, ".txt", rtxt, atxt,
	    sizeof atxt);
	prof_paths(u, "sys", cell->name, arm->name, ".strace.log", rlog, alog,
	    sizeof alog);
	prof_paths(u, "sys", cell->name, arm->name, ".out", rout, aout,
	    sizeof aout);
	files[0] = rtxt;
	files[1] = rlog;
	files[2] = rout;
	unlink(atxt);
	unlink(alog);
	unlink(aout);
	if (srv == NULL || !server_alive(srv)) {
		prof_failed(u, cell->name, arm->name, "syscalls", "the cell's "
		    "server is not running", NULL);
		goto out;
	}
	spid = server_pid(srv);
	if ((blocked = profile_blocked("syscalls", why, sizeof why)) != NULL ||
	    strace == NULL) {
		prof_failed(u, cell->name, arm->name, "syscalls", blocked ?
		    blocked : "strace is not installed", NULL);
		goto out;
	}
	if ((ret = prof_cmd(u, cell, arm, -1, &cmd)) != 0) {
		if (ret == -2)
			goto out;
		ret = 0;
		prof_failed(u, cell->name, arm->name, "syscalls", u->err, NULL);
		u->err[0] = '\0';
		goto out;
	}
	files[3] = cmd.metrics_rel;
	for (size_t i = 0; i < pr->ntrace; i++)
		tl += strlen(pr->trace[i]) + 1;
	if ((trace = malloc(tl + 8)) == NULL)
		goto out;
	strcpy(trace, "trace=");
	for (size_t i = 0; i < pr->ntrace; i++) {
		if (i > 0)
			strcat(trace, ",");
		strcat(trace, pr->trace[i]);
	}
	snprintf(pidbuf, sizeof pidbuf, "%d", (int)spid);
	{
		/* strace's table in the C locale, whatever the round's */
		extern char **environ;
		size_t ne = 0, k = 0;

		while (environ[ne] != NULL)
			ne++;
		if ((envp = calloc(ne + 2, sizeof *envp)) == NULL)
			goto out;
		for (size_t i = 0; i < ne; i++)
			if (strncmp(environ[i], "LC_ALL=", 7) != 0)
				envp[k++] = environ[i];
		envp[k] = "LC_ALL=C";
	}
	char *sargv[] = { strace, "-f", "-c", "-e", trace, "-p", pidbuf, "-o",
		atxt, NULL };
	if ((fd = open(alog, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0644)) < 0) {
		prof_fmt(why, sizeof why, "%s: cannot create: %s", rlog,
		    strerror(errno));
		prof_failed(u, cell->name, arm->name, "syscalls", why, NULL);
		goto out;
	}
	nbefore = prof_tree(spid, before, PROF_PROCS_MAX);
	struct spawn_req sr = { .path = strace, .argv = sargv, .envp = envp,
		.cwd = u->r->dir, .out_fd = fd };
	if ((tracer = spawn_run(&sr, NULL, why, sizeof why)) < 0) {
		prof_failed(u, cell->name, arm->name, "syscalls", why, NULL);
		goto out;
	}
	{
		json_t *se = prof_event(cell->name, arm->name, "syscalls", NULL);

		json_object_set_new(se, "pid", json_integer(tracer));
		run_emit_new(u, se);
	}
	/* Attached: every thread of every server process traced by it. */
	for (;;) {
		tk = prof_count_tasks(before, nbefore, tracer);
		if (tk.tasks > 0 && tk.by_tracer == tk.tasks)
			break;
		if (waitpid(tracer, &st, WNOHANG) == tracer) {
			tracer = -1;
			prof_fmt(why, sizeof why, "strace exited before it "
			    "attached to every server thread (see %s)", rlog);
			prof_failed(u, cell->name, arm->name, "syscalls", why,
			    files);
			goto out;
		}
		if (run_aborted(u))
			goto aborted;
		if (waited >= PROF_ATTACH_S) {
			prof_fmt(why, sizeof why, "strace attached to %d of the "
			    "server's %d threads within %g s (see %s)",
			    tk.by_tracer, tk.tasks, PROF_ATTACH_S, rlog);
			(void)prof_detach(tracer);
			tracer = -1;
			prof_failed(u, cell->name, arm->name, "syscalls", why,
			    files);
			goto out;
		}
		run_wait(u, 0.01, false);
		waited += 0.01;
	}
	struct leg_spec ls = {
		.path = cmd.exec_path, .argv = cmd.argv, .envp = cmd.envp,
		.cwd = s->workdir, .out_path = aout, .cpus = u->client_mask,
		.ncpus = u->ncpus, .nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = u->r->abort_pipe[0],
	};
	if (leg_run(&ls, &res, NULL, NULL, why, sizeof why) != 0) {
		(void)prof_detach(tracer);
		tracer = -1;
		prof_failed(u, cell->name, arm->name, "syscalls", why, files);
		goto out;
	}
	if (res.aborted || run_aborted(u))
		goto aborted;
	st = prof_detach(tracer);
	tracer = -1;
	ev = prof_event(cell->name, arm->name, "syscalls", "ok");
	json_object_set_new(ev, "files", json_pack("[s,s,s,s]", rtxt, rlog,
	    rout, cmd.metrics_rel));
	json_object_set_new(ev, "traced_threads", json_integer(tk.tasks));
	json_object_set_new(ev, "load_rc", json_integer(res.rc));
	/* After the detach: alive, answering, no thread still traced, the
	 * same processes as before. */
	nafter = prof_tree(spid, after, PROF_PROCS_MAX);
	tk = prof_count_tasks(after, nafter, 0);
	json_object_set_new(ev, "detach", json_pack("{s:s,s:b,s:b,s:i}",
	    "signal", "SIGINT to strace alone", "server_alive",
	    server_alive(srv), "server_answers",
	    prof_answers(cell->server->tcp_port), "traced_after",
	    tk.traced));
	json_object_set_new(ev, "contaminated", json_boolean(nafter != nbefore ||
	    memcmp(before, after, nbefore * sizeof *before) != 0));
	/* strace prints its table and then ends by the signal it got */
	if (st < 0 || !(WIFEXITED(st) || (WIFSIGNALED(st) &&
	    WTERMSIG(st) == SIGINT)))
		prof_fmt(why, sizeof why, "strace did not finish on SIGINT (see "
		    "%s)", rlog);
	else if (!server_alive(srv))
		prof_fmt(why, sizeof why, "the server died during the trace "
		    "(%s)", server_death(srv));
	else if (!json_is_true(json_object_get(json_object_get(ev, "detach"),
	    "server_answers")))
		prof_fmt(why, sizeof why, "the server does not answer on port %d "
		    "after strace detached", cell->server->tcp_port);
	else if (tk.traced > 0)
		prof_fmt(why, sizeof why, "%d server threads are still traced "
		    "after strace exited", tk.traced);
	else if (res.timed_out || res.rc != 0 || res.signal != 0)
		prof_fmt(why, sizeof why, "the load leg %s (see %s)",
		    res.timed_out ? "timed out" : "failed", rout);
	else if ((text = profile_slurp(atxt, 1 << 20)) == NULL)
		prof_fmt(why, sizeof why, "strace wrote no table (see %s)", rlog);
	else if (profile_strace_table(text, &rows, &total, why,
	    sizeof why) != 0)
		;
	else
		why[0] = '\0';
	if (why[0] != '\0') {
		json_object_set_new(ev, "status", json_string("failed"));
		json_object_set_new(ev, "reason", json_string(why));
		run_emit_new(u, ev);
		goto out;
	}
	if ((m = legmetrics_read(cmd.metrics, &absent, why, sizeof why)) !=
	    NULL && json_is_number(json_object_get(m, "requests")))
		requests = json_number_value(json_object_get(m, "requests"));
	json_decref(m);
	if (requests > 0) {
		size_t i;
		json_t *r;

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
	json_object_set_new(ev, "total", total);
	json_object_set_new(ev, "top", rows);
	total = rows = NULL;
	run_emit_new(u, ev);
	goto out;
aborted:
	if (tracer > 0)
		(void)prof_detach(tracer);
	tracer = -1;
	run_emit_new(u, prof_event(cell->name, arm->name, "syscalls",
	    "aborted"));
	ret = -1;
out:
	if (tracer > 0)
		(void)prof_detach(tracer);
	if (fd >= 0)
		close(fd);
	json_decref(rows);
	json_decref(total);
	free(text);
	free(trace);
	free(envp);
	free(strace);
	legcmd_finish(&cmd);
	return ret;
}

int
run_prof_cell(struct run *u, size_t c, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[c];

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++) {
		const struct spec_arm *arm = &s->arms[a];
		bool perf = spec_profiles(s, cell->name, arm->name, "perf") &&
		    !prof_done(u, cell->name, arm->name, "perf");
		bool sys = spec_profiles(s, cell->name, arm->name, "syscalls") &&
		    !prof_done(u, cell->name, arm->name, "syscalls");
		struct server *own = NULL, *use = srv;
		int rc = 0;

		if (!perf && !sys)
			continue;
		run_pause_point(u);
		if (run_aborted(u))
			return -1;
		/* Servers per leg: the arm's own server, up for its profiles
		 * as for its legs (rep 0: outside the timed reps). */
		if (srv == NULL && cell->server != NULL &&
		    spec_server_per_leg(s, cell)) {
			if ((own = run_server_start(u, cell, arm, 0)) == NULL)
				return -1;
			use = own;
		}
		if (perf)
			rc = prof_perf(u, cell, arm);
		if (rc == 0 && sys && !run_aborted(u))
			rc = prof_syscalls(u, cell, arm, use);
		if (own != NULL)
			run_server_stop(u, cell, own);
		if (rc != 0 || run_aborted(u))
			return -1;
	}
	return 0;
}
