/* The round driver, one leg, in four steps: prepare (its program and its
 * scratch folder), gate (the quiet box, the cell's server), run (leg_run,
 * then what it left behind) and record (the leg line and its warnings). */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "cgroup.h"
#include "event.h"
#include "leg.h"
#include "legmetrics.h"
#include "procs.h"
#include "quiet.h"
#include "round_int.h"
#include "server.h"
#include "srvmeter.h"
#include "template.h"

/* One leg in flight: what its steps hand each other. */
struct run_leg {
	struct run *u;
	const struct plan_leg *pl;
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	struct server *srv;
	struct run_cmd cmd;
	char *outrel, *outabs;
	double foreign;
	bool quiet_timeout, quiet_override, died;
	long long bytes;
	struct leg_result res;
	struct srvmeter *meter;  /* the server's tree over the leg */
	json_t *srvblock;        /* the leg line's "server" */
};

/* What a step tells run_leg. */
enum {
	RUN_LEG_GO = 0,     /* on to the next step */
	RUN_LEG_STOP = -1,  /* stop the round (aborted; u->err may say why) */
	RUN_LEG_FAIL = -2,  /* stop the round, not resumably; u->err says why */
};

static void
run_drain(int fd)
{
	char buf[64];

	while (read(fd, buf, sizeof buf) > 0)
		;
}

static void
run_quiet_emit(json_t *ev, void *arg)
{
	round_emit(((struct run *)arg)->r, ev);
}

/* leg_run's callback once the leg runs: its leg_start event. */
static void
run_leg_started(pid_t pid, void *arg)
{
	struct run_leg *l = arg;

	run_emit_new(l->u, run_leg_start_event(l->u->r->spec, l->pl, pid,
	    l->outrel));
}

/* What emptying the scratch folder must never take: the leg's program,
 * then every path its command names (a whole argument, or what follows
 * "=" in one) other than through ${SCRATCH}.  An argument whose expansion
 * changes with SCRATCH is the leg's own path in scratch.  Relative paths
 * are made absolute against the workdir.  NULL-terminated, malloc'd (NULL
 * when out of memory: the checks that remain still hold). */
static char **
run_cmd_named(const struct spec *s, const struct template_ctx *ctx,
    const struct run_cmd *c, size_t *n)
{
	struct template_ctx other = *ctx;
	char **v = calloc(2 * s->ncommand + 2, sizeof *v), e[512];

	*n = 0;
	if (v == NULL)
		return NULL;
	if (c->binabs != NULL && (v[*n] = strdup(c->binabs)) != NULL)
		(*n)++;
	other.scratch = "/\x01scratch";
	for (size_t i = 0; i < s->ncommand; i++) {
		char *a = template_expand(s->command[i], ctx, e, sizeof e),
		    *b = template_expand(s->command[i], &other, e, sizeof e);
		const char *eq = a != NULL ? strchr(a, '=') : NULL;

		if (a != NULL && b != NULL && strcmp(a, b) == 0 && *a != '\0') {
			if ((v[*n] = run_abspath(a, s->workdir)) != NULL)
				(*n)++;
			if (eq != NULL && eq[1] != '\0' &&
			    (v[*n] = run_abspath(eq + 1, s->workdir)) != NULL)
				(*n)++;
		}
		free(a);
		free(b);
	}
	return v;
}

