/* The round driver, the plan loop: the opening events, then cell by cell
 * its server and the legs of the plan still to run, then the closing. */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "cgroup.h"
#include "clock.h"
#include "counters.h"
#include "escape.h"
#include "event.h"
#include "probe.h"
#include "profdiff.h"
#include "procs.h"
#include "quiet.h"
#include "round_int.h"
#include "spawn.h"
#include "xalloc.h"

static unsigned char *
round_run_mask(struct run *u, const char *list, const char *field)
{
	unsigned char *mask;

	if (list == NULL)
		return NULL;
	mask = xcalloc((size_t)u->ncpus, 1);
	if (spec_cpulist_parse(list, mask, u->ncpus) != 0) {
		round_warn(u, "cpus.%s: \"%s\" names cpus this machine (%d cpus) "
		    "does not have; legs are not pinned", field, list, u->ncpus);
		free(mask);
		return NULL;
	}
	return mask;
}

/* Whether leg pl of the plan is still to run (not done before a resume). */
static bool
round_run_leg_todo(const struct round *r, const struct plan_leg *pl)
{
	const struct spec *s = r->spec;
	int stopped;

	if (r->rs == NULL)
		return true;
	/* An adaptive cell decided at a look plans nothing past it. */
	stopped = resume_cell_stopped(r->rs, s->cells[pl->cell].name);
	if (stopped > 0 && pl->rep > stopped)
		return false;
	return !resume_leg_done(r->rs, s->cells[pl->cell].name,
	    s->arms[pl->arm].name, pl->rep);
}

/* The last lines of a leg's output file (at most 5 lines of its last 600
 * bytes), each on a line of its own starting "    | ", escaped as the
 * console shows them (escape.h); "" when it is empty or unreadable. */
static void
round_run_output_tail(const char *path, char *out, size_t len)
{
	char buf[601];
	FILE *f = fopen(path, "r");
	long size;
	size_t n, start, lines = 0, k = 0;

	out[0] = '\0';
	if (f == NULL)
		return;
	if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
	    fseek(f, size > 600 ? size - 600 : 0, SEEK_SET) != 0) {
		fclose(f);
		return;
	}
	n = fread(buf, 1, 600, f);
	fclose(f);
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	/* Back from the end over at most 5 line breaks. */
	for (start = n; start > 0; start--)
		if (buf[start - 1] == '\n' && ++lines == 5)
			break;
	for (size_t i = start; i < n && k + 9 < len;) {
		size_t end = i;

		while (end < n && buf[end] != '\n')
			end++;
		k += (size_t)snprintf(out + k, len - k, "\n    | ");
		if (k < len)
			k += escape_text(buf + i, end - i, out + k, len - k,
			    ESCAPE_TAB_SPACE, NULL);
		i = end + 1;
	}
}

/* Whether a leg of the plan after index i is still to run. */
static bool
round_run_legs_left(const struct round *r, size_t i)
{
	/* O(legs), and only when fail_fast would stop the round. */
	for (size_t k = i + 1; k < r->plan.n; k++)
		if (round_run_leg_todo(r, &r->plan.legs[k]))
			return true;
	return false;
}

/* fail_fast: the arm's first N legs in this cell that this run (or
 * resume) recorded all failed, and the round has legs left to run (with
 * none, stopping would leave nothing for a resume to do).  true (the round
 * stops, resumably) with u->err naming the arm, the cell and the end of
 * the leg's output. */
static bool
round_run_fail_fast(struct run *u, size_t i)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct plan_leg *pl = &r->plan.legs[i];
	const char *cell = s->cells[pl->cell].name, *arm = s->arms[pl->arm].name;
	size_t k = pl->cell * s->narms + pl->arm;
	char path[4096], tail[400], end[800];

	if (s->fail_fast <= 0)
		return false;
	u->ff_seen[k]++;
	u->ff_bad[k] += u->last_leg_bad;
	if (u->ff_seen[k] != s->fail_fast || u->ff_bad[k] != s->fail_fast ||
	    !round_run_legs_left(r, i))
		return false;
	snprintf(path, sizeof path, "%s/legs/%s-%s-r%d.out", r->dir, cell, arm,
	    pl->rep);
	round_run_output_tail(path, tail, sizeof tail);
	if (!s->output_keep)
		snprintf(end, sizeof end, "; its output was not kept (output.keep "
		    "is \"none\")");
	else if (tail[0] == '\0')
		snprintf(end, sizeof end, "; its last leg wrote no output");
	else
		snprintf(end, sizeof end, ". The end of %.300s:%.399s", path,
		    tail);
	snprintf(u->err, sizeof u->err, "fail_fast: arm %s failed its first "
	    "%d legs in cell %s%s; the round stopped (resume continues it once "
	    "this is fixed)%s", arm, s->fail_fast, cell, r->rs != NULL ?
	    " since this resume" : "", end);
	u->stop_logged_err = true;
	round_abort_internal(r, "fail_fast");
	return true;
}

