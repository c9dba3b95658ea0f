/* The round driver, profile phase: perf profiles.
 *
 * perf: the leg repeated under one perf record (benchtui prof-repeat runs
 * it until the samples reach min_samples, or max_s pass), all into
 * legs/prof-CELL-ARM.data.  server_perf: perf record of every process and
 * thread of the cell's server (each process named with -p, so workers
 * forked before the profile are recorded too) while one leg of the arm
 * runs as its load, stopped by SIGINT to perf alone.  Either way perf
 * writes into a file benchtui made (rfile) through its open descriptor,
 * never through a name a leg could have replaced; perf report's output
 * comes through a temporary file outside the folder, and
 * legs/prof-CELL-ARM[-server].report is written by benchtui. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "event.h"
#include "legcmd.h"
#include "perfread.h"
#include "profile.h"
#include "profrepeat.h"
#include "rfile.h"
#include "round_int.h"
#include "server.h"
#include "spawn.h"
#include "template.h"
#include "xalloc.h"

/* perf report's caller graph as it goes into the report file, at most;
 * past it the report says where it was cut and how to see the rest. */
#define PROF_GRAPH_MAX (16u << 20)
/* Rows of the flat profile in the report file, and symbols whose
 * callers it lists. */
#define PROF_FLAT_ROWS 200
#define PROF_CALLERS_OF 10
/* How long perf gets to attach to a server, and to write its data. */
#define PROF_ATTACH_S 10.0
#define PROF_STOP_S 120.0

struct prof_perf {
	struct run *u;
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	const char *kind;       /* "perf" or "server_perf" */
	char *perf;
	char rdata[PATH_MAX], adata[PATH_MAX], rrep[PATH_MAX], arep[PATH_MAX],
	    rout[PATH_MAX], aout[PATH_MAX], rruns[PATH_MAX], aruns[PATH_MAX],
	    why[768];
	int data_fd, runs_fd, out_fd;
	/* server_perf */
	struct server *srv;
	pid_t spid, before[PROF_PROCS_MAX], tool;
	size_t nbefore;
	int tasks;
	bool aborted;
	/* perf record's options with the call-graph method, and the method */
	char **args;
	const char *unwind;
	bool fallback;          /* no DWARF here: frame pointers instead */
};

/* The options perf record gets: the round's, and --call-graph dwarf
 * where they choose no method (frame pointers where perf cannot unwind
 * from DWARF). */
static void
round_prof_perf_args(struct prof_perf *pp)
{
	const struct spec_profile *pr = pp->u->r->spec->profile;
	bool srv = strcmp(pp->kind, "server_perf") == 0;
	char *const *args = srv ? pr->srv_perf_args : pr->perf_args;
	size_t n = srv ? pr->nsrv_perf_args : pr->nperf_args, bad;
	bool chosen = spec_perf_unwind(args, n, &bad) != NULL,
	    dwarf = chosen || profile_perf_dwarf() != 0;

	pp->args = profile_perf_args(args, n, dwarf, &pp->unwind);
	pp->fallback = !chosen && !dwarf;
}

/* What the event says of the call chains: how they were unwound, and
 * why not from DWARF where the default fell back. */
static void
round_prof_perf_unwind(const struct prof_perf *pp, json_t *ev)
{
	json_object_set_new(ev, "unwind", json_string(pp->unwind));
	if (pp->fallback)
		json_object_set_new(ev, "unwind_fallback", json_string(
		    PROFILE_NO_DWARF));
}

/* The files of a profile: legs/prof-CELL-ARM.{data,report,out,runs}
 * (perf), legs/prof-CELL-ARM-server.{data,report,out,load.out}
 * (server_perf).  Claimed: -1 with pp->why when one is in the way. */
