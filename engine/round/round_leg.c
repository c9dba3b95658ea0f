/* The round driver, one leg, in five steps: setup (its command, built by
 * legcmd, and its scratch folder), prepare (the round's prepare argv),
 * gate (the quiet box, the cell's server), run (leg_run, then what it
 * left behind) and record (the leg line and its warnings). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "event.h"
#include "leg.h"
#include "legcmd.h"
#include "legmetrics.h"
#include "legout.h"
#include "procs.h"
#include "quiet.h"
#include "rfile.h"
#include "round_int.h"
#include "spawn.h"
#include "sysname.h"
#include "template.h"
#include "xalloc.h"

struct round_leg;
static void round_leg_end_leftovers(struct round_leg *l);

/* One leg in flight: what its steps hand each other. */
struct round_leg {
	struct run *u;
	const struct plan_leg *pl;
	int warmup;              /* K of a warm-up leg, else 0 */
	const struct spec_cell *cell;
	const struct spec_arm *arm;
	struct round_srv *srv;
	struct legcmd cmd;
	int prepare_rc;          /* the prepare argv's exit code, or -1 */
	struct legout *out;      /* the output drain while a process runs */
	json_t *start;           /* its leg_start, made before the clone */
	bool stand_in;           /* it ran under a stand-in parent */
	long long out_bytes;     /* what the leg wrote, or -1 */
	bool out_truncated;
	char name[160];          /* "cell arm r3" or "cell arm w1", for messages */
	double foreign;
	struct round_gate_rec gate;
	bool died;
	long long bytes;
	struct leg_result res;
	json_t *srvblock;        /* the leg line's "server" */
	json_t *far;             /* a leg on the legs' host: its values */
	const char *host;        /* that host (its leg line's "host") */
	bool gated;              /* one of several hosts: its gate asked */
	bool multi;              /* one of several hosts: its server's death
	                          * stops that host alone (round_hosts.c) */
};

/* What a step tells round_leg. */
enum {
	RUN_LEG_GO = 0,     /* on to the next step */
	RUN_LEG_STOP = -1,  /* stop the round (aborted; u->err may say why) */
	RUN_LEG_FAIL = -2,  /* stop the round, not resumably; u->err says why */
};

/* A signal's abbreviation ("STOP" of SIGSTOP), "?" for one without. */
static const char *
round_leg_sig_abbrev(int sig)
{
	const char *a = sysname_sigabbrev(sig);

	return a != NULL ? a : "?";
}

/* leg_run's callback when the leg stops (a SIGSTOP of its own, with no
 * timeout_s to end it) or runs again: a leg_state event, so the console
 * and the headless line show it rather than a leg that seems to hang. */
static void
round_leg_state(int stop_sig, void *arg)
{
	struct round_leg *l = arg;
	json_t *ev = event_new("leg_state");
	char sig[32];

	round_leg_ident(ev, l->u->r->spec, l->pl, l->warmup);
	json_object_set_new(ev, "state", json_string(stop_sig ? "stopped" :
	    "running"));
	if (stop_sig != 0) {
		snprintf(sig, sizeof sig, "SIG%s", round_leg_sig_abbrev(stop_sig));
		json_object_set_new(ev, "signal", json_string(sig));
	}
	round_emit_new(l->u, ev);
}

/* leg_run's callback twice a second while the leg runs: without a
 * cgroup, the process ledger notes what the leg started meanwhile; a
 * server's host whose connection dropped stops the round (the leg is
 * ended as aborted, and runs again on resume). */
static void
round_leg_tick(void *arg)
{
	struct round_leg *l = arg;

	round_ledger_note(l->u);
	round_remote_watch(l->u, l->name);
}

/* The leg's leg_start event, made before its process is: all but the
 * pid (0 here) and the time.  The held child waits for what is done
 * between its clone and its release, so that is kept short. */
static json_t *
round_leg_start_made(const struct round_leg *l)
{
	json_t *ev = round_leg_start_event(l->u->r->spec, l->pl, l->warmup,
	    l->cmd.out_rel);

	/* What readers show as the leg's command is what ran. */
	json_object_set_new(ev, "argv", legcmd_argv_json(l->cmd.argv));
	json_object_set_new(ev, "env", legcmd_env_json(&l->cmd));
	json_object_set_new(ev, "cwd", json_string(l->cmd.cwd));
	return ev;
}

