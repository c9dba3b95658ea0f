/* The round driver, a cell's server: started before the cell's first leg
 * (or each leg) and waited on until ready, checked before and after each
 * leg, measured over each leg's window, stopped by its pid after the
 * cell; each change of state is a "server" event.  A server on another
 * host takes the same steps through its host's agent (remote.h): what
 * differs is here, so the leg loop and the profiles see one shape. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "clock.h"
#include "event.h"
#include "legcmd.h"
#include "quiet.h"
#include "remote.h"
#include "round_int.h"
#include "server.h"
#include "srvmeter.h"
#include "xalloc.h"

/* Grace between SIGTERM and SIGKILL when a cell's server is stopped. */
#define ROUND_SERVER_GRACE_S 2.0

struct round_srv {
	struct server *local;     /* NULL for a server on another host */
	struct remote *rm;        /* that host's agent */
	const char *host;
	pid_t pid;                /* its pid (there, for a remote one) */
	bool dead;                /* a remote one: its agent said so */
	char death[160];
	struct srvmeter *meter;   /* a local one's open window */
	bool window;              /* a remote one's open window */
	struct round_srv_gate far; /* its host's gate before that window */
	double far_busy;          /* its cpus' foreign work over the last
	                           * closed one (NAN) */
	/* A copy on one of several hosts: its host lost stops that host's
	 * legs alone (round_hosts.c), not the round. */
	bool copy;
	bool death_logged;        /* its death is in the log */
	/* A server per leg: its arm and rep (NULL, 0: the cell's), which
	 * its events name; on several hosts several run at once. */
	const struct spec_arm *arm;
	int rep;
};

/* A server event: the cell, and for a server per leg its arm and rep;
 * its host (NULL: here). */
static json_t *
round_server_event(const struct spec_cell *cell, const struct spec_arm *arm,
    int rep, const char *state, const char *host)
{
	json_t *ev = event_new("server");

	json_object_set_new(ev, "cell", json_string(cell->name));
	if (arm != NULL) {
		json_object_set_new(ev, "arm", json_string(arm->name));
		json_object_set_new(ev, "rep", json_integer(rep));
	}
	json_object_set_new(ev, "state", json_string(state));
	if (host != NULL)
		json_object_set_new(ev, "host", json_string(host));
	return ev;
}

pid_t
round_server_local_pid(const struct round_srv *srv)
{
	return srv != NULL && srv->local != NULL ? srv->pid : 0;
}

struct server *
round_server_here(const struct round_srv *srv)
{
	return srv != NULL ? srv->local : NULL;
}

const char *
round_server_host(const struct round_srv *srv)
{
	return srv != NULL ? srv->host : NULL;
}

bool
round_server_alive(struct round_srv *srv)
{
	if (srv->local != NULL)
		return server_alive(srv->local);
	return !srv->dead;
}

const char *
round_server_death(const struct round_srv *srv)
{
	if (srv->local != NULL)
		return server_death(srv->local);
	return srv->dead ? srv->death : "is running";
}

/* A remote reply's "alive": false is a death, with the agent's words. */
static void
round_server_remote_alive(struct round_srv *srv, const json_t *reply)
{
	const char *d = json_string_value(json_object_get(reply, "death"));

	if (json_is_false(json_object_get(reply, "alive")) && !srv->dead) {
		char name[REMOTE_NAME_MAX];

		srv->dead = true;
		snprintf(srv->death, sizeof srv->death, "%s on %s",
		    d != NULL ? d : "ended", remote_name(srv->host, name));
	}
}

/* The pin mask of the server's cpus on this machine, or NULL. */
static unsigned char *
round_server_mask(struct run *u, const struct spec_cell *cell,
    const char *cpus)
{
	unsigned char *mask;

	if (cpus == NULL)
		return NULL;
	mask = xcalloc((size_t)u->ncpus, 1);
	if (spec_cpulist_parse(cpus, mask, u->ncpus) == 0)
		return mask;
	round_warn(u, "cell %s: server cpus \"%s\" are not all on this machine "
	    "(%d cpus); the server is not pinned", cell->name, cpus, u->ncpus);
	free(mask);
	return NULL;
}

