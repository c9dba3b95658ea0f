/* The agent's client, its requests on the far side's work: bins, the
 * server's start, open, close and stop, and a leg on the legs' host.
 * Each answer is checked (remote_check.c) before the caller sees it; a
 * refusal that no outcome explains, or an answer that fails its check,
 * loses the connection. */
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "legcmd.h"
#include "remote.h"
#include "remote_conn.h"
#include "remote_int.h"

json_t *
remote_bins(struct remote *rm, const json_t *programs, char *err,
    size_t errlen)
{
	json_t *req = json_pack("{s:s,s:O}", "op", "bins", "programs",
	    programs);
	json_t *reply = remote_call_plain(rm, req, 10 * REMOTE_CALL_S), *b;
	char why[320];

	if (reply != NULL && remote_refused(rm, reply, err, errlen)) {
		json_decref(reply);
		remote_broken(rm, "the agent refused bins: %s", err);
		reply = NULL;
	}
	if (reply == NULL) {
		snprintf(err, errlen, "%s", rm->why);
		return NULL;
	}
	b = remote_check_bins(json_object_get(reply, "bins"), programs, why,
	    sizeof why);
	json_decref(reply);
	if (b == NULL) {
		remote_broken(rm, "the agent's answer to bins: %s", why);
		snprintf(err, errlen, "%s", rm->why);
	}
	return b;
}

/* The agent's start causes, as the static strings server.h names. */
static const char *
remote_cause(const json_t *reply)
{
	static const char *const known[] = { "port_taken", "died",
	    "ready_timeout", "aborted", "failed", "busy", NULL };
	const char *c = json_string_value(json_object_get(reply, "cause"));

	for (size_t i = 0; c != NULL && known[i] != NULL; i++)
		if (strcmp(c, known[i]) == 0)
			return known[i];
	return "failed";
}

/* What a server request's answer is checked with. */
enum remote_op { REMOTE_START, REMOTE_OPEN, REMOTE_CLOSE, REMOTE_STOP };

/* A server request's reply, checked (a new object built from it), or
 * NULL with err (and *cause, when not NULL): "lost", or for start the
 * agent's refusal and its cause.  A refusal of open, close or stop is no
 * outcome a leg can have: it loses the connection, naming the host and
 * the refusal (but an open the client cancelled, refused as aborted,
 * is only the answer to that).  An answer that fails its check is a
 * protocol error. */
static json_t *
remote_server_reply(struct remote *rm, json_t *reply, enum remote_op op,
    double took, const char **cause, char *err, size_t errlen)
{
	static const char *const name[] = { "start", "open", "close", "stop" };
	char why[320];
	json_t *ok = NULL;

	if (reply != NULL && remote_refused(rm, reply, err, errlen)) {
		const char *c = remote_cause(reply);

		if (op == REMOTE_START || (op == REMOTE_OPEN && rm->cancelled &&
		    strcmp(c, "aborted") == 0)) {
			if (cause != NULL)
				*cause = c;
			json_decref(reply);
			return NULL;
		}
		remote_broken(rm, "the agent refused %s: %s", name[op],
		    err + strlen(rm->name) + 2);
		json_decref(reply);
		reply = NULL;
	}
	if (reply != NULL) {
		switch (op) {
		case REMOTE_START:
			ok = remote_check_start(reply, why, sizeof why);
			break;
		case REMOTE_OPEN:
			ok = remote_check_open(reply, took + 1.0, why, sizeof why);
			break;
		case REMOTE_CLOSE:
			ok = remote_check_close(reply, rm->counters, why,
			    sizeof why);
			break;
		case REMOTE_STOP:
			ok = remote_check_stop(reply, why, sizeof why);
			break;
		}
		json_decref(reply);
		if (ok == NULL)
			remote_broken(rm, "the agent's answer to %s: %s", name[op],
			    why);
	}
	if (ok == NULL) {
		if (cause != NULL)
			*cause = "lost";
		snprintf(err, errlen, "%s", rm->why);
	}
	return ok;
}

json_t *
remote_start(struct remote *rm, const struct remote_start *p,
    const char **cause, char *err, size_t errlen)
{
	struct remote_wait w = { .deadline = clock_now() + p->ready_timeout_s +
	    REMOTE_CALL_S, .abort_fd = p->abort_fd, .release_fd = -1 };
	json_t *req = json_pack("{s:s,s:s,s:o,s:o,s:s?,s:i,s:f,s:s}", "op",
	    "start", "cell", p->cell, "argv", legcmd_argv_json(p->argv),
	    "env", p->env != NULL ? json_deep_copy(p->env) : json_object(),
	    "cpus", p->cpus, "tcp_port", p->tcp_port, "ready_timeout_s",
	    p->ready_timeout_s, "log", p->log);

	return remote_server_reply(rm, remote_call(rm, req, &w), REMOTE_START,
	    0, cause, err, errlen);
}

/* What a far gate is told before a window or a leg (g NULL: no gate). */
static void
remote_gate_fields(json_t *req, const struct remote_gate *g)
{
	if (g == NULL)
		return;
	json_object_set_new(req, "budget_left_s", json_real(g->budget_left_s));
	json_object_set_new(req, "release_all", json_boolean(g->release_all));
	json_object_set_new(req, "probe", json_boolean(g->probe));
}

