/* A leg's own numbers: the file ${METRICS} names (SPEC.md "Server
 * rounds").  A JSON object of finite numbers whose names match
 * [a-z][a-z0-9_]* and are not a built-in metric's becomes the leg line's
 * "metrics" and a metric of the arithmetic like wall or cpu. */
#ifndef BENCHTUI_LEGMETRICS_H
#define BENCHTUI_LEGMETRICS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Largest metrics file read, and most names taken from one. */
#define LEGMETRICS_MAX_BYTES (1 << 20)
#define LEGMETRICS_MAX_NAMES 64

/* Whether name may be a leg's own metric: [a-z][a-z0-9_]*, at most 64
 * characters, and not a built-in metric's (wall, cpu, utime, stime, a
 * counter's, or server_*, the server's). */
bool legmetrics_name_ok(const char *name);

/* Read the file at path.  The object (new reference) when it is a good
 * one; NULL with *absent true when there is no file; NULL with why set
 * (one sentence) when it is not JSON, not an object of finite numbers,
 * uses a name it may not, or was last written after not_after (epoch
 * seconds of CLOCK_REALTIME, the clock of a file's mtime, with a
 * millisecond's margin; 0: no such check): by a process the leg left
 * behind, after the leg exited. */
json_t *legmetrics_read(const char *path, double not_after, bool *absent,
    char *why, size_t whylen);

#endif