/* Here: server.c starts it, in the servers' cgroup. */
static struct round_srv *
round_server_start_here(struct run *u, const struct spec_cell *cell,
    const struct legcmd *cmd, const char *cpus, const char **cause)
{
	const struct spec_server *sv = cell->server;
	unsigned char *mask = round_server_mask(u, cell, cpus);
	struct server_params sp = { .cell = cell->name, .path = cmd->exec_path,
		.argv = cmd->argv, .envp = cmd->envp, .cwd = cmd->cwd,
		.log_path = cmd->out_abs, .cpus = mask, .ncpus = u->ncpus,
		.tcp_port = sv->tcp_port, .ready_timeout_s = sv->ready_timeout_s,
		.abort_fd = u->r->abort_pipe[0], .cg = u->cg_servers };
	struct server *s = server_start(&sp, cause, u->err, sizeof u->err);
	struct round_srv *srv = NULL;

	if (s != NULL) {
		srv = xcalloc(1, sizeof *srv);
		srv->far_busy = NAN;
		srv->local = s;
		srv->pid = server_pid(s);
		/* The gate judges the server's cpus on their own from now
		 * on. */
		if (u->quiet != NULL)
			quiet_set_server(u->quiet, srv->pid, mask, u->ncpus);
	}
	free(mask);
	return srv;
}

/* There (host): its host's agent starts it in its folder; the ready
 * event gets the program and its sha256 as that host has them.  A copy
 * whose host was lost leaves the round to its caller. */
static struct round_srv *
round_server_start_there(struct run *u, const struct spec_cell *cell,
    const char *host, bool copy, const struct legcmd *cmd, const char *cpus,
    const char **cause, json_t **started)
{
	const struct spec_server *sv = cell->server;
	struct remote *rm = copy ? round_remote_legs_at(u, host) :
	    round_remote_for(u, sv);
	json_t *env = legcmd_env_json(cmd);
	char *log = xasprintf("%s-%s.log", u->r->spec->name, cell->name);
	struct remote_start p = { .cell = cell->name, .argv = cmd->argv,
		.env = env, .cpus = cpus, .tcp_port = sv->tcp_port,
		.ready_timeout_s = sv->ready_timeout_s, .log = log,
		.abort_fd = u->r->abort_pipe[0] };
	struct round_srv *srv = NULL;
	json_t *w;
	char name[REMOTE_NAME_MAX];
	size_t i;

	if (rm == NULL)
		snprintf(u->err, sizeof u->err, "cell %s: no connection to %s",
		    cell->name, remote_name(host, name));
	else if ((*started = remote_start(rm, &p, cause, u->err,
	    sizeof u->err)) == NULL && strcmp(*cause, "lost") == 0 && !copy)
		round_remote_lost(u, rm, "while the server started");
	json_decref(env);
	free(log);
	if (rm == NULL || *started == NULL)
		return NULL;
	json_array_foreach(json_object_get(*started, "warnings"), i, w)
		round_warn(u, "%s: %s", remote_name(host, name),
		    json_string_value(w));
	srv = xcalloc(1, sizeof *srv);
	srv->far_busy = NAN;
	srv->rm = rm;
	srv->host = host;
	srv->copy = copy;
	srv->pid = (pid_t)json_integer_value(json_object_get(*started, "pid"));
	return srv;
}

/* The "ready" event, or "died" ("stopped" when aborted) with why. */
static void
round_server_started(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, const char *host,
    struct round_srv *srv, const char *cause, json_t *started)
{
	json_t *ev = round_server_event(cell, arm, rep, srv != NULL ?
	    "ready" : round_aborted(u) ? "stopped" : "died", host);

	json_object_set_new(ev, "pid", srv != NULL ? json_integer(srv->pid) :
	    json_null());
	if (srv == NULL) {
		json_object_set_new(ev, "msg", json_string(u->err));
		json_object_set_new(ev, "cause", json_string(
		    round_aborted(u) ? "aborted" : cause));
	} else if (started != NULL) {
		json_object_set(ev, "bin", json_object_get(started, "exec"));
		json_object_set(ev, "sha256", json_object_get(started, "sha256"));
		json_object_set(ev, "log", json_object_get(started, "log"));
	}
	round_emit_new(u, ev);
}

/* round_server_start, on host when copy (one of several hosts' own). */
static struct round_srv *
round_server_begin(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, const char *host, bool copy,
    const char **cause)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct spec_server *sv = cell->server;
	const char *cpus = sv->cpus != NULL ? sv->cpus : s->server_cpus;
	struct round_srv *srv = NULL;
	json_t *ev, *started = NULL;
	struct legcmd cmd;
	char e[640];

	*cause = "failed";
	u->err[0] = '\0';
	u->srv_death_logged = false;
	if (legcmd_server(s, (size_t)(cell - s->cells), arm != NULL ?
	    (int)(arm - s->arms) : -1, rep, r->dir, &cmd, e, sizeof e) < 0) {
		snprintf(u->err, sizeof u->err, "cell %s: %s", cell->name, e);
		goto out;
	}
	if (!copy)
		host = sv->host;
	ev = round_server_event(cell, arm, rep, "starting", host);
	json_object_set_new(ev, "pid", json_null());
	json_object_set_new(ev, "log", json_string(cmd.out_rel));
	json_object_set_new(ev, "argv", legcmd_argv_json(cmd.argv));
	round_emit_new(u, ev);
	srv = spec_server_remote(sv) ? round_server_start_there(u, cell, host,
	    copy, &cmd, cpus, cause, &started) : round_server_start_here(u,
	    cell, &cmd, cpus, cause);
	/* A server that never came up is not always one that died: its
	 * port was someone else's, it did not listen in time, or the
	 * operator aborted the wait.  "cause" tells them apart. */
	if (srv != NULL) {
		srv->arm = arm;
		srv->rep = rep;
	}
	round_server_started(u, cell, arm, rep, host, srv, *cause, started);
	json_decref(started);
