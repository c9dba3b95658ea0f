/* The round driver, the servers' hosts: one agent per host the cells'
 * servers name (server.host), connected through ssh before the first leg
 * and kept for the round; their facts, binaries and gate settings for
 * environment.json's hosts; a connection that drops stops the round
 * resumably, naming the host. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "digest.h"
#include "event.h"
#include "legcmd.h"
#include "remote.h"
#include "round_int.h"
#include "xalloc.h"

struct round_host {
	const char *host, *dir;        /* as the round file names them */
	char *log;                     /* ssh's stderr, in the round's folder */
	bool legs;                     /* the round's legs run there */
	struct remote *rm;
	json_t *cells;                 /* the cells it serves */
	json_t *bins;                  /* from its agent */
	char err[1536];                /* why it could not be reached */
	/* The thread that connected it (several hosts connect at once),
	 * parked until the round ends: ssh dies with the thread that
	 * started it (PR_SET_PDEATHSIG). */
	struct round_remote_park *park;
	pthread_t th;
	bool th_up;
};

struct round_remote_park {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool end;
};

/* ssh's stderr for host, in the round's folder: servers/ssh-HOST.log,
 * the host's odd characters as '_'.  A host longer than a file name may
 * be (253 bytes, and more) keeps its first 40 and the first 16 hex
 * digits of its whole sha256 (ssh-PREFIX-HASH.log): bounded, and still
 * one file per host.  environment.json's hosts entry names it. */
