/* model: the quiet gate's part of the reducer -- its samples (this
 * machine's, and each server host's), its releases and budget, what each
 * leg says the gates did -- and the ETA, which counts the gates' waits. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model_int.h"
#include "tally.h"

/* Whether a gate holds the next leg: this machine's or a host's. */
bool
model_holding(const struct model *m)
{
	for (size_t i = 0; i < m->nhosts; i++)
		if (m->hosts[i].holding)
			return true;
	return m->quiet_seen && !m->quiet_ok;
}

void
model_feed_quiet(struct model *m, const json_t *ev, double ts)
{
	const json_t *ok = json_object_get(ev, "ok");
	double thr = model_get_num(ev, "threshold");
	size_t drop = 0;

	m->quiet_seen = true;
	m->quiet_now = model_get_num(ev, "foreign");
	if (!isnan(thr))
		m->quiet_threshold = thr;
	m->quiet_ok = json_is_boolean(ok) ? json_is_true(ok) :
	    !(m->quiet_now > m->quiet_threshold);
	m->gate_waited = model_get_num(ev, "waited_s");
	m->gate_timeout = model_get_num(ev, "timeout_s");
	/* The countdown's end: timeout_s, or the budget left when that is
	 * less (an earlier benchtui's samples have timeout_s only). */
	m->gate_limit = model_get_num(ev, "limit_s");
	if (isnan(m->gate_limit))
		m->gate_limit = m->gate_timeout;
	m->client_busy = model_get_num(ev, "client_busy");
	m->server_busy = model_get_num(ev, "server_busy");
	m->client_max = model_get_num(ev, "max_client_busy");
	m->server_max = model_get_num(ev, "max_server_busy");
	if (!isnan(model_get_num(ev, "budget_s")))
		m->gate_budget_s = model_get_num(ev, "budget_s");
	/* Released by the operator, or given up: the gate holds no more. */
	if (json_is_true(json_object_get(ev, "override")) ||
	    json_is_true(json_object_get(ev, "timed_out")))
		m->quiet_ok = true;
	if (!m->quiet_ok && m->gate_wait_since == 0)
		m->gate_wait_since = ts;
	else if (!model_holding(m))
		m->gate_wait_since = 0;

	/* Keep the last minute, and never more than the ring holds. */
	while (drop < m->nquiet && m->quiet[drop].ts < ts - MODEL_QUIET_SPAN)
		drop++;
	if (m->nquiet - drop == MODEL_QUIET_MAX)
		drop++;
	if (drop) {
		memmove(m->quiet, m->quiet + drop,
		    (m->nquiet - drop) * sizeof m->quiet[0]);
		m->nquiet -= drop;
	}
	m->quiet[m->nquiet++] = (struct model_quiet){ ts, m->quiet_now,
	    m->quiet_ok };
}

struct model_host *
model_host(struct model *m, const char *name)
{
	struct model_host *h;

	for (size_t i = 0; i < m->nhosts; i++)
		if (strcmp(m->hosts[i].name, name) == 0)
			return &m->hosts[i];
	if (m->nhosts == MODEL_HOSTS_MAX)
		return NULL;
	h = &m->hosts[m->nhosts++];
	model_copy_name(h->name, name);
	h->foreign = h->server_busy = h->server_max = NAN;
	h->probe = h->probe_max = h->waited = h->limit = NAN;
	h->ok = true;
	return h;
}

