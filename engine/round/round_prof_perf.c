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
#include <sys/personality.h>
#include <sys/wait.h>

#include "event.h"
#include "legcmd.h"
#include "perfread.h"
#include "perfsplit.h"
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
	/* perf: the arms whose runs take turns under the one recording */
	const struct spec_arm **arms;
	size_t narms;
	struct legcmd *cmds;
	json_t *split;          /* prof-repeat's account of the runs */
	char rplan[PATH_MAX], aplan[PATH_MAX];
	int plan_fd;
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

/* A failed profile: every arm's whose runs took turns in it. */
static void
round_prof_perf_failed(struct prof_perf *pp, const char *why, bool files)
{
	const char *fl[] = { pp->rdata, pp->rout, pp->rruns, NULL };

	for (size_t k = 0; k < (pp->arms != NULL ? pp->narms : 1); k++)
		round_prof_failed(pp->u, pp->cell->name, pp->arms != NULL ?
		    pp->arms[k]->name : pp->arm->name, pp->kind, why,
		    files ? fl : NULL);
}

static int
round_prof_perf_aborted(struct prof_perf *pp)
{
	for (size_t k = 0; k < (pp->arms != NULL ? pp->narms : 1); k++)
		round_emit_new(pp->u, round_prof_event(pp->cell->name,
		    pp->arms != NULL ? pp->arms[k]->name : pp->arm->name,
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
	static const char *with_g[] = { "--stdio", "--no-children",
		"-n", "--sort", "dso,sym", "-t", "\t", "-g",
		"folded,0,callee,function,count", NULL };
	static const char *no_g[] = { "--stdio", "--no-children",
		"-n", "--sort", "dso,sym", "-t", "\t", "-g", "none", NULL };
	/* the leg's runs: each sample's process tells its run */
	with_g[4] = no_g[4] = pp->split != NULL ? "pid,dso,sym" : "dso,sym";
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

/* The per-run counts an event keeps: those of the symbols it names
 * (top and the next ones), and of their callers. */
static json_t *
round_prof_perf_per_run(const json_t *ev, const json_t *per_run)
{
	json_t *syms = json_object(), *callers = json_object(), *v;
	const json_t *r;
	const char *key;
	char k[1400];
	size_t i;

	json_array_foreach(json_object_get(ev, "top"), i, r) {
		snprintf(k, sizeof k, "%s\t%s", json_string_value(json_object_get(r,
		    "object")), json_string_value(json_object_get(r, "symbol")));
		if ((v = json_object_get(json_object_get(per_run, "symbols"),
		    k)) != NULL)
			json_object_set(syms, k, v);
	}
	json_array_foreach(json_object_get(ev, "symbols"), i, r) {
		snprintf(k, sizeof k, "%s\t%s", json_string_value(json_array_get(r,
		    1)), json_string_value(json_array_get(r, 0)));
		if ((v = json_object_get(json_object_get(per_run, "symbols"),
		    k)) != NULL)
			json_object_set(syms, k, v);
	}
	/* callers of the top symbols: the ones a move is split by */
	json_object_foreach(json_object_get(per_run, "callers"), key, v) {
		const char *t = strrchr(key, '\t');

		snprintf(k, sizeof k, "%.*s", (int)(t - key), key);
		json_array_foreach(json_object_get(ev, "top"), i, r) {
			char tk[1400];

			snprintf(tk, sizeof tk, "%s\t%s", json_string_value(
			    json_object_get(r, "object")), json_string_value(
			    json_object_get(r, "symbol")));
			if (strcmp(tk, k) == 0) {
				json_object_set(callers, key, v);
				break;
			}
		}
	}
	return json_pack("{s:O,s:o,s:o}", "samples", json_object_get(per_run,
	    "samples"), "symbols", syms, "callers", callers);
}

/* The recording of several arms' runs: each arm's share of it (by run)
 * in its own event and report. */
static void
round_prof_perf_arms(struct prof_perf *pp, const json_t *prof,
    const json_t *ev, int ro, FILE *tmp)
{
	const struct spec_profile *pr = pp->u->r->spec->profile;
	json_t *parts = perfsplit(prof, json_object_get(pp->split, "list"),
	    json_integer_value(json_object_get(pp->split, "self")),
	    pp->narms);

	for (size_t k = 0; k < pp->narms; k++) {
		const json_t *pk = json_array_get(parts, k),
		    *ak = json_array_get(json_object_get(pp->split, "arms"), k);
		json_t *e = json_deep_copy(ev);
		char name[300];

		pp->arm = pp->arms[k];
		round_prof_fmt(name, sizeof name, "prof-%s-%s", pp->cell->name,
		    pp->arm->name);
		round_prof_paths(pp->u, name, ".report", pp->rrep, pp->arep,
		    sizeof pp->arep);
		json_object_set_new(e, "arm", json_string(pp->arm->name));
		json_object_set_new(e, "files", json_pack("[s,s,s,s,s]",
		    pp->rdata, pp->rrep, pp->rout, pp->rruns, pp->rplan));
		json_object_set(e, "runs", json_object_get(ak, "runs"));
		json_object_set(e, "cpu", json_object_get(ak, "cpu_s"));
		json_object_set_new(e, "arms", json_integer((json_int_t)
		    pp->narms));
		perfread_event(e, pk, PROFILE_TOP);
		json_object_set_new(e, "per_run", round_prof_perf_per_run(e,
		    json_object_get(pk, "per_run")));
		json_object_set_new(e, "under_min_samples", json_boolean(
		    json_integer_value(json_object_get(e, "samples")) <
		    pr->min_samples));
		json_object_set_new(e, "under_min_runs", json_boolean(
		    json_integer_value(json_object_get(ak, "runs")) <
		    pr->min_runs));
		if (json_integer_value(json_object_get(e, "samples")) == 0) {
			round_prof_fmt(pp->why, sizeof pp->why, "perf recorded no "
			    "samples of the arm's runs (see %s)", pp->rout);
			round_prof_failed(pp->u, pp->cell->name, pp->arm->name,
			    "perf", pp->why, NULL);
			json_decref(e);
		} else if (round_prof_perf_write(pp, pk, e, ro, tmp) != 0) {
			round_prof_failed(pp->u, pp->cell->name, pp->arm->name,
			    "perf", pp->why, NULL);
			json_decref(e);
		} else {
			round_emit_new(pp->u, e);
		}
	}
	json_decref(parts);
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
	round_prof_perf_unwind(pp, ev);
	if (pp->split != NULL) {
		round_prof_perf_arms(pp, prof, ev, ro, tmp);
		json_decref(prof);
		json_decref(ev);
		close(ro);
		fclose(tmp);
		return 0;
	}
	perfread_event(ev, prof, PROFILE_TOP);
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

/* --- perf: the arms' legs taking turns under one perf record ----------- */

/* The plan prof-repeat reads: each arm's command, environment and
 * folder, and when to stop.  Written through its descriptor.  0, or -1
 * with pp->why. */
static int
round_prof_perf_plan(struct prof_perf *pp)
{
	const struct spec *s = pp->u->r->spec;
	const struct spec_profile *pr = s->profile;
	json_t *plan = json_pack("{s:I,s:I,s:f,s:f,s:f,s:[]}", "min_samples",
	    (json_int_t)pr->min_samples, "min_runs", (json_int_t)pr->min_runs,
	    "max_s", pr->max_s, "rate", profile_perf_rate(pr->perf_args,
	    pr->nperf_args), "timeout", s->timeout_s, "arms");
	int rc;

	for (size_t k = 0; k < pp->narms; k++) {
		const struct legcmd *c = &pp->cmds[k];
		json_t *argv = json_array(), *env = json_array();

		for (size_t i = 0; i < c->argc; i++)
			json_array_append_new(argv, json_string(c->argv[i]));
		for (size_t i = 0; c->envp[i] != NULL; i++)
			json_array_append_new(env, json_string(c->envp[i]));
		json_array_append_new(json_object_get(plan, "arms"), json_pack(
		    "{s:s,s:s,s:s,s:o,s:o,s:b}", "arm", pp->arms[k]->name, "path",
		    c->exec_path, "cwd", c->cwd, "argv", argv, "env", env,
		    "fixed_layout", strcmp(c->exec_path, template_self_path()) ==
		    0));
	}
	rc = json_dumpfd(plan, pp->plan_fd, JSON_COMPACT);
	json_decref(plan);
	if (rc != 0)
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot write",
		    pp->rplan);
	return rc != 0 ? -1 : 0;
}

/* perf record ARGS -o DATA -- benchtui prof-repeat --plan P --result R
 * (the strings borrowed but the ones made here, in own). */
static char **
round_prof_perf_argv(struct prof_perf *pp, char own[3][64])
{
	size_t k = 0;
	char **argv = xcalloc(pp->u->r->spec->profile->nperf_args + 16,
	    sizeof *argv);

	argv[k++] = pp->perf;
	argv[k++] = "record";
	for (size_t i = 0; pp->args[i] != NULL; i++)
		argv[k++] = pp->args[i];
	argv[k++] = "-o";
	argv[k++] = (char *)rfile_fd_path(pp->data_fd, own[0], 64);
	argv[k++] = "--";
	argv[k++] = (char *)template_self_path();
	argv[k++] = PROFREPEAT_CMD;
	argv[k++] = "--plan";
	argv[k++] = (char *)rfile_fd_path(pp->plan_fd, own[1], 64);
	argv[k++] = "--result";
	argv[k++] = (char *)rfile_fd_path(pp->runs_fd, own[2], 64);
	return argv;
}

/* What prof-repeat wrote, or NULL. */
static json_t *
round_prof_perf_runs(struct prof_perf *pp)
{
	int fd = rfile_reopen(pp->runs_fd, O_RDONLY);
	char *text = profile_slurp_fd(fd, 1 << 24);
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
	long long fa = json_integer_value(json_object_get(runs, "failed_arm"));

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
		round_prof_fmt(pp->why, sizeof pp->why, "the leg of arm %s failed "
		    "under perf record in run %lld: %s %lld (see %s)",
		    fa >= 0 && (size_t)fa < pp->narms ? pp->arms[fa]->name : "?",
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

/* perf record of the arms' runs in turn.  0 to go on, -1 when aborted. */
static int
round_prof_perf_record(struct prof_perf *pp)
{
	const struct spec *s = pp->u->r->spec;
	char own[3][64], **argv = round_prof_perf_argv(pp, own);
	double each = s->timeout_s > 0 ? s->timeout_s : s->profile->max_s;
	struct leg_spec ls = {
		.path = pp->perf, .argv = argv, .envp = pp->cmds[0].envp,
		.cwd = pp->cmds[0].cwd, .out_path = pp->aout,
		.cpus = pp->u->client_mask, .ncpus = pp->u->ncpus,
		.nice = s->nice,
		/* max_s, then a pass under way, then perf's own writing */
		.timeout_s = s->profile->max_s + each * (double)pp->narms + 120,
		.abort_fd = pp->u->r->abort_pipe[0],
	};
	struct prof_start ps = { pp->u, pp->cell->name, pp->arms[0]->name,
	    "perf", 0 };
	struct leg_result res;
	json_t *runs, *ev;
	int persona = personality(0xffffffff), rc;

	/* perf record, and the runner it starts, with the fixed address
	 * layout: the runner's libraries then lie above every run's, and
	 * perf's unwinder (which takes a library's base from the lowest of
	 * a process's maps, the runner's kept across the run's exec among
	 * them) finds each run's own (profrepeat.c) */
	if (persona >= 0)
		(void)personality((unsigned long)persona | ADDR_NO_RANDOMIZE);
	rc = leg_run(&ls, &res, round_prof_started, &ps, pp->why,
	    sizeof pp->why);
	if (persona >= 0)
		(void)personality((unsigned long)persona);
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
	ev = round_prof_event(pp->cell->name, pp->arms[0]->name, "perf", "ok");
	json_object_set(ev, "stopped", json_object_get(runs, "stopped"));
	json_object_set_new(ev, "wall", json_real(res.wall));
	json_object_set_new(ev, "order", json_string("mirror"));
	json_object_set_new(ev, "min_samples",
	    json_integer(s->profile->min_samples));
	json_object_set_new(ev, "min_runs", json_integer(s->profile->min_runs));
	json_object_set_new(ev, "max_s", json_real(s->profile->max_s));
	pp->split = runs;
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
	if (pp->plan_fd >= 0)
		close(pp->plan_fd);
	free(pp->perf);
	free(pp->args);
	json_decref(pp->split);
}

/* The data file, and the second file the kind writes through its
 * descriptor (perf: the runs and the plan; server_perf: perf's own
 * output).  0, or -1 with the failed event emitted. */
static int
round_prof_perf_open(struct prof_perf *pp, bool srv)
{
	pp->data_fd = rfile_create(pp->adata, O_CLOEXEC, 0644);
	if (pp->data_fd >= 0 && !srv) {
		pp->runs_fd = rfile_create(pp->aruns, O_CLOEXEC, 0644);
		pp->plan_fd = rfile_create(pp->aplan, O_CLOEXEC, 0644);
	}
	if (pp->data_fd >= 0 && srv)
		pp->out_fd = rfile_create(pp->aout, O_CLOEXEC, 0644);
	if (pp->data_fd < 0 || (!srv && (pp->runs_fd < 0 ||
	    pp->plan_fd < 0)) || (srv && pp->out_fd < 0)) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot create: %s",
		    pp->data_fd < 0 ? pp->rdata : srv ? pp->rout : pp->rruns,
		    rfile_strerror(errno));
		round_prof_perf_failed(pp, pp->why, false);
		return -1;
	}
	return 0;
}

/* Each arm's report legs/prof-CELL-ARM.report claimed, an arm whose
 * name is taken (a link a leg planted) failed and left out; then the
 * recording's files, named after the arms left: legs/prof-CELL-A+B.data
 * (no arm's name holds a '+'), .out, .runs, .plan.  -1 with pp->why
 * when those are in the way. */
static int
round_prof_leg_files(struct prof_perf *pp)
{
	char name[PATH_MAX], *rel[5];
	size_t k, n = 0;

	for (k = 0; k < pp->narms; k++) {
		char one[PATH_MAX], *r1[2] = { one, NULL };

		round_prof_fmt(one, sizeof one, "legs/prof-%s-%s.report",
		    pp->cell->name, pp->arms[k]->name);
		if (round_prof_claim(pp->u, r1, pp->why, sizeof pp->why) != 0) {
			round_prof_failed(pp->u, pp->cell->name,
			    pp->arms[k]->name, "perf", pp->why, NULL);
			legcmd_finish(&pp->cmds[k]);
			continue;
		}
		pp->arms[n] = pp->arms[k];
		pp->cmds[n++] = pp->cmds[k];
	}
	for (k = n; k < pp->narms; k++)
		memset(&pp->cmds[k], 0, sizeof pp->cmds[k]);
	if ((pp->narms = n) == 0)
		return 1;
	round_prof_fmt(name, sizeof name, "prof-%s-", pp->cell->name);
	for (k = 0; k < pp->narms; k++)
		round_prof_fmt(name + strlen(name), sizeof name - strlen(name),
		    "%s%s", k > 0 ? "+" : "", pp->arms[k]->name);
	round_prof_paths(pp->u, name, ".data", pp->rdata, pp->adata,
	    sizeof pp->adata);
	round_prof_paths(pp->u, name, ".out", pp->rout, pp->aout,
	    sizeof pp->aout);
	round_prof_paths(pp->u, name, ".runs", pp->rruns, pp->aruns,
	    sizeof pp->aruns);
	round_prof_paths(pp->u, name, ".plan", pp->rplan, pp->aplan,
	    sizeof pp->aplan);
	rel[0] = pp->rdata;
	rel[1] = pp->rout;
	rel[2] = pp->rruns;
	rel[3] = pp->rplan;
	rel[4] = NULL;
	return round_prof_claim(pp->u, rel, pp->why, sizeof pp->why) != 0 ?
	    -1 : 0;
}

int
round_prof_perf(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *const *arms, size_t narms)
{
	struct prof_perf pp = { .u = u, .cell = cell, .arm = arms[0],
	    .kind = "perf", .data_fd = -1, .runs_fd = -1, .out_fd = -1,
	    .plan_fd = -1 };
	const struct spec_arm *ok[ROUND_PROF_ARMS_MAX];
	struct legcmd cmds[ROUND_PROF_ARMS_MAX];
	size_t n = 0;
	int ret = 0, rc;

	memset(cmds, 0, sizeof cmds);
	pp.perf = spec_resolve_program("perf", u->r->spec->workdir);
	round_prof_perf_args(&pp);
	/* each arm's command; an arm that cannot run is failed alone */
	for (size_t k = 0; k < narms && k < ROUND_PROF_ARMS_MAX; k++) {
		rc = round_prof_ready(u, cell, arms[k], "perf", "perf", pp.perf, 0,
		    &cmds[n]);

		if (rc < 0) {
			ret = -1;
			break;
		}
		if (rc == 0 && (cmds[n].exec_path == NULL ||
		    template_self_path() == NULL)) {
			round_prof_failed(u, cell->name, arms[k]->name, "perf",
			    cmds[n].exec_path == NULL ? "the leg's program is not "
			    "found" : "benchtui cannot find its own program "
			    "(/proc/self/exe) to repeat the leg", NULL);
			legcmd_finish(&cmds[n]);
			memset(&cmds[n], 0, sizeof cmds[n]);
			continue;
		}
		if (rc == 0)
			ok[n++] = arms[k];
	}
	pp.arms = ok;
	pp.narms = n;
	pp.cmds = cmds;
	if (ret == 0 && n > 0 && (rc = round_prof_leg_files(&pp)) != 0) {
		if (rc < 0)
			round_prof_perf_failed(&pp, pp.why, false);
	} else if (ret == 0 && n > 0) {
		if (round_prof_perf_open(&pp, false) == 0) {
			if (round_prof_perf_plan(&pp) != 0)
				round_prof_perf_failed(&pp, pp.why, false);
			else
				ret = round_prof_perf_record(&pp);
		}
	}
	round_prof_perf_close(&pp);
	for (size_t k = 0; k < pp.narms; k++)
		legcmd_finish(&cmds[k]);
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
