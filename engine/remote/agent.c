/* The agent's loop: requests in, one reply each out; hello (the version
 * handshake, the window's counters, the gate's settings, the host's
 * facts), ping and bins here, the server's ops in agent_server.c.  When
 * the input closes or a signal comes, the server's tree is ended before
 * the agent exits. */
#include "agent.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent_int.h"
#include "scratch.h"
#include "probe.h"
#include "procs.h"
#include "provenance.h"
#include "quiet.h"
#include "template.h"
#include "xalloc.h"

static int agent_sig_wr = -1;

static void
agent_on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (write(agent_sig_wr, &c, 1) < 0)
		(void)0;
	errno = saved;
}

/* The folder given on the command line: made when missing (its last
 * component only: the agent writes nowhere else), then absolute. */
static void
agent_make_dir(struct agent *a, const char *dir)
{
	struct stat st;

	if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
		snprintf(a->dir_err, sizeof a->dir_err, "cannot create the "
		    "agent's folder %s: %s", dir, strerror(errno));
		return;
	}
	if ((a->dir = realpath(dir, NULL)) == NULL ||
	    stat(a->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(a->dir_err, sizeof a->dir_err, "the agent's folder %s "
		    "is not a folder", dir);
		free(a->dir);
		a->dir = NULL;
	}
}

/* hello's "quiet": the round's gate settings for this host, or false.
 * NULL, or the refusal. */
static json_t *
agent_hello_quiet(struct agent *a, const json_t *req, const json_t *q)
{
	static const char *const nums[] = { "max_foreign_cores", "window_ms",
	    "timeout_s", "budget_s", "max_server_busy", "probe_margin" };
	char why[256];

	for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
		if (!json_is_number(json_object_get(q, nums[i])))
			return agent_refuse(req, "malformed", "hello: quiet needs "
			    "max_foreign_cores, window_ms, timeout_s, budget_s, "
			    "max_server_busy and probe_margin (numbers) and probe "
			    "(true or false); %s is not a number", nums[i]);
	if (!json_is_boolean(json_object_get(q, "probe")))
		return agent_refuse(req, "malformed", "hello: quiet.probe must be "
		    "true or false");
	a->gate = true;
	a->qp = (struct quiet_params){
		.max_foreign_cores = json_number_value(json_object_get(q,
		    "max_foreign_cores")),
		.window_ms = (int)json_number_value(json_object_get(q,
		    "window_ms")),
		.timeout_s = json_number_value(json_object_get(q, "timeout_s")),
		.budget_s = json_number_value(json_object_get(q, "budget_s")),
		/* No leg runs here: only the server's cpus are pinned. */
		.max_client_busy = 1e9,
		.max_server_busy = json_number_value(json_object_get(q,
		    "max_server_busy")),
		.probe = json_is_true(json_object_get(q, "probe")),
		.probe_margin = json_number_value(json_object_get(q,
		    "probe_margin")) };
	/* This host's clock decides whether its probe can be timed. */
	a->probe_off[0] = '\0';
	if (a->qp.probe && !probe_clock_stable(why, sizeof why)) {
		a->qp.probe = false;
		snprintf(a->probe_off, sizeof a->probe_off, "%s", why);
	}
	return NULL;
}

/* hello's "counters" (the window's events) and "quiet" (the gate's
 * settings, or false).  NULL, or the refusal. */
static json_t *
agent_hello_settings(struct agent *a, const json_t *req)
{
	const json_t *c = json_object_get(req, "counters"),
	    *q = json_object_get(req, "quiet");

	size_t n = 0;
	json_t *r;

	/* A hello refused before may have left its list. */
	template_free_argv(a->counters);
	a->counters = NULL;
	a->ncounters = 0;
	a->gate = false;
	if (c != NULL && (r = agent_strv(req, c, "hello: counters",
	    &a->counters, &n)) != NULL)
		return r;
	a->ncounters = (int)n;
	if (q == NULL || json_is_false(q) || json_is_null(q))
		return NULL;
	return agent_hello_quiet(a, req, q);
}