/* leg_run's callback once the leg's process exists (once a leg, and
 * only for the command, whose leg_start round_leg_exec made before): its
 * leg_start event, with its pid and the time now. */
static void
round_leg_started(pid_t pid, void *arg)
{
	struct round_leg *l = arg;
	char ts[EVENT_TS_LEN];

	event_timestamp(ts);
	json_string_set(json_object_get(l->start, "ts"), ts);
	json_integer_set(json_object_get(l->start, "pid"), pid);
	round_emit(l->u->r, l->start);
	json_decref(l->start);
	l->start = NULL;
}

/* What emptying the scratch folder must never take: the leg's program,
 * then every path its command names (a whole argument, or what follows
 * "=" in one) other than through ${SCRATCH}.  An argument whose expansion
 * changes with SCRATCH is the leg's own path in scratch.  Relative paths
 * are made absolute against the workdir.  NULL-terminated, malloc'd. */
static char **
round_leg_cmd_named(const struct spec *s, const struct legcmd_where *w,
    const struct legcmd *c, size_t *n)
{
	struct template_ctx ctx, other;
	size_t cap = 2 * c->argc + 2;
	char **v = xcalloc(cap, sizeof *v), e[512];

	*n = 0;
	if (c->program != NULL)
		v[(*n)++] = xstrdup(c->program);
	legcmd_leg_ctx(w, c, &ctx);
	other = ctx;
	other.scratch = "/\x01scratch";
	for (size_t i = 0; i < s->ncommand; i++) {
		char **a = NULL, **b = NULL;
		size_t na = 0, nb = 0, at;

		if (template_expand_argv(&s->command[i], 1, &ctx, &a, &na, &at,
		    e, sizeof e) == 0 && template_expand_argv(&s->command[i], 1,
		    &other, &b, &nb, &at, e, sizeof e) == 0 && na == nb)
			for (size_t k = 0; k < na && *n + 2 < cap; k++) {
				const char *eq = strchr(a[k], '=');

				if (strcmp(a[k], b[k]) != 0 || a[k][0] == '\0')
					continue;
				v[(*n)++] = round_abspath(a[k], s->workdir);
				if (eq != NULL && eq[1] != '\0')
					v[(*n)++] = round_abspath(eq + 1,
					    s->workdir);
			}
		template_free_argv(a);
		template_free_argv(b);
	}
	return v;
}

int
round_leg_scratch(struct run *u, const struct legcmd_where *w,
    const struct legcmd *c)
{
	char **keep;
	size_t nkeep = 0;
	int rc;

	/* Legs on another host: their agent empties it there. */
	if (c->scratch == NULL || u->r->spec->host != NULL ||
	    u->r->spec->nhosts > 0)
		return 0;
	keep = round_leg_cmd_named(u->r->spec, w, c, &nkeep);
	rc = round_scratch_empty(u, c->scratch, keep, nkeep, u->err,
	    sizeof u->err);
	template_free_argv(keep);
	if (rc != 0) {
		/* The folder is the user's to fix; then resume goes on. */
		round_abort_internal(u->r, "the scratch folder was refused");
		return -2;
	}
	return 0;
}

/* Whether the round file can name ${METRICS}: only that template tells a
 * leg where its metrics file is, so a round file that does not spell it
 * (nor could through a \u escape) has none to remove or look for, two
 * calls a leg fewer.  And whether the command itself names it: a leg
 * that then wrote no file is warned about. */
void
round_metrics_plan(struct run *u)
{
	const struct spec *s = u->r->spec;

	u->metrics_named = s->raw == NULL ||
	    memmem(s->raw, s->rawlen, "METRICS", 7) != NULL ||
	    memmem(s->raw, s->rawlen, "\\u", 2) != NULL;
	u->metrics_in_command = false;
	for (size_t i = 0; i < s->ncommand && !u->metrics_in_command; i++)
		u->metrics_in_command = strstr(s->command[i], "${METRICS}") !=
		    NULL;
}

