/* The monotonic clock every timed wait and measurement uses, and the short
 * naps of the loops that wait on something the kernel cannot signal (a port
 * that starts accepting, a process group emptying, the machine going
 * quiet). */
#ifndef BENCHTUI_CLOCK_H
#define BENCHTUI_CLOCK_H

#include <stdbool.h>

/* Seconds on CLOCK_MONOTONIC: for intervals and deadlines, never dates. */
double clock_now(void);

/* Wait ms milliseconds, or less if abort_fd (-1 for none) becomes readable
 * or hangs up first.  true when it did: the caller stops waiting. */
bool clock_nap(int abort_fd, int ms);

#endif
