/* Inside the agent's client: the checks every reply and event from the
 * far side passes before anything of it is kept (remote_check.c).  A far
 * side may spoil its own numbers, never the round's record: each value
 * is checked for its type and range and copied into a new object the
 * client builds; anything else is a protocol error that drops the
 * connection.  Not part of the engine's public surface. */
#ifndef BENCHTUI_REMOTE_INT_H
#define BENCHTUI_REMOTE_INT_H

#include <jansson.h>
#include <stddef.h>

/* The most a far side's text may hold (a message, a path, a death). */
#define REMOTE_TEXT_MAX 1024

/* A far side's text: at most max bytes, control bytes as '?' (nothing
 * it sends may steer a terminal).  NULL when v is not a string. */
json_t *remote_text(const json_t *v, size_t max);

/* Each check returns a new object built from the checked values, or
 * NULL with why ("KEY: what is wrong"). */

/* A "quiet" event of the far gate, waited at most waited_max s. */
json_t *remote_check_event(const json_t *ev, double waited_max, char *why,
    size_t len);
/* hello's answer: version, protocol, pid, dir, host (the facts), quiet. */
json_t *remote_check_hello(const json_t *r, char *why, size_t len);
/* bins: {path: sha256 or null}, at most one for each of programs. */
json_t *remote_check_bins(const json_t *bins, const json_t *programs,
    char *why, size_t len);
/* start's answer: pid, exec, sha256, log, warnings. */
json_t *remote_check_start(const json_t *r, char *why, size_t len);
/* open's answer, after waited_max s: gate, wait_s, foreign,
 * server_busy, probe, probe_us, alive, death. */
json_t *remote_check_open(const json_t *r, double waited_max, char *why,
    size_t len);
/* close's answer: server (its counters among names), foreign,
 * server_busy, alive, death. */
json_t *remote_check_close(const json_t *r, char *const *names, char *why,
    size_t len);
/* leg's answer after waited_max s: what leg.c measured there, its
 * counters among names, its output within max_bytes. */
json_t *remote_check_leg(const json_t *r, double waited_max,
    char *const *names, long long max_bytes, char *why, size_t len);
/* stop's answer: state, pid, death. */
json_t *remote_check_stop(const json_t *r, char *why, size_t len);
/* prof_start's answer: processes, tasks, pids, unwind, fallback. */
json_t *remote_check_prof_start(const json_t *r, char *why, size_t len);
json_t *remote_check_prof_legs(const json_t *r, char *why, size_t len);
/* prof_stop's answer: stopped, alive, death, traced_after,
 * contaminated. */
json_t *remote_check_prof_stop(const json_t *r, char *why, size_t len);
/* prof_report's answer: rc. */
json_t *remote_check_prof_report(const json_t *r, char *why, size_t len);

#endif
