/* The round driver, the quiet gate before a leg: the wait (quiet.c), how
 * it ended (quiet, waived, timeout, budget), the operator's g and G, and
 * the warning when the round's budget of waiting is spent; and the gate
 * of a server's host (its agent's), which spends the same budget and
 * marks the leg the same way. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "quiet.h"
#include "remote.h"
#include "round_int.h"
#include "xalloc.h"

bool
round_gate_keys(struct run *u)
{
	char buf[64];
	ssize_t n;
	bool all = false, any = false;

	while ((n = read(u->r->gate_pipe[0], buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			any = true;
			all |= buf[i] == 'G';
		}
	if (all && !u->gate_released_all) {
		json_t *ev = event_new("gate");

		u->gate_released_all = true;
		if (u->quiet != NULL)
			quiet_release_all(u->quiet);
		json_object_set_new(ev, "kind", json_string("release"));
		json_object_set_new(ev, "scope", json_string("round"));
		round_emit_new(u, ev);
	}
	return any;
}

/* The budget is spent: said once, in the log (a gate event and a warning
 * the console and the report show). */
static void
round_gate_budget_spent(struct run *u, const char *leg)
{
	char words[128];
	json_t *ev;

	if (u->gate_budget_warned)
		return;
	u->gate_budget_warned = true;
	ev = event_new("gate");
	json_object_set_new(ev, "kind", json_string("budget"));
	json_object_set_new(ev, "budget_s", json_real(round(quiet_budget(
	    u->quiet) * 1000) / 1000));
	json_object_set_new(ev, "spent_s", json_real(round(quiet_spent(
	    u->quiet) * 1000) / 1000));
	round_emit_new(u, ev);
	quiet_budget_words(u->quiet, words, sizeof words);
	round_warn(u, "the quiet gate has waited its whole budget (%s) by "
	    "leg %s: the rest of the round runs without waiting for a quiet "
	    "box; legs that run on a busy one are marked gate \"budget\" and "
	    "counted in the report", words, leg);
}

/* Before the round's first leg (of this session): the box's load over
 * the last seconds, logged, and when it is already busier than
 * max_foreign_cores, one warning that names the load and the busiest
 * foreign processes.  The time it held the round is the first leg's wait
 * (*waited), spent of the budget like any.  0, or -1 when aborted
 * meanwhile. */
static int
round_gate_startup(struct run *u, double *waited)
{
	struct quiet_startup st;
	json_t *ev;

	u->gate_started = true;
	if (quiet_startup(u->quiet, u->r->abort_pipe[0], &st) != 0)
		return -1;
	*waited = st.waited_s;
	ev = quiet_startup_event(u->quiet, &st);
	round_emit(u->r, ev);
	if (st.busy) {
		char words[128];

		quiet_budget_words(u->quiet, words, sizeof words);
		round_warn(u, "%s; the gate holds each leg until the box is "
		    "quiet, for at most its budget (%s) in all",
		    json_string_value(json_object_get(ev, "msg")), words);
	}
	json_decref(ev);
	return 0;
}

void
round_gate_leg_ran(struct run *u, const struct plan_leg *pl,
    const struct leg_result *res)
{
	const struct spec *s = u->r->spec;
	double cpu = (double)res->ru.ru_utime.tv_sec +
	    (double)res->ru.ru_utime.tv_usec / 1e6 +
	    (double)res->ru.ru_stime.tv_sec +
	    (double)res->ru.ru_stime.tv_usec / 1e6;

	if (u->quiet == NULL || s->quiet.probe != SPEC_PROBE_AUTO ||
	    res->aborted)
		return;
	quiet_probe_leg_ran(u->quiet, pl->cell * s->narms + pl->arm,
	    s->ncells * s->narms, cpu, res->wall);
}

