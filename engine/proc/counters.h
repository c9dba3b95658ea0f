/* Perf counters for one leg: the leg's process and its children from exec
 * on (inherit + enable_on_exec), nothing of the harness.
 *
 * Two backends, chosen at build time: libperf (HAVE_LIBPERF) or the raw
 * perf_event_open(2) syscall; a build with libperf compiles this file a
 * second time raw (COUNTERS_RAW), for the raw backend's tests.  Each
 * event is opened on its own, so one the machine lacks (ENOENT,
 * EOPNOTSUPP, ...) is recorded as unsupported with its errno and the
 * others still count.  Where EACCES comes from
 * perf_event_paranoid, the open is retried user-space only (exclude_kernel)
 * and counters_user_only() says so. */
#ifndef BENCHTUI_COUNTERS_H
#define BENCHTUI_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct counters;

/* "libperf" or "perf_event_open". */
const char *counters_backend(void);

/* Whether name is an event this program knows ("cycles", "instructions",
 * "task-clock", "page-faults", "context-switches", "cpu-migrations",
 * "cache-misses", "branch-misses", ...). */
bool counters_known(const char *name);

struct perf_event_attr;

/* The perf attr of a known event as this module opens it: inherit (tasks
 * created afterwards count too), no hypervisor, no kernel when user_only
 * (the paranoid fallback), read with time enabled and running (for
 * counters_scale).  on_exec: disabled until the task execs (a leg's
 * counters), else counting from the open (for a caller that opens it its
 * own way, as the server meter does on every thread of a server).  false
 * when the name is not known. */
bool counters_attr(struct perf_event_attr *attr, const char *name,
    bool user_only, bool on_exec);

/* A raw count (val, time enabled, time running) scaled for the share of
 * time the event was on the PMU, into *value.  false when it never ran
 * (run 0): no honest value exists. */
bool counters_scale(uint64_t val, uint64_t ena, uint64_t run,
    uint64_t *value);

/* Whether name is a hardware event (counted by the CPU's PMU, which a
 * virtual machine often lacks). */
bool counters_is_hardware(const char *name);

/* A NULL-terminated list of every known event name (static). */
const char *const *counters_names(void);

/* The counters a round counts when its file names none: cycles and
 * instructions where this machine counts both, else the software events
 * task-clock, page-faults and context-switches (a machine without a
 * hardware PMU).  NULL-terminated, static; probed once. */
const char *const *counters_default(void);

/* A set for these events (names must be known).  NULL on allocation failure. */
struct counters *counters_create(const char *const *names, int n);

/* Open every event on pid, disabled until that pid execs.  Never fails as a
 * whole: per-event failures are kept (counters_errno). */
void counters_open(struct counters *c, pid_t pid);

/* Read every opened event (after the leg has been reaped).  Their fds
 * stay open until the next counters_open has opened its own (or
 * counters_read_close, counters_destroy): the kernel turns a software
 * event's hooks off when the last event of its kind closes, and on again
 * at the next open, patching its code on every cpu each time (some 50 us
 * of cross-cpu interrupts a switch on this VM, two switches an event and
 * a leg); a set reused leg after leg keeps them on instead. */
void counters_read(struct counters *c);

/* counters_read, then close every fd now. */
void counters_read_close(struct counters *c);

int counters_count(const struct counters *c);
const char *counters_name(const struct counters *c, int i);
/* true and *value (scaled for multiplexing) when the event counted. */
bool counters_value(const struct counters *c, int i, uint64_t *value);
/* 0 when the event opened, else the errno of the failed open. */
int counters_errno(const struct counters *c, int i);
/* time_running < time_enabled: the kernel multiplexed it. */
bool counters_multiplexed(const struct counters *c, int i);
/* The events were opened user-space only after EACCES. */
bool counters_user_only(const struct counters *c);

void counters_destroy(struct counters *c);

#endif