int
run_cmd_build(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, struct run_cmd *c)
{
	const struct spec *s = u->r->spec;
	const char *bin = spec_arm_bin(s, arm);
	struct template_ctx ctx = { .spec = s, .cell = cell, .arm = arm->name,
		.rep = rep, .round_dir = u->r->dir };
	char e[640], **keep;
	size_t nkeep = 0;
	int rc;

	memset(c, 0, sizeof *c);
	/* The leg's own metrics file, in the round folder so the seal covers
	 * it; one left by an attempt that was aborted is not this leg's. */
	if ((rep > 0 ? asprintf(&c->metrics_rel, "legs/%s-%s-r%d.metrics.json",
	    cell->name, arm->name, rep) : asprintf(&c->metrics_rel,
	    "legs/%s-%s-%s.metrics.json", rep == 0 ? "prof" : "sys",
	    cell->name, arm->name)) < 0 ||
	    asprintf(&c->metrics, "%s/%s", u->r->dir, c->metrics_rel) < 0) {
		snprintf(u->err, sizeof u->err, "out of memory");
		return -1;
	}
	(void)unlink(c->metrics);
	ctx.metrics = c->metrics;
	c->binabs = run_resolve_bin(s, bin, &ctx, &c->xbin, e, sizeof e);
	if (bin != NULL && c->xbin == NULL) {
		snprintf(u->err, sizeof u->err, "leg %s %s r%d: %s",
		    cell->name, arm->name, rep, e);
		return -1;
	}
	ctx.bin = c->binabs != NULL ? c->binabs : c->xbin != NULL ? c->xbin :
	    "";
	ctx.scratch = "";
	if (s->scratch != NULL) {
		if ((c->tmp = template_expand(s->scratch, &ctx, e,
		    sizeof e)) == NULL ||
		    (c->scratch = run_abspath(c->tmp, s->workdir)) == NULL) {
			snprintf(u->err, sizeof u->err, "scratch: %s", e);
			return -1;
		}
		ctx.scratch = c->scratch;
	}
	if ((c->argv = run_expand_argv(s->command, s->ncommand, &ctx, u->err,
	    sizeof u->err)) == NULL ||
	    (c->envp = run_envp(arm->env, arm->nenv)) == NULL) {
		if (u->err[0] == '\0')
			snprintf(u->err, sizeof u->err, "out of memory");
		return -1;
	}
	if (c->binabs == NULL)
		c->binabs = spec_resolve_program(c->argv[0], s->workdir);
	if (c->scratch == NULL)
		return 0;
	keep = run_cmd_named(s, &ctx, c, &nkeep);
	rc = run_scratch_empty(u, c->scratch, keep, nkeep, u->err,
	    sizeof u->err);
	run_free_strv(keep);
	if (rc != 0) {
		/* The folder is the user's to fix; then resume goes on. */
		round_abort_internal(u->r, "the scratch folder was refused");
		return -2;
	}
	return 0;
}

void
run_cmd_finish(struct run_cmd *c)
{
	run_free_strv(c->argv);
	run_free_strv(c->envp);
	free(c->binabs);
	free(c->xbin);
	free(c->scratch);
	free(c->tmp);
	free(c->metrics);
	free(c->metrics_rel);
	memset(c, 0, sizeof *c);
}

/* Prepare: the program the arm runs (its bin expanded and resolved), the
 * argv and env, the scratch folder checked and emptied. */
static int
run_leg_prepare(struct run_leg *l)
{
	int rc = run_cmd_build(l->u, l->cell, l->arm, l->pl->rep, &l->cmd);

	return rc == 0 ? RUN_LEG_GO : rc == -2 ? RUN_LEG_STOP : RUN_LEG_FAIL;
}

/* Gate: hold until the machine is quiet (or the gate gives up), then make
 * sure the cell's server outlived the wait. */
static int
run_leg_gate(struct run_leg *l)
{
	struct run *u = l->u;
	const struct spec *s = u->r->spec;
	double f = 0;

	if (u->quiet == NULL)
		return RUN_LEG_GO;
	run_drain(u->r->gate_pipe[0]);
	switch (quiet_wait(u->quiet, u->r->abort_pipe[0], u->r->gate_pipe[0],
	    run_quiet_emit, u, &f)) {
	case QUIET_ABORTED:
		return RUN_LEG_STOP;
	case QUIET_RELEASED:
		run_drain(u->r->gate_pipe[0]);
		l->quiet_override = true;
		break;
	case QUIET_TIMEOUT:
		if (s->quiet.abort_on_timeout) {
			snprintf(u->err, sizeof u->err, "the machine did not "
			    "become quiet (%.2f foreign cores, threshold %.2f) "
			    "within %g s before %s %s r%d; the round stopped, "
			    "resume continues it", f, quiet_threshold(u->quiet),
			    s->quiet.timeout_s, l->cell->name, l->arm->name,
			    l->pl->rep);
			round_abort_internal(u->r, "quiet gate timed out");
			return RUN_LEG_STOP;
		}
		l->quiet_timeout = true;
		break;
	case QUIET_OK:
		break;
	}
	if (run_server_gone(u, l->pl, l->srv))
		return RUN_LEG_STOP;
	return RUN_LEG_GO;
}

/* Whether the file system holding path is full: less than 64 KiB left
 * to us (root may use the blocks kept for it). */
static bool
run_leg_disk_full(const char *path)
{
	struct statvfs sv;
	unsigned long long avail;

	if (statvfs(path, &sv) != 0 || sv.f_blocks == 0)
		return false;
	avail = (unsigned long long)(geteuid() == 0 ? sv.f_bfree :
	    sv.f_bavail) * sv.f_frsize;
	return avail < 64 * 1024;
}

