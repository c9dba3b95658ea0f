/* The round driver, the process ledger: where the round has no cgroup, the
 * processes of its tree (legs' and servers' descendants, setsid'd ones
 * included: they stay below benchtui, a subreaper) are logged as they are
 * first seen, after a server starts and after each leg, so that a resume
 * after a kill -9 of benchtui can end the ones still alive (resume.c).
 * With a cgroup the group holds them all and this is not needed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "procs.h"
#include "round_int.h"
#include "xalloc.h"

void
round_ledger_note(struct run *u)
{
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	json_t *procs = NULL;

	if (u->cg != NULL)
		return;
	/* Breadth first over benchtui's descendants: O(the round's
	 * processes), a handful. */
	procs_children(getpid(), &v, &n, &cap);
	for (size_t i = 0; i < n; i++) {
		double st = resume_proc_started(v[i]);
		bool known = false;

		procs_children(v[i], &v, &n, &cap);
		if (st < 0)
			continue;
		for (size_t k = 0; k < u->nledger && !known; k++)
			known = u->ledger[k].pid == v[i] &&
			    u->ledger[k].start == st;
		if (known)
			continue;
		if (u->nledger == u->capledger) {
			u->capledger = xgrow(u->capledger, u->nledger + 1, 64);
			u->ledger = xreallocarray(u->ledger, u->capledger,
			    sizeof *u->ledger);
		}
		u->ledger[u->nledger++] = (struct run_ledger_ent){ v[i], st };
		if (procs == NULL)
			procs = json_array();
		json_array_append_new(procs, json_pack("[if]", (int)v[i], st));
	}
	free(v);
	if (procs != NULL) {
		json_t *ev = event_new("ledger");

		json_object_set_new(ev, "procs", procs);
		round_emit_new(u, ev);
	}
}
