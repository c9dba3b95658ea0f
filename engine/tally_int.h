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

enum {
	LEG_NONE = TALLY_LEG_NONE, LEG_OK = TALLY_LEG_OK,
	LEG_FAILED = TALLY_LEG_FAILED, LEG_TIMED_OUT = TALLY_LEG_TIMED_OUT,
};
enum { TLEG_MULTIPLEXED = 1, TLEG_DUP = 2 };

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
	double *vals;
	size_t nvals, capvals;
};

struct tcell {
	char *name;
	struct tarm *arms;
	size_t narms;
	size_t aborted_seen;
	int stopped_rep;     /* an adaptive look decided the cell at this
	                      * rep (its plan ends there); 0 when none */
	json_t *look;        /* the cell's last look event, or NULL */
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
	size_t last_cell, last_arm;  /* lookup cache: lines come in runs */

	char *baseline;              /* --baseline */
	struct tspec_arm *aa;        /* --aa pairs (vs unused) */
	size_t naa;
	double quiet_threshold;      /* from the last "quiet" event */
	double level, margin;        /* of the intervals and verdicts */
	bool stats_set;              /* level and margin from a spec or caller */

	bool have_spec;
	struct tspec_arm *sarms;
	size_t nsarms;
	int reps;
	double spec_threshold;       /* NAN when the gate is off */
	size_t ignored;              /* legs of cells/arms not in the spec */
	size_t unusable;             /* leg lines without cell, arm or rep */
	int log_reps;                /* the round event's reps (a bare log) */
	/* Named in the warnings, the first TALLY_WARN_CAP of each: leg
	 * lines of a cell or arm the spec lacks, and values no leg can have
	 * (not finite, negative, a zero or absurd wall), which are left out
	 * of every figure rather than used in some. */
	char *ignored_names[TALLY_WARN_CAP];
	char *implausible[TALLY_WARN_CAP];
	size_t nimplausible;
	struct profdiff *prof;       /* "profile" events */
};

/* realloc that aborts on failure (n 0 allocates 1 byte). */
void *tally_xrealloc(void *p, size_t n);

#endif
