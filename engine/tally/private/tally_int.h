/* Inside the tally: the per-leg storage tally.c fills from leg lines and
 * tally_report.c reads to build the report.  Not part of the engine's
 * public surface. */
#ifndef BENCHTUI_TALLY_INT_H
#define BENCHTUI_TALLY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tally.h"

/* The fixed metrics come first, in this order; counters follow as seen. */
enum { M_WALL, M_CPU, M_CYCLES, M_INSTRUCTIONS, M_FIXED };

#define TALLY_MAX_REP 10000000   /* a rep beyond this is a broken line */
#define TALLY_MAX_METRICS 256  /* counters beyond this are ignored */
#define TALLY_WARN_CAP 10        /* warnings of one kind listed one by one */
#define TALLY_LEVEL 0.95
#define TALLY_MARGIN 0.01
#define TALLY_RECENT 8           /* changes of an arm remembered */
#define TALLY_MAX_HOSTS 1024     /* hosts of a round beyond this are a
                                  * broken log: their lines not counted */

enum {
	LEG_NONE = TALLY_LEG_NONE, LEG_OK = TALLY_LEG_OK,
	LEG_FAILED = TALLY_LEG_FAILED, LEG_TIMED_OUT = TALLY_LEG_TIMED_OUT,
};
enum { TLEG_MULTIPLEXED = 1, TLEG_DUP = 2 };
/* The gate's verdict (enum tally_gate) in bits 2-4 of a tleg's flags, so
 * that a leg stays 16 bytes; bit 5: a pinned cpu was busy with foreign
 * work during the leg. */
#define TLEG_GATE_SHIFT 2
#define TLEG_GATE_MASK (7u << TLEG_GATE_SHIFT)
#define TLEG_PINNED_BUSY (1u << 5)

/* A name and a number from one of a leg line's objects ("counters",
 * "metrics", the server's "counters"); NAN when the value is no number.
 * name is borrowed: from the json_t, or the line reader's scratch. */
struct tally_kv {
	const char *name;
	double val;
};

struct tally_kvlist {
	struct tally_kv *v;
	size_t n, cap;
	bool present;      /* the field is an object (maybe empty) */
};

/* One leg line as read, before any rule is applied: what tally_feed_rec
 * needs, filled by either reader (tally_rec_from_json from a json_t, or
 * tally_line_scan from the line's text), so what a leg line means is
 * decided once, in tally.c.  Fields read as jansson would give them: a
 * string field that is not a string is NULL, a number field that is not a
 * number NAN. */
enum { TALLY_RC_ABSENT, TALLY_RC_INT, TALLY_RC_OTHER };
struct tally_legrec {
	const char *cell, *arm;
	double rep;
	const char *host;     /* "host": the machine the leg ran on */
	/* The status rule's inputs (tally_rec_status). */
	const char *status;
	bool timed_out;       /* "timed_out": true */
	int rc_kind;          /* TALLY_RC_* */
	long long rc;
	bool signalled;       /* "signal" a non-zero integer, or a string */
	bool multiplexed;     /* true, or a non-empty array */
	double foreign, threshold, max_foreign_cores;
	/* The gate rule's inputs (tally_rec_gate), and what it saw. */
	const char *gate;     /* "quiet", "waived", "timeout", "budget" */
	bool quiet_timeout;   /* an earlier benchtui's flags */
	bool quiet_override;
	double wait_s, client_busy, server_busy;
	double fixed[M_FIXED];  /* "wall", "cpu", "cycles", "instructions" */
	double utime, stime;
	/* A fixed metric's field present with a value that is no number
	 * (nor null): its JSON type in words ("a string"), for a warning;
	 * NULL when it is a number, null or absent. */
	const char *badtype[M_FIXED];
	double bytes;         /* "bytes": the scratch folder's (or a
	                       * filter's output) size */
	bool server;          /* "server" is an object */
	double server_cpu;
	struct tally_kvlist ctr, server_ctr, mets;
};