static int
round_prof_perf_files(struct prof_perf *pp)
{
	bool srv = strcmp(pp->kind, "server_perf") == 0;
	char name[300];
	char *rel[5] = { pp->rdata, pp->rrep, pp->rout, pp->rruns, NULL };

	round_prof_fmt(name, sizeof name, "prof-%s-%s%s", pp->cell->name,
	    pp->arm->name, srv ? "-server" : "");
	round_prof_paths(pp->u, name, ".data", pp->rdata, pp->adata,
	    sizeof pp->adata);
	round_prof_paths(pp->u, name, ".report", pp->rrep, pp->arep,
	    sizeof pp->arep);
	round_prof_paths(pp->u, name, ".out", pp->rout, pp->aout,
	    sizeof pp->aout);
	round_prof_paths(pp->u, name, srv ? ".load.out" : ".runs", pp->rruns,
	    pp->aruns, sizeof pp->aruns);
	return round_prof_claim(pp->u, rel, pp->why, sizeof pp->why);
}

static void
round_prof_perf_failed(struct prof_perf *pp, const char *why, bool files)
{
	const char *fl[] = { pp->rdata, pp->rout, pp->rruns, NULL };

	round_prof_failed(pp->u, pp->cell->name, pp->arm->name, pp->kind, why,
	    files ? fl : NULL);
}

static int
round_prof_perf_aborted(struct prof_perf *pp)
{
	round_emit_new(pp->u, round_prof_event(pp->cell->name, pp->arm->name,
	    pp->kind, "aborted"));
	return -1;
}

/* perf report ARGS -i DATA (through its descriptor) into f, in the C
 * locale.  Its exit status, -2 when the round was aborted. */