/* The version handshake: NULL when the client is this agent's version
 * and protocol, else the refusal naming both (the agent then exits). */
static json_t *
agent_hello_version(struct agent *a, const json_t *req, const char *host)
{
	const char *v = json_string_value(json_object_get(req, "version"));
	long long p = wire_protocol_of(req);

	if (v != NULL && strcmp(v, a->version) == 0 && p == a->protocol)
		return NULL;
	a->quit = true;
	a->exit_code = 2;
	return agent_refuse(req, "version", "the client is benchtui %s "
	    "(protocol %lld), the agent on %s is benchtui %s (protocol %d): "
	    "the protocol is only spoken between equal versions; install "
	    "benchtui %s on %s (or the agent's version here)",
	    v != NULL ? v : "(no version)", p, host, a->version, a->protocol,
	    v != NULL ? v : a->version, host);
}

/* The settings the gate here runs with, for the client's record. */
static json_t *
agent_quiet_json(const struct agent *a)
{
	json_t *q;

	if (!a->gate)
		return json_false();
	q = wire_quiet_json(&a->qp);
	if (a->probe_off[0] != '\0')
		json_object_set_new(q, "probe_off", json_string(a->probe_off));
	return q;
}

/* hello: the version handshake first of all, then the settings; the
 * reply carries the host's facts. */
static json_t *
agent_hello(struct agent *a, const json_t *req)
{
	char host[256] = "this host";
	json_t *r;

	if (a->greeted)
		return agent_refuse(req, "malformed", "hello: said once already");
	(void)gethostname(host, sizeof host - 1);
	if ((r = agent_hello_version(a, req, host)) != NULL)
		return r;
	if (a->dir == NULL)
		return agent_refuse(req, "dir", "%s on %s", a->dir_err, host);
	if ((r = agent_hello_settings(a, req)) != NULL)
		return r;
	/* No client cpus here: a probe seeds every cpu's floor, and follows
	 * the server's cpus once one is pinned. */
	if (a->gate && (a->quiet = quiet_create(&a->qp, NULL, 0, getpid(),
	    NULL)) == NULL)
		return agent_refuse(req, "failed", "the quiet gate could not be "
		    "set up on %s (/proc/stat)", host);
	a->greeted = true;
	r = agent_reply(req, true);
	json_object_set_new(r, "version", json_string(a->version));
	json_object_set_new(r, "protocol", json_integer(a->protocol));
	json_object_set_new(r, "pid", json_integer(getpid()));
	json_object_set_new(r, "dir", json_string(a->dir));
	json_object_set_new(r, "host", provenance_host());
	json_object_set_new(r, "quiet", agent_quiet_json(a));
	return r;
}

/* bins: each program as the agent would run it, hashed. */
static json_t *
agent_bins(struct agent *a, const json_t *req)
{
	const json_t *progs = json_object_get(req, "programs");
	json_t *bins = json_object(), *v, *r;
	size_t i;

	if (!json_is_array(progs)) {
		json_decref(bins);
		return agent_refuse(req, "malformed", "bins: programs must be "
		    "an array of strings");
	}
	json_array_foreach(progs, i, v)
		if (json_is_string(v))
			provenance_add_bin(bins, json_string_value(v), a->dir);
	r = agent_reply(req, true);
	json_object_set_new(r, "bins", bins);
	return r;
}