struct tleg {
	uint32_t off;     /* first value in the arm's vals */
	uint16_t nvals;   /* metrics known when the line was read */
	uint8_t status;   /* LEG_*; LEG_NONE: no counted line yet */
	uint8_t flags;    /* TLEG_* */
	float foreign;    /* foreign cores during the leg, NAN if unknown */
	float threshold;  /* the gate's threshold the leg saw, NAN if unknown */
};

struct tarm {
	char *name;
	struct tleg *legs;  /* indexed by rep */
	size_t nlegs;
	/* Beside legs (as long), the host of each leg: 0 none, else 1 + its
	 * index in the tally's hosts.  NULL until a leg of the arm names a
	 * host, so a round on one box costs nothing more. */
	uint16_t *host;
	double *vals;
	size_t nvals, capvals;
	uint64_t ver;       /* the tally's clock when a leg line last changed
	                     * a leg of this arm (tally_cache.c's key) */
	/* Its last TALLY_RECENT changes: the ver each gave and its rep (a
	 * ring; nchanges counts them all).  A piece comparing another arm
	 * with this one asks whether a change touched a rep they pair. */
	uint64_t change_ver[TALLY_RECENT];
	uint32_t change_rep[TALLY_RECENT];
	size_t nchanges;
};

struct tcell {
	char *name;
	struct tarm *arms;
	size_t narms;
	size_t aborted_seen;
	int stopped_rep;     /* an adaptive look decided the cell at this
	                      * rep (its plan ends there); 0 when none */
	json_t *look;        /* the cell's last look event, or NULL */
	uint64_t ver;        /* the clock when the look, stopped_rep or
	                      * aborted_seen last changed */
};

struct tspec_arm {
	char *name, *vs, *aa_of;
};

struct tally {
	char *name;
	char **metrics;
	size_t nmetrics;
	struct tcell *cells;
	size_t ncells;
	char **hosts;                /* every leg line's "host", as seen */
	size_t nhosts;
	size_t last_cell, last_arm;  /* lookup cache: lines come in runs */

	char *baseline;              /* --baseline */
	struct tspec_arm *aa;        /* --aa pairs (vs unused) */
	size_t naa;
	double quiet_threshold;      /* from the last "quiet" event */
	double level, margin;        /* of the intervals and verdicts */
	bool stats_set;              /* level and margin from a spec or caller */
	enum spec_estimator estimator;  /* the verdicts'; the other is "alt" */

	bool have_spec;
	struct tspec_arm *sarms;
	size_t nsarms;
	int reps;
	double spec_threshold;       /* NAN when the gate is off */
	double gate_wait_s;          /* every leg line's wait_s, summed */
	double gate_legs_s;          /* and its wall */
	bool gate_budget_spent;      /* a "gate" event of kind budget */
	char *gate_staying;          /* the msg of one of kind staying */
	double max_client_busy;      /* the pinned cpus' thresholds: the */
	double max_server_busy;      /* spec's, the round event's, or 0.1 */
	bool gate_released;          /* one of kind release, scope round */
	size_t ignored;              /* legs of cells/arms not in the spec */
	size_t unusable;             /* leg lines without cell, arm or rep */
	int log_reps;                /* the round event's reps (a bare log) */
	/* Named in the warnings, the first TALLY_WARN_CAP of each: leg
	 * lines of a cell or arm the spec lacks, and values no leg can have
	 * (not finite, negative, a zero or absurd wall), which are left out
	 * of every figure rather than used in some. */
	char *ignored_names[TALLY_WARN_CAP];
	/* Profiles of a cell or arm the spec lacks: not shown, warned. */
	size_t prof_ignored;
	char *prof_ignored_names[TALLY_WARN_CAP];
	char *implausible[TALLY_WARN_CAP];
	size_t nimplausible;
	/* The counters the user named (a round file's "counters", or a
	 * log's round event's unless they were the machine's default): shown
	 * n/a when never counted.  Any other metric no leg of a cell had a
	 * value for is left out of that cell's report. */
	char **named;
	size_t nnamed;
	bool named_set;              /* from a spec: a round event keeps out */
	struct profdiff *prof;       /* "profile" events */
	struct tally_legrec rec;     /* the line being fed, its room reused */
	char *scratch;               /* the line reader's string copies */
	size_t scap;