static int
round_prof_report_run(struct prof_perf *pp, const char *const *args,
    int data_ro, FILE *f)
{
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **envp = legcmd_envp(&c_locale, 1), in[64];
	const char *argv[24];
	size_t k = 0;
	int rc;

	argv[k++] = pp->perf;
	argv[k++] = "report";
	argv[k++] = "-i";
	argv[k++] = rfile_fd_path(data_ro, in, sizeof in);
	for (size_t i = 0; args[i] != NULL && k < 23; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	rewind(f);
	if (ftruncate(fileno(f), 0) != 0)
		return -1;
	rc = profile_exec_fd((char *const *)argv, envp, pp->u->r->dir,
	    fileno(f), pp->u->r->abort_pipe[0], 0);
	template_free_argv(envp);
	rewind(f);
	return rc;
}

/* The flat profile with each symbol's callers: parsed, or NULL with
 * pp->why (pp->aborted when the round was). */
static json_t *
round_prof_perf_read(struct prof_perf *pp, int data_ro, FILE *f)
{
	static const char *const with_g[] = { "--stdio", "--no-children",
		"-n", "--sort", "dso,sym", "-t", "\t", "-g",
		"folded,0,callee,function,count", NULL };
	static const char *const no_g[] = { "--stdio", "--no-children",
		"-n", "--sort", "dso,sym", "-t", "\t", "-g", "none", NULL };
	int rc = round_prof_report_run(pp, with_g, data_ro, f);
	json_t *prof = NULL;

	if (rc == 0)
		prof = perfread_parse(f);
	/* without call chains perf report prints an error and no rows */
	if (rc == 0 && json_integer_value(json_object_get(prof, "samples")) ==
	    0) {
		json_decref(prof);
		prof = NULL;
		if ((rc = round_prof_report_run(pp, no_g, data_ro, f)) == 0)
			prof = perfread_parse(f);
	}
	if (rc == -2 || round_aborted(pp->u)) {
		pp->aborted = true;
		json_decref(prof);
		return NULL;
	}
	if (rc != 0 || prof == NULL) {
		round_prof_fmt(pp->why, sizeof pp->why, "perf report failed on "
		    "the recorded data (exit %d)", rc);
		json_decref(prof);
		return NULL;
	}
	if (json_integer_value(json_object_get(prof, "samples")) == 0) {
		round_prof_fmt(pp->why, sizeof pp->why, "perf recorded no samples "
		    "(see %s)", pp->rout);
		json_decref(prof);
		return NULL;
	}
	return prof;
}

/* perf report's own caller graph, copied into out up to PROF_GRAPH_MAX,
 * saying where and why it was cut. */
static void
round_prof_perf_graph(struct prof_perf *pp, int data_ro, FILE *f, FILE *out)
{
	static const char *const graph[] = { "--stdio", "--no-children",
		"--sort", "dso,sym", "-g", "graph,0.5,caller",
		"--percent-limit", "1", NULL };
	char *line = NULL;
	size_t cap = 0, done = 0;
	ssize_t n;
	long size;

	fprintf(out, "\n===== caller call graph (perf report --stdio "
	    "--no-children --sort dso,sym -g graph,0.5,caller "
	    "--percent-limit 1) =====\n\n");
	if (round_prof_report_run(pp, graph, data_ro, f) != 0) {
		fprintf(out, "(perf report failed)\n");
		return;
	}
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	while ((n = getline(&line, &cap, f)) > 0) {
		if (done + (size_t)n > PROF_GRAPH_MAX) {
			fprintf(out, "\n(CUT: the graph is %.1f MiB; the first %.1f "
			    "MiB are above, cut at a line. All of it: perf report "
			    "-i %s --stdio --no-children -g graph,0.5,caller)\n",
			    size / 1048576.0, done / 1048576.0, pp->rdata);
			break;
		}
		fwrite(line, 1, (size_t)n, out);
		done += (size_t)n;
	}
	free(line);
}

/* What the report file says before the tables. */
static void
round_prof_perf_head(struct prof_perf *pp, FILE *out, const json_t *ev)
{
	const struct spec_profile *pr = pp->u->r->spec->profile;
	bool srv = strcmp(pp->kind, "server_perf") == 0;
	const char *event = json_string_value(json_object_get(ev, "event"));
	long long n = json_integer_value(json_object_get(ev, "samples")),
	    none = json_integer_value(json_object_get(ev, "no_caller"));

	fprintf(out, "benchtui %s profile of cell %s, arm %s: perf record",
	    pp->kind, pp->cell->name, pp->arm->name);
	for (size_t i = 0; pp->args[i] != NULL; i++)
		fprintf(out, " %s", pp->args[i]);
	if (srv)
		fprintf(out, " -p %s (the server's %zu processes, %d tasks) "
		    "while one leg ran as its load\n", json_string_value(
		    json_object_get(ev, "pids")), pp->nbefore, pp->tasks);
	else
		fprintf(out, " -- the leg, repeated %lld times in %.1f s "
		    "(stopped: %s; min_samples %ld, max_s %g)\n",
		    (long long)json_integer_value(json_object_get(ev, "runs")),
		    json_number_value(json_object_get(ev, "wall")),
		    json_string_value(json_object_get(ev, "stopped")),
		    pr->min_samples, pr->max_s);
	fprintf(out, "data: %s (perf report -i %s)\nsampled event: %s\n"
	    "samples: %lld\n", pp->rdata, pp->rdata, event[0] != '\0' ? event :
	    "unknown", (long long)json_integer_value(json_object_get(ev,
	    "samples")));
	if (json_is_true(json_object_get(ev, "under_min_samples")))
		fprintf(out, "UNDER min_samples (%ld): every share below is "
		    "rough, and most differences noise\n", pr->min_samples);
	fprintf(out, "call chains: %s; no caller recorded for %lld samples "
	    "(%.1f%%)\n", strcmp(pp->unwind, "dwarf") == 0 ? "unwound from "
	    "DWARF" : strcmp(pp->unwind, "lbr") == 0 ? "from the last branch "
	    "records" : "by frame pointers", none, n > 0 ? 100.0 *
	    (double)none / (double)n : 0);
	if (pp->fallback)
		fprintf(out, "NOTE: %s.\n", PROFILE_NO_DWARF);
	if (strcmp(pp->unwind, "fp") == 0)
		fprintf(out, "NOTE: %s.\n", PROFILE_FP_NOTE);
	if (profile_event_is_clock(event))
		fprintf(out, "NOTE: perf sampled its software clock (%s), not the "
		    "cycles counter: this machine has no hardware PMU (or perf "
		    "could not open it). Shares are of time on the CPU, sampled "
		    "by a timer.\n", event);
	fprintf(out, "\n===== flat profile by symbol and shared object "
	    "(an address without a symbol: OBJECT+0xOFFSET) =====\n\n");
}

/* The report file (through rfile, synced): the head, the flat profile,
 * the callers, perf's graph.  0, or -1 with pp->why. */
static int
round_prof_perf_write(struct prof_perf *pp, const json_t *prof,
    const json_t *ev, int data_ro, FILE *tmp)
{
	int fd = rfile_create(pp->arep, O_CLOEXEC, 0644);
	FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;

	if (out == NULL) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot create: %s",
		    pp->rrep, rfile_strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	round_prof_perf_head(pp, out, ev);
	perfread_write(out, prof, PROF_FLAT_ROWS, PROF_CALLERS_OF);
	round_prof_perf_graph(pp, data_ro, tmp, out);
	if (fflush(out) != 0 || ferror(out) || fsync(fileno(out)) != 0) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot write: %s",
		    pp->rrep, strerror(errno));
		fclose(out);
		return -1;
	}
	fclose(out);
	return 0;
}

