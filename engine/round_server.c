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
#include "template.h"

/* Grace between SIGTERM and SIGKILL when a cell's server is stopped. */
#define ROUND_SERVER_GRACE_S 2.0

/* The server's environment: server.env, and a per-leg server's arm's
 * server_env over it (a key in both takes the arm's value), over
 * benchtui's. */
static char **
run_server_envp(const struct spec_server *sv, const struct spec_arm *arm)
{
	size_t na = arm != NULL ? arm->nserver_env : 0, n = 0;
	struct spec_kv *kv = calloc(sv->nenv + na + 1, sizeof *kv);
	char **envp;

	if (kv == NULL)
		return NULL;
	for (size_t i = 0; i < sv->nenv; i++) {
		bool over = false;

		for (size_t j = 0; j < na && !over; j++)
			over = strcmp(sv->env[i].key,
			    arm->server_env[j].key) == 0;
		if (!over)
			kv[n++] = sv->env[i];
	}
	for (size_t j = 0; j < na; j++)
		kv[n++] = arm->server_env[j];
	envp = run_envp(kv, n);
	free(kv);
	return envp;
}

/* A server event: the cell, and for a server per leg its arm and rep. */
static json_t *
run_server_event(const struct spec_cell *cell, const struct spec_arm *arm,
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
run_server_start(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct spec_server *sv = cell->server;
	/* The round's bin for the cell's server: expanded for the cell alone
	 * (no ARM, no REP); when it needs more, check already made sure the
	 * server's cmd does not use ${BIN}. */
	struct template_ctx ctx = { .spec = s, .cell = cell, .rep = 0,
		.round_dir = r->dir };
	char *xbin = NULL, *bin = run_resolve_bin(s, s->bin, &ctx, &xbin,
	    u->err, sizeof u->err);
	const char *cpus = sv->cpus != NULL ? sv->cpus : s->server_cpus;
	unsigned char *mask = NULL;
	char **argv = NULL, **envp = NULL, *log = NULL;
	struct server *srv = NULL;
	json_t *ev;

	u->err[0] = '\0';
	u->srv_death_logged = false;
	u->srv_arm = arm;
	u->srv_rep = rep;
	ctx.arm = arm != NULL ? arm->name : "";
	ctx.rep = rep;
	ctx.server_bin = arm != NULL ? arm->server_bin : NULL;
	ctx.bin = bin != NULL ? bin : xbin != NULL ? xbin : "";
	ctx.scratch = "";
	if (cpus != NULL && (mask = calloc((size_t)u->ncpus, 1)) != NULL &&
	    spec_cpulist_parse(cpus, mask, u->ncpus) != 0) {
		run_warn(u, "cell %s: server cpus \"%s\" are not all on this "
		    "machine (%d cpus); the server is not pinned", cell->name,
		    cpus, u->ncpus);
		free(mask);
		mask = NULL;
	}
	if ((argv = run_expand_argv(sv->cmd, sv->ncmd, &ctx, u->err,
	    sizeof u->err)) == NULL ||
	    (envp = run_server_envp(sv, arm)) == NULL ||
	    asprintf(&log, "%s/servers/%s.log", r->dir, cell->name) < 0) {
		if (u->err[0] == '\0')
			snprintf(u->err, sizeof u->err, "out of memory");
		goto out;
	}
	ev = run_server_event(cell, arm, rep, "starting");
	json_object_set_new(ev, "pid", json_null());
	json_object_set_new(ev, "log", json_string(log + strlen(r->dir) + 1));
	run_emit_new(u, ev);
	{
		struct server_params sp = { .cell = cell->name, .argv = argv,
			.envp = envp, .cwd = s->workdir, .log_path = log,
			.cpus = mask, .ncpus = u->ncpus, .tcp_port = sv->tcp_port,
			.ready_timeout_s = sv->ready_timeout_s,
			.abort_fd = r->abort_pipe[0],
			.cgroup_procs_fd = u->cg_servers != NULL ?
			    cgroup_procs_fd(u->cg_servers) : -1 };

		srv = server_start(&sp, u->err, sizeof u->err);
	}
	ev = run_server_event(cell, arm, rep, srv != NULL ? "ready" : "died");
	json_object_set_new(ev, "pid", srv != NULL ?
	    json_integer(server_pid(srv)) : json_null());
	if (srv == NULL)
		json_object_set_new(ev, "msg", json_string(u->err));
	run_emit_new(u, ev);
out:
	run_free_strv(argv);
	run_free_strv(envp);
	free(log);
	free(mask);
	free(bin);
	free(xbin);
	return srv;
}

void
run_server_stop(struct run *u, const struct spec_cell *cell,
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
		run_server_died(u, cell, srv);
		server_destroy(srv);
		return;
	}
	ev = run_server_event(cell, u->srv_arm, u->srv_rep, state);
	json_object_set_new(ev, "pid", json_integer(pid));
	run_emit_new(u, ev);
	server_destroy(srv);
}

void
run_server_died(struct run *u, const struct spec_cell *cell,
    struct server *srv)
{
	json_t *ev;

	if (u->srv_death_logged)
		return;
	u->srv_death_logged = true;
	ev = run_server_event(cell, u->srv_arm, u->srv_rep, "died");
	json_object_set_new(ev, "pid", json_integer(server_pid(srv)));
	json_object_set_new(ev, "msg", json_string(server_death(srv)));
	run_emit_new(u, ev);
}

/* Before a leg: a server that died since the last leg (or while the gate
 * waited) stops the round resumably, before a leg runs against nothing.
 * waitpid WNOHANG, so cheap enough for the leg path. */
bool
run_server_gone(struct run *u, const struct plan_leg *pl, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[pl->cell];

	if (srv == NULL || server_alive(srv))
		return false;
	run_server_died(u, cell, srv);
	snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) before "
	    "leg %s r%d; the round stopped, resume continues it", cell->name,
	    server_death(srv), s->arms[pl->arm].name, pl->rep);
	round_abort_internal(u->r, "the cell's server died");
	return true;
}
