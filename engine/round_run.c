/* The round driver, the plan loop: the opening events, then cell by cell
 * its server and the legs of the plan still to run, then the closing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "counters.h"
#include "procs.h"
#include "quiet.h"
#include "round_int.h"

static unsigned char *
run_mask(struct run *u, const char *list, const char *field)
{
	unsigned char *mask;

	if (list == NULL || (mask = calloc((size_t)u->ncpus, 1)) == NULL)
		return NULL;
	if (spec_cpulist_parse(list, mask, u->ncpus) != 0) {
		run_warn(u, "cpus.%s: \"%s\" names cpus this machine (%d cpus) "
		    "does not have; legs are not pinned", field, list, u->ncpus);
		free(mask);
		return NULL;
	}
	return mask;
}

/* Whether leg pl of the plan is still to run (not done before a resume). */
static bool
run_leg_todo(const struct round *r, const struct plan_leg *pl)
{
	const struct spec *s = r->spec;

	return r->rs == NULL || !resume_leg_done(r->rs, s->cells[pl->cell].name,
	    s->arms[pl->arm].name, pl->rep);
}

/* One cell: its server, then its legs in plan order, then its profiles.  false when the round
 * stops (*failed for a failure that is not resumable). */
static bool
run_cell(struct run *u, size_t c, bool *failed)
{
	struct round *r = u->r;
	const struct spec_cell *cell = &r->spec->cells[c];
	struct server *srv = NULL;
	size_t todo = 0;
	bool stop = false;

	for (size_t i = 0; i < r->plan.n; i++)
		if (r->plan.legs[i].cell == c &&
		    run_leg_todo(r, &r->plan.legs[i]))
			todo++;
	if (todo == 0 && !run_prof_pending(u, c))
		return true;
	u->srv_death_logged = false;
	if (cell->server != NULL && !spec_server_per_leg(r->spec, cell)) {
		run_pause_point(u);
		if (run_aborted(u))
			return false;
		if ((srv = run_server_start(u, cell, NULL, 0)) == NULL) {
			if (!run_aborted(u))
				*failed = true;
			return false;
		}
	}
	for (size_t i = 0; i < r->plan.n && !stop; i++) {
		const struct plan_leg *pl = &r->plan.legs[i];

		if (pl->cell == c && run_leg_todo(r, pl) &&
		    run_leg(u, pl, srv, failed) != 0)
			stop = true;
	}
	/* Profiles explain the cell's ratios: after its timed legs. */
	if (!stop && !r->fatal && !run_aborted(u) &&
	    run_prof_cell(u, c, srv) != 0)
		stop = true;
	if (srv != NULL)
		run_server_stop(u, cell, srv);
	return !stop;
}

static void
run_cgroup_end(struct run *u)
{
	cgroup_destroy(u->cg_self); /* moves benchtui home first */
	cgroup_destroy(u->cg_legs);
	cgroup_destroy(u->cg);
	u->cg = u->cg_self = u->cg_legs = NULL;
}

/* The round's cgroup: one group, benchtui moved into a child of it (so
 * that its servers start there too) and the legs into another.  Where the
 * machine allows none, one warning and the /proc ways. */
static void
run_cgroup_begin(struct run *u)
{
	char name[64], e[600] = "";

	snprintf(name, sizeof name, "benchtui-%d-%lld", (int)getpid(),
	    (long long)(clock_now() * 1e3));
	if ((u->cg = cgroup_create(NULL, name, e, sizeof e)) == NULL ||
	    (u->cg_self = cgroup_create(u->cg, "benchtui", e,
	    sizeof e)) == NULL ||
	    (u->cg_legs = cgroup_create(u->cg, "legs", e, sizeof e)) == NULL ||
	    cgroup_enter(u->cg_self) != 0) {
		if (e[0] == '\0')
			snprintf(e, sizeof e, "cannot move benchtui into %s: %s",
			    cgroup_path(u->cg_self), strerror(errno));
		run_warn(u, "no cgroup v2 for this round (%s): what legs leave "
		    "behind is found through /proc, and mem_peak_kb is null", e);
		run_cgroup_end(u);
	}
}

/* The counters, the client cpus, the cgroup and the quiet gate, for every
 * leg. */
static void
run_begin(struct run *u)
{
	const struct spec *s = u->r->spec;

	u->client_mask = run_mask(u, s->client_cpus, "client");
	run_cgroup_begin(u);
	if (s->quiet.enabled)
		u->quiet = quiet_create(&(struct quiet_params){
		    .max_foreign_cores = s->quiet.max_foreign_cores,
		    .window_ms = s->quiet.window_ms,
		    .timeout_s = s->quiet.timeout_s }, u->client_mask, u->ncpus,
		    getpid(), u->cg);
	if (u->quiet == NULL && s->quiet.enabled)
		run_warn(u, "the quiet gate could not be set up (/proc/stat); "
		    "legs run ungated");
}

int
round_run(struct round *r, char *err, size_t errlen)
{
	struct run u = { .r = r, .scratch_lock = -1 };
	const struct spec *s = r->spec;
	bool failed = false;
	int rc;

	procs_become_subreaper();
	u.legs_total = r->plan.n;
	u.ncpus = get_nprocs_conf();
	u.ctr = counters_create((const char *const *)s->counters,
	    (int)s->ncounters);
	u.ctr_warned = calloc(s->ncounters + 1, sizeof *u.ctr_warned);

	if (r->rs != NULL && resume_completed(r->rs)) {
		/* Killed between "done" and the seal: the log is complete and
		 * stays as it is; only the summaries and the seal are left. */
		run_replay(r);
		rc = run_close_done(&u, false);
	} else if (run_open(&u), r->rs == NULL && r->fatal) {
		/* Not even a new round's first events reached the log (a full
		 * disk): there is nothing to resume, so nothing is kept, and
		 * --out can be used again. */
		snprintf(u.err, sizeof u.err, "%s; the round did not start and "
		    "its folder %s was removed", r->fatal_err, r->dir);
		round_unmake(r);
		rc = ROUND_EXIT_FAIL;
	} else {
		run_begin(&u);
		for (size_t c = 0; c < s->ncells && !r->fatal; c++)
			if (!run_cell(&u, c, &failed))
				break;
		if (failed || run_aborted(&u) || r->fatal)
			rc = run_close_stopped(&u, failed);
		else
			rc = run_close_done(&u, true);
	}
	if (rc != ROUND_EXIT_OK)
		snprintf(err, errlen, "%s", u.err);
	/* The servers are stopped by now: nothing of ours may outlive the
	 * round. */
	(void)procs_end_descendants(getpid(), NULL, 0, 1.0);
	procs_reap_orphans(NULL, 0);
	run_scratch_release(&u);
	quiet_destroy(u.quiet);
	run_cgroup_end(&u);
	counters_destroy(u.ctr);
	free(u.ctr_warned);
	free(u.client_mask);
	return rc;
}