out:
	legcmd_finish(&cmd);
	return srv;
}

struct round_srv *
round_server_start(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep)
{
	const struct spec *s = u->r->spec;
	const char *cause;

	/* one that runs on each of several hosts: a copy on the first (a
	 * server per leg, for the profiles taken there) */
	if (cell->server != NULL && cell->server->on_hosts)
		return round_server_begin(u, cell, arm, rep, s->hosts[0], true,
		    &cause);
	return round_server_begin(u, cell, arm, rep, NULL, false, &cause);
}

struct round_srv *
round_server_start_copy(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, const char *host, bool *lost)
{
	const char *cause;
	struct round_srv *srv = round_server_begin(u, cell, arm, rep, host,
	    true, &cause);

	*lost = srv == NULL && strcmp(cause, "lost") == 0;
	return srv;
}

/* Stop it: here by server.c, there by its agent (a lost connection
 * leaves that to the agent, which ends its tree when its input closes). */
static const char *
round_server_end(struct run *u, struct round_srv *srv)
{
	json_t *reply;
	char e[1024];

	if (srv->local != NULL)
		return server_stop(srv->local, ROUND_SERVER_GRACE_S);
	e[0] = '\0';
	if (remote_lost(srv->rm, false) ||
	    (reply = remote_stop(srv->rm, e, sizeof e)) == NULL) {
		if (round_aborted(u) || srv->copy)
			;
		else if (remote_lost(srv->rm, false))
			round_remote_lost(u, srv->rm, "while the server stopped");
		else
			round_remote_refused(u, e, "while the server stopped");
		return "lost";
	}
	round_server_remote_alive(srv, reply);
	json_decref(reply);
	return srv->dead ? "died" : "stopped";
}

void
round_server_stop(struct run *u, const struct spec_cell *cell,
    struct round_srv *srv)
{
	const char *state = round_server_end(u, srv);
	json_t *ev;

	if (u->quiet != NULL)
		quiet_set_server(u->quiet, 0, NULL, 0);
	/* A death the leg loop saw is logged already, with its cause. */
	if (srv->death_logged && strcmp(state, "died") == 0)
		goto out;
	if (strcmp(state, "died") == 0) {
		/* Died after the last leg: log it once, with its cause. */
		round_server_died(u, cell, srv);
		goto out;
	}
	ev = round_server_event(cell, srv->arm, srv->rep, state, srv->host);
	json_object_set_new(ev, "pid", json_integer(srv->pid));
	round_emit_new(u, ev);
out:
	srvmeter_destroy(srv->meter);
	server_destroy(srv->local);
	free(srv);
}

void
round_server_died(struct run *u, const struct spec_cell *cell,
    struct round_srv *srv)
{
	json_t *ev;

	if (srv->death_logged)
		return;
	srv->death_logged = u->srv_death_logged = true;
	ev = round_server_event(cell, srv->arm, srv->rep, "died", srv->host);
	json_object_set_new(ev, "pid", json_integer(srv->pid));
	json_object_set_new(ev, "msg", json_string(round_server_death(srv)));
	round_emit_new(u, ev);
}

/* Before a leg: a server that died since the last leg (or while the gate
 * waited) stops the round resumably, before a leg runs against nothing.
 * waitpid WNOHANG (or the agent's last word), so cheap enough for the
 * leg path. */
bool
round_server_gone(struct run *u, const struct plan_leg *pl,
    struct round_srv *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[pl->cell];

	if (srv == NULL || round_server_alive(srv))
		return false;
	round_server_died(u, cell, srv);
	snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) before "
	    "leg %s r%d; the round stopped, resume continues it", cell->name,
	    round_server_death(srv), s->arms[pl->arm].name, pl->rep);
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

