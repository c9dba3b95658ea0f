/* The server meter: what a server's process tree spends over one leg.
 *
 * Begun before the leg starts, ended after it: perf counters opened on every
 * thread of the tree (inherit, so threads and processes created during the
 * leg count too), and the tree's CPU time from the kernel's accounting,
 * as a difference of the two readings: the cpu.stat of the servers'
 * cgroup where the round has one (microseconds, dead processes included),
 * else /proc/PID/stat utime and stime with the cutime and cstime of
 * children reaped inside the tree (clock ticks). */
#ifndef BENCHTUI_SRVMETER_H
#define BENCHTUI_SRVMETER_H

#include <jansson.h>
#include <sys/types.h>

struct srvmeter;

struct cgroup;

/* Open the counters (names: perf event names, as counters.h knows them)
 * on every thread of root's tree and take the first CPU reading (from the
 * cgroup cg, which holds the server and nothing else and outlives the
 * meter, or NULL for /proc).  Events that do not open are null at the
 * end. */
struct srvmeter *srvmeter_begin(pid_t root, const char *const *names, int n,
    const struct cgroup *cg);

/* Read and close: the leg line's "server" block, {"pid", "tasks",
 * "utime", "stime", "cpu" (seconds), "cpu_source" ("cgroup" or "proc"),
 * "counters": {NAME: N|null},
 * "cycles", "instructions"}; cpu values null when the tree could not be
 * read.  Destroys m.  New reference. */
json_t *srvmeter_end(struct srvmeter *m);

/* Without a reading (the leg did not run). */
void srvmeter_destroy(struct srvmeter *m);

#endif