/* Setup: the leg's command as legcmd builds it, and the scratch folder,
 * checked and emptied. */
static int
round_leg_setup(struct round_leg *l)
{
	struct run *u = l->u;
	const struct spec *s = u->r->spec;
	struct legcmd_where w = { .spec = s, .cell = l->pl->cell,
	    .arm = l->pl->arm, .rep = l->warmup > 0 ? 0 : l->pl->rep,
	    .warmup = l->warmup, .round_dir = u->r->dir };
	char e[640];

	if (legcmd_build(&w, &l->cmd, e, sizeof e) < 0) {
		snprintf(u->err, sizeof u->err, "leg %s: %s", l->name, e);
		return RUN_LEG_FAIL;
	}
	/* The leg's own metrics file: one left by an attempt that was
	 * aborted is not this leg's. */
	if (u->metrics_named)
		(void)unlink(l->cmd.metrics);
	/* Nor is its output file: the file is made at the leg's first byte,
	 * so a rerun that writes nothing would leave the old one. */
	if (u->r->rs != NULL && l->cmd.out_abs != NULL)
		(void)rfile_remove(l->cmd.out_abs);
	if (round_leg_scratch(u, &w, &l->cmd) != 0)
		return RUN_LEG_STOP;
	return RUN_LEG_GO;
}

/* A write to the leg's output file failed (werr): the harness's file, not
 * the leg.  The leg is not recorded (as "failed", for good) but runs
 * again on resume; the round stops resumably, naming the file and the
 * write's own error.  RUN_LEG_STOP. */
static int
round_leg_out_failed(struct round_leg *l, int werr, const char *what)
{
	struct run *u = l->u;
	const char *name = sysname_errname(werr);

	/* Its partial output is no evidence (the leg runs again), and on a
	 * full disk it holds the room the log needs to say so. */
	(void)rfile_remove(l->cmd.out_abs);
	snprintf(u->err, sizeof u->err, "%s: %s (%s) while writing the output "
	    "of %s %s; the leg is not recorded, and the round stopped: resume "
	    "runs it again once %s", l->cmd.out_abs, rfile_strerror(werr),
	    name != NULL ? name : "?", what, l->name, werr == ENOSPC ||
	    werr == EDQUOT ? "the disk has room" : "this is fixed");
	round_abort_internal(u->r, werr == ENOSPC || werr == EDQUOT ?
	    "the disk is full" : "the leg's output could not be written");
	return RUN_LEG_STOP;
}

/* Prepare: the round's prepare argv, with the leg's env, cwd and output
 * file, unmeasured.  Its exit code is recorded; anything but 0 fails the
 * leg, which then does not run (its output file holds prepare's). */
/* Run the leg's prepare argv (prepare) or its command as a leg runs:
 * its env, cwd, cpus, nice, timeout and cgroup, its output bounded
 * through l->out.  The command alone is measured (counters) and reported
 * (leg_start, stops and continues).  0; -1 with u->err when it could not
 * be started. */
static int
round_leg_exec(struct round_leg *l, bool prepare, struct leg_result *res)
{
	struct run *u = l->u;
	const struct spec *s = u->r->spec;
	struct leg_spec ls = {
		.path = prepare ? l->cmd.prepare_path : l->cmd.exec_path,
		.argv = prepare ? l->cmd.prepare : l->cmd.argv,
		.envp = l->cmd.envp, .cwd = l->cmd.cwd,
		.out_path = l->cmd.out_abs, .cpus = u->client_mask,
		.ncpus = u->ncpus, .nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = u->r->abort_pipe[0], .cg = u->cg_legs,
	};

	/* benchtui died while this leg ran before: perhaps its doing (kill
	 * -9 $PPID), which would end every resume the same way.  It runs
	 * under a stand-in parent now, which it would kill instead. */
	ls.stand_in = !prepare && u->r->rs != NULL &&
	    resume_leg_died(u->r->rs, l->cell->name, l->arm->name,
	    l->warmup > 0 ? 0 : l->pl->rep);
	if (!prepare) {
		ls.in_path = l->cmd.stdin_path;
		ls.ctr = u->ctr;
		ls.state_fn = round_leg_state;
		ls.tick_fn = round_leg_tick;
		ls.state_arg = l;
		l->start = round_leg_start_made(l);
	}
	if ((l->out = legout_create(l->cmd.out_abs, s->output_keep,
	    s->output_max_bytes, u->err, sizeof u->err)) == NULL)
		return -1;
	ls.out = l->out;
	if (!prepare)
		l->stand_in = ls.stand_in;
	return leg_run(&ls, res, prepare ? NULL : round_leg_started, l, u->err,
	    sizeof u->err) != 0 ? -1 : 0;
}

