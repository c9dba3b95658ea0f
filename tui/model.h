/* The console's model: a pure function of the events seen so far.
 *
 * model_feed is the reducer.  It does no I/O and knows nothing of curses, so
 * a live round (events from the engine thread) and --replay (events from a
 * log) build the same model, and tests check it without a terminal.  The
 * renderer reads the struct directly; only model.c writes it. */
#ifndef BENCHTUI_MODEL_H
#define BENCHTUI_MODEL_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct spec;
struct tally;

enum model_state {
	MODEL_WAITING,   /* no round event yet */
	MODEL_RUNNING,
	MODEL_PAUSED,
	MODEL_ABORTING,  /* the operator asked; the abort event is not in yet */
	MODEL_ABORTED,
	MODEL_COMPLETE,  /* done */
	MODEL_SEALED,
	MODEL_FAILED,    /* the engine stopped without done or abort */
};

/* A leg's place in the plan grid. */
enum model_cell_state {
	MODEL_PENDING,
	MODEL_RUN,       /* leg_start seen, no leg line yet */
	MODEL_DONE,      /* status ok */
	MODEL_BAD,       /* failed or timed out */
};

#define MODEL_NAME 64
#define MODEL_QUIET_MAX 256   /* quiet samples kept (the last 60 s of them) */
#define MODEL_QUIET_SPAN 60.0 /* seconds of quiet history */

struct model_leg {
	char cell[MODEL_NAME], arm[MODEL_NAME];
	int rep, seq;
	int warmup;            /* K of a warm-up leg (rep 0), else 0 */
	char status[16];       /* ok, failed, timed_out, aborted */
	bool has_rc;
	int rc;
	char signal[16];       /* "SIGKILL" or a number; empty when none */
	double wall, cpu;
	double cycles, instructions; /* NAN when null (unsupported) */
	double maxrss_kb;
	double foreign;        /* NAN when absent */
	bool noisy;            /* foreign above the threshold, or "noisy": true */
	unsigned char gate;    /* enum tally_gate: how the gate let it go */
	bool unquiet;          /* it ran on a box that was not quiet */
	double wait_s;         /* the gate's wait before it (NAN: none said) */
	double end_ts;         /* seconds since the epoch */
	json_t *ev;            /* the leg line itself (for the details view) */
	json_t *start;         /* its leg_start event, or NULL */
	char host[MODEL_NAME]; /* the host it ran on ("" here) */
};

#define MODEL_LOG_MAX 1000
#define MODEL_LOG_LINE 512

/* A column of the legs table beyond the fixed ones: one of the round's
 * counters, or a name of the legs' own metrics. */
#define MODEL_COLS_MAX 16
struct model_col {
	char name[48];
	bool metric;           /* from a leg's "metrics", else its "counters" */
	bool seen;             /* some leg so far has a value for it */
};

struct model_quiet {
	double ts, foreign;
	bool ok;
};

/* A server's host (server.host): its gate's last word.  The quiet box
 * lists them under this machine's. */
#define MODEL_HOSTS_MAX 8
struct model_host {
	char name[MODEL_NAME];
	double foreign;        /* NAN until a sample says */
	bool ok;
	bool holding;          /* its gate holds the next leg */
	double server_busy;    /* its server's pinned cpus (NAN: not */
	double server_max;     /* pinned), and their maximum */
	double probe;          /* its probe's slowdown (NAN: none), and the */
	double probe_max;      /* most that passes */
	double waited, limit;  /* the hold's countdown (NAN) */
	char last_gate[16];    /* how it let the last leg go ("" none yet) */
	/* One of the round's several hosts: the leg it runs ("" none), and
	 * the legs it has run. */
	char leg[MODEL_NAME];
	int legs;
};

