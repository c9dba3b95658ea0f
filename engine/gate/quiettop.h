/* The busiest processes of the host over an interval: who keeps the box
 * busy, named when the quiet gate finds it busy at a round's start. */
#ifndef BENCHTUI_QUIETTOP_H
#define BENCHTUI_QUIETTOP_H

#include <stddef.h>
#include <sys/types.h>

struct quiettop;

/* One process and what it used over the interval. */
struct quiettop_proc {
	pid_t pid;
	char name[16];       /* comm */
	double cores;        /* its own CPU (threads included) / elapsed */
};

/* A snapshot of every process's CPU time: a walk of all of /proc,
 * O(the host's processes), some milliseconds; never on a leg's path.
 * NULL when /proc cannot be read. */
struct quiettop *quiettop_begin(void);

/* What quiettop_end found beside the busiest. */
struct quiettop_more {
	double seen;                /* cores of every foreign process seen
	                             * (the rest came and went unseen) */
	struct quiettop_proc reaper; /* the process whose reaped children
	                             * used the most (cores: theirs); pid 0:
	                             * none */
};

/* The busiest processes since quiettop_begin, busiest first, into out (up
 * to max): those of our own tree (benchtui and its descendants) left out,
 * and those that used less than a hundredth of a core.  Processes that
 * start and end in between (a build's compilers) are in no walk: *more
 * says how much was seen, and under which parent the most ended.  Another
 * walk of /proc.  How many. */
size_t quiettop_end(struct quiettop *t, struct quiettop_proc *out,
    size_t max, struct quiettop_more *more);

/* When quiettop_begin walked (CLOCK_MONOTONIC seconds). */
double quiettop_since(const struct quiettop *t);

void quiettop_destroy(struct quiettop *t);

#endif