/* A warm-up leg failed (or timed out): it counts for nothing, but its
 * counted legs will likely fail the same way, so say so at once. */
static void
round_run_warmup_failed(struct run *u, const struct plan_leg *pl, int k)
{
	const struct spec *s = u->r->spec;
	const char *cell = s->cells[pl->cell].name, *arm = s->arms[pl->arm].name;
	char path[4096], rel[160];

	snprintf(rel, sizeof rel, "legs/%s-%s-w%d.out", cell, arm, k);
	snprintf(path, sizeof path, "%s/%s", u->r->dir, rel);
	round_warn(u, "warm-up leg %s %s w%d failed; it is not counted, but "
	    "the arm's counted legs may fail the same way (%s%s)", cell, arm,
	    k, !s->output_keep ? "its output was not kept" :
	    access(path, F_OK) == 0 ? "its output is in " : "it wrote no "
	    "output", s->output_keep && access(path, F_OK) == 0 ? rel : "");
}

/* Warm-up legs first, in the order of the cell's first rep.  A resumed
 * cell warms up again: the restart left its caches cold.  false when the
 * round stops. */
static bool
round_run_warmups(struct run *u, size_t c, struct round_srv *srv,
    bool *failed)
{
	const struct round *r = u->r;

	for (int k = 1; k <= r->spec->warmup; k++)
		for (size_t i = 0; i < r->plan.n; i++) {
			const struct plan_leg *pl = &r->plan.legs[i];

			if (pl->cell != c || pl->rep != 1)
				continue;
			if (round_leg(u, pl, k, srv, failed) != 0)
				return false;
			if (u->last_leg_bad)
				round_run_warmup_failed(u, pl, k);
		}
	return true;
}

static bool
round_run_prof_done(struct run *u, const char *cell, const char *arm,
    const char *kind)
{
	return profdiff_has(tally_profiles(u->r->tally), cell, arm, kind);
}

/* Whether cell c has a profile the log does not hold yet. */
static bool
round_run_prof_pending(struct run *u, size_t c)
{
	const struct spec *s = u->r->spec;
	const char *cell = s->cells[c].name;

	for (size_t a = 0; s->profile != NULL && a < s->narms; a++)
		for (int k = 0; k < SPEC_PROFILE_KINDS; k++)
			if (spec_profiles(s, cell, s->arms[a].name,
			    spec_profile_kinds[k]) && !round_run_prof_done(u,
			    cell, s->arms[a].name, spec_profile_kinds[k]))
				return true;
	return false;
}

/* The profile phase (round_prof*.c): cell c's profiles after its timed
 * legs, its server (or NULL) still up; the kinds in order, each in its
 * own file.  0 to go on, -1 when the round was aborted. */
/* The perf (or server_perf) profiles of the cell's arms that want one,
 * their runs taking turns: perf's under one recording, server_perf's on
 * the cell's server (srv), or each run on its arm's own where each leg
 * has its own.  perf is not taken here where each arm has its own server
 * (it is up for that arm's profiles alone): those are taken arm by arm. */
static int
round_run_prof_cell_turns(struct run *u, const struct spec_cell *cell,
    const char *kind, struct round_srv *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_arm *arms[ROUND_PROF_ARMS_MAX];
	bool perf = strcmp(kind, "perf") == 0;
	size_t n = 0;

	if (perf && cell->server != NULL && spec_server_per_leg(s, cell))
		return 0;
	for (size_t a = 0; a < s->narms && n < ROUND_PROF_ARMS_MAX; a++)
		if (spec_profiles(s, cell->name, s->arms[a].name, kind) &&
		    !round_run_prof_done(u, cell->name, s->arms[a].name, kind))
			arms[n++] = &s->arms[a];
	if (n == 0)
		return 0;
	round_pause_point(u);
	if (round_aborted(u))
		return -1;
	return (perf ? round_prof_perf(u, cell, arms, n) :
	    round_prof_server_perf(u, cell, arms, n, srv)) != 0 ||
	    round_aborted(u) ? -1 : 0;
}