/* After perf record: the data read back, the report written, the
 * profile event (ev, with what the recording said) emitted.  0, or -1
 * when the round was aborted. */
static int
round_prof_perf_finish(struct prof_perf *pp, json_t *ev)
{
	int ro = rfile_reopen(pp->data_fd, O_RDONLY);
	FILE *tmp = tmpfile();
	json_t *prof = NULL;
	const char *event;

	if (ro < 0 || tmp == NULL) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s cannot be read back: "
		    "%s", pp->rdata, strerror(errno));
		goto failed;
	}
	if ((prof = round_prof_perf_read(pp, ro, tmp)) == NULL)
		goto failed;
	event = json_string_value(json_object_get(prof, "event"));
	json_object_set_new(ev, "event", json_string(event));
	json_object_set_new(ev, "software_clock",
	    json_boolean(profile_event_is_clock(event)));
	perfread_event(ev, prof, PROFILE_TOP);
	round_prof_perf_unwind(pp, ev);
	if (strcmp(pp->kind, "perf") == 0)
		json_object_set_new(ev, "under_min_samples", json_boolean(
		    json_integer_value(json_object_get(ev, "samples")) <
		    pp->u->r->spec->profile->min_samples));
	if (round_prof_perf_write(pp, prof, ev, ro, tmp) != 0)
		goto failed;
	json_decref(prof);
	close(ro);
	fclose(tmp);
	round_emit_new(pp->u, ev);
	return 0;
failed:
	json_decref(prof);
	json_decref(ev);
	if (ro >= 0)
		close(ro);
	if (tmp != NULL)
		fclose(tmp);
	if (pp->aborted)
		return round_prof_perf_aborted(pp);
	round_prof_perf_failed(pp, pp->why, true);
	return 0;
}

/* --- perf: the leg repeated under one perf record ------------------------ */

/* perf record ARGS -o DATA -- benchtui prof-repeat ... -- LEG (the
 * strings borrowed but the ones made here, listed in own). */