static int
round_leg_prepare(struct round_leg *l)
{
	struct leg_result res;
	long long bytes;
	int werr;

	/* Legs on another host: its agent runs prepare there first. */
	if (l->cmd.prepare == NULL || l->u->r->spec->host != NULL)
		return RUN_LEG_GO;
	if (round_leg_exec(l, true, &res) != 0) {
		round_abort_internal(l->u->r, "a leg's prepare could not be "
		    "started");
		return RUN_LEG_STOP;
	}
	round_leg_end_leftovers(l);
	legout_finish(l->out, &bytes, NULL, &werr);
	l->out = NULL;
	if (res.aborted)
		return RUN_LEG_STOP;
	if (werr != 0)
		return round_leg_out_failed(l, werr, "the prepare of");
	l->prepare_rc = res.signal == 0 && !res.timed_out ? res.rc : 128 +
	    (res.signal != 0 ? res.signal : 9);
	/* The file is the leg's once it runs (a failed prepare's stays). */
	if (l->prepare_rc == 0 && bytes > 0)
		(void)rfile_remove(l->cmd.out_abs);
	return RUN_LEG_GO;
}

/* The server's window opens, on its host after that host's gate, which
 * marks the leg as the local one does (round_gate_server). */
static int
round_leg_gate_server(struct round_leg *l)
{
	struct run *u = l->u;

	if (l->srv == NULL)
		return RUN_LEG_GO;
	if (round_gate_server(u, l->pl, l->name, l->srv, &l->gate) != 0)
		return RUN_LEG_STOP;
	/* The operator's keys that let the far gate go (a G lets the rest
	 * of the round go here too). */
	(void)round_gate_keys(u);
	return round_server_gone(u, l->pl, l->srv) ? RUN_LEG_STOP : RUN_LEG_GO;
}

/* Gate: hold until the machine is quiet (or the gate lets the leg go),
 * then make sure the cell's server outlived the wait and open its
 * window. */
static int
round_leg_gate(struct round_leg *l)
{
	struct run *u = l->u;

	/* Legs on another host: this machine's load is not theirs. */
	if (u->r->spec->host == NULL &&
	    round_gate(u, l->pl, l->name, &l->gate) != 0)
		return RUN_LEG_STOP;
	if (round_server_gone(u, l->pl, l->srv))
		return RUN_LEG_STOP;
	return round_leg_gate_server(l);
}

/* The pids a leg's leftovers are ended around: the server's, and ssh's
 * of each host (a handful). */
#define ROUND_LEG_KEEP 64

/* What the leg left outside its process group (setsid, double forks
 * reparented to us as subreaper) would run on into the next leg: end it
 * now, keeping the cell's server.  With a cgroup, leg_run has killed it
 * already (cgroup.kill): what is left is to reap those reparented to us. */
static void
round_leg_end_leftovers(struct round_leg *l)
{
	pid_t keep[ROUND_LEG_KEEP];
	size_t n = round_remote_keep(l->u, keep, ROUND_LEG_KEEP - 1);

	/* The server, and the ssh processes that reach servers elsewhere. */
	if (round_server_local_pid(l->srv) > 0)
		keep[n++] = round_server_local_pid(l->srv);
	if (l->u->cg_legs != NULL) {
		if (l->res.strays > 0)
			procs_reap_orphans(keep, n);
		return;
	}
	if (procs_has_child_except(keep, n))
		(void)procs_end_descendants(getpid(), keep, n, 0.5);
}

