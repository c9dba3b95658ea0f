/* The agent's ops on its server, each the round driver's local step run
 * here: start (the program looked up and hashed on this host, pinned,
 * waited on until its own listener accepts: server.c), open (the quiet
 * gate: quiet.c; then the window: srvmeter.c over the server's tree),
 * close (the window's reading), stop (by pid and its whole tree). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "agent_int.h"
#include "digest.h"
#include "legcmd.h"
#include "procs.h"
#include "server.h"
#include "spec.h"
#include "srvmeter.h"
#include "template.h"
#include "xalloc.h"

/* What start was given, parsed. */
struct agent_start_req {
	const char *cell, *log, *cpus;
	char **argv;
	struct spec_kv *env;
	size_t nenv;
	int tcp_port;
	double ready_timeout_s;
};

static void
agent_start_req_free(struct agent_start_req *q)
{
	template_free_argv(q->argv);
	free(q->env);
}

/* start's fields into q: NULL, or the refusal. */
static json_t *
agent_start_parse(const json_t *req, struct agent_start_req *q)
{
	const json_t *argv = json_object_get(req, "argv"),
	    *env = json_object_get(req, "env"), *v;
	const char *k;
	json_t *r;
	size_t n;

	q->cell = json_string_value(json_object_get(req, "cell"));
	q->log = json_string_value(json_object_get(req, "log"));
	q->cpus = json_string_value(json_object_get(req, "cpus"));
	q->tcp_port = (int)json_integer_value(json_object_get(req, "tcp_port"));
	q->ready_timeout_s = json_number_value(json_object_get(req,
	    "ready_timeout_s"));
	if (q->cell == NULL || !agent_log_name_ok(q->log) ||
	    !json_is_array(argv) || json_array_size(argv) == 0 ||
	    (env != NULL && !json_is_object(env)) || q->tcp_port < 1 ||
	    q->tcp_port > 65535 || !(q->ready_timeout_s > 0))
		return agent_refuse(req, "malformed", "start needs cell, argv "
		    "(not empty), log (a file name), tcp_port (1-65535) and "
		    "ready_timeout_s (> 0); env is an object");
	if ((r = agent_strv(req, argv, "start: argv", &q->argv, &n)) != NULL)
		return r;
	q->env = xcalloc(json_object_size(env) + 1, sizeof *q->env);
	json_object_foreach((json_t *)env, k, v) {
		if (!json_is_string(v))
			return agent_refuse(req, "malformed", "start: env.%s is "
			    "not a string", k);
		q->env[q->nenv].key = (char *)k;
		q->env[q->nenv++].val = (char *)json_string_value(v);
	}
	return NULL;
}

json_t *
agent_start_check(const json_t *req)
{
	struct agent_start_req q = { 0 };
	json_t *r = agent_start_parse(req, &q);

	agent_start_req_free(&q);
	return r;
}

/* The pin mask of q->cpus on this host, or NULL (none asked, or a list
 * this host cannot take: then a warning). */
static unsigned char *
agent_start_mask(const struct agent_start_req *q, int ncpus, json_t *warn)
{
	unsigned char *mask;
	char msg[256];

	if (q->cpus == NULL)
		return NULL;
	mask = xcalloc((size_t)ncpus, 1);
	if (procs_cpulist_parse(q->cpus, mask, ncpus) == 0)
		return mask;
	snprintf(msg, sizeof msg, "cell %s: server cpus \"%s\" are not all on "
	    "the server's host (%d cpus); the server is not pinned", q->cell,
	    q->cpus, ncpus);
	json_array_append_new(warn, json_string(msg));
	free(mask);
	return NULL;
}

/* The program as this host runs it, and its sha256 (NULL: unreadable). */
static char *
agent_start_program(const struct agent *a, const char *prog, json_t **sha)
{
	char *found = spec_resolve_program(prog, a->dir), *real, hex[65];

	*sha = json_null();
	if (found == NULL)
		return NULL;
	if ((real = realpath(found, NULL)) != NULL && digest_file(real,
	    hex) == 0) {
		json_decref(*sha);
		*sha = json_string(hex);
	}
	free(real);
	return found;
}