/* What the leg left outside its process group (setsid, double forks
 * reparented to us as subreaper) would run on into the next leg: end it
 * now, keeping the cell's server.  With a cgroup, leg_run has killed it
 * already (cgroup.kill): what is left is to reap those reparented to us. */
static void
run_leg_end_leftovers(struct run_leg *l)
{
	pid_t keep = l->srv != NULL ? server_pid(l->srv) : 0;

	if (l->u->cg_legs != NULL) {
		if (l->res.strays > 0)
			procs_reap_orphans(&keep, l->srv != NULL);
		return;
	}
	if (procs_has_child_except(keep))
		(void)procs_end_descendants(getpid(), &keep, l->srv != NULL, 0.5);
}

/* Run: the argv, env and output file, leg_run, then the foreign CPU
 * during it, whether the server survived it, what it left behind and the
 * scratch folder's size. */
static int
run_leg_run(struct run_leg *l)
{
	struct run *u = l->u;
	const struct spec *s = u->r->spec;

	if (asprintf(&l->outrel, "legs/%s-%s-r%d.out", l->cell->name,
	    l->arm->name, l->pl->rep) < 0 ||
	    asprintf(&l->outabs, "%s/%s", u->r->dir, l->outrel) < 0) {
		snprintf(u->err, sizeof u->err, "out of memory");
		return RUN_LEG_FAIL;
	}

	struct leg_spec ls = {
		.path = l->cmd.binabs, .argv = l->cmd.argv, .envp = l->cmd.envp,
		.cwd = s->workdir,
		.out_path = l->outabs, .cpus = u->client_mask,
		.ncpus = u->ncpus, .nice = s->nice, .timeout_s = s->timeout_s,
		.ctr = u->ctr, .abort_fd = u->r->abort_pipe[0],
		.cg = u->cg_legs,
	};
	/* Foreign CPU during the leg comes from the gate's background
	 * samples; with the gate switched off ("quiet": false) it is not
	 * measured (null). */
	if (u->quiet != NULL && s->quiet.enabled)
		quiet_leg_begin(u->quiet);
	/* The server's tree is measured over the leg's window: its counters
	 * open on every thread before the leg starts. */
	if (l->srv != NULL)
		l->meter = srvmeter_begin(server_pid(l->srv),
		    (const char *const *)s->counters, (int)s->ncounters,
		    u->cg_servers != NULL ? cgroup_path(u->cg_servers) : NULL);
	if (leg_run(&ls, &l->res, run_leg_started, l, u->err,
	    sizeof u->err) != 0) {
		/* Could not start it (disk full for the output file, no
		 * fds): stop resumably. */
		round_abort_internal(u->r, "a leg could not be started");
		return RUN_LEG_STOP;
	}
	if (l->meter != NULL) {
		l->srvblock = srvmeter_end(l->meter);
		l->meter = NULL;
	}
	if (u->quiet != NULL && s->quiet.enabled)
		l->foreign = quiet_leg_end(u->quiet);
	if (l->srv != NULL && !l->res.aborted && !server_alive(l->srv))
		l->died = true;
	run_leg_end_leftovers(l);
	/* The leg writes its output into the round folder itself: a disk
	 * that filled meanwhile failed the harness's file, not the leg, so
	 * the leg is not recorded (as "failed", for good) but runs again on
	 * resume. */
	if (!l->res.aborted && run_leg_disk_full(l->outabs)) {
		snprintf(u->err, sizeof u->err, "%s: No space left on device "
		    "(the disk filled while leg %s %s r%d ran, so its output may "
		    "be cut short); the round stopped, resume runs the leg again "
		    "once there is room", l->outabs, l->cell->name, l->arm->name,
		    l->pl->rep);
		round_abort_internal(u->r, "the disk is full");
		return RUN_LEG_STOP;
	}
	/* A scratch folder the leg turned into a link is not "0 bytes": the
	 * round stops, and the leg runs again once it is a folder again. */
	if (l->cmd.scratch != NULL &&
	    (l->bytes = run_scratch_size(l->cmd.scratch, u->err,
	    sizeof u->err)) == -2) {
		round_abort_internal(u->r, "the scratch folder was refused");
		return RUN_LEG_STOP;
	}
	return RUN_LEG_GO;
}

