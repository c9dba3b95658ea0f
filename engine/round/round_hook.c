/* The round driver, a cell's setup and cleanup: once before the cell's
 * first leg (after its server is ready) and once after its last, built by
 * legcmd, run as a leg runs (its cpus, nice, cgroup, output file) but not
 * measured; each a "hook" event. */
#include <stdio.h>
#include <string.h>

#include "event.h"
#include "leg.h"
#include "legcmd.h"
#include "round_int.h"
#include "sysname.h"

/* How long a cleanup may take once the round is aborted (an abort would
 * otherwise end it at once) and the round sets no timeout_s. */
#define ROUND_HOOK_CLEANUP_S 30.0

/* "exited 3", "was killed by SIGKILL (signal 9)", "timed out after 600
 * s", "could not run: ..." */
static void
round_hook_how(char *buf, size_t len, const struct leg_result *res,
    double limit)
{
	if (res->exec_errno != 0)
		snprintf(buf, len, "could not run: %s", strerror(res->exec_errno));
	else if (res->timed_out)
		snprintf(buf, len, "timed out after %g s (its process group was "
		    "killed)", limit);
	else if (res->signal != 0)
		snprintf(buf, len, "was killed by SIG%s (signal %d)",
		    sysname_sigabbrev(res->signal) ? sysname_sigabbrev(
		    res->signal) : "?", res->signal);
	else
		snprintf(buf, len, "exited %d", res->rc);
}

/* The limit a setup or cleanup runs under: hook_timeout_s, else the
 * legs' timeout_s, else SPEC_HOOK_TIMEOUT_S. */
static double
round_hook_limit(const struct spec *s)
{
	return s->hook_timeout_s > 0 ? s->hook_timeout_s : s->timeout_s > 0 ?
	    s->timeout_s : SPEC_HOOK_TIMEOUT_S;
}

/* hook_start: what runs now, for the console and the headless line (a
 * setup may take minutes). */
static void
round_hook_start(struct run *u, const struct spec_cell *cell,
    const char *which, const struct legcmd *c, double limit)
{
	json_t *ev = event_new("hook_start");

	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "hook", json_string(which));
	json_object_set_new(ev, "argv", legcmd_argv_json(c->argv));
	json_object_set_new(ev, "out", json_string(c->out_rel));
	json_object_set_new(ev, "timeout_s", json_real(limit));
	round_emit_new(u, ev);
}

static void
round_hook_event(struct run *u, const struct spec_cell *cell,
    const char *which, const struct legcmd *c, const struct leg_result *res)
{
	json_t *ev = event_new("hook");

	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "hook", json_string(which));
	json_object_set_new(ev, "argv", legcmd_argv_json(c->argv));
	json_object_set_new(ev, "out", json_string(c->out_rel));
	json_object_set_new(ev, "rc", res->signal == 0 && res->rc >= 0 ?
	    json_integer(res->rc) : json_null());
	json_object_set_new(ev, "timed_out", json_boolean(res->timed_out));
	json_object_set_new(ev, "wall", json_real(res->wall));
	round_emit_new(u, ev);
}

/* Run it: 0 when it exited 0, 1 when it failed (why in how), -1 when it
 * could not be started (u->err) or the round was aborted meanwhile. */
static int
round_hook_exec(struct run *u, struct legcmd *c, bool cleanup,
    struct leg_result *res, char *how, size_t howlen)
{
	const struct spec *s = u->r->spec;
	bool aborted = round_aborted(u);
	struct leg_spec ls = {
		.path = c->exec_path, .argv = c->argv, .envp = c->envp,
		.cwd = c->cwd, .out_path = c->out_abs, .cpus = u->client_mask,
		.ncpus = u->ncpus, .nice = s->nice,
		.timeout_s = round_hook_limit(s),
		.abort_fd = u->r->abort_pipe[0], .cg = u->cg_legs,
	};

	/* A cleanup after an abort still runs, bounded. */
	if (cleanup && aborted) {
		ls.abort_fd = -1;
		if (ls.timeout_s <= 0 || ls.timeout_s > ROUND_HOOK_CLEANUP_S)
			ls.timeout_s = ROUND_HOOK_CLEANUP_S;
	}
	if (leg_run(&ls, res, NULL, NULL, u->err, sizeof u->err) != 0)
		return -1;
	if (res->aborted)
		return -1;
	round_hook_how(how, howlen, res, ls.timeout_s);
	return res->exec_errno == 0 && !res->timed_out && res->signal == 0 &&
	    res->rc == 0 ? 0 : 1;
}

int
round_hook(struct run *u, size_t c, bool cleanup)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[c];
	const char *which = cleanup ? "cleanup" : "setup";
	struct leg_result res;
	struct legcmd cmd;
	char e[640], how[160];
	int rc;

	if ((cleanup ? cell->cleanup : cell->setup) == NULL)
		return 0;
	if (legcmd_hook(s, c, cleanup, u->r->dir, &cmd, e, sizeof e) < 0) {
		snprintf(u->err, sizeof u->err, "cell %s: %s", cell->name, e);
		rc = -1;
	} else if (round_hook_start(u, cell, which, &cmd,
	    round_hook_limit(s)), (rc = round_hook_exec(u, &cmd, cleanup,
	    &res, how, sizeof how)) >= 0)
		round_hook_event(u, cell, which, &cmd, &res);
	if (rc != 0 && cleanup)
		round_warn(u, "cell %s: cleanup %s (its output is in %s)",
		    cell->name, rc > 0 ? how : u->err, cmd.out_rel ?
		    cmd.out_rel : "no file");
	else if (rc != 0 && !round_aborted(u)) {
		if (rc > 0)
			snprintf(u->err, sizeof u->err, "cell %s: setup %s (its "
			    "output is in %s); the round stopped, resume runs "
			    "the setup again", cell->name, how, cmd.out_rel);
		u->stop_logged_err = true;
		round_abort_internal(u->r, "a cell's setup failed");
	}
	legcmd_finish(&cmd);
	return rc == 0 ? 0 : -1;
}