static char **
round_prof_perf_argv(struct prof_perf *pp, const struct legcmd *cmd,
    char own[6][64])
{
	const struct spec *s = pp->u->r->spec;
	const struct spec_profile *pr = s->profile;
	size_t n = cmd->argc, k = 0;
	char **argv = xcalloc(pr->nperf_args + n + 26, sizeof *argv);

	argv[k++] = pp->perf;
	argv[k++] = "record";
	for (size_t i = 0; pp->args[i] != NULL; i++)
		argv[k++] = pp->args[i];
	argv[k++] = "-o";
	argv[k++] = (char *)rfile_fd_path(pp->data_fd, own[0], 64);
	argv[k++] = "--";
	argv[k++] = (char *)template_self_path();
	argv[k++] = PROFREPEAT_CMD;
	snprintf(own[1], 64, "%ld", pr->min_samples);
	snprintf(own[2], 64, "%g", pr->max_s);
	snprintf(own[3], 64, "%g", profile_perf_rate(pr->perf_args,
	    pr->nperf_args));
	snprintf(own[4], 64, "%g", s->timeout_s);
	argv[k++] = "--min-samples";
	argv[k++] = own[1];
	argv[k++] = "--max-s";
	argv[k++] = own[2];
	argv[k++] = "--rate";
	argv[k++] = own[3];
	argv[k++] = "--timeout";
	argv[k++] = own[4];
	argv[k++] = "--result";
	argv[k++] = (char *)rfile_fd_path(pp->runs_fd, own[5], 64);
	argv[k++] = "--path";
	argv[k++] = cmd->exec_path;
	argv[k++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[k++] = cmd->argv[i];
	return argv;
}

/* What prof-repeat wrote: {"runs", "cpu_s", "wall_s", "stopped", ...},
 * or NULL. */
static json_t *
round_prof_perf_runs(struct prof_perf *pp)
{
	int fd = rfile_reopen(pp->runs_fd, O_RDONLY);
	char *text = profile_slurp_fd(fd, 4096);
	json_t *j = text != NULL ? json_loads(text, 0, NULL) : NULL;

	free(text);
	return json_is_object(j) ? j : (json_decref(j), NULL);
}

/* Why the recording cannot be used (pp->why), or "" when it can. */
static void
round_prof_perf_verdict(struct prof_perf *pp, const struct leg_result *res,
    const json_t *runs)
{
	const char *stopped = json_string_value(json_object_get(runs,
	    "stopped"));

	pp->why[0] = '\0';
	if (res->timed_out || !spec_ok_rc(pp->u->r->spec, res->rc) ||
	    res->signal != 0)
		round_prof_fmt(pp->why, sizeof pp->why, "perf record %s (see %s)",
		    res->timed_out ? "timed out" : res->signal != 0 ?
		    "was killed by a signal" : "exited non-zero", pp->rout);
	else if (runs == NULL)
		round_prof_fmt(pp->why, sizeof pp->why, "the repeated leg left no "
		    "account of its runs in %s (see %s)", pp->rruns, pp->rout);
	else if (stopped != NULL && strcmp(stopped, "failed") == 0)
		round_prof_fmt(pp->why, sizeof pp->why, "the leg failed under "
		    "perf record in run %lld: %s %lld (see %s)",
		    (long long)json_integer_value(json_object_get(runs, "runs")),
		    json_is_true(json_object_get(runs, "timed_out")) ?
		    "timed out after" : json_integer_value(json_object_get(runs,
		    "signal")) != 0 ? "killed by signal" : "exit",
		    (long long)(json_integer_value(json_object_get(runs,
		    "signal")) != 0 ? json_integer_value(json_object_get(runs,
		    "signal")) : json_is_true(json_object_get(runs,
		    "timed_out")) ? (long long)pp->u->r->spec->timeout_s :
		    json_integer_value(json_object_get(runs, "rc"))), pp->rout);
}

/* perf record of the repeated leg.  0 to go on, -1 when aborted. */
static int
round_prof_perf_record(struct prof_perf *pp, const struct legcmd *cmd)
{
	const struct spec *s = pp->u->r->spec;
	char own[6][64], **argv = round_prof_perf_argv(pp, cmd, own);
	double each = s->timeout_s > 0 ? s->timeout_s : s->profile->max_s;
	struct leg_spec ls = {
		.path = pp->perf, .argv = argv, .envp = cmd->envp,
		.cwd = cmd->cwd, .out_path = pp->aout, .cpus = pp->u->client_mask,
		.ncpus = pp->u->ncpus, .nice = s->nice,
		/* max_s, then the run under way, then perf's own writing */
		.timeout_s = s->profile->max_s + each + 120,
		.abort_fd = pp->u->r->abort_pipe[0],
	};
	struct prof_start ps = { pp->u, pp->cell->name, pp->arm->name, "perf",
	    0 };
	struct leg_result res;
	json_t *runs, *ev;
	int rc = leg_run(&ls, &res, round_prof_started, &ps, pp->why,
	    sizeof pp->why);

	free(argv);
	if (rc != 0) {
		round_prof_perf_failed(pp, pp->why, false);
		return 0;
	}
	if (res.aborted || round_aborted(pp->u))
		return round_prof_perf_aborted(pp);
	runs = round_prof_perf_runs(pp);
	round_prof_perf_verdict(pp, &res, runs);
	if (pp->why[0] != '\0') {
		json_decref(runs);
		round_prof_perf_failed(pp, pp->why, true);
		return 0;
	}
	ev = round_prof_event(pp->cell->name, pp->arm->name, "perf", "ok");
	json_object_set_new(ev, "files", json_pack("[s,s,s,s]", pp->rdata,
	    pp->rrep, pp->rout, pp->rruns));
	json_object_set(ev, "runs", json_object_get(runs, "runs"));
	json_object_set(ev, "stopped", json_object_get(runs, "stopped"));
	json_object_set(ev, "cpu", json_object_get(runs, "cpu_s"));
	json_object_set_new(ev, "wall", json_real(res.wall));
	json_object_set_new(ev, "min_samples",
	    json_integer(s->profile->min_samples));
	json_object_set_new(ev, "max_s", json_real(s->profile->max_s));
	json_decref(runs);
	return round_prof_perf_finish(pp, ev);
}

static void
round_prof_perf_close(struct prof_perf *pp)
{
	if (pp->data_fd >= 0)
		close(pp->data_fd);
	if (pp->runs_fd >= 0)
		close(pp->runs_fd);
	if (pp->out_fd >= 0)
		close(pp->out_fd);
	free(pp->perf);
	free(pp->args);
}

/* The data file, and the second file the kind writes through its
 * descriptor (perf: the runs; server_perf: perf's own output).  0, or -1
 * with the failed event emitted. */
static int
round_prof_perf_open(struct prof_perf *pp, bool srv)
{
	pp->data_fd = rfile_create(pp->adata, O_CLOEXEC, 0644);
	if (pp->data_fd >= 0 && !srv)
		pp->runs_fd = rfile_create(pp->aruns, O_CLOEXEC, 0644);
	if (pp->data_fd >= 0 && srv)
		pp->out_fd = rfile_create(pp->aout, O_CLOEXEC, 0644);
	if (pp->data_fd < 0 || (!srv && pp->runs_fd < 0) ||
	    (srv && pp->out_fd < 0)) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot create: %s",
		    pp->data_fd < 0 ? pp->rdata : srv ? pp->rout : pp->rruns,
		    rfile_strerror(errno));
		round_prof_perf_failed(pp, pp->why, false);
		return -1;
	}
	return 0;
}