static int
round_run_prof_cell(struct run *u, size_t c, struct round_srv *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[c];

	if (s->profile != NULL && (round_run_prof_cell_turns(u, cell, "perf",
	    srv) != 0 || round_run_prof_cell_turns(u, cell, "server_perf",
	    srv) != 0))
		return -1;
	for (size_t a = 0; s->profile != NULL && a < s->narms; a++) {
		const struct spec_arm *arm = &s->arms[a];
		bool want[SPEC_PROFILE_KINDS], any = false;
		struct round_srv *own = NULL, *use = srv;
		int rc = 0;

		for (int k = 0; k < SPEC_PROFILE_KINDS; k++) {
			want[k] = spec_profiles(s, cell->name, arm->name,
			    spec_profile_kinds[k]) && !round_run_prof_done(u,
			    cell->name, arm->name, spec_profile_kinds[k]);
			any |= want[k];
		}
		if (!any)
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
		if (want[0])
			rc = round_prof_perf(u, cell, &arm, 1);
		if (rc == 0 && want[2] && !round_aborted(u))
			rc = round_prof_syscalls(u, cell, arm, use);
		if (own != NULL)
			round_server_stop(u, cell, own);
		if (rc != 0 || round_aborted(u))
			return -1;
	}
	return 0;
}

/* Whether cell c has nothing left to do: every leg of it done and no
 * profile of it pending (a resumed round skips it whole). */
static bool
round_run_cell_done(struct run *u, size_t c)
{
	const struct round *r = u->r;

	for (size_t i = 0; i < r->plan.n; i++)
		if (r->plan.legs[i].cell == c &&
		    round_run_leg_todo(r, &r->plan.legs[i]))
			return false;
	return !round_run_prof_pending(u, c);
}

/* One cell on several hosts at once (round_hosts.c): its server (each
 * host's own copy, or the cell's one on a host of its own), its setup,
 * its legs dealt among the hosts, its profiles (taken on the first host,
 * the server's with that host's copy), its cleanup, its server
 * stopped. */
static bool
round_run_cell_hosts(struct run *u, size_t c)
{
	static const struct round_hosts_cbs cb = {
		.todo = round_run_leg_todo, .fail_fast = round_run_fail_fast,
		.warmup_failed = round_run_warmup_failed,
	};
	struct round *r = u->r;
	struct round_srv *srv;
	bool go;

	if (round_run_cell_done(u, c))
		return true;
	round_pause_point(u);
	if (round_aborted(u))
		return false;
	if (!round_hosts_servers(u, c) || round_hook(u, c, false) != 0) {
		round_hosts_servers_stop(u, c);
		return false;
	}
	go = round_hosts_cell(u, c, &cb);
	/* the profiles on the first host, with its copy of the server */
	if (go && !r->fatal && !round_aborted(u) && round_hosts_prof_srv(u,
	    &srv) && round_run_prof_cell(u, c, srv) != 0)
		go = false;
	if (!r->fatal)
		(void)round_hook(u, c, true);
	round_hosts_servers_stop(u, c);
	return go;
}

/* One cell: its server, then its legs in plan order, then its profiles.  false when the round
 * stops (*failed for a failure that is not resumable). */
