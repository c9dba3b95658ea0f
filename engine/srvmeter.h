/* The server meter: what a server's process tree spends over one leg.
 *
 * Begun before the leg starts, ended after it: perf counters opened on every
 * thread of the tree (inherit, so threads and processes created during the
 * leg count too), and the tree's CPU time from the kernel's accounting
 * (/proc/PID/stat utime, stime and the cutime, cstime of children reaped
 * inside the tree), as a difference of the two readings. */
#ifndef BENCHTUI_SRVMETER_H
#define BENCHTUI_SRVMETER_H

#include <jansson.h>
#include <sys/types.h>

struct srvmeter;

/* Open the counters (names: perf event names, as counters.h knows them)
 * on every thread of root's tree and take the first CPU reading.  NULL on
 * allocation failure only; events that do not open are null at the end. */
struct srvmeter *srvmeter_begin(pid_t root, const char *const *names, int n);

/* Read and close: the leg line's "server" block, {"pid", "tasks",
 * "utime", "stime", "cpu" (seconds), "counters": {NAME: N|null},
 * "cycles", "instructions"}; cpu values null when the tree could not be
 * read.  Destroys m.  New reference. */
json_t *srvmeter_end(struct srvmeter *m);

/* Without a reading (the leg did not run). */
void srvmeter_destroy(struct srvmeter *m);

#endif
