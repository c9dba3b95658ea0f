/* The round driver, profile phase: after a cell's timed legs, each
 * profiled arm (in the round file's arm order) gets a perf record leg, and
 * with a cell server an strace of the server under one leg's load.  Each
 * profile ends in one "profile" event; one the log already holds is not
 * taken again, and one an abort cut short is taken again on resume. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "leg.h"
#include "profdiff.h"
#include "profile.h"
#include "round_int.h"
#include "server.h"

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
	struct run_cmd cmd = { 0 };
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
	if (run_cmd_build(u, cell, arm, 0, &cmd) != 0) {
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
		.path = perf, .argv = argv, .envp = cmd.envp, .cwd = s->workdir,
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
	run_cmd_finish(&cmd);
	return ret;
}

int
run_prof_cell(struct run *u, size_t c, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[c];

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++) {
		const struct spec_arm *arm = &s->arms[a];
		struct server *own = NULL;
		int rc = 0;

		if (!spec_profiles(s, cell->name, arm->name, "perf") ||
		    prof_done(u, cell->name, arm->name, "perf"))
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
		}
		rc = prof_perf(u, cell, arm);
		if (own != NULL)
			run_server_stop(u, cell, own);
		if (rc != 0 || run_aborted(u))
			return -1;
	}
	return 0;
}