struct model {
	enum model_state state;
	bool replay;           /* fed from a log: the header says "replay" */
	char name[MODEL_NAME];
	char *dir;             /* the round folder, or NULL */
	bool dir_fixed;        /* dir set by model_set_dir: the round event's
	                        * recorded one does not replace it */
	char abort_reason[64];
	/* Every warning so far, whole, for the message log (w); past
	 * MODEL_LOG_MAX the oldest are dropped and counted.  The newest is the
	 * footer's too (model_last_warning). */
	char (*log)[MODEL_LOG_LINE];
	size_t nlog, log_dropped;
	char server[128];      /* "cell [arm rN]: state [pid N]" of the last server event */
	char profiling[128];   /* "cell / arm / perf" while a profile runs */
	char hook[160];        /* "cell C setup, at most 600 s" while a
	                        * cell's setup or cleanup runs */

	double start_ts;       /* the round event's ts (0 before it) */
	double last_ts;        /* the latest ts fed */
	double end_ts;         /* done/abort/seal: the clock stops (0 while on) */
	double busy_s;         /* time spent on counted legs (for the ETA) */
	double mark_ts;        /* where the next leg's share of busy_s starts */

	size_t legs_total;     /* planned legs (0 when unknown) */
	size_t legs_done;      /* legs with a final status (not aborted) */
	size_t legs_failed;

	/* The leg running now (valid when cur_active). */
	bool cur_active;
	char cur_cell[MODEL_NAME], cur_arm[MODEL_NAME];
	int cur_rep, cur_seq;
	long cur_pid;
	double cur_start_ts;
	char *cur_out;         /* output file relative to dir, or NULL */
	json_t *cur_start;     /* its leg_start event */
	char cur_stopped[16];  /* the signal that stopped it ("SIGSTOP"), or
	                        * "" while it runs */

	/* Quiet box. */
	struct model_quiet quiet[MODEL_QUIET_MAX];
	size_t nquiet;         /* samples held, oldest first */
	double quiet_now;      /* the latest sample's foreign cores */
	double quiet_threshold;/* NAN until a sample says */
	bool quiet_ok;
	bool quiet_seen;
	bool gate_off;         /* the round file says "quiet": false */
	double gate_wait_since;/* ts of the first not-ok sample since the last
	                        * leg, or 0 when the gate is not waiting */
	double gate_waited;    /* the last sample's waited_s (NAN: none) */
	double gate_timeout;   /* its timeout_s (NAN) */
	double gate_limit;     /* its limit_s: the countdown's end (NAN) */
	double client_busy;    /* its pinned cpus' foreign cores (NAN: not */
	double server_busy;    /* pinned), and their thresholds */
	double client_max, server_max;
	double gate_budget_s;  /* the round's budget_s of waiting (NAN) */
	double gate_waited_total; /* the counted legs' waits, summed */
	bool gate_released_all;/* G: the rest of the round goes */
	bool gate_budget_spent;/* the gate waits no more */
	struct model_host hosts[MODEL_HOSTS_MAX];
	size_t nhosts;
	bool several_hosts;    /* the round's reps are dealt among hosts:
	                        * the legs table has a host column */

	/* The counters the round asked for (the round event) and the metrics
	 * legs reported, in order of appearance. */
	struct model_col cols[MODEL_COLS_MAX];
	size_t ncols;

	/* Every leg line, in arrival order (the table shows them reversed). */
	struct model_leg *legs;
	size_t nlegs, legs_cap;

	/* The plan: cells x arms x reps (from the spec, or grown from events). */
	char (*cells)[MODEL_NAME];
	size_t ncells;
	char (*arms)[MODEL_NAME];
	size_t narms;
	int reps;
	unsigned char *grid;   /* [cell][arm][rep-1]: enum model_cell_state */
	bool plan_fixed;       /* from a spec: not grown by events */

	struct tally *tally;
	json_t *report;        /* the last complete tally report (what the
	                        * ratios pane shows), or NULL */
	unsigned changed;      /* enum model_change bits since
	                        * model_take_changes */
};

/* What changed, so the renderer redraws only the panes that show it
 * (render_touch_changes maps each bit to its panes). */