/* Start the server and wait until it is ready, as a local one is. */
static json_t *
agent_start_run(struct agent *a, const json_t *req,
    const struct agent_start_req *q, const char *path, json_t *sha)
{
	int ncpus = get_nprocs_conf();
	json_t *warn = json_array(), *r;
	unsigned char *mask = agent_start_mask(q, ncpus, warn);
	char **envp = legcmd_envp(q->env, q->nenv), *log, err[1024];
	const char *cause = "aborted";
	struct server_params sp = { .cell = q->cell, .path = path,
		.argv = q->argv, .envp = envp, .cwd = a->dir, .cpus = mask,
		.ncpus = ncpus, .tcp_port = q->tcp_port,
		.ready_timeout_s = q->ready_timeout_s, .abort_fd = a->wake };

	sp.log_path = log = xasprintf("%s/%s", a->dir, q->log);
	snprintf(err, sizeof err, "cell %s: server start aborted before it "
	    "was ready", q->cell);
	/* A request waiting already would not wake the ready wait. */
	if (!agent_interrupted(a))
		a->srv = server_start(&sp, &cause, err, sizeof err);
	if (a->srv == NULL) {
		r = agent_refuse(req, cause, "%s", err);
		json_decref(warn);
	} else {
		snprintf(a->cell, sizeof a->cell, "%s", q->cell);
		/* The gate judges the server's cpus on their own, and probes
		 * them, as it would a local server's. */
		if (a->quiet != NULL) {
			quiet_set_server(a->quiet, server_pid(a->srv), mask, ncpus);
			quiet_probe_cpus(a->quiet, mask, ncpus);
		}
		r = agent_reply(req, true);
		json_object_set_new(r, "pid", json_integer(server_pid(a->srv)));
		json_object_set_new(r, "exec", json_string(path));
		json_object_set_new(r, "sha256", json_incref(sha));
		json_object_set_new(r, "log", json_string(log));
		json_object_set_new(r, "warnings", warn);
	}
	free(log);
	free(mask);
	template_free_argv(envp);
	return r;
}

json_t *
agent_start(struct agent *a, const json_t *req)
{
	struct agent_start_req q = { 0 };
	json_t *r, *sha = NULL;
	char *path = NULL;

	if (a->srv != NULL)
		return agent_refuse(req, "busy", "the server of cell %s (pid %d) "
		    "is running already; stop it first", a->cell,
		    (int)server_pid(a->srv));
	if ((r = agent_start_parse(req, &q)) == NULL) {
		if ((path = agent_start_program(a, q.argv[0], &sha)) == NULL)
			r = agent_refuse(req, "failed", "cell %s: no program "
			    "\"%s\" (an executable file, relative to %s or on "
			    "PATH %s)", q.cell, q.argv[0], a->dir,
			    getenv("PATH") != NULL ? getenv("PATH") : "unset");
		else
			r = agent_start_run(a, req, &q, path, sha);
	}
	json_decref(sha);
	free(path);
	agent_start_req_free(&q);
	return r;
}

static void
agent_emit(json_t *ev, void *arg)
{
	json_t *m = json_object();

	json_object_set(m, "event", ev);
	agent_send(arg, m);
}

/* The gate ended early: by the request that is waiting (release goes
 * on, cancel and anything else stop the open), or by a closed input or
 * a signal.  The gate's word, or NULL (stop). */
static const char *
agent_gate_woken(struct agent *a, json_t **next)
{
	char err[1024];
	const char *op;

	if (wire_read(&a->in, 0, a->sig_rd, next, err, sizeof err) !=
	    WIRE_MSG) {
		a->quit = true;
		return NULL;
	}
	op = agent_op(*next);
	return op != NULL && strcmp(op, "release") == 0 ? "released" : NULL;
}

/* The gate's word for how a wait ended (quiet_result_word); NULL when
 * the open stops (a request that is not release woke it, or the input
 * closed). */
static const char *
agent_gate_word(struct agent *a, enum quiet_result res, json_t **next)
{
	const char *word = quiet_result_word(res);

	return word != NULL ? word : agent_gate_woken(a, next);
}

/* open's gate settings for this leg: what is left of the round's budget
 * (the client keeps the one budget both hosts spend), whether the round
 * was released (G), whether this leg probes.  false when malformed. */
bool
agent_gate_setup(struct agent *a, const json_t *req)
{
	const json_t *left = json_object_get(req, "budget_left_s"),
	    *all = json_object_get(req, "release_all"),
	    *pr = json_object_get(req, "probe");

	if (!json_is_number(left) || !json_is_boolean(all) ||
	    !json_is_boolean(pr))
		return false;
	quiet_set_budget_left(a->quiet, a->qp.budget_s,
	    json_number_value(left));
	if (json_is_true(all))
		quiet_release_all(a->quiet);
	quiet_probe_next(a->quiet, json_is_true(pr));
	return true;
}

/* Hold until this host is quiet: the gate's word ("quiet", "timeout",
 * "budget", "released"), or NULL when the open stops; *next is a request
 * that came meanwhile, to be answered after the open.  *seen is what the
 * gate saw, its wait and its probe. */
const char *
agent_gate(struct agent *a, struct quiet_seen *seen, json_t **next)
{
	*seen = (struct quiet_seen){ .client_busy = NAN, .server_busy = NAN,
	    .probe = NAN, .probe_us = NAN };
	if (agent_interrupted(a))
		return agent_gate_woken(a, next);
	return agent_gate_word(a, quiet_wait(a->quiet, a->wake, -1,
	    agent_emit, a, seen), next);
}