static bool
round_run_cell(struct run *u, size_t c, bool *failed)
{
	struct round *r = u->r;
	const struct spec_cell *cell = &r->spec->cells[c];
	struct round_srv *srv = NULL;
	bool stop = false;

	if (r->spec->nhosts > 1)
		return round_run_cell_hosts(u, c);
	if (round_run_cell_done(u, c))
		return true;
	u->srv_death_logged = false;
	if (cell->server != NULL && !spec_server_per_leg(r->spec, cell)) {
		round_pause_point(u);
		if (round_aborted(u))
			return false;
		if ((srv = round_server_start(u, cell, NULL, 0)) == NULL) {
			round_server_wont_start(u);
			return false;
		}
		round_ledger_note(u);
	}
	/* The cell's setup, once its server is ready; a resumed cell sets
	 * up again (its cleanup ran when the round stopped). */
	if (round_hook(u, c, false) != 0) {
		if (srv != NULL)
			round_server_stop(u, cell, srv);
		return false;
	}
	stop = !round_run_warmups(u, c, srv, failed);
	for (size_t i = 0, ran = 0; i < r->plan.n && !stop; i++) {
		const struct plan_leg *pl = &r->plan.legs[i];

		if (pl->cell != c)
			continue;
		if (round_run_leg_todo(r, pl)) {
			if (round_leg(u, pl, 0, srv, failed) != 0 ||
			    round_run_fail_fast(u, i)) {
				stop = true;
				break;
			}
			ran++;
		}
		/* The rep is complete after its last leg in the plan: an
		 * adaptive round may look (once: not for a rep that an
		 * earlier session completed and looked at). */
		if (ran > 0 && (i + 1 == r->plan.n ||
		    r->plan.legs[i + 1].rep != pl->rep ||
		    r->plan.legs[i + 1].cell != c)) {
			ran = 0;
			if (round_look(u, c, pl->rep))
				break;
		}
	}
	/* Profiles explain the cell's ratios: after its timed legs. */
	if (!stop && !r->fatal && !round_aborted(u) &&
	    round_run_prof_cell(u, c, srv) != 0)
		stop = true;
	/* After the last leg (or a stop: a resume sets up again), before
	 * the server goes. */
	if (!r->fatal)
		(void)round_hook(u, c, true);
	if (srv != NULL)
		round_server_stop(u, cell, srv);
	return !stop;
}

static void
round_run_cgroup_end(struct run *u)
{
	cgroup_destroy(u->cg_self); /* moves benchtui home first */
	cgroup_destroy(u->cg_legs);
	cgroup_destroy(u->cg_servers);
	cgroup_destroy(u->cg);
	u->cg = u->cg_self = u->cg_legs = u->cg_servers = NULL;
}

/* The round's cgroup: one group, benchtui moved into a child of it (so
 * that its servers start there too) and the legs into another.  Where the
 * machine allows none, one warning and the /proc ways. */
static void
round_run_cgroup_begin(struct run *u)
{
	char name[64], e[600] = "";

	/* A benchtui killed with SIGKILL could not remove its groups:
	 * cgroup_create below sweeps them (the name's "benchtui" part). */
	snprintf(name, sizeof name, "benchtui-%d-%lld", (int)getpid(),
	    (long long)(clock_now() * 1e3));
	/* As on a machine without cgroup v2 (the process ledger is used). */
	if (getenv("BENCHTUI_NO_CGROUP") != NULL &&
	    *getenv("BENCHTUI_NO_CGROUP") != '\0') {
		(void)cgroup_remove_stale("benchtui");
		round_warn(u, "no cgroup v2 for this round (BENCHTUI_NO_CGROUP is "
		    "set): what legs leave behind is found through /proc, and "
		    "mem_peak_kb is null");
		return;
	}
	if ((u->cg = cgroup_create(NULL, name, e, sizeof e)) == NULL ||
	    (u->cg_self = cgroup_create(u->cg, "benchtui", e,
	    sizeof e)) == NULL ||
	    (u->cg_legs = cgroup_create(u->cg, "legs", e, sizeof e)) == NULL ||
	    cgroup_enter(u->cg_self) != 0) {
		if (e[0] == '\0')
			snprintf(e, sizeof e, "cannot move benchtui into %s: %s",
			    cgroup_path(u->cg_self), strerror(errno));
		round_warn(u, "no cgroup v2 for this round (%s): what legs leave "
		    "behind is found through /proc, and mem_peak_kb is null", e);
		round_run_cgroup_end(u);
		return;
	}
	/* Logged, so that a resume after a kill -9 of this benchtui ends
	 * whatever is left in it (resume_end_stale). */
	{
		json_t *ev = event_new("cgroup");

		json_object_set_new(ev, "path", json_string(cgroup_path(u->cg)));
		round_emit_new(u, ev);
	}
	/* Without it servers stay in cg_self and are measured through /proc. */
	u->cg_servers = cgroup_create(u->cg, "servers", e, sizeof e);
}

/* Whether the gate makes its probe: not when switched off, nor ("auto")
 * on a machine whose clock cannot time it, which is said. */
static bool
round_run_probe(struct run *u)
{
	const struct spec_quiet *q = &u->r->spec->quiet;
	char why[256];

	if (!q->enabled || q->probe == SPEC_PROBE_OFF)
		return false;
	if (probe_clock_stable(why, sizeof why))
		return true;
	round_warn(u, "the quiet gate's probe is off: %s", why);
	return false;
}