void
model_feed_host_quiet(struct model *m, struct model_host *h,
    const json_t *ev, double ts)
{
	const json_t *ok = json_object_get(ev, "ok");

	h->foreign = model_get_num(ev, "foreign");
	h->ok = json_is_boolean(ok) ? json_is_true(ok) : true;
	h->holding = !h->ok && !json_is_true(json_object_get(ev, "override")) &&
	    !json_is_true(json_object_get(ev, "timed_out"));
	/* What it judges besides the foreign load: its server's pinned cpus
	 * and its probe; and its countdown. */
	h->server_busy = model_get_num(ev, "server_busy");
	h->server_max = model_get_num(ev, "max_server_busy");
	h->probe = model_get_num(ev, "probe");
	h->probe_max = model_get_num(ev, "probe_max");
	h->waited = model_get_num(ev, "waited_s");
	h->limit = model_get_num(ev, "limit_s");
	if (isnan(h->limit))
		h->limit = model_get_num(ev, "timeout_s");
	if (h->holding && m->gate_wait_since == 0)
		m->gate_wait_since = ts;
	else if (!model_holding(m))
		m->gate_wait_since = 0;
}

unsigned
model_feed_gate(struct model *m, const json_t *ev)
{
	const char *kind = model_get_str(ev, "kind");
	const char *scope = model_get_str(ev, "scope");

	if (kind == NULL)
		return 0;
	if (strcmp(kind, "release") == 0 && scope != NULL &&
	    strcmp(scope, "round") == 0)
		m->gate_released_all = true;
	else if (strcmp(kind, "budget") == 0)
		m->gate_budget_spent = true;
	else
		return 0;
	return MODEL_CHANGE_QUIET | MODEL_CHANGE_PROGRESS;
}

void
model_gate_round(struct model *m, const json_t *ev)
{
	const json_t *q = json_object_get(ev, "quiet");

	if (json_is_number(json_object_get(q, "budget_s")))
		m->gate_budget_s = json_number_value(json_object_get(q,
		    "budget_s"));
}

void
model_gate_leg(struct model *m, struct model_leg *l, const json_t *ev,
    bool counted)
{
	const json_t *srv = json_object_get(ev, "server");
	const char *far = model_get_str(srv, "gate"),
	    *host = model_get_str(srv, "host");
	struct model_host *h;

	l->gate = (unsigned char)tally_leg_gate(ev);
	l->wait_s = model_get_num(ev, "wait_s");
	/* How a server's host's gate let this leg go: its line says so. */
	if (host != NULL && far != NULL && (h = model_host(m, host)) != NULL)
		snprintf(h->last_gate, sizeof h->last_gate, "%s", far);
	/* What the report counts as not quiet (its figure is the one the
	 * quiet pane shows; this only says when the figure moved). */
	l->unquiet = (l->gate != TALLY_GATE_NONE && l->gate !=
	    TALLY_GATE_QUIET) || l->noisy ||
	    model_get_num(ev, "client_busy") > m->client_max ||
	    model_get_num(ev, "server_busy") > m->server_max;
	/* The ETA's waits are the counted legs', as its busy time is. */
	if (counted && !isnan(l->wait_s) && l->wait_s > 0)
		m->gate_waited_total += l->wait_s;
}

/* The legs still to run take what the legs so far took each, running and
 * waiting at the gate apart: the waits to come are bounded by what is
 * left of the round's budget_s, and none are to come once it is spent or
 * the rest of the round was released (G). */
double
model_eta(const struct model *m)
{
	double rem, run, wait, left;

	if (m->legs_done == 0 || m->legs_total <= m->legs_done)
		return m->legs_total && m->legs_total <= m->legs_done ? 0 : -1;
	rem = (double)(m->legs_total - m->legs_done);
	wait = m->gate_waited_total;
	run = m->busy_s > wait ? m->busy_s - wait : 0;
	if (m->gate_released_all || m->gate_budget_spent || wait <= 0)
		return run / (double)m->legs_done * rem;
	wait = wait / (double)m->legs_done * rem;
	if (!isnan(m->gate_budget_s)) {
		left = m->gate_budget_s - m->gate_waited_total -
		    (m->gate_wait_since > 0 && !isnan(m->gate_waited) ?
		    m->gate_waited : 0);
		if (wait > left)
			wait = left > 0 ? left : 0;
	}
	return run / (double)m->legs_done * rem + wait;
}