	/* What the cached report (tally_cache.c) needs to know what changed.
	 * clock moves with every call that may change the report; gen with
	 * every change of shape (a cell, arm or metric added, the spec, the
	 * baseline and A/A pairs, level, margin, estimator, the plan's reps),
	 * after which nothing cached is used again. */
	uint64_t clock, gen;
	struct tally_cache *cache;   /* NULL until tally_report_cached */
};


/* Leg r's host in a (1 + its index in t->hosts; 0 none). */
static inline unsigned
tally_leg_host(const struct tarm *a, size_t r)
{
	return a->host != NULL ? a->host[r] : 0;
}

/* Room for the kv lists, kept in the tally and reused line after line. */
void tally_kv_add(struct tally_kvlist *l, const char *name, double val);

/* The status rule (SPEC.md "leg" line, legacy rows included). */
enum tally_leg_status tally_rec_status(const struct tally_legrec *r);

/* The gate rule: the leg line's "gate", or an earlier benchtui's
 * quiet_override (waived) and quiet_timeout (timeout); NONE when the
 * line says nothing of a gate. */
enum tally_gate tally_rec_gate(const struct tally_legrec *r);

/* Empty: every field absent, the lists emptied (their room kept). */
void tally_rec_clear(struct tally_legrec *r);

/* Record one leg line (t "leg" or a legacy row, not a warm-up):
 * tally_feed_rec from either reader, tally_feed_leg from a json_t. */
void tally_feed_rec(struct tally *t, const struct tally_legrec *r);
void tally_feed_leg(struct tally *t, const json_t *ev);

/* r from a json_t (the fixed metrics named as t names them). */
void tally_rec_from_json(const struct tally *t, struct tally_legrec *r,
    const json_t *ev);

/* NULL when a and b mean the same to tally_feed_rec (doubles bit for bit,
 * strings byte for byte, each kv list as tally_feed_rec reads it), else
 * the name of the first field that differs.  How the line reader is
 * checked against jansson (tests/engine/test_tally_line.c,
 * fuzz/fuzz_tally_line.c). */
const char *tally_rec_diff(const struct tally_legrec *a,
    const struct tally_legrec *b);

/* Whether every change of arm b since its version was since_ver falls
 * on a rep a has no counted ok leg at (in the plan of reps), so what a
 * and b pair is as it was; false when the changes since are not all
 * remembered. */
bool tally_changes_unpaired(const struct tarm *b, uint64_t since_ver,
    const struct tarm *a, size_t reps);

/* A change of shape (see struct tally's gen). */
void tally_reshape(struct tally *t);
/* The cached report's storage (tally_cache.c), for tally_destroy. */
void tally_cache_destroy(struct tally_cache *c);

/* Shared by tally.c and tally_leg.c. */
double tally_num(const json_t *v);         /* NAN when not a number */
struct tcell *tally_cell(struct tally *t, const char *name, bool create);
struct tarm *tally_arm(struct tally *t, struct tcell *c, const char *name,
    bool create);
size_t tally_metric(struct tally *t, const char *name);  /* index, added */

/* Shared by tally_report.c and tally_values.c.  The round's reps, when
 * known (round.json, or the log's round event): a leg line of rep 0 or
 * past them is outside the plan, named in the warnings and never
 * counted.  0 when unknown. */
size_t tally_plan_reps(const struct tally *t);
bool tally_in_plan(size_t reps, size_t r);
/* The comparison arm of arm in cell c, or NULL for a baseline; w (may be
 * NULL) gets a warning when a bare log's --baseline has no legs there. */
struct warns;
const char *tally_vs(const struct tally *t, const struct tcell *c,
    const char *arm, struct warns *w);
const struct tarm *tally_find_arm(const struct tcell *c, const char *name);

/* The line reader (tally_line.c): fills r from a leg line's text, or
 * returns false for anything it does not follow (then jansson reads the
 * line).  *fed: whether the line is counted (false: a warm-up leg line).
 * scratch holds the copies of the strings r points at. */
bool tally_line_scan(const char *line, size_t len, struct tally_legrec *r,
    char **scratch, size_t *scap, bool *fed);

#endif