/* What a far leg's reply says beside its values: the prepare's exit,
 * and its bytes, as round_leg_run counts them (a filter's output, or
 * its scratch folder's there). */
static void
round_leg_far_values(struct round_leg *l)
{
	const struct spec *s = l->u->r->spec;
	const json_t *sb = json_object_get(l->far, "scratch_bytes");

	l->prepare_rc = round_far_prepare_rc(l->far);
	if (s->stdin_path != NULL && s->scratch == NULL)
		l->bytes = json_integer_value(json_object_get(l->far,
		    "output_bytes"));
	if (l->cmd.scratch != NULL)
		l->bytes = json_is_integer(sb) ? json_integer_value(sb) : -1;
}

/* The paths that emptying a far leg's scratch folder there must not
 * take (those its command names), or NULL without one. */
static char **
round_leg_far_keep(const struct round_leg *l)
{
	const struct spec *s = l->u->r->spec;
	struct legcmd_where w = { .spec = s, .cell = l->pl->cell,
	    .arm = l->pl->arm, .rep = l->warmup > 0 ? 0 : l->pl->rep,
	    .warmup = l->warmup, .round_dir = l->u->r->dir };
	size_t n = 0;

	return l->cmd.scratch != NULL ? round_leg_cmd_named(s, &w, &l->cmd,
	    &n) : NULL;
}

/* Run on the legs' host: its agent runs the leg as leg_run runs one here
 * and sends back its values; then the server's window, as here. */
static int
round_leg_run_far(struct round_leg *l)
{
	struct run *u = l->u;
	char **keep = round_leg_far_keep(l);
	int rc;

	l->start = round_leg_start_made(l);
	rc = round_far_leg(u, l->pl, l->name, &l->cmd, keep, l->start,
	    &l->res, &l->gate, &l->foreign, &l->far);
	template_free_argv(keep);
	json_decref(l->start);
	l->start = NULL;
	if (rc != 0)
		return RUN_LEG_STOP;
	round_leg_far_values(l);
	if (l->srv != NULL) {
		l->srvblock = round_server_close(u, l->srv, l->name);
		if (l->srvblock == NULL && round_server_host(l->srv) != NULL)
			return RUN_LEG_STOP;
		if (!l->res.aborted && !round_server_alive(l->srv))
			l->died = true;
	}
	return RUN_LEG_GO;
}

/* Run: the argv, env and output file, leg_run, then the foreign CPU
 * during it, whether the server survived it, what it left behind and the
 * scratch folder's size. */