/* A number of a reply, or NAN where it is null or missing. */
static double
round_server_num(const json_t *reply, const char *key)
{
	const json_t *v = json_object_get(reply, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* The far gate's word as the leg line's gate. */
static enum tally_gate
round_server_far_how(const char *word)
{
	static const struct { const char *w; enum tally_gate how; } m[] = {
		{ "quiet", TALLY_GATE_QUIET }, { "released", TALLY_GATE_WAIVED },
		{ "timeout", TALLY_GATE_TIMEOUT }, { "budget", TALLY_GATE_BUDGET },
	};

	for (size_t i = 0; word != NULL && i < sizeof m / sizeof m[0]; i++)
		if (strcmp(word, m[i].w) == 0)
			return m[i].how;
	return TALLY_GATE_NONE;
}

int
round_server_open(struct run *u, struct round_srv *srv,
    const struct remote_gate *rg, const char *leg, struct round_srv_gate *g)
{
	const struct spec *s = u->r->spec;
	json_t *reply;
	char e[1024], during[200];

	*g = (struct round_srv_gate){ .how = TALLY_GATE_NONE,
	    .server_busy = NAN, .probe = NAN, .probe_us = NAN };
	if (srv->local != NULL) {
		srvmeter_destroy(srv->meter);
		srv->meter = srvmeter_begin(srv->pid, (const char *const *)
		    s->counters, (int)s->ncounters, u->cg_servers);
		return 0;
	}
	reply = remote_open(srv->rm, rg, u->r->abort_pipe[0],
	    u->r->gate_pipe[0], round_emit_cb, u, e, sizeof e);
	if (reply == NULL) {
		snprintf(during, sizeof during, "before leg %s", leg);
		if (remote_lost(srv->rm, false))
			round_remote_lost(u, srv->rm, during);
		return -1;
	}
	round_server_far_opened(srv, reply);
	*g = srv->far;
	json_decref(reply);
	return 0;
}

void
round_server_far_opened(struct round_srv *srv, const json_t *reply)
{
	struct round_srv_gate *g = &srv->far;

	g->how = round_server_far_how(json_string_value(json_object_get(reply,
	    "gate")));
	g->wait_s = round_server_num(reply, "wait_s");
	if (isnan(g->wait_s))
		g->wait_s = 0;
	g->foreign = json_number_value(json_object_get(reply, "foreign"));
	g->server_busy = round_server_num(reply, "server_busy");
	g->probe = round_server_num(reply, "probe");
	g->probe_us = round_server_num(reply, "probe_us");
	round_server_remote_alive(srv, reply);
	srv->window = !srv->dead;
}

struct remote *
round_server_agent(const struct round_srv *srv)
{
	return srv != NULL ? srv->rm : NULL;
}

double
round_server_far_busy(const struct round_srv *srv)
{
	return srv != NULL ? srv->far_busy : NAN;
}

/* The far gate's part of a remote leg's server block: how it let the leg
 * go, its wait and its probe (null where none ran). */
static void
round_server_far_block(const struct round_srv *srv, json_t *block)
{
	const struct round_srv_gate *g = &srv->far;

	if (g->how == TALLY_GATE_NONE)
		return;
	json_object_set_new(block, "gate", json_string(tally_gate_name(
	    g->how)));
	json_object_set_new(block, "wait_s", json_real(round(g->wait_s *
	    1000.0) / 1000.0));
	json_object_set_new(block, "probe", isnan(g->probe) ? json_null() :
	    json_real(g->probe));
	json_object_set_new(block, "probe_us", isnan(g->probe_us) ?
	    json_null() : json_real(g->probe_us));
}

json_t *
round_server_close(struct run *u, struct round_srv *srv, const char *leg)
{
	json_t *reply, *block;
	char e[1024], during[200];
	double t0 = clock_now();

	if (srv->local != NULL) {
		block = srv->meter != NULL ? srvmeter_end(srv->meter) : NULL;
		srv->meter = NULL;
		return block;
	}
	srv->far_busy = NAN;
	if (!srv->window)
		return NULL;
	srv->window = false;
	e[0] = '\0';
	if ((reply = remote_close_window(srv->rm, e, sizeof e)) == NULL) {
		snprintf(during, sizeof during, "after leg %s", leg);
		if (remote_lost(srv->rm, false))
			round_remote_lost(u, srv->rm, during);
		else
			round_remote_refused(u, e, during);
		return NULL;
	}
	block = round_server_far_closed(srv, reply, (clock_now() - t0) * 1e3);
	json_decref(reply);
	return block;
}

json_t *
round_server_far_closed(struct round_srv *srv, const json_t *reply,
    double rtt_ms)
{
	json_t *block;

	srv->window = false;
	round_server_remote_alive(srv, reply);
	srv->far_busy = round_server_num(reply, "server_busy");
	block = json_incref(json_object_get(reply, "server"));
	if (json_is_object(block)) {
		round_server_far_block(srv, block);
		json_object_set_new(block, "host", json_string(srv->host));
		json_object_set(block, "foreign", json_object_get(reply,
		    "foreign"));
		json_object_set_new(block, "rtt_ms", json_real(rtt_ms));
		json_object_set_new(block, "requests", json_integer((json_int_t)
		    remote_requests_take(srv->rm)));
	}
	return block;
}
