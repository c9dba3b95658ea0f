/* The round driver, profile phase: the legs' perf profile when the legs
 * run on another host (the round's "host"; the first of "hosts").  The
 * plan prof-repeat would run here goes to that host's agent, which runs
 * perf record of benchtui prof-repeat over it there with the code a
 * local recording runs (profrepeat.c), each arm's program resolved
 * there; then perf's words, the account of the runs and the recording
 * come back into the files benchtui made in legs/ (through their
 * descriptors, each within agent_limits.profile_bytes), and perf report
 * runs there on the recording (round_prof_far.c) while the split by run
 * and the reports are made here as for a local one. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "legcmd.h"
#include "profile.h"
#include "remote.h"
#include "rfile.h"
#include "round_int.h"
#include "round_perf.h"

/* The plan as written into legs/ (through its descriptor), or NULL. */
static json_t *
legfar_plan(struct prof_perf *pp)
{
	int fd = rfile_reopen(pp->plan_fd, O_RDONLY);
	char *text = fd >= 0 ? profile_slurp_fd(fd, 1 << 24) : NULL;
	json_t *j = text != NULL ? json_loads(text, 0, NULL) : NULL;

	free(text);
	/* each arm's scratch folder, emptied there before the first run as
	 * a local profile's is here */
	for (size_t k = 0; j != NULL && k < pp->narms; k++)
		if (pp->cmds[k].scratch != NULL)
			json_object_set_new(json_array_get(json_object_get(j,
			    "arms"), k), "scratch", json_string(
			    pp->cmds[k].scratch));
	return j;
}

/* Its files back: perf's words, the runs, the recording (cut at the
 * limit: none, perf report still reads the whole one there).  0, or -1
 * with pp->why. */
static int
legfar_copy(struct prof_perf *pp)
{
	int out = rfile_create(pp->aout, O_CLOEXEC, 0644), cut = -1;

	pp->far.copied = json_array();
	if (out < 0) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s: cannot create: %s",
		    pp->rout, rfile_strerror(errno));
		return -1;
	}
	if (round_prof_far_get(&pp->far, "out", out, pp->rout,
	    pp->far.copied) >= 0 && round_prof_far_get(&pp->far, "runs",
	    pp->runs_fd, pp->rruns, pp->far.copied) >= 0 &&
	    (cut = round_prof_far_get(&pp->far, "data", pp->data_fd, pp->rdata,
	    pp->far.copied)) > 0 && ftruncate(pp->data_fd, 0) != 0)
		cut = -1;
	close(out);
	if (cut < 0)
		round_prof_fmt(pp->why, sizeof pp->why, "%s", pp->far.why[0] !=
		    '\0' ? pp->far.why : "the recording could not be kept");
	return cut < 0 ? -1 : 0;
}

int
round_prof_far_legs(struct prof_perf *pp, struct leg_result *res)
{
	const struct spec *s = pp->u->r->spec;
	const struct spec_profile *pr = s->profile;
	double each = s->timeout_s > 0 ? s->timeout_s : pr->max_s;
	json_t *plan = legfar_plan(pp), *r, *se;
	char err[768];
	bool refused;

	memset(res, 0, sizeof *res);
	if (plan == NULL) {
		round_prof_fmt(pp->why, sizeof pp->why, "%s cannot be read back",
		    pp->rplan);
		return -1;
	}
	se = round_prof_event(pp->cell->name, pp->arms[0]->name, "perf", NULL);
	json_object_set_new(se, "host", json_string(pp->far.host));
	round_emit_new(pp->u, se);
	/* max_s, then a pass under way, then perf's own writing */
	r = remote_prof_legs(pp->far.rm, plan, pr->perf_args, pr->nperf_args,
	    pr->max_s + each * (double)pp->narms + 120,
	    pp->u->r->abort_pipe[0], &refused, err, sizeof err);
	json_decref(plan);
	if (r == NULL) {
		if (!refused) {
			pp->far.lost = true;
			round_remote_lost(pp->u, pp->far.rm, "during the perf profile "
			    "of the legs");
			return -2;
		}
		round_prof_fmt(pp->why, sizeof pp->why, "perf record on %s: %s",
		    pp->far.host, err);
		return -1;
	}
	res->rc = (int)json_integer_value(json_object_get(r, "rc"));
	res->signal = (int)json_integer_value(json_object_get(r, "signal"));
	res->timed_out = json_is_true(json_object_get(r, "timed_out"));
	res->aborted = json_is_true(json_object_get(r, "aborted"));
	res->wall = json_number_value(json_object_get(r, "wall"));
	/* perf record's options as that host chose them (the call-graph
	 * method on what its perf can do), for the report's head */
	pp->fallback = json_is_true(json_object_get(r, "fallback"));
	free(pp->args);
	pp->args = profile_perf_args(pr->perf_args, pr->nperf_args,
	    !pp->fallback, &pp->unwind);
	json_decref(r);
	/* an abort ended the recording there: nothing to copy back, the
	 * profile is taken again on resume */
	if (res->aborted || round_aborted(pp->u))
		return 0;
	if (legfar_copy(pp) != 0)
		return pp->far.lost ? -2 : -1;
	return 0;
}