/* The counters, the client cpus, the cgroup and the quiet gate, for every
 * leg. */
static void
round_run_begin(struct run *u)
{
	const struct spec *s = u->r->spec;

	u->client_mask = round_run_mask(u, s->client_cpus, "client");
	round_run_cgroup_begin(u);
	if (s->quiet.enabled) {
		struct quiet_params qp = spec_quiet_params(s);

		qp.probe = round_run_probe(u);
		u->quiet = quiet_create(&qp, u->client_mask, u->ncpus, getpid(),
		    u->cg);
	}
	if (u->quiet != NULL)
		quiet_set_groups(u->quiet, u->cg_legs, u->cg_servers);
	if (u->quiet == NULL && s->quiet.enabled)
		round_warn(u, "the quiet gate could not be set up (/proc/stat); "
		    "legs run ungated");
	/* The budget is the whole round's: a resumed one has spent what its
	 * log's legs waited, and the scaled one grew by what they took. */
	if (u->quiet != NULL && u->r->rs != NULL)
		quiet_set_history(u->quiet, tally_gate_waited(u->r->tally),
		    tally_gate_legs(u->r->tally));
}

int
round_run(struct round *r, char *err, size_t errlen)
{
	struct run u = { .r = r, .scratch_lock = -1 };
	const struct spec *s = r->spec;
	/* The sealed files read and print numbers in the C locale whatever
	 * the front end set for itself (a decimal comma would reach
	 * summary.md, and perf's "12.34%" would not parse): this thread
	 * only, for the round. */
	locale_t c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0), old = 0;
	bool failed = false;
	int rc;

	if (c_loc != (locale_t)0)
		old = uselocale(c_loc);
	procs_become_subreaper();
	/* The front end has set its handlers by now: the children reset
	 * those (read once here, not for every leg). */
	spawn_signals_refresh();
	u.legs_total = r->plan.n;
	u.ncpus = get_nprocs_conf();
	u.ctr = counters_create((const char *const *)s->counters,
	    (int)s->ncounters);
	u.ctr_warned = xcalloc(s->ncounters + 1, sizeof *u.ctr_warned);
	u.ff_seen = xcalloc(s->ncells * s->narms + 1, sizeof *u.ff_seen);
	u.ff_bad = xcalloc(s->ncells * s->narms + 1, sizeof *u.ff_bad);
	round_metrics_plan(&u);

	if (r->rs != NULL && resume_completed(r->rs)) {
		/* Killed between "done" and the seal: the log is complete and
		 * stays as it is; only the summaries and the seal are left. */
		round_replay(r);
		rc = round_close_done(&u, false);
	} else if (round_open(&u), r->rs == NULL && r->fatal) {
		/* Not even a new round's first events reached the log (a full
		 * disk): there is nothing to resume, so nothing is kept, and
		 * --out can be used again. */
		snprintf(u.err, sizeof u.err, "%s; the round did not start and "
		    "its folder %s was removed", r->fatal_err, r->dir);
		round_unmake(r);
		rc = ROUND_EXIT_FAIL;
	} else {
		round_run_begin(&u);
		for (size_t c = 0; c < s->ncells && !r->fatal &&
		    !round_aborted(&u); c++)
			if (!round_run_cell(&u, c, &failed))
				break;
		/* A host lost stops the round once the others are done. */
		if (!failed && !r->fatal)
			(void)round_hosts_lost(&u);
		if (failed || round_aborted(&u) || r->fatal)
			rc = round_close_stopped(&u, failed);
		else
			rc = round_close_done(&u, true);
	}
	if (rc != ROUND_EXIT_OK)
		snprintf(err, errlen, "%s", u.err);
	/* The servers elsewhere are stopped by now, or their agents end
	 * them as their input closes. */
	round_hosts_end(&u);
	round_remote_end(&u);
	/* The servers are stopped by now: nothing of ours may outlive the
	 * round. */
	(void)procs_end_descendants(getpid(), NULL, 0, 1.0);
	procs_reap_orphans(NULL, 0);
	round_scratch_release(&u);
	free(u.ledger);
	quiet_destroy(u.quiet);
	round_run_cgroup_end(&u);
	counters_destroy(u.ctr);
	free(u.ctr_warned);
	free(u.ff_seen);
	free(u.ff_bad);
	free(u.client_mask);
	if (c_loc != (locale_t)0) {
		uselocale(old);
		freelocale(c_loc);
	}
	return rc;
}
