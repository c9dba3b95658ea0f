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

/* --- shared by round_run.c (the loop) and round_leg.c (one leg) --- */

struct counters;
struct quiet;
struct server;
struct template_ctx;

/* What the run loop keeps for one round_run call. */
struct run {
	struct round *r;
	struct counters *ctr;
	bool *ctr_warned;        /* one warning per unsupported event */
	struct quiet *quiet;
	int ncpus;
	unsigned char *client_mask;
	size_t legs_total;
	char err[1024];
	/* The cell's server death is logged once (by the leg loop, with its
	 * cause); the stop path then does not log it a second time. */
	bool srv_death_logged;
	/* the leg in flight, for the leg_start callback */
	const struct plan_leg *cur;
	const char *cur_out;
};

bool run_aborted(const struct run *u);
/* round_emit, then drop our reference. */
void run_emit_new(struct run *u, json_t *ev);
void run_warn(struct run *u, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Wait seconds (< 0: forever) for an abort, or with ctl for a steering
 * byte.  Never a sleep: an abort ends it at once. */
void run_wait(struct run *u, double seconds, bool ctl);
/* Between legs: hold while paused. */
void run_pause_point(struct run *u);
void run_free_strv(char **v);
char **run_expand_argv(char *const *tmpl, size_t n,
    const struct template_ctx *ctx, char *err, size_t errlen);
char **run_envp(const struct spec_kv *kv, size_t nkv);
/* One warning per counter the machine lacks, after the first leg. */
void run_warn_counters(struct run *u);
/* The program an arm runs in a cell and rep: its bin (own, twin's or the
 * round's) expanded for them (rep 0: for a cell's server, arm "" too),
 * then resolved as execvp would.  *bin_out the expanded bin (malloc'd, or
 * NULL when the arm has none); the return the resolved absolute path, or
 * NULL (not found, or no bin).  NULL *bin_out on a template error, err
 * set. */
char *run_resolve_bin(const struct spec *s, const char *bin,
    const struct template_ctx *ctx, char **bin_out, char *err,
    size_t errlen);
/* Log the cell's server as dead (once per cell). */
void run_server_died(struct run *u, const struct spec_cell *cell,
    struct server *srv);
/* Run one planned leg: 0 to go on, -1 to stop the round (*failed for a
 * failure that is not resumable); u->err says why. */
int run_leg(struct run *u, const struct plan_leg *pl, struct server *srv,
    bool *failed);

#endif
