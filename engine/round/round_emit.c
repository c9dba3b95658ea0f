/* The round driver, events out and steering in: every event goes to the
 * log, the tally and the front end from here; abort and pause arrive here,
 * and every wait of the round sees them at once. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
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

void
round_emit_seen(struct round *r, const json_t *ev)
{
	if (r->tally != NULL)
		tally_feed(r->tally, ev);
	if (r->on_event != NULL)
		r->on_event((json_t *)ev, r->arg);
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
round_release_gate(struct round *r, bool rest)
{
	ssize_t n = write(r->gate_pipe[1], rest ? "G" : "g", 1);

	(void)n;
}

bool
round_aborted(const struct run *u)
{
	return atomic_load(&u->r->aborted);
}

void
round_emit_new(struct run *u, json_t *ev)
{
	if (ev == NULL)
		return;
	round_emit(u->r, ev);
	json_decref(ev);
}

void
round_emit_cb(json_t *ev, void *arg)
{
	round_emit(((struct run *)arg)->r, ev);
}

void
round_warn(struct run *u, const char *fmt, ...)
{
	json_t *ev = event_new("warning");
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_object_set_new(ev, "msg", json_string(msg));
	round_emit_new(u, ev);
}

/* Wait up to seconds (or forever when < 0) for the abort pipe, or, with
 * ctl, for a steering byte on the control pipe (drained).  No sleep: abort
 * is seen at once. */
void
round_wait(struct run *u, double seconds, bool ctl)
{
	double end = clock_now() + seconds;

	while (!round_aborted(u)) {
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
round_pause_point(struct run *u)
{
	json_t *ev;

	if (!atomic_load(&u->r->paused) || round_aborted(u))
		return;
	round_emit_new(u, event_new("pause"));
	while (atomic_load(&u->r->paused) && !round_aborted(u))
		round_wait(u, -1, true);
	if (round_aborted(u))
		return;
	ev = event_new("resume");
	json_object_set_new(ev, "from", json_string("pause"));
	round_emit_new(u, ev);
}

/* The parent pid in /proc/PID/stat, with open and read only (both
 * async-signal-safe); -1 when the process is gone. */
static pid_t
round_ppid(pid_t pid)
{
	char path[40], buf[512], *p;
	char digits[16];
	ssize_t n;
	int fd, i = 0;
	unsigned v = (unsigned)pid;
	pid_t ppid = 0;

	/* "/proc/" PID "/stat", by hand: snprintf is not safe here. */
	do
		digits[i++] = (char)('0' + v % 10);
	while ((v /= 10) != 0 && i < (int)sizeof digits);
	memcpy(path, "/proc/", 6);
	for (int k = 0; k < i; k++)
		path[6 + k] = digits[i - 1 - k];
	memcpy(path + 6 + i, "/stat", 6);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "PID (COMM) S PPID ...": COMM may hold anything, so from the last
	 * ')'. */
	for (p = buf + n; p > buf && *p != ')'; p--)
		;
	if (*p != ')' || p[1] != ' ' || p[2] == '\0' || p[3] != ' ')
		return -1;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

bool
round_signal_from_tree(struct round *r, int sig, const siginfo_t *si)
{
	pid_t self = getpid(), cur;
	int saved = errno;
	bool mine = false;

	if (r == NULL || si == NULL || si->si_code != SI_USER)
		return false;
	cur = si->si_pid;

	/* A chain of parents that reaches benchtui: at most a few hundred
	 * reads of a small file, and a signal is rare. */
	for (int depth = 0; cur > 1 && cur != self && depth < 256; depth++) {
		pid_t pp = round_ppid(cur);

		if (pp == self) {
			mine = true;
			break;
		}
		cur = pp;
	}
	if (mine) {
		atomic_store(&r->tree_pid, (int)si->si_pid);
		atomic_store(&r->tree_sig, sig);
	}
	errno = saved;
	return mine;
}
