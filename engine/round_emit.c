/* The round driver, events out and steering in: every event goes to the
 * log, the tally and the front end from here; abort and pause arrive here,
 * and every wait of the round sees them at once. */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "clock.h"
#include "event.h"
#include "round_int.h"

void
round_emit(struct round *r, json_t *ev)
{
	char err[512];

	if (r->log != NULL && !r->fatal &&
	    logw_append(r->log, ev, err, sizeof err) != 0) {
		r->fatal = true;
		snprintf(r->fatal_err, sizeof r->fatal_err, "%s", err);
		round_abort_internal(r, "the log cannot be written");
	}
	if (r->tally != NULL)
		tally_feed(r->tally, ev);
	if (r->on_event != NULL)
		r->on_event(ev, r->arg);
}

/* Async-signal-safe: atomics and write(2) only. */
void
round_abort(struct round *r, const char *reason)
{
	const char *expected = NULL;
	ssize_t n;

	atomic_compare_exchange_strong(&r->abort_reason, &expected, reason);
	if (atomic_exchange(&r->aborted, true))
		return;
	n = write(r->abort_pipe[1], "a", 1);
	n = write(r->ctl_pipe[1], "a", 1);
	(void)n;
}

void
round_abort_internal(struct round *r, const char *reason)
{
	round_abort(r, reason);
}

void
round_pause(struct round *r, bool paused)
{
	ssize_t n;

	atomic_store(&r->paused, paused);
	n = write(r->ctl_pipe[1], "p", 1);
	(void)n;
}

/* Async-signal-safe: write(2) only. */
void
round_release_gate(struct round *r)
{
	ssize_t n = write(r->gate_pipe[1], "g", 1);

	(void)n;
}

bool
run_aborted(const struct run *u)
{
	return atomic_load(&u->r->aborted);
}

void
run_emit_new(struct run *u, json_t *ev)
{
	if (ev == NULL)
		return;
	round_emit(u->r, ev);
	json_decref(ev);
}

void
run_warn(struct run *u, const char *fmt, ...)
{
	json_t *ev = event_new("warning");
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_object_set_new(ev, "msg", json_string(msg));
	run_emit_new(u, ev);
}

/* Wait up to seconds (or forever when < 0) for the abort pipe, or, with
 * ctl, for a steering byte on the control pipe (drained).  No sleep: abort
 * is seen at once. */
void
run_wait(struct run *u, double seconds, bool ctl)
{
	double end = clock_now() + seconds;

	while (!run_aborted(u)) {
		struct pollfd pfd[2] = {
			{ .fd = u->r->abort_pipe[0], .events = POLLIN },
			{ .fd = u->r->ctl_pipe[0], .events = POLLIN },
		};
		int timeout = -1, n;

		if (seconds >= 0) {
			double left = end - clock_now();

			if (left <= 0)
				return;
			/* poll takes an int of ms: wait at most a day at a
			 * time (the loop comes back for the rest) */
			timeout = left > 86400.0 ? 86400000 :
			    (int)(left * 1000.0) + 1;
		}
		n = poll(pfd, ctl ? 2 : 1, timeout);
		if (n < 0 && errno != EINTR)
			return;
		if (ctl && n > 0 && pfd[1].revents != 0) {
			char buf[64];

			while (read(u->r->ctl_pipe[0], buf, sizeof buf) > 0)
				;
			return;
		}
	}
}

/* Between legs: honour a pause until resumed or aborted. */
void
run_pause_point(struct run *u)
{
	json_t *ev;

	if (!atomic_load(&u->r->paused) || run_aborted(u))
		return;
	run_emit_new(u, event_new("pause"));
	while (atomic_load(&u->r->paused) && !run_aborted(u))
		run_wait(u, -1, true);
	if (run_aborted(u))
		return;
	ev = event_new("resume");
	json_object_set_new(ev, "from", json_string("pause"));
	run_emit_new(u, ev);
}
