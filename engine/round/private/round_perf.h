/* The round driver, profile phase: what the perf profile of the legs
 * (round_prof_perf.c) and that of the cell's server
 * (round_prof_srvperf.c) share: their state, and the steps from the
 * recorded data to each arm's report and event. */
#ifndef BENCHTUI_ROUND_PERF_H
#define BENCHTUI_ROUND_PERF_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "round_int.h"

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
	/* server_perf: the run under way */
	struct server *srv;
	pid_t spid, before[PROF_PROCS_MAX], tool;
	size_t nbefore;
	int tasks;
	bool aborted;
	/* perf record's options with the call-graph method, and the method */
	char **args;
	const char *unwind;
	bool fallback;          /* no DWARF here: frame pointers instead */
	/* the arms whose runs take turns (perf: under the one recording) */
	const struct spec_arm **arms;
	size_t narms;
	struct legcmd *cmds;
	json_t *split;          /* the account of the runs: {"self", "list":
	                         * [{"arm", "pid"}], "arms": [{"runs"}]} */
	char rplan[PATH_MAX], aplan[PATH_MAX];
	int plan_fd;
	/* when to stop taking runs: the kind's min_samples, min_runs, max_s */
	long min_samples, min_runs;
	double max_s;
	/* server_perf, per arm: the files its event names (its report and
	 * perf's output first), what else its event holds ("graph_of": the
	 * data its report's caller graph is read from), and that data,
	 * open (NULL: the recording's, for every arm) */
	json_t *arm_files, *arm_extra;
	const int *arm_ro;
	bool zero_ok;           /* a recording without samples is read as
	                         * such (one run of several), not failed */
	/* server_perf of a server on another host: taken there, run by run */
	struct prof_far far;
};

/* perf record's options (the round's, and the call-graph method). */
void round_prof_perf_args(struct prof_perf *pp);
/* The event's "unwind" (and "unwind_fallback"). */
void round_prof_perf_unwind(const struct prof_perf *pp, json_t *ev);
/* Every arm's profile failed (files: the recording's named). */
void round_prof_perf_failed(struct prof_perf *pp, const char *why,
    bool files);
/* Every arm's profile aborted: -1. */
int round_prof_perf_aborted(struct prof_perf *pp);
/* perf report of data_ro (through f): the flat profile with callers,
 * by pid too where pp->split is set; NULL with pp->why (pp->aborted). */
json_t *round_prof_perf_read(struct prof_perf *pp, int data_ro, FILE *f);
/* Each arm's share of prof (rows with "pid", split by pp->split) as its
 * own report and event, ev the base of the events. */
void round_prof_perf_arms(struct prof_perf *pp, const json_t *prof,
    const json_t *ev, int ro, FILE *tmp);
void round_prof_perf_close(struct prof_perf *pp);

/* round_prof_legfar.c: perf record of the legs' runs on their host
 * (pp->far), its status into res, its files copied back into legs/.
 * 0; -1 failed (pp->why); -2 the connection was lost (the round
 * stopped resumably). */
int round_prof_far_legs(struct prof_perf *pp, struct leg_result *res);

#endif