json_t *
agent_num(double x)
{
	return isnan(x) ? json_null() : json_real(x);
}

/* open's reply once the gate let the leg go: the window opens. */
static json_t *
agent_open_reply(struct agent *a, const json_t *req, const char *word,
    const struct quiet_seen *seen)
{
	bool alive = server_alive(a->srv);
	json_t *r = agent_reply(req, true);

	json_object_set_new(r, "gate", json_string(word));
	json_object_set_new(r, "wait_s", json_real(seen->waited_s));
	json_object_set_new(r, "foreign", json_real(seen->foreign));
	json_object_set_new(r, "server_busy", agent_num(seen->server_busy));
	json_object_set_new(r, "probe", agent_num(seen->probe));
	json_object_set_new(r, "probe_us", agent_num(seen->probe_us));
	json_object_set_new(r, "alive", json_boolean(alive));
	if (!alive)
		json_object_set_new(r, "death", json_string(server_death(a->srv)));
	else {
		if (a->quiet != NULL)
			quiet_leg_begin(a->quiet);
		a->meter = srvmeter_begin(server_pid(a->srv),
		    (const char *const *)a->counters, a->ncounters, NULL);
	}
	return r;
}

json_t *
agent_open(struct agent *a, const json_t *req)
{
	struct quiet_seen seen = { .foreign = 0, .client_busy = NAN,
	    .server_busy = NAN, .probe = NAN, .probe_us = NAN };
	const char *word = "off";
	bool gate = json_is_true(json_object_get(req, "gate"));
	json_t *r, *next = NULL;

	if (a->srv == NULL)
		return agent_refuse(req, "malformed", "open: no server is "
		    "running");
	if (gate && a->quiet != NULL && !agent_gate_setup(a, req))
		return agent_refuse(req, "malformed", "open: a gate needs "
		    "budget_left_s (a number), release_all and probe (true or "
		    "false)");
	srvmeter_destroy(a->meter);
	a->meter = NULL;
	if (gate && a->quiet != NULL && (word = agent_gate(a, &seen,
	    &next)) == NULL)
		r = agent_refuse(req, "aborted", "the gate was left before the "
		    "window opened");
	else
		r = agent_open_reply(a, req, word, &seen);
	return agent_then(a, r, next);
}

json_t *
agent_close(struct agent *a, const json_t *req)
{
	json_t *r;
	bool alive;

	if (a->meter == NULL)
		return agent_refuse(req, "malformed", "close: no window is open");
	r = agent_reply(req, true);
	json_object_set_new(r, "server", srvmeter_end(a->meter));
	a->meter = NULL;
	if (a->quiet != NULL) {
		struct quiet_seen during;

		json_object_set_new(r, "foreign", json_real(quiet_leg_end(
		    a->quiet, &during)));
		json_object_set_new(r, "server_busy",
		    agent_num(during.server_busy));
	} else {
		json_object_set_new(r, "foreign", json_null());
		json_object_set_new(r, "server_busy", json_null());
	}
	alive = server_alive(a->srv);
	json_object_set_new(r, "alive", json_boolean(alive));
	if (!alive)
		json_object_set_new(r, "death", json_string(server_death(a->srv)));
	return r;
}

json_t *
agent_stop(struct agent *a, const json_t *req)
{
	double grace = json_is_number(json_object_get(req, "grace_s")) ?
	    json_number_value(json_object_get(req, "grace_s")) : 2.0;
	const char *state;
	json_t *r;

	if (a->srv == NULL)
		return agent_refuse(req, "malformed", "stop: no server is "
		    "running");
	srvmeter_destroy(a->meter);
	a->meter = NULL;
	r = agent_reply(req, true);
	json_object_set_new(r, "pid", json_integer(server_pid(a->srv)));
	state = server_stop(a->srv, grace);
	json_object_set_new(r, "state", json_string(state));
	if (strcmp(state, "died") == 0)
		json_object_set_new(r, "death", json_string(server_death(a->srv)));
	server_destroy(a->srv);
	a->srv = NULL;
	if (a->quiet != NULL)
		quiet_set_server(a->quiet, 0, NULL, 0);
	procs_reap_orphans(NULL, 0);
	return r;
}

void
agent_end_server(struct agent *a, double grace_s)
{
	agent_prof_end(a);      /* the profiler first, never left tracing */
	srvmeter_destroy(a->meter);
	a->meter = NULL;
	if (a->srv != NULL)
		(void)server_stop(a->srv, grace_s);
	server_destroy(a->srv);
	a->srv = NULL;
}