static int
round_leg_run(struct round_leg *l)
{
	struct run *u = l->u;
	const struct spec *s = u->r->spec;
	int werr = 0;

	if (s->host != NULL)
		return round_leg_run_far(l);
	/* Foreign CPU during the leg comes from the gate's background
	 * samples; with the gate switched off ("quiet": false) it is not
	 * measured (null). */
	if (u->quiet != NULL && s->quiet.enabled)
		quiet_leg_begin(u->quiet);
	/* The server's tree is measured over the leg's window, opened by
	 * the gate step: its counters open on every thread before the leg
	 * starts. */
	if (round_leg_exec(l, false, &l->res) != 0) {
		/* Could not start it (disk full for the output file, no
		 * fds): stop resumably. */
		round_abort_internal(u->r, "a leg could not be started");
		return RUN_LEG_STOP;
	}
	if (l->srv != NULL) {
		l->srvblock = round_server_close(u, l->srv, l->name);
		/* A server's host lost: no leg line; resume runs it again. */
		if (l->srvblock == NULL && round_server_host(l->srv) != NULL)
			return RUN_LEG_STOP;
	}
	round_gate_leg_ran(u, l->pl, &l->res);
	if (u->quiet != NULL && s->quiet.enabled) {
		struct quiet_seen during;

		l->foreign = quiet_leg_end(u->quiet, &during);
		l->gate.client_busy = during.client_busy;
		l->gate.server_busy = during.server_busy;
		round_gate_leg_beside(u, during.staying, &l->gate);
		/* A server elsewhere: its cpus are judged by its host's gate. */
		if (round_server_host(l->srv) != NULL)
			l->gate.server_busy = round_server_far_busy(l->srv);
	}
	if (l->srv != NULL && !l->res.aborted && !round_server_alive(l->srv))
		l->died = true;
	round_leg_end_leftovers(l);
	/* Only now can the pipe reach EOF: the leftovers held it too. */
	legout_finish(l->out, &l->out_bytes, &l->out_truncated, &werr);
	l->out = NULL;
	/* The write's own error, whatever the disk looks like by now (a
	 * leg may fill it and free it again): never an "ok" leg whose
	 * output was lost. */
	if (!l->res.aborted && werr != 0)
		return round_leg_out_failed(l, werr, "leg");
	/* A filter (a round that feeds stdin and has no scratch folder,
	 * "lz4 -c") makes its output: its bytes are what it wrote. */
	if (s->stdin_path != NULL && s->scratch == NULL)
		l->bytes = l->out_bytes;
	/* A scratch folder the leg turned into a link is not "0 bytes": the
	 * round stops, and the leg runs again once it is a folder again. */
	if (l->cmd.scratch != NULL &&
	    (l->bytes = round_scratch_size(l->cmd.scratch, u->err,
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
round_leg_metrics(struct run *u, const struct round_leg *l,
    const struct leg_result *res)
{
	char why[256];
	bool absent;
	json_t *m;

	if ((m = legmetrics_read(l->cmd.metrics, res->ended, &absent, why,
	    sizeof why)) != NULL)
		return m;
	if (absent && (!u->metrics_in_command ||
	    !spec_ok_rc(u->r->spec, res->rc) || res->signal != 0))
		return NULL;
	if (absent)
		snprintf(why, sizeof why, "was not written");
	round_warn(u, "leg %s: metrics file %s %s; the leg has no metrics",
	    l->name, l->cmd.metrics_rel, why);
	return NULL;
}

/* Prepare failed: the leg did not run, and nothing was measured. */
static void
round_leg_unmeasured(json_t *ev)
{
	static const char *const unmeasured[] = { "rc", "wall", "utime",
	    "stime", "cpu", "maxrss_kb", "minflt", "majflt", "pid", NULL };
	json_t *ctrs = json_object_get(ev, "counters");
	const char *key;
	json_t *v;

	json_object_set_new(ev, "status", json_string("failed"));
	for (size_t i = 0; unmeasured[i] != NULL; i++)
		json_object_set_new(ev, unmeasured[i], json_null());
	json_object_foreach(ctrs, key, v)
		json_object_set_new(ctrs, key, json_null());
	json_object_set_new(ev, "cycles", json_null());
	json_object_set_new(ev, "instructions", json_null());
	json_object_set_new(ev, "multiplexed", json_array());
	json_object_del(ev, "ipc");
}

/* The warnings that follow a leg line. */
static void
round_leg_warnings(const struct round_leg *l, const char *ran, int tsig)
{
	struct run *u = l->u;

	if (l->res.killed_parent)
		round_warn(u, "leg %s killed its parent: benchtui died while it "
		    "ran before, so it ran again under a stand-in parent, and "
		    "that was killed (SIGKILL) while the leg ran; it is recorded "
		    "as failed, so resume goes on.  A leg must not signal its "
		    "parent (kill $PPID)", l->name);
	if (tsig != 0)
		round_warn(u, "leg %s: process %d of the round's own tree "
		    "sent benchtui SIG%s; that is the leg's doing, not an "
		    "operator's abort, so the round goes on", l->name,
		    atomic_load(&u->r->tree_pid),
		    round_leg_sig_abbrev(tsig));
	round_warn_counters(u);
	if (l->prepare_rc > 0)
		round_warn(u, "leg %s: prepare exited %d; the leg did not run (its "
		    "output is in %s)", l->name, l->prepare_rc, l->cmd.out_rel);
	if (l->res.exec_errno != 0) {
		char why[1200];

		spawn_step_words(l->res.exec_step, l->res.exec_errno, ran,
		    l->cmd.cwd, u->r->spec->nice, why, sizeof why);
		round_warn(u, "leg %s: %s", l->name, why);
	}
}

/* Record: the leg line, its warnings, and a server that died during it. */
static int
round_leg_record(struct round_leg *l)
{
	struct run *u = l->u;
	const char *ran = l->cmd.program != NULL ? l->cmd.program :
	    l->cmd.argv[0];

	struct stat wst;

	/* An exec that failed because the workdir has gone is not the
	 * program's fault (the child's chdir failed, not /bin/sh): the round
	 * stops, and the leg runs again once the workdir is back. */
	if (l->res.exec_errno != 0 && stat(u->r->spec->workdir, &wst) != 0) {
		snprintf(u->err, sizeof u->err, "the workdir %s is gone (%s), so "
		    "leg %s could not start in it; the round stopped, resume "
		    "continues it once the workdir is back",
		    u->r->spec->workdir, strerror(errno), l->name);
		round_abort_internal(u->r, "the workdir is gone");
		return RUN_LEG_STOP;
	}
	json_t *ev = round_leg_event(u, l->pl, l->warmup, &l->res, ran, l->bytes,
	    l->foreign, &l->gate, l->died);
	int tsig = atomic_exchange(&u->r->tree_sig, 0);

	json_t *metrics;

	if (l->srvblock != NULL) {
		json_object_set_new(ev, "server", l->srvblock);
		l->srvblock = NULL;
	}
	if (l->far != NULL)
		round_far_record(ev, l->far, l->host);
	if (!l->res.aborted && l->prepare_rc <= 0 &&
	    u->metrics_named &&
	    (metrics = round_leg_metrics(u, l, &l->res)) != NULL)
		json_object_set_new(ev, "metrics", metrics);
	if (l->prepare_rc >= 0)
		json_object_set_new(ev, "prepare_rc",
		    json_integer(l->prepare_rc));
	if (l->stand_in)
		json_object_set_new(ev, "stand_in_parent", json_true());
	if (l->res.killed_parent)
		json_object_set_new(ev, "killed_parent", json_true());
	if (l->out_bytes >= 0) {
		json_object_set_new(ev, "output_bytes",
		    json_integer(l->out_bytes));
		json_object_set_new(ev, "output_truncated",
		    json_boolean(l->out_truncated));
	}
	if (l->prepare_rc > 0)
		round_leg_unmeasured(ev);
	/* A signal benchtui got from the round's own tree is the leg's
	 * doing: on its line, and the round goes on. */
	if (tsig != 0 && ev != NULL) {
		char name[32];

		snprintf(name, sizeof name, "SIG%s", round_leg_sig_abbrev(tsig));
		json_object_set_new(ev, "signalled_benchtui", json_string(name));
		json_object_set_new(ev, "signalled_by",
		    json_integer(atomic_load(&u->r->tree_pid)));
	}
	enum tally_leg_status st = tally_leg_status(ev);

	u->last_leg_bad = st == TALLY_LEG_FAILED || st == TALLY_LEG_TIMED_OUT;
	round_emit_new(u, ev);
	round_leg_warnings(l, ran, tsig);
	if (l->died && l->multi)
		return RUN_LEG_GO;
	if (l->died) {
		round_server_died(u, l->cell, l->srv);
		snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) "
		    "during leg %s; the round stopped, resume continues it",
		    l->cell->name, round_server_death(l->srv), l->name);
		round_abort_internal(u->r, "the cell's server died");
		return RUN_LEG_STOP;
	}
	if (l->res.aborted || round_aborted(u))
		return RUN_LEG_STOP;
	return RUN_LEG_GO;
}

int
round_leg(struct run *u, const struct plan_leg *pl, int warmup,
    struct round_srv *srv, bool *failed)
{
	const struct spec *s = u->r->spec;
	struct round_leg l = { .u = u, .pl = pl, .warmup = warmup, .srv = srv,
		.cell = &s->cells[pl->cell], .arm = &s->arms[pl->arm],
		.prepare_rc = -1, .out_bytes = -1, .foreign = -1, .bytes = -1,
		.host = s->host };
	struct round_srv *own = NULL;
	int rc;

	snprintf(l.name, sizeof l.name, "%s %s %c%d", l.cell->name,
	    l.arm->name, warmup > 0 ? 'w' : 'r', warmup > 0 ? warmup : pl->rep);
	round_pause_point(u);
	if (s->settle_s > 0 && !round_aborted(u))
		round_wait(u, s->settle_s, false);
	if (round_aborted(u) || round_server_gone(u, pl, srv))
		return -1;
	/* A server per leg: started and ready before the leg's measurement
	 * begins, stopped after it ends. */
	if (srv == NULL && spec_server_per_leg(s, l.cell)) {
		round_pause_point(u);
		if (round_aborted(u))
			return -1;
		if ((l.srv = round_server_start(u, l.cell, l.arm,
		    warmup > 0 ? 0 : pl->rep)) == NULL) {
			round_server_wont_start(u);
			return -1;
		}
		round_ledger_note(u);
		own = l.srv;
	}
	if ((rc = round_leg_setup(&l)) == RUN_LEG_GO &&
	    (rc = round_leg_prepare(&l)) == RUN_LEG_GO) {
		if (l.prepare_rc <= 0 &&
		    (rc = round_leg_gate(&l)) == RUN_LEG_GO)
			rc = round_leg_run(&l);
		if (rc == RUN_LEG_GO)
			rc = round_leg_record(&l);
	}
	/* What the server started meanwhile (the leg's own leftovers are
	 * ended by now). */
	if (l.srv != NULL && own == NULL)
		round_ledger_note(u);
	if (own != NULL)
		round_server_stop(u, l.cell, own);
	legout_finish(l.out, NULL, NULL, NULL);
	json_decref(l.start);
	legcmd_finish(&l.cmd);
	json_decref(l.srvblock);
	json_decref(l.far);
	if (rc == RUN_LEG_FAIL)
		*failed = true;
	return rc == RUN_LEG_GO ? 0 : -1;
}

struct round_leg *
round_leg_far_begin(struct run *u, const struct plan_leg *pl, int warmup,
    const char *host, json_t **req, struct remote_gate *rg)
{
	const struct spec *s = u->r->spec;
	struct round_leg *l = xcalloc(1, sizeof *l);
	char **keep;

	*l = (struct round_leg){ .u = u, .pl = pl, .warmup = warmup,
		.cell = &s->cells[pl->cell], .arm = &s->arms[pl->arm],
		.prepare_rc = -1, .out_bytes = -1, .foreign = -1, .bytes = -1,
		.host = host, .multi = true };
	snprintf(l->name, sizeof l->name, "%s %s %c%d", l->cell->name,
	    l->arm->name, warmup > 0 ? 'w' : 'r', warmup > 0 ? warmup :
	    pl->rep);
	*req = NULL;
	if (round_leg_setup(l) != RUN_LEG_GO) {
		round_leg_far_free(l);
		return NULL;
	}
	keep = round_leg_far_keep(l);
	l->start = round_leg_start_made(l);
	*req = round_far_request(u, &l->cmd, keep, l->start, host);
	template_free_argv(keep);
	json_decref(l->start);
	l->start = NULL;
	if (*req == NULL) {
		round_leg_far_free(l);
		return NULL;
	}
	l->gated = round_gate_far_ask(u, pl, rg);
	return l;
}

bool
round_leg_far_gated(const struct round_leg *l)
{
	return l->gated;
}

const char *
round_leg_far_name(const struct round_leg *l)
{
	return l->name;
}

const char *
round_leg_far_out(const struct round_leg *l)
{
	return l->cmd.out_rel;
}

int
round_leg_far_end(struct round_leg *l, json_t *far, json_t *srvblock,
    bool died)
{
	l->far = far;
	round_leg_far_values(l);
	l->srvblock = srvblock;
	if (round_far_reply(l->u, l->name, l->host, l->gated, far, &l->res,
	    &l->gate, &l->foreign) != 0)
		return -1;
	l->died = died && !l->res.aborted;
	return round_leg_record(l) == RUN_LEG_GO ? 0 : -1;
}

void
round_leg_far_free(struct round_leg *l)
{
	if (l == NULL)
		return;
	json_decref(l->start);
	legcmd_finish(&l->cmd);
	json_decref(l->far);
	json_decref(l->srvblock);
	free(l);
}