static bool
round_gate_probes(const struct run *u, const struct plan_leg *pl)
{
	const struct spec *s = u->r->spec;

	if (s->quiet.probe == SPEC_PROBE_OFF)
		return false;
	if (s->quiet.probe == SPEC_PROBE_ON)
		return true;
	return quiet_probe_auto(u->quiet, pl->cell * s->narms + pl->arm);
}

/* A leg the operator's g let go: logged, unless a G released the round
 * (logged as such already). */
static void
round_gate_released(struct run *u, const char *leg)
{
	bool key = round_gate_keys(u);
	json_t *ev;

	if (!key || u->gate_released_all)
		return;
	ev = event_new("gate");
	json_object_set_new(ev, "kind", json_string("release"));
	json_object_set_new(ev, "scope", json_string("leg"));
	json_object_set_new(ev, "leg", json_string(leg));
	round_emit_new(u, ev);
}

/* A gate that gave up (here, or on where: a server's host): the round
 * stops when on_timeout says abort, else the leg is marked.  0, or -1
 * with u->err. */
static int
round_gate_timed_out(struct run *u, const char *where, double foreign,
    const char *leg, struct round_gate_rec *g)
{
	const struct spec_quiet *q = &u->r->spec->quiet;

	if (q->abort_on_timeout) {
		snprintf(u->err, sizeof u->err, "%s did not become quiet (%.2f "
		    "foreign cores, threshold %.2f) within %g s before %s; the "
		    "round stopped, resume continues it", where, foreign,
		    q->max_foreign_cores, q->timeout_s, leg);
		round_abort_internal(u->r, "quiet gate timed out");
		return -1;
	}
	g->how = TALLY_GATE_TIMEOUT;
	return 0;
}

/* Mark the leg as a gate let it go (how), the operator's release and the
 * spent budget logged; a timeout stops the round when on_timeout says
 * abort (where names the gate's host, foreign its load).  0, or -1 with
 * u->err. */
static int
round_gate_mark(struct run *u, enum tally_gate how, const char *where,
    double foreign, const char *leg, struct round_gate_rec *g)
{
	switch (how) {
	case TALLY_GATE_WAIVED:
		round_gate_released(u, leg);
		break;
	case TALLY_GATE_BUDGET:
		round_gate_budget_spent(u, leg);
		break;
	case TALLY_GATE_TIMEOUT:
		return round_gate_timed_out(u, where, foreign, leg, g);
	default:
		break;
	}
	g->how = how;
	return 0;
}

/* The gate's verdict as the leg line carries it. */
static const enum tally_gate round_gate_how[] = {
	[QUIET_OK] = TALLY_GATE_QUIET, [QUIET_TIMEOUT] = TALLY_GATE_TIMEOUT,
	[QUIET_RELEASED] = TALLY_GATE_WAIVED, [QUIET_BUDGET] = TALLY_GATE_BUDGET,
	[QUIET_ABORTED] = TALLY_GATE_NONE };

int
round_gate(struct run *u, const struct plan_leg *pl, const char *leg,
    struct round_gate_rec *g)
{
	struct quiet_seen seen;
	enum quiet_result res;
	double looked = 0;

	*g = (struct round_gate_rec){ .how = TALLY_GATE_NONE, .probe = NAN,
	    .probe_us = NAN, .client_busy = NAN, .server_busy = NAN };
	if (u->quiet == NULL)
		return 0;
	if (!u->gate_started && round_gate_startup(u, &looked) != 0)
		return -1;
	/* A g pressed while no leg was held is not kept for this one; a G
	 * is. */
	(void)round_gate_keys(u);
	quiet_probe_next(u->quiet, round_gate_probes(u, pl));
	res = quiet_wait(u->quiet, u->r->abort_pipe[0], u->r->gate_pipe[0],
	    round_emit_cb, u, &seen);
	g->wait_s = looked + seen.waited_s;
	if (seen.stay_named) {
		char line[768];

		quiet_stay_line(u->quiet, line, sizeof line);
		round_warn(u, "%s", line);
	}
	g->probe = seen.probe;
	g->probe_us = seen.probe_us;
	if (res == QUIET_ABORTED)
		return -1;
	return round_gate_mark(u, round_gate_how[res], "the machine",
	    seen.foreign, leg, g);
}

