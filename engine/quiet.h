/* The quiet-box gate.
 *
 * Foreign CPU is the CPU time the machine spent busy that belongs to no
 * process of this round (benchtui's own tree: itself, its legs, its
 * servers), from /proc/stat minus the tree's /proc/PID/stat times, in cores.
 * Before each leg the gate samples until foreign CPU has stayed under
 * max_foreign_cores for window_ms, or gives up after timeout_s. */
#ifndef BENCHTUI_QUIET_H
#define BENCHTUI_QUIET_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

struct quiet;

enum quiet_result {
	QUIET_OK,        /* quiet for the whole window (or the gate is off) */
	QUIET_TIMEOUT,   /* gave up after timeout_s; caller checks on_timeout */
	QUIET_ABORTED,   /* abort_fd fired while waiting */
};

/* Emit one event (a "quiet" sample); the callee takes no reference. */
typedef void (*quiet_emit_fn)(json_t *ev, void *arg);

/* The gate's settings (the round file's "quiet" object). */
struct quiet_params {
	double max_foreign_cores;
	int window_ms;
	double timeout_s;
};

/* A gate for the round whose own tree is rooted at root_pid (benchtui).
 * client is a mask of ncpus entries (the client cpus), or NULL (watch every
 * cpu).  NULL on failure. */
struct quiet *quiet_create(const struct quiet_params *p,
    const unsigned char *client, int ncpus, pid_t root_pid);

/* Hold until quiet.  Sample events are emitted through emit, throttled so a
 * long wait does not flood the log.  abort_fd (or -1) ends the wait early.
 * *foreign gets the last measurement in cores. */
enum quiet_result quiet_wait(struct quiet *q, int abort_fd,
    quiet_emit_fn emit, void *arg, double *foreign);

/* Bracket a leg to measure the foreign CPU during it (cores, averaged over
 * the leg's wall time; a leg shorter than 0.5 s is judged over the last
 * 0.5 s, reaching back into the gate's samples, since one clock tick is
 * 10 ms).  Cheap: two reads of /proc/stat and of our tree. */
void quiet_leg_begin(struct quiet *q);
double quiet_leg_end(struct quiet *q);

double quiet_threshold(const struct quiet *q);

void quiet_destroy(struct quiet *q);

#endif
