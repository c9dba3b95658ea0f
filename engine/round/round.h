/* The round driver: plans, gates, runs and logs every leg of a round, and
 * seals the folder when the round completes.
 *
 * It runs in whatever thread calls round_run; another thread (the console)
 * or a signal handler steers it with round_pause and round_abort, which are
 * async-signal-safe.  Everything that happens is reported as an event: first
 * appended to DIR/log.jsonl, then handed to the on_event callback. */
#ifndef BENCHTUI_ROUND_H
#define BENCHTUI_ROUND_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>
#include <stddef.h>

struct round;

/* Called on the round's thread after each event is logged.  ev is borrowed. */
typedef void (*round_event_fn)(const json_t *ev, void *arg);

struct round_opts {
	const char *spec_path;   /* run: the round file */
	const char *out_dir;     /* run: --out, or NULL for ./rounds/NAME-DATE */
	const char *resume_dir;  /* resume: the folder (spec_path NULL) */
	const char *sign_key;    /* --sign KEY.pem, or NULL */
	/* --fail-on rules beside the round file's fail_on (failon.h;
	 * checked by the caller's failon_add already). */
	const char *const *fail_on;
	size_t nfail_on;
	/* --accept-changed-files: a kept file whose content changed since
	 * the round kept it (at resume, at the seal) is accepted and
	 * recorded, not a stop. */
	bool accept_changed_files;
	/* run --host: the hosts the reps are dealt among, in place of the
	 * round file's "host" and "hosts" (recorded in the round event, so
	 * resume deals to the same ones). */
	const char *const *hosts;
	size_t nhosts;
	round_event_fn on_event;
	void *arg;
};

/* Exit statuses (SPEC.md). */
enum {
	ROUND_EXIT_OK = 0,
	ROUND_EXIT_FAIL = 1,
	ROUND_EXIT_USAGE = 2,
	ROUND_EXIT_ABORTED = 3,
	/* complete and sealed, but some legs failed or timed out */
	ROUND_EXIT_LEGS_FAILED = 5,
	/* complete and sealed, but a verdict matched a fail_on rule */
	ROUND_EXIT_FAIL_ON = 6,
};

/* Validate the options, load the round, create (run) or load (resume) the
 * folder.  NULL with err (and *exit_code) on failure: a bad round file or a
 * non-empty --out is ROUND_EXIT_USAGE. */
struct round *round_create(const struct round_opts *opts, int *exit_code,
    char *err, size_t errlen);

/* Replace the event callback (the console installs its own after
 * cmd_run created the round).  Call before round_run. */
void round_set_event_fn(struct round *r, round_event_fn fn, void *arg);

/* The round folder (absolute) and its parsed round file. */
const char *round_dir(const struct round *r);
const struct spec *round_spec(const struct round *r);

/* Run every remaining leg.  Returns an exit status: OK (complete and
 * sealed), ABORTED (resumable), FAIL; LEGS_FAILED or FAIL_ON (complete
 * and sealed, but legs failed, or a verdict matched a fail_on rule: the
 * round file's or --fail-on's; FAIL_ON wins over LEGS_FAILED); err holds
 * the reason for all but OK. */
int round_run(struct round *r, char *err, size_t errlen);

/* Steering, from any thread or a signal handler. */
void round_pause(struct round *r, bool paused); /* takes effect between legs */
/* Abort: ends the current leg by its process group, logs "abort" with
 * reason (a string literal: it is kept, not copied) and stops resumable. */
void round_abort(struct round *r, const char *reason);
/* Async-signal-safe, for a signal handler given si: whether the signal
 * was sent by kill(2) (SI_USER) from a process of the round's own tree --
 * a leg, a server, or anything they started, setsid'd or reparented to
 * benchtui as subreaper.  Such a signal is the leg's doing, not the
 * operator's: when true it is noted for the leg in flight (its line and a
 * warning name it) and the caller must not abort.  False for a NULL r or
 * si. */
bool round_signal_from_tree(struct round *r, int sig, const siginfo_t *si);
/* Let the leg the quiet gate holds go now (an operator override, logged as
 * such on the leg: gate "waived"); no effect when the gate is not holding.
 * With rest, the rest of the round too (the console's G): from then on
 * the gate never waits, and legs on a busy box are "waived".  Both are
 * logged (a "gate" event, kind "release", scope "leg" or "round").
 * Async-signal-safe. */
void round_release_gate(struct round *r, bool rest);

void round_destroy(struct round *r);

/* The seal event of a sealed round folder, for a reader of its log (the
 * log never holds it: appending it would change a sealed file): the sha256
 * of DIR/SHA256SUMS, stamped ts (borrowed; NULL: null), marked
 * from_sha256sums.  NULL when DIR is not sealed. */
json_t *round_seal_event(const char *dir, json_t *ts);

/* What round_seal_partial did, for its report. */
struct round_partial {
	size_t torn_bytes;   /* a torn last line cut from the log (0: none) */
	int ended;           /* leftover process groups of the round ended */
	size_t legs_done;    /* legs the summaries count */
	char sha256[65];     /* SHA256SUMS's */
};

/* seal --partial: seal an unfinished round (an abort, a crash) on purpose.
 * Under the round's lock, as resume reads it back: a torn last line cut
 * (and logged as log_cut), leftover legs ended, round.json checked against
 * the log; then the summaries, marked partial, and SHA256SUMS, signed with
 * sign_key when not NULL.  Refuses a live, sealed or complete round.  An
 * exit status: OK, USAGE (the folder or its state) or FAIL (a write); err
 * says why. */
int round_seal_partial(const char *dir, const char *sign_key,
    struct round_partial *out, char *err, size_t errlen);

#endif