enum model_change {
	MODEL_CHANGE_STATE = 1u << 0,    /* the round's state, name, folder,
	                                  * abort reason, planned legs */
	MODEL_CHANGE_PROGRESS = 1u << 1, /* legs done and failed, the ETA */
	MODEL_CHANGE_QUIET = 1u << 2,    /* the gate: samples, its wait, the
	                                  * server line, the history's time
	                                  * axis (last_ts) */
	MODEL_CHANGE_CURRENT = 1u << 3,  /* the leg running (or none), its
	                                  * stop, a profile running, the gate's
	                                  * wait between legs */
	MODEL_CHANGE_PLAN = 1u << 4,     /* the plan grid */
	MODEL_CHANGE_LEGS = 1u << 5,     /* the legs and their columns */
	MODEL_CHANGE_RATIOS = 1u << 6,   /* the tally: ratios, looks, profiles */
	MODEL_CHANGE_LOG = 1u << 7,      /* the last warning, the message log */
	MODEL_CHANGE_CLOCK = 1u << 8,    /* the log's clock (last_ts) moved */
	MODEL_CHANGE_ALL = (1u << 9) - 1,
};

void model_init(struct model *m);
void model_finish(struct model *m);

/* Take the plan (cells, arms, reps) and the comparisons from a round file;
 * without one the plan grows from the events and the tally compares with the
 * first arm seen.  s is not kept. */
void model_set_spec(struct model *m, const struct spec *s);

/* The reducer: apply one event.  Unknown types are ignored. */
void model_feed(struct model *m, const json_t *ev);

/* The operator confirmed an abort: show "aborting" until the event. */
void model_set_aborting(struct model *m);

/* The engine thread returned without done or abort (a fatal error). */
void model_set_failed(struct model *m, const char *why);

/* The engine stopped resumably without an abort event in (a signal). */
void model_set_aborted(struct model *m);

/* Fed from a log: the header says "replay". */
void model_set_replay(struct model *m);

/* The round folder as it is now (a replayed folder, maybe moved or copied
 * since it was recorded): shown, and where leg outputs are read, whatever
 * the log's round event recorded. */
void model_set_dir(struct model *m, const char *dir);

/* Back to no events seen (a replay stepping backwards), keeping replay and
 * taking the plan from s again (s may be NULL). */
void model_restart(struct model *m, const struct spec *s);

/* The ratios: tally_report of the legs so far (borrowed), up to date:
 * computed now when legs came in since, but only the parts of it the new
 * legs changed (tally_report_cached). */
const json_t *model_ratios(struct model *m);

/* The same in slices, for the console's loop: work on the ratios until
 * clock_now() passes deadline (at least one piece of the report), then
 * return; true when they are up to date.  A report completed marks
 * MODEL_CHANGE_RATIOS and MODEL_CHANGE_QUIET (the quiet pane's "not quiet"
 * line). */
bool model_ratios_advance(struct model *m, double deadline);

/* What the ratios pane draws: the last complete report (borrowed), behind
 * the legs while model_ratios_advance works on the next one; NULL before
 * the first.  Never computes. */
const json_t *model_ratios_shown(const struct model *m);

/* Derived figures for the header and current leg; now is the clock the
 * screen shows (wall clock live, the log's clock in replay). */
double model_elapsed(const struct model *m, double now);
double model_eta(const struct model *m); /* seconds, or -1 when unknown */
/* The median wall of the current leg's cell and arm so far, or NAN. */
double model_arm_median_wall(const struct model *m, const char *cell,
    const char *arm);
const char *model_state_name(enum model_state s);
/* The newest warning's text (the message log's last line, without its
 * time), or "" when none. */
const char *model_last_warning(const struct model *m);
/* Leg l's value for column c (a counter or a metric), or NAN. */
double model_leg_value(const struct model_leg *l, const struct model_col *c);
enum model_cell_state model_grid_at(const struct model *m, size_t cell,
    size_t arm, int rep);

/* The enum model_change bits since the last call, cleared. */
unsigned model_take_changes(struct model *m);

/* Parse an event ts ("2026-11-29T15:04:05.123Z") into seconds since the
 * epoch; 0 when malformed. */
double model_parse_ts(const char *ts);

#endif
