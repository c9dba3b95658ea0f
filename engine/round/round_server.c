/* The round driver, a cell's server: started before the cell's first leg
 * and waited on until ready, checked before and after each leg, stopped by
 * its pid after the cell; each change of state is a "server" event. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "event.h"
#include "round_int.h"
#include "server.h"
#include "legcmd.h"
#include "xalloc.h"

/* Grace between SIGTERM and SIGKILL when a cell's server is stopped. */
#define ROUND_SERVER_GRACE_S 2.0

/* A server event: the cell, and for a server per leg its arm and rep. */
static json_t *
round_server_event(const struct spec_cell *cell, const struct spec_arm *arm,
    int rep, const char *state)
{
	json_t *ev = event_new("server");

	json_object_set_new(ev, "cell", json_string(cell->name));
	if (arm != NULL) {
		json_object_set_new(ev, "arm", json_string(arm->name));
		json_object_set_new(ev, "rep", json_integer(rep));
	}
	json_object_set_new(ev, "state", json_string(state));
	return ev;
}

struct server *
round_server_start(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct spec_server *sv = cell->server;
	const char *cpus = sv->cpus != NULL ? sv->cpus : s->server_cpus;
	unsigned char *mask = NULL;
	struct server *srv = NULL;
	const char *cause = "failed";
	struct legcmd cmd;
	char e[640];
	json_t *ev;

	u->err[0] = '\0';
	u->srv_death_logged = false;
	u->srv_arm = arm;
	u->srv_rep = rep;
	if (cpus != NULL) {
		mask = xcalloc((size_t)u->ncpus, 1);
		if (spec_cpulist_parse(cpus, mask, u->ncpus) != 0) {
			round_warn(u, "cell %s: server cpus \"%s\" are not all on "
			    "this machine (%d cpus); the server is not pinned",
			    cell->name, cpus, u->ncpus);
			free(mask);
			mask = NULL;
		}
	}
	if (legcmd_server(s, (size_t)(cell - s->cells), arm != NULL ?
	    (int)(arm - s->arms) : -1, rep, r->dir, &cmd, e, sizeof e) < 0) {
		snprintf(u->err, sizeof u->err, "cell %s: %s", cell->name, e);
		goto out;
	}
	ev = round_server_event(cell, arm, rep, "starting");
	json_object_set_new(ev, "pid", json_null());
	json_object_set_new(ev, "log", json_string(cmd.out_rel));
	json_object_set_new(ev, "argv", legcmd_argv_json(cmd.argv));
	round_emit_new(u, ev);
	{
		struct server_params sp = { .cell = cell->name,
			.path = cmd.exec_path, .argv = cmd.argv,
			.envp = cmd.envp, .cwd = cmd.cwd, .log_path = cmd.out_abs,
			.cpus = mask, .ncpus = u->ncpus, .tcp_port = sv->tcp_port,
			.ready_timeout_s = sv->ready_timeout_s,
			.abort_fd = r->abort_pipe[0], .cg = u->cg_servers };

		srv = server_start(&sp, &cause, u->err, sizeof u->err);
	}
	/* A server that never came up is not always one that died: its
	 * port was someone else's, it did not listen in time, or the
	 * operator aborted the wait.  "cause" tells them apart. */
	ev = round_server_event(cell, arm, rep, srv != NULL ? "ready" :
	    round_aborted(u) ? "stopped" : "died");
	json_object_set_new(ev, "pid", srv != NULL ?
	    json_integer(server_pid(srv)) : json_null());
	if (srv == NULL) {
		json_object_set_new(ev, "msg", json_string(u->err));
		json_object_set_new(ev, "cause", json_string(
		    round_aborted(u) ? "aborted" : cause));
	}
	round_emit_new(u, ev);
out:
	legcmd_finish(&cmd);
	free(mask);
	return srv;
}

void
round_server_stop(struct run *u, const struct spec_cell *cell,
    struct server *srv)
{
	json_t *ev;
	pid_t pid = server_pid(srv);
	const char *state = server_stop(srv, ROUND_SERVER_GRACE_S);

	/* A death the leg loop saw is logged already, with its cause. */
	if (u->srv_death_logged && strcmp(state, "died") == 0) {
		server_destroy(srv);
		return;
	}
	if (strcmp(state, "died") == 0) {
		/* Died after the last leg: log it once, with its cause. */
		round_server_died(u, cell, srv);
		server_destroy(srv);
		return;
	}
	ev = round_server_event(cell, u->srv_arm, u->srv_rep, state);
	json_object_set_new(ev, "pid", json_integer(pid));
	round_emit_new(u, ev);
	server_destroy(srv);
}

void
round_server_died(struct run *u, const struct spec_cell *cell,
    struct server *srv)
{
	json_t *ev;

	if (u->srv_death_logged)
		return;
	u->srv_death_logged = true;
	ev = round_server_event(cell, u->srv_arm, u->srv_rep, "died");
	json_object_set_new(ev, "pid", json_integer(server_pid(srv)));
	json_object_set_new(ev, "msg", json_string(server_death(srv)));
	round_emit_new(u, ev);
}

/* Before a leg: a server that died since the last leg (or while the gate
 * waited) stops the round resumably, before a leg runs against nothing.
 * waitpid WNOHANG, so cheap enough for the leg path. */
bool
round_server_gone(struct run *u, const struct plan_leg *pl, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[pl->cell];

	if (srv == NULL || server_alive(srv))
		return false;
	round_server_died(u, cell, srv);
	snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) before "
	    "leg %s r%d; the round stopped, resume continues it", cell->name,
	    server_death(srv), s->arms[pl->arm].name, pl->rep);
	round_abort_internal(u->r, "the cell's server died");
	return true;
}

void
round_server_wont_start(struct run *u)
{
	size_t n = strlen(u->err);

	if (round_aborted(u))
		return;
	snprintf(u->err + n, sizeof u->err - n, "; the round stopped, "
	    "resume continues it once the server starts");
	round_abort_internal(u->r, "the cell's server would not start");
}