static char *
round_remote_log(const char *host)
{
	size_t n = strlen(host);
	char hex[DIGEST_HEX_LEN], *p, *c;

	if (n <= 64) {
		p = xasprintf("servers/ssh-%s.log", host);
	} else {
		digest_buf(host, n, hex);
		p = xasprintf("servers/ssh-%.40s-%.16s.log", host, hex);
	}
	for (c = p + strlen("servers/ssh-"); strcmp(c, ".log") != 0; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			*c = '_';
	return p;
}

/* The entry of host, made (with dir) when new. */
static struct round_host *
round_remote_add(struct run *u, const char *host, const char *dir)
{
	struct round_host *h;

	for (size_t i = 0; i < u->nhosts; i++)
		if (strcmp(u->hosts[i].host, host) == 0)
			return &u->hosts[i];
	u->hosts = xreallocarray(u->hosts, u->nhosts + 1, sizeof *u->hosts);
	h = &u->hosts[u->nhosts++];
	memset(h, 0, sizeof *h);
	h->host = host;
	h->dir = dir;
	h->log = round_remote_log(host);
	h->cells = json_array();
	return h;
}

/* The hosts the cells' servers name, each once, in the cells' order;
 * then the legs' host ("host"), when no server named it. */
static void
round_remote_list(struct run *u)
{
	const struct spec *s = u->r->spec;

	for (size_t c = 0; c < s->ncells; c++) {
		const struct spec_server *sv = s->cells[c].server;

		if (spec_server_remote(sv) && sv->host != NULL)
			json_array_append_new(round_remote_add(u, sv->host,
			    sv->dir)->cells, json_string(s->cells[c].name));
	}
	if (s->host != NULL)
		round_remote_add(u, s->host, SPEC_AGENT_DIR)->legs = true;
	for (size_t i = 0; s->host == NULL && i < s->nhosts; i++) {
		struct round_host *h = round_remote_add(u, s->hosts[i],
		    SPEC_AGENT_DIR);

		h->legs = true;
		/* A server of each host's own: a copy there. */
		for (size_t c = 0; c < s->ncells; c++)
			if (s->cells[c].server != NULL &&
			    s->cells[c].server->on_hosts)
				json_array_append_new(h->cells, json_string(
				    s->cells[c].name));
	}
}

/* The programs a host's servers run, as legcmd builds them (each arm's
 * for a server per leg), for its agent to hash: those that name it, and
 * on a legs' host of several, each host's own copy. */
static json_t *
round_remote_programs(const struct run *u, const struct round_host *h)
{
	const struct spec *s = u->r->spec;
	json_t *progs = json_array();

	for (size_t c = 0; c < s->ncells; c++) {
		const struct spec_cell *cell = &s->cells[c];
		bool per_leg = spec_server_per_leg(s, cell);

		if (!spec_server_remote(cell->server) ||
		    (cell->server->host != NULL ?
		    strcmp(cell->server->host, h->host) != 0 :
		    !h->legs))
			continue;
		for (size_t a = 0; a < (per_leg ? s->narms : 1); a++) {
			struct legcmd lc;
			char e[640];

			if (legcmd_server(s, c, per_leg ? (int)a : -1, per_leg ?
			    1 : 0, u->r->dir, &lc, e, sizeof e) == 0)
				json_array_append_new(progs,
				    json_string(lc.argv[0]));
			legcmd_finish(&lc);
		}
	}
	return progs;
}

/* A host whose clock cannot time the probe gates without it: said once
 * (as for this machine). */
static void
round_remote_probe_off(struct run *u, const struct round_host *h)
{
	const char *why = json_string_value(json_object_get(json_object_get(
	    remote_hello(h->rm), "quiet"), "probe_off"));
	char name[REMOTE_NAME_MAX];

	if (why != NULL)
		round_warn(u, "%s: the quiet gate's probe is off there: %s",
		    remote_name(h->host, name), why);
}

/* Connect to one host: ssh, hello, its binaries (the programs progs);
 * nothing logged, so hosts connect on threads of their own. */
struct round_remote_conn {
	struct run *u;
	struct round_host *h;
	const char *ssh_path;
	json_t *progs;
	/* Its thread's: done when connected (or not). */
	bool done;
};

static void *
round_remote_connect_one(void *arg)
{
	struct round_remote_conn *c = arg;
	struct run *u = c->u;
	struct round_host *h = c->h;
	const struct spec *s = u->r->spec;
	/* The round's gate settings, for its gate there: the one budget
	 * (what is left of it goes with each open), the server's pinned
	 * cpus' maximum, and the probe (on the server's cpus there; that
	 * host's clock decides). */
	struct quiet_params qp = spec_quiet_params(s);
	char *stderr_path = xasprintf("%s/%s", u->r->dir, h->log);
	struct remote_params p = { .host = h->host, .ssh_path = c->ssh_path,
		.ssh = s->ssh, .agent = s->agent, .dir = h->dir,
		.counters = s->counters, .quiet = s->quiet.enabled ? &qp : NULL,
		.stderr_path = stderr_path, .abort_fd = u->r->abort_pipe[0],
		.timeout_s = s->agent_limits.hello_s,
		.line_max = (size_t)s->agent_limits.line_bytes,
		.stderr_max = (size_t)s->agent_limits.stderr_bytes };

	qp.probe = s->quiet.probe != SPEC_PROBE_OFF;
	h->rm = remote_connect(&p, h->err, sizeof h->err);
	free(stderr_path);
	if (h->rm == NULL)
		return NULL;
	h->bins = remote_bins(h->rm, c->progs, h->err, sizeof h->err);
	/* A leg's count of requests starts after the handshake. */
	(void)remote_requests_take(h->rm);
	return NULL;
}

/* A host's own thread: connect, say so, then stay until the round ends
 * (round_remote_end), so its ssh lives as long. */
static void *
round_remote_connect_parked(void *arg)
{
	struct round_remote_conn *c = arg;
	struct round_remote_park *pk = c->h->park;

	(void)round_remote_connect_one(c);
	pthread_mutex_lock(&pk->mu);
	c->done = true;
	pthread_cond_broadcast(&pk->cv);
	while (!pk->end)
		pthread_cond_wait(&pk->cv, &pk->mu);
	pthread_mutex_unlock(&pk->mu);
	return NULL;
}

/* Every host at once (each its own ssh handshake and hello; several
 * hosts would otherwise wait for each other), then, here, each one's
 * warning.  The first host (in order) that failed, or NULL. */
static struct round_host *
round_remote_connect_all(struct run *u, const char *ssh_path)
{
	struct round_remote_conn *c = xcalloc(u->nhosts, sizeof *c);
	struct round_remote_park *pk = NULL;
	struct round_host *bad = NULL;

	if (u->nhosts > 1) {
		pk = xcalloc(1, sizeof *pk);
		pthread_mutex_init(&pk->mu, NULL);
		pthread_cond_init(&pk->cv, NULL);
	}
	for (size_t i = 0; i < u->nhosts; i++) {
		struct round_host *h = &u->hosts[i];

		c[i] = (struct round_remote_conn){ .u = u, .h = h,
			.ssh_path = ssh_path,
			.progs = round_remote_programs(u, h) };
		h->park = pk;
		h->th_up = pk != NULL && pthread_create(&h->th, NULL,
		    round_remote_connect_parked, &c[i]) == 0;
		if (!h->th_up)
			(void)round_remote_connect_one(&c[i]);
	}
	for (size_t i = 0; i < u->nhosts; i++) {
		struct round_host *h = &u->hosts[i];

		if (h->th_up) {
			pthread_mutex_lock(&pk->mu);
			while (!c[i].done)
				pthread_cond_wait(&pk->cv, &pk->mu);
			pthread_mutex_unlock(&pk->mu);
		}
		json_decref(c[i].progs);
		if (h->rm != NULL)
			round_remote_probe_off(u, h);
		if ((h->rm == NULL || h->bins == NULL) && bad == NULL)
			bad = h;
	}
	free(c);
	return bad;
}

int
round_remote_connect(struct run *u)
{
	const struct spec *s = u->r->spec;
	struct round_host *bad = NULL;
	char *ssh_path = NULL;
	int rc = 0;

	round_remote_list(u);
	if (u->nhosts == 0)
		return 0;
	if ((ssh_path = spec_resolve_program(s->ssh[0], s->workdir)) == NULL) {
		snprintf(u->err, sizeof u->err, "ssh[0]: no program \"%s\" on "
		    "PATH to reach the servers' hosts; install openssh-client, "
		    "or set ssh; the round stopped, resume continues it",
		    s->ssh[0]);
		rc = -1;
	}
	if (rc == 0 && (bad = round_remote_connect_all(u, ssh_path)) != NULL) {
		snprintf(u->err, sizeof u->err, "%.900s; no leg ran: the round "
		    "stopped, resume connects again", bad->err);
		rc = -1;
	}
	free(ssh_path);
	if (rc != 0 && !round_aborted(u)) {
		u->stop_logged_err = true;
		round_abort_internal(u->r, "a server's host could not be "
		    "reached");
	}
	return rc;
}

struct remote *
round_remote_for(struct run *u, const struct spec_server *sv)
{
	for (size_t i = 0; spec_server_remote(sv) && sv->host != NULL &&
	    i < u->nhosts; i++)
		if (strcmp(u->hosts[i].host, sv->host) == 0)
			return u->hosts[i].rm;
	return NULL;
}

/* One remote host's entry of hosts[]. */
static json_t *
round_remote_entry(const struct run *u, const struct round_host *h)
{
	json_t *e = json_object();
	const json_t *hello = h->rm != NULL ? remote_hello(h->rm) : NULL;

	json_object_set_new(e, "host", json_string(h->host));
	json_object_set_new(e, "role", json_string(h->legs ?
	    json_array_size(h->cells) > 0 ? "legs and servers" : "legs" :
	    "server"));
	json_object_set_new(e, "cells", json_incref(h->cells));
	json_object_set_new(e, "ssh", legcmd_argv_json(u->r->spec->ssh));
	json_object_set_new(e, "ssh_log", json_string(h->log));
	if (hello == NULL) {
		json_object_set_new(e, "dir", json_string(h->dir));
		json_object_set_new(e, "error", h->err[0] != '\0' ?
		    json_string(h->err) : json_null());
		return e;
	}
	json_object_set_new(e, "dir", json_incref(json_object_get(hello,
	    "dir")));
	json_object_set_new(e, "hostname", json_incref(json_object_get(
	    json_object_get(hello, "host"), "hostname")));
	json_object_set_new(e, "agent", json_pack("{s:O,s:O,s:s}", "version",
	    json_object_get(hello, "version"), "pid", json_object_get(hello,
	    "pid"), "command", remote_cmdline(h->rm)));
	json_object_set_new(e, "rtt_ms", remote_rtt(h->rm));
	json_object_set_new(e, "facts", json_incref(json_object_get(hello,
	    "host")));
	json_object_set_new(e, "bins", h->bins != NULL ? json_incref(h->bins) :
	    json_object());
	json_object_set_new(e, "quiet", json_incref(json_object_get(hello,
	    "quiet")));
	return e;
}

void
round_remote_add_hosts(const struct run *u, json_t *hosts)
{
	for (size_t i = 0; i < u->nhosts; i++)
		json_array_append_new(hosts, round_remote_entry(u, &u->hosts[i]));
}

void
round_remote_lost(struct run *u, struct remote *rm, const char *during)
{
	if (round_aborted(u))
		return;
	snprintf(u->err, sizeof u->err, "%.760s, %.180s; the round stopped, "
	    "resume reconnects", remote_lost_why(rm), during);
	u->stop_logged_err = true;
	round_abort_internal(u->r, "a server's host was lost");
}

void
round_remote_refused(struct run *u, const char *why, const char *during)
{
	if (round_aborted(u))
		return;
	snprintf(u->err, sizeof u->err, "%.760s (the agent refused), %.180s; "
	    "the round stopped, resume reconnects", why[0] ? why :
	    "no reason given", during);
	u->stop_logged_err = true;
	round_abort_internal(u->r, "a server's host refused a request");
}

void
round_remote_watch(struct run *u, const char *leg)
{
	for (size_t i = 0; i < u->nhosts; i++) {
		struct remote *rm = u->hosts[i].rm;
		char during[200];

		if (rm == NULL || !remote_lost(rm, true))
			continue;
		snprintf(during, sizeof during, "during leg %s", leg);
		round_remote_lost(u, rm, during);
	}
}

struct remote *
round_remote_legs(struct run *u)
{
	const struct spec *s = u->r->spec;

	/* on several hosts the first one, as "hosts" lists them (a server
	 * of a host of its own may have put another first in u->hosts) */
	if (s->host == NULL && s->nhosts > 0)
		return round_remote_legs_at(u, s->hosts[0]);
	for (size_t i = 0; i < u->nhosts; i++)
		if (u->hosts[i].legs)
			return u->hosts[i].rm;
	return NULL;
}

struct remote *
round_remote_legs_at(struct run *u, const char *host)
{
	for (size_t i = 0; i < u->nhosts; i++)
		if (u->hosts[i].legs && strcmp(u->hosts[i].host, host) == 0)
			return u->hosts[i].rm;
	return NULL;
}

size_t
round_remote_keep(const struct run *u, pid_t *keep, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < u->nhosts && n < max; i++)
		if (u->hosts[i].rm != NULL)
			keep[n++] = remote_ssh_pid(u->hosts[i].rm);
	return n;
}

void
round_remote_end(struct run *u)
{
	struct round_remote_park *pk = u->nhosts > 0 ? u->hosts[0].park : NULL;

	for (size_t i = 0; i < u->nhosts; i++) {
		remote_disconnect(u->hosts[i].rm);
		u->hosts[i].rm = NULL;
	}
	/* Each ssh is gone: the threads that started them may end. */
	if (pk != NULL) {
		pthread_mutex_lock(&pk->mu);
		pk->end = true;
		pthread_cond_broadcast(&pk->cv);
		pthread_mutex_unlock(&pk->mu);
	}
	for (size_t i = 0; i < u->nhosts; i++) {
		if (u->hosts[i].th_up)
			pthread_join(u->hosts[i].th, NULL);
		json_decref(u->hosts[i].cells);
		json_decref(u->hosts[i].bins);
		free(u->hosts[i].log);
	}
	if (pk != NULL) {
		pthread_mutex_destroy(&pk->mu);
		pthread_cond_destroy(&pk->cv);
		free(pk);
	}
	free(u->hosts);
	u->hosts = NULL;
	u->nhosts = 0;
}
