/* Inside the round driver: the state round.c (set-up, steering, the log)
 * and round_run.c (the leg loop) share.  Not part of the engine's public
 * surface. */
#ifndef BENCHTUI_ROUND_INT_H
#define BENCHTUI_ROUND_INT_H

#include <jansson.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "logw.h"
#include "plan.h"
#include "resume.h"
#include "round.h"
#include "spec.h"
#include "tally.h"

struct round {
	struct spec *spec;
	char *dir;                 /* absolute */
	char *sign_key;
	struct logw *log;
	int lock_fd;               /* flock on log.jsonl while the round runs:
	                            * a second resume, or seal --partial, of
	                            * the same folder refuses */
	round_event_fn on_event;
	void *arg;

	struct resume_state *rs;   /* resume only */
	struct plan plan;
	struct tally *tally;

	/* Steering.  abort_pipe is written once on abort and never drained,
	 * so its read end stays readable: every wait of the round polls it.
	 * ctl_pipe wakes a paused round; it is drained by the pause wait. */
	int abort_pipe[2];
	int ctl_pipe[2];
	atomic_bool paused;
	atomic_bool aborted;
	_Atomic(const char *) abort_reason;

	/* A fatal error (the log cannot be written) stops the round. */
	bool fatal;
	char fatal_err[512];
};

/* Append ev to the log, then hand it to the front end and the tally.
 * Takes no reference.  A failed append makes the round fatal (aborted). */
void round_emit(struct round *r, json_t *ev);

/* Abort from inside the driver (fatal errors). */
void round_abort_internal(struct round *r, const char *reason);

#endif