static void
agent_handle(struct agent *a, json_t *req)
{
	const char *op = agent_op(req);
	json_t *r;

	if (op == NULL || !json_is_integer(json_object_get(req, "id")))
		r = agent_refuse(req, "malformed", "line %lu: a request needs "
		    "\"op\" (a string) and \"id\" (an integer)", a->in.line);
	else if (strcmp(op, "hello") == 0)
		r = agent_hello(a, req);
	else if (!a->greeted)
		r = agent_refuse(req, "malformed", "line %lu: %s before hello; "
		    "hello comes first", a->in.line, op);
	else if (strcmp(op, "ping") == 0 || strcmp(op, "release") == 0 ||
	    strcmp(op, "cancel") == 0)
		r = agent_reply(req, true); /* nothing waits to be released */
	else if (strcmp(op, "bins") == 0)
		r = agent_bins(a, req);
	else if (strcmp(op, "start") == 0)
		r = agent_start(a, req);
	else if (strcmp(op, "open") == 0)
		r = agent_open(a, req);
	else if (strcmp(op, "close") == 0)
		r = agent_close(a, req);
	else if (strcmp(op, "stop") == 0)
		r = agent_stop(a, req);
	else if (strcmp(op, "leg") == 0)
		r = agent_leg(a, req);
	else if (strncmp(op, "prof_", 5) == 0 && (strcmp(op + 5, "start") ==
	    0 || strcmp(op + 5, "stop") == 0 || strcmp(op + 5, "report") == 0 ||
	    strcmp(op + 5, "get") == 0 || strcmp(op + 5, "legs") == 0))
		r = agent_prof(a, op, req);
	else
		r = agent_refuse(req, "malformed", "line %lu: no op \"%s\"",
		    a->in.line, op);
	agent_send(a, r);
}

/* The wake fd: an epoll set over the input and the signal pipe, which
 * poll(2) sees readable when either is.  An input epoll cannot watch (a
 * regular file) leaves the signal pipe alone. */
static int
agent_wake_fd(int in_fd, int sig_rd)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int ep = epoll_create1(EPOLL_CLOEXEC);

	if (ep < 0)
		return sig_rd;
	ev.data.fd = sig_rd;
	(void)epoll_ctl(ep, EPOLL_CTL_ADD, sig_rd, &ev);
	ev.data.fd = in_fd;
	(void)epoll_ctl(ep, EPOLL_CTL_ADD, in_fd, &ev);
	return ep;
}

static int
agent_signals(void)
{
	struct sigaction sa = { .sa_handler = agent_on_signal };
	int sp[2];

	/* A client that has gone is seen as a failed write, not a death. */
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0,
	    sp) != 0)
		return -1;
	agent_sig_wr = sp[1];
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return sp[0];
}

int
agent_run(const char *dir, int in_fd, int out_fd)
{
	struct agent a = { .out = out_fd, .exit_code = 0,
	    .handle = agent_handle, .scratch_lock = -1 };
	const char *forced = getenv(AGENT_VERSION_ENV),
	    *fproto = getenv(AGENT_PROTOCOL_ENV);
	char err[1024];

	a.version = forced != NULL && *forced != '\0' ? forced : wire_version();
	a.protocol = fproto != NULL && *fproto != '\0' ? atoi(fproto) :
	    WIRE_PROTOCOL;
	wire_in_init(&a.in, in_fd);
	agent_make_dir(&a, dir);
	/* Servers that daemonize are reparented here, where their tree is
	 * found and ended. */
	procs_become_subreaper();
	if ((a.sig_rd = agent_signals()) < 0) {
		a.exit_code = 1;
		goto out;
	}
	a.wake = agent_wake_fd(in_fd, a.sig_rd);
	while (!a.quit) {
		json_t *req = NULL;

		switch (wire_read(&a.in, -1, a.sig_rd, &req, err, sizeof err)) {
		case WIRE_MSG:
			agent_handle(&a, req);
			break;
		case WIRE_BAD:
			agent_send(&a, agent_refuse(NULL, "malformed", "%s", err));
			break;
		case WIRE_TIMEOUT:
			break;
		default: /* closed, a signal, a read error */
			a.quit = true;
		}
		json_decref(req);
	}
out:
	agent_end_server(&a, AGENT_END_GRACE_S);
	agent_leg_cgroup_end(&a);
	scratch_release(&a.scratch_lock);
	procs_reap_orphans(NULL, 0);
	quiet_destroy(a.quiet);
	template_free_argv(a.counters);
	wire_in_free(&a.in);
	free(a.dir);
	return a.exit_code;
}