int
round_gate_server(struct run *u, const struct plan_leg *pl,
    const char *leg, struct round_srv *srv, struct round_gate_rec *g)
{
	const char *host = round_server_host(srv);
	struct remote_gate rg = { .release_all = u->gate_released_all };
	struct round_srv_gate far;
	/* The legs' host gates each leg itself (round_gate_far_ask). */
	bool gated = host != NULL && u->quiet != NULL &&
	    !(u->r->spec->host != NULL && strcmp(host, u->r->spec->host) == 0);
	char where[300], name[REMOTE_NAME_MAX];

	if (gated) {
		rg.budget_left_s = quiet_budget_left(u->quiet);
		rg.probe = round_gate_probes(u, pl);
	}
	if (round_server_open(u, srv, gated ? &rg : NULL, leg, &far) != 0)
		return -1;
	if (!gated || far.how == TALLY_GATE_NONE)
		return 0;
	/* One budget for the round: the far wait is spent of it too. */
	quiet_spend(u->quiet, far.wait_s);
	g->wait_s += far.wait_s;
	/* A leg the local gate let go on a busy box keeps its mark. */
	if ((g->how != TALLY_GATE_QUIET && g->how != TALLY_GATE_NONE) ||
	    far.how == TALLY_GATE_QUIET)
		return 0;
	snprintf(where, sizeof where, "the server's host %s",
	    remote_name(host, name));
	return round_gate_mark(u, far.how, where, far.foreign, leg, g);
}

void
round_gate_leg_beside(struct run *u, double staying, struct round_gate_rec *g)
{
	struct quiettop_proc p[QUIET_STAY_MAX];

	g->nstaying = 0;
	if (u->quiet == NULL || !(staying >= QUIET_STAY_MARK))
		return;
	g->nstaying = quiet_staying(u->quiet, p, QUIET_STAY_MAX);
	for (size_t i = 0; i < g->nstaying; i++)
		g->staying[i] = p[i].pid;
}

bool
round_gate_far_ask(struct run *u, const struct plan_leg *pl,
    struct remote_gate *rg)
{
	if (u->quiet == NULL)
		return false;
	(void)round_gate_keys(u);
	*rg = (struct remote_gate){ .release_all = u->gate_released_all,
	    .budget_left_s = quiet_budget_left(u->quiet),
	    .probe = round_gate_probes(u, pl) };
	return true;
}

int
round_gate_far_mark(struct run *u, const char *leg, const char *host,
    const json_t *far, struct round_gate_rec *g)
{
	enum quiet_result res;
	const json_t *pr = json_object_get(far, "probe"),
	    *pu = json_object_get(far, "probe_us");
	char where[300], name[REMOTE_NAME_MAX];

	*g = (struct round_gate_rec){ .how = TALLY_GATE_NONE, .probe = NAN,
	    .probe_us = NAN, .client_busy = NAN, .server_busy = NAN };
	if (!quiet_result_of_word(json_string_value(json_object_get(far,
	    "gate")), &res))
		return 0;
	/* One budget for the round: the far wait is spent of it. */
	g->wait_s = json_number_value(json_object_get(far, "wait_s"));
	g->probe = json_is_number(pr) ? json_number_value(pr) : NAN;
	g->probe_us = json_is_number(pu) ? json_number_value(pu) : NAN;
	quiet_spend(u->quiet, g->wait_s);
	(void)round_gate_keys(u);
	snprintf(where, sizeof where, "the legs' host %s",
	    remote_name(host, name));
	return round_gate_mark(u, round_gate_how[res], where,
	    json_number_value(json_object_get(far, "foreign")), leg, g);
}
