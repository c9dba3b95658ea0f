/* Inside spawn: what the parent side (spawn.c) and the child side
 * (spawn_child.c) share.  Not part of the engine's public surface. */
#ifndef BENCHTUI_SPAWN_INT_H
#define BENCHTUI_SPAWN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "spawn.h"

/* Not a failure: the stand-in parent tells the program's pid. */
#define SPAWN_MSG_PROGRAM 100

/* What the child needs beyond the request, at a fixed place (the top of
 * its stack): the error pipe's ends, the release signal and the
 * parent's pid. */
struct spawn_child_args {
	struct spawn *sp;  /* the child reads the request through it, and,
	                    * without a pipe, writes sp->fail */
	int err_wr;        /* the child's end of the error pipe; -1: none,
	                    * the child reports through sp->fail instead */
	int err_rd;
	int rel_sig;       /* the release signal, and the set holding it */
	sigset_t rel_set;
	pid_t parent;
	bool close_range;  /* the kernel has close_range (else /proc) */
};

/* The child: its set-up, held until the release signal, then the exec
 * (or the stand-in parent's fork).  Never returns. */
int spawn_child(void *arg);

#endif