int
round_prof_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm)
{
	struct prof_perf pp = { .u = u, .cell = cell, .arm = arm,
	    .kind = "perf", .data_fd = -1, .runs_fd = -1, .out_fd = -1 };
	struct legcmd cmd = { 0 };
	int ret = 0;

	pp.perf = spec_resolve_program("perf", u->r->spec->workdir);
	round_prof_perf_args(&pp);
	if (round_prof_perf_files(&pp) != 0)
		round_prof_perf_failed(&pp, pp.why, false);
	else if ((ret = round_prof_ready(u, cell, arm, "perf", "perf", pp.perf,
	    0, &cmd)) != 0)
		;
	else if (template_self_path() == NULL || cmd.exec_path == NULL)
		round_prof_perf_failed(&pp, cmd.exec_path == NULL ? "the leg's "
		    "program is not found" : "benchtui cannot find its own "
		    "program (/proc/self/exe) to repeat the leg", false);
	else if (round_prof_perf_open(&pp, false) == 0)
		ret = round_prof_perf_record(&pp, &cmd);
	round_prof_perf_close(&pp);
	legcmd_finish(&cmd);
	return ret < 0 ? -1 : 0;
}

/* --- server_perf: the server's tree while one leg runs as its load ------- */

/* perf_event descriptors perf holds open. */
static int
round_prof_perf_events(pid_t pid)
{
	char path[64], link[64], lp[384];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		ssize_t k;

		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof lp, "%s/%.200s", path, de->d_name);
		if ((k = readlink(lp, link, sizeof link - 1)) <= 0)
			continue;
		link[k] = '\0';
		n += strcmp(link, "anon_inode:[perf_event]") == 0;
	}
	closedir(d);
	return n;
}