/* The leg's metrics file, read after the leg: its object, or NULL.  A bad
 * file gets one warning naming the leg and the file, and the leg keeps its
 * status; so does an ok leg whose command names ${METRICS} and that wrote
 * none. */
static json_t *
run_leg_metrics(struct run *u, const struct run_leg *l,
    const struct leg_result *res)
{
	const struct spec *s = u->r->spec;
	char why[256];
	bool absent, named = false;
	json_t *m;

	if ((m = legmetrics_read(l->cmd.metrics, &absent, why,
	    sizeof why)) != NULL)
		return m;
	for (size_t i = 0; i < s->ncommand && !named; i++)
		named = strstr(s->command[i], "${METRICS}") != NULL;
	if (absent && (!named || res->rc != 0 || res->signal != 0))
		return NULL;
	if (absent)
		snprintf(why, sizeof why, "was not written");
	run_warn(u, "leg %s %s r%d: metrics file %s %s; the leg has no "
	    "metrics", l->cell->name, l->arm->name, l->pl->rep,
	    l->cmd.metrics_rel, why);
	return NULL;
}

/* Record: the leg line, its warnings, and a server that died during it. */
static int
run_leg_record(struct run_leg *l)
{
	struct run *u = l->u;
	const char *ran = l->cmd.binabs != NULL ? l->cmd.binabs :
	    l->cmd.argv[0];

	json_t *ev = run_leg_event(u, l->pl, &l->res, ran, l->bytes,
	    l->foreign, l->quiet_timeout, l->quiet_override, l->died),
	    *metrics;

	if (l->srvblock != NULL) {
		json_object_set_new(ev, "server", l->srvblock);
		l->srvblock = NULL;
	}
	if (!l->res.aborted &&
	    (metrics = run_leg_metrics(u, l, &l->res)) != NULL)
		json_object_set_new(ev, "metrics", metrics);
	run_emit_new(u, ev);
	run_warn_counters(u);
	if (l->res.exec_errno != 0)
		run_warn(u, "leg %s %s r%d: cannot run %s: %s", l->cell->name,
		    l->arm->name, l->pl->rep, ran, strerror(l->res.exec_errno));
	if (l->died) {
		run_server_died(u, l->cell, l->srv);
		snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) "
		    "during leg %s r%d; the round stopped, resume continues it",
		    l->cell->name, server_death(l->srv), l->arm->name,
		    l->pl->rep);
		round_abort_internal(u->r, "the cell's server died");
		return RUN_LEG_STOP;
	}
	if (l->res.aborted || run_aborted(u))
		return RUN_LEG_STOP;
	return RUN_LEG_GO;
}

static void
run_leg_finish(struct run_leg *l)
{
	run_cmd_finish(&l->cmd);
	srvmeter_destroy(l->meter);
	json_decref(l->srvblock);
	free(l->outrel);
	free(l->outabs);
}

int
run_leg(struct run *u, const struct plan_leg *pl, struct server *srv,
    bool *failed)
{
	const struct spec *s = u->r->spec;
	struct run_leg l = { .u = u, .pl = pl, .srv = srv,
		.cell = &s->cells[pl->cell], .arm = &s->arms[pl->arm],
		.foreign = -1, .bytes = -1 };
	struct server *own = NULL;
	int rc;

	run_pause_point(u);
	if (s->settle_s > 0 && !run_aborted(u))
		run_wait(u, s->settle_s, false);
	if (run_aborted(u) || run_server_gone(u, pl, srv))
		return -1;
	/* A server per leg: started and ready before the leg's measurement
	 * begins, stopped after it ends. */
	if (srv == NULL && spec_server_per_leg(s, l.cell)) {
		run_pause_point(u);
		if (run_aborted(u))
			return -1;
		if ((l.srv = run_server_start(u, l.cell, l.arm,
		    pl->rep)) == NULL) {
			if (!run_aborted(u))
				*failed = true;
			return -1;
		}
		own = l.srv;
	}
	if ((rc = run_leg_prepare(&l)) == RUN_LEG_GO &&
	    (rc = run_leg_gate(&l)) == RUN_LEG_GO &&
	    (rc = run_leg_run(&l)) == RUN_LEG_GO)
		rc = run_leg_record(&l);
	if (own != NULL)
		run_server_stop(u, l.cell, own);
	run_leg_finish(&l);
	if (rc == RUN_LEG_FAIL)
		*failed = true;
	return rc == RUN_LEG_GO ? 0 : -1;
}