json_t *
remote_open(struct remote *rm, const struct remote_gate *g, int abort_fd,
    int release_fd, remote_event_fn fn, void *arg, char *err, size_t errlen)
{
	const json_t *q = json_object_get(rm->hello, "quiet");
	double hold = json_is_object(q) && g != NULL ?
	    json_number_value(json_object_get(q, "timeout_s")) : 0, t0;
	struct remote_wait w = { .abort_fd = abort_fd,
	    .release_fd = release_fd, .fn = fn, .arg = arg };
	json_t *req = json_pack("{s:s,s:b}", "op", "open", "gate", g != NULL),
	    *reply;

	/* The far gate waits no longer than the budget's rest. */
	if (g != NULL && g->budget_left_s < hold)
		hold = g->budget_left_s > 0 ? g->budget_left_s : 0;
	w.deadline = clock_now() + hold + REMOTE_CALL_S;
	remote_gate_fields(req, g);
	t0 = clock_now();
	reply = remote_call(rm, req, &w);
	return remote_server_reply(rm, reply, REMOTE_OPEN, clock_now() - t0,
	    NULL, err, errlen);
}

json_t *
remote_close_window(struct remote *rm, char *err, size_t errlen)
{
	return remote_server_reply(rm, remote_call_plain(rm,
	    json_pack("{s:s}", "op", "close"), REMOTE_CALL_S), REMOTE_CLOSE, 0,
	    NULL, err, errlen);
}

json_t *
remote_stop(struct remote *rm, char *err, size_t errlen)
{
	return remote_server_reply(rm, remote_call_plain(rm,
	    json_pack("{s:s}", "op", "stop"), REMOTE_CALL_S), REMOTE_STOP, 0,
	    NULL, err, errlen);
}

/* The profiler the agent attached when the leg (a load) stopped after
 * its warm-up: prof_start's answer, checked, into ok as "attach", or its
 * refusal's words as "attach_error".  ok, or NULL with why. */
static json_t *
remote_leg_attach(struct remote *rm, const json_t *reply, json_t *ok,
    char *why, size_t len)
{
	const json_t *at = json_object_get(reply, "attach");
	char err[768];
	json_t *c;

	if (at == NULL)
		return ok;
	if (!json_is_object(at)) {
		snprintf(why, len, "attach: not an object");
	} else if (remote_refused(rm, at, err, sizeof err)) {
		json_object_set_new(ok, "attach_error", json_string(err));
		return ok;
	} else if ((c = remote_check_prof_start(at, why, len)) != NULL) {
		json_object_set_new(ok, "attach", c);
		return ok;
	}
	json_decref(ok);
	return NULL;
}

json_t *
remote_leg(struct remote *rm, json_t *req, double timeout_s,
    const struct remote_gate *g, int abort_fd, int release_fd,
    remote_event_fn fn, void *arg, bool *started, char *err, size_t errlen)
{
	const json_t *q = json_object_get(rm->hello, "quiet");
	double hold = json_is_object(q) && g != NULL ?
	    json_number_value(json_object_get(q, "timeout_s")) : 0;
	/* A leg without a timeout waits as long as it runs: only an abort
	 * or the connection's end stops the wait. */
	struct remote_wait w = { .deadline = clock_now() + (timeout_s > 0 ?
	    hold + timeout_s + 30.0 + REMOTE_CALL_S : 1e9), .abort_fd = abort_fd,
	    .release_fd = g != NULL ? release_fd : -1, .fn = g != NULL ? fn :
	    NULL, .arg = arg };
	long long max = json_integer_value(json_object_get(req, "max_bytes"));
	double t0 = clock_now();
	json_t *reply, *ok;
	char why[320];

	json_object_set_new(req, "op", json_string("leg"));
	json_object_set_new(req, "gate", json_boolean(g != NULL));
	remote_gate_fields(req, g);
	reply = remote_call(rm, req, &w);
	*started = false;
	if (reply != NULL && remote_refused(rm, reply, err, errlen)) {
		/* The agent could not start it there (no such program), or
		 * the gate was left on an abort: said as the agent said it. */
		json_decref(reply);
		return NULL;
	}
	if (reply == NULL) {
		snprintf(err, errlen, "%s", rm->why);
		return NULL;
	}
	ok = remote_check_leg(reply, clock_now() - t0 + 1.0, rm->counters,
	    max, why, sizeof why);
	if (ok != NULL)
		ok = remote_leg_attach(rm, reply, ok, why, sizeof why);
	json_decref(reply);
	if (ok == NULL) {
		remote_broken(rm, "the agent's answer to leg: %s", why);
		snprintf(err, errlen, "%s", rm->why);
		return NULL;
	}
	*started = true;
	return ok;
}

const char *
remote_name(const char *host, char *buf)
{
	size_t n = strlen(host), head = 40, tail = n - 20;

	if (n < REMOTE_NAME_MAX) {
		memcpy(buf, host, n + 1);
		return buf;
	}
	/* Cut between UTF-8 characters, never inside one. */
	while (head > 0 && ((unsigned char)host[head] & 0xc0) == 0x80)
		head--;
	while (tail < n && ((unsigned char)host[tail] & 0xc0) == 0x80)
		tail++;
	snprintf(buf, REMOTE_NAME_MAX, "%.*s...%s", (int)head, host,
	    host + tail);
	return buf;
}