/* The attach (round_prof_load's callback): perf record -p of the server's
 * processes as they are now, waited on until it holds an event on each of
 * their tasks.  0, or -1 with pp->why. */
static int
round_prof_srv_attach(void *arg)
{
	struct prof_perf *pp = arg;
	const struct spec_profile *pr = pp->u->r->spec->profile;
	struct spec_kv c_locale = { .key = "LC_ALL", .val = "C" };
	char **envp = legcmd_envp(&c_locale, 1), data[64], **argv, *pids;
	struct spawn_req sr = { .path = pp->perf, .envp = envp,
	    .cwd = pp->u->r->dir, .out_fd = pp->out_fd };
	size_t k = 0;
	double waited = 0;
	int st, have = 0;

	pp->nbefore = round_prof_tree(pp->spid, pp->before, PROF_PROCS_MAX);
	pp->tasks = round_prof_count_tasks(pp->before, pp->nbefore, 0).tasks;
	pids = round_prof_pidlist(pp->before, pp->nbefore);
	argv = xcalloc(pr->nsrv_perf_args + 10, sizeof *argv);
	argv[k++] = pp->perf;
	argv[k++] = "record";
	for (size_t i = 0; pp->args[i] != NULL; i++)
		argv[k++] = pp->args[i];
	argv[k++] = "-p";
	argv[k++] = pids;
	argv[k++] = "-o";
	argv[k++] = (char *)rfile_fd_path(pp->data_fd, data, sizeof data);
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
		if ((have = round_prof_perf_events(pp->tool)) >= pp->tasks &&
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

/* After the load: perf stopped, the server checked, the event made. */
static int
round_prof_srv_finish(struct prof_perf *pp, struct prof_load *pl)
{
	int st = round_prof_stop_tool(pp->tool, PROF_STOP_S);
	pid_t after[PROF_PROCS_MAX];
	size_t nafter = round_prof_tree(pp->spid, after, PROF_PROCS_MAX);
	char how[512], *pids = round_prof_pidlist(pp->before, pp->nbefore);
	bool answers = server_alive(pp->srv) && round_prof_answers(pp->u,
	    pp->cell, pl->cmd, how, sizeof how);
	json_t *ev;

	pp->tool = -1;
	if (st < 0 || !((WIFEXITED(st) && (WEXITSTATUS(st) == 0 ||
	    WEXITSTATUS(st) == 130)) || (WIFSIGNALED(st) &&
	    WTERMSIG(st) == SIGINT)))
		round_prof_fmt(pp->why, sizeof pp->why, "perf record did not "
		    "finish on SIGINT (see %s)", pp->rout);
	else if (!answers)
		round_prof_fmt(pp->why, sizeof pp->why, "the server does not "
		    "answer after the profile: %s", server_alive(pp->srv) ? how :
		    server_death(pp->srv));
	else if (pl->res.timed_out || !spec_ok_rc(pp->u->r->spec, pl->res.rc) ||
	    pl->res.signal != 0)
		round_prof_fmt(pp->why, sizeof pp->why, "the load leg %s (see %s)",
		    pl->res.timed_out ? "timed out" : "failed", pp->rruns);
	if (pp->why[0] != '\0') {
		free(pids);
		round_prof_perf_failed(pp, pp->why, true);
		return 0;
	}
	ev = round_prof_event(pp->cell->name, pp->arm->name, pp->kind, "ok");
	json_object_set_new(ev, "files", json_pack("[s,s,s,s]", pp->rdata,
	    pp->rrep, pp->rout, pp->rruns));
	json_object_set_new(ev, "pids", json_string(pids));
	json_object_set_new(ev, "processes", json_integer((json_int_t)
	    pp->nbefore));
	json_object_set_new(ev, "tasks", json_integer(pp->tasks));
	json_object_set_new(ev, "attach", json_string(pl->hold ? "after the "
	    "load's warm-up" : "before the load (it has no warm-up to wait "
	    "out)"));
	json_object_set_new(ev, "contaminated", json_boolean(
	    nafter != pp->nbefore || memcmp(pp->before, after,
	    pp->nbefore * sizeof *after) != 0));
	json_object_set_new(ev, "check", json_string(how));
	free(pids);
	return round_prof_perf_finish(pp, ev);
}

/* perf record of the server while the load runs.  0, or -1 aborted. */
static int
round_prof_srv_record(struct prof_perf *pp, struct legcmd *cmd)
{
	struct prof_load pl = { .u = pp->u, .cell = pp->cell, .arm = pp->arm,
	    .kind = pp->kind, .cmd = cmd, .out_abs = pp->aruns,
	    .attach = round_prof_srv_attach, .arg = pp,
	    .hold = round_prof_hold(cmd) };
	int rc = round_prof_load(&pl);

	if (pp->aborted || pl.res.aborted || round_aborted(pp->u)) {
		if (pp->tool > 0)
			(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
		pp->tool = -1;
		return round_prof_perf_aborted(pp);
	}
	if (rc != 0 || (pl.hold && !pl.attached)) {
		if (pp->tool > 0)
			(void)round_prof_stop_tool(pp->tool, PROF_STOP_S);
		pp->tool = -1;
		if (rc == 0)
			round_prof_fmt(pp->why, sizeof pp->why, "the load ended "
			    "before its warm-up was over (see %s)", pp->rruns);
		else if (!pl.attach_failed)
			snprintf(pp->why, sizeof pp->why, "%s", pl.why);
		round_prof_perf_failed(pp, pp->why, true);
		return 0;
	}
	return round_prof_srv_finish(pp, &pl);
}

int
round_prof_server_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, struct round_srv *srv)
{
	struct prof_perf pp = { .u = u, .cell = cell, .arm = arm,
	    .kind = "server_perf", .srv = round_server_here(srv), .data_fd = -1,
	    .runs_fd = -1, .out_fd = -1, .tool = -1 };
	struct legcmd cmd = { 0 };
	const char *where;
	char wbuf[512];
	int ret = 0;

	pp.perf = spec_resolve_program("perf", u->r->spec->workdir);
	round_prof_perf_args(&pp);
	if (round_prof_perf_files(&pp) != 0)
		round_prof_perf_failed(&pp, pp.why, false);
	else if ((where = round_prof_server_where(cell, srv, wbuf,
	    sizeof wbuf)) != NULL)
		round_prof_perf_failed(&pp, where, false);
	else if ((ret = round_prof_ready(u, cell, arm, "server_perf", "perf",
	    pp.perf, -2, &cmd)) != 0)
		;
	else if (round_prof_perf_open(&pp, true) == 0) {
		pp.spid = server_pid(pp.srv);
		ret = round_prof_srv_record(&pp, &cmd);
	}
	if (pp.tool > 0)
		(void)round_prof_stop_tool(pp.tool, PROF_STOP_S);
	round_prof_perf_close(&pp);
	legcmd_finish(&cmd);
	return ret < 0 ? -1 : 0;
}
