/* The round driver, the quiet gate before a leg: the wait (quiet.c), how
 * it ended (quiet, waived, timeout, budget), the operator's g and G, and
 * the warning when the round's budget of waiting is spent. */
#include <math.h>
#include <stdio.h>
#include <unistd.h>

#include "event.h"
#include "quiet.h"
#include "round_int.h"

static void
round_gate_emit(json_t *ev, void *arg)
{
	round_emit(((struct run *)arg)->r, ev);
}

/* The operator's keys since the last look (gate_pipe: 'g' one leg, 'G'
 * the rest of the round), drained.  A G releases the rest of the round
 * from now on, and is logged; *leg tells whether any key came. */
static void
round_gate_keys(struct run *u, bool *leg)
{
	char buf[64];
	ssize_t n;
	bool all = false;

	*leg = false;
	while ((n = read(u->r->gate_pipe[0], buf, sizeof buf)) > 0)
		for (ssize_t i = 0; i < n; i++) {
			*leg = true;
			all |= buf[i] == 'G';
		}
	if (all && !u->gate_released_all) {
		json_t *ev = event_new("gate");

		u->gate_released_all = true;
		quiet_release_all(u->quiet);
		json_object_set_new(ev, "kind", json_string("release"));
		json_object_set_new(ev, "scope", json_string("round"));
		round_emit_new(u, ev);
	}
}

/* The budget is spent: said once, in the log (a gate event and a warning
 * the console and the report show). */
static void
round_gate_budget_spent(struct run *u, const char *leg)
{
	const struct spec_quiet *q = &u->r->spec->quiet;
	json_t *ev;

	if (u->gate_budget_warned)
		return;
	u->gate_budget_warned = true;
	ev = event_new("gate");
	json_object_set_new(ev, "kind", json_string("budget"));
	json_object_set_new(ev, "budget_s", json_real(q->budget_s));
	json_object_set_new(ev, "spent_s", json_real(quiet_spent(u->quiet)));
	round_emit_new(u, ev);
	round_warn(u, "the quiet gate has waited its whole budget (budget_s "
	    "%g s) by leg %s: the rest of the round runs without waiting for "
	    "a quiet box; legs that run on a busy one are marked gate "
	    "\"budget\" and counted in the report", q->budget_s, leg);
}

/* Before the round's first leg (of this session): the box's load over
 * the last seconds, logged, and when it is already busier than
 * max_foreign_cores, one warning that names the load and the busiest
 * foreign processes.  0, or -1 when aborted meanwhile. */
static int
round_gate_startup(struct run *u)
{
	struct quiet_startup st;
	json_t *ev;

	u->gate_started = true;
	if (quiet_startup(u->quiet, u->r->abort_pipe[0], &st) != 0)
		return -1;
	ev = quiet_startup_event(u->quiet, &st);
	round_emit(u->r, ev);
	if (st.busy)
		round_warn(u, "%s; the gate holds each leg until the box is "
		    "quiet, for at most budget_s (%g s) in all", json_string_value(
		    json_object_get(ev, "msg")), u->r->spec->quiet.budget_s);
	json_decref(ev);
	return 0;
}

int
round_gate(struct run *u, const char *leg, struct round_gate_rec *g)
{
	const struct spec *s = u->r->spec;
	struct quiet_seen seen;
	enum quiet_result res;
	bool key;

	*g = (struct round_gate_rec){ .how = ROUND_GATE_OFF,
	    .client_busy = NAN, .server_busy = NAN };
	if (u->quiet == NULL)
		return 0;
	if (!u->gate_started && round_gate_startup(u) != 0)
		return -1;
	/* A g pressed while no leg was held is not kept for this one; a G
	 * is. */
	round_gate_keys(u, &key);
	res = quiet_wait(u->quiet, u->r->abort_pipe[0], u->r->gate_pipe[0],
	    round_gate_emit, u, &seen);
	g->wait_s = seen.waited_s;
	switch (res) {
	case QUIET_ABORTED:
		return -1;
	case QUIET_OK:
		g->how = ROUND_GATE_QUIET;
		break;
	case QUIET_RELEASED:
		round_gate_keys(u, &key);
		g->how = ROUND_GATE_WAIVED;
		if (key && !u->gate_released_all) {
			json_t *ev = event_new("gate");

			json_object_set_new(ev, "kind", json_string("release"));
			json_object_set_new(ev, "scope", json_string("leg"));
			json_object_set_new(ev, "leg", json_string(leg));
			round_emit_new(u, ev);
		}
		break;
	case QUIET_BUDGET:
		g->how = ROUND_GATE_BUDGET;
		round_gate_budget_spent(u, leg);
		break;
	case QUIET_TIMEOUT:
		if (s->quiet.abort_on_timeout) {
			snprintf(u->err, sizeof u->err, "the machine did not "
			    "become quiet (%.2f foreign cores, threshold %.2f) "
			    "within %g s before %s; the round stopped, "
			    "resume continues it", seen.foreign,
			    quiet_threshold(u->quiet), s->quiet.timeout_s, leg);
			round_abort_internal(u->r, "quiet gate timed out");
			return -1;
		}
		g->how = ROUND_GATE_TIMEOUT;
		break;
	}
	return 0;
}
