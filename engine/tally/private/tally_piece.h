/* Inside the tally's report: the pieces tally_report.c computes and
 * tally_cache.c keeps, brings up to date and puts together.
 *
 * A report is its cells, and a cell is its arms: each arm's piece (its
 * "arms" entry against its comparison arm, its ipc, its legs' counts and
 * its warnings) depends on its own legs, its comparison arm's legs and the
 * cell's biased metrics only; each A/A arm's comparison with its original
 * (the cell's floor and biased metrics) on those two arms' legs only.  So
 * a new leg makes the pieces of its own cell stale that involve its arm,
 * and no other.  Not part of the engine's public surface. */
#ifndef BENCHTUI_TALLY_PIECE_H
#define BENCHTUI_TALLY_PIECE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "tally_int.h"

/* Warnings, each kind listed one by one up to TALLY_WARN_CAP and then
 * counted, so a million failed legs do not make a million lines. */
enum { W_FEW, W_FAILED, W_TIMEOUT, W_MUX, W_FOREIGN, W_DUP, W_OUTSIDE,
    W_HOST, W_OTHER, W_KINDS };

/* The report's warnings, or one piece's: list holds each listed warning
 * (a json string), kind its kind, count every one of each kind. */
struct warns {
	json_t *list;
	unsigned char *kind;
	size_t cap;
	size_t count[W_KINDS];
};

/* A warning of a kind, listed if its kind is still under the cap. */
void tally_warn(struct warns *w, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A piece's warnings, appended to the report's as if they had been made
 * there (the caps count across pieces). */
void tally_warns_add(struct warns *w, const struct warns *piece);
void tally_warns_clear(struct warns *w);

/* How a report carries the per-rep ratio lists. */
enum tally_lists {
	TALLY_LISTS,       /* as json arrays */
	TALLY_NO_LISTS,    /* left out (text, markdown, the console) */
	TALLY_DEFERRED,    /* null, for report_print_lists to fill in */
};

/* stats_wilcoxon_k remembered by n: the exact distribution costs about
 * 30 ms at n = 2000 from nothing (0.1 ms on from n - 1's, which
 * stats_null.c keeps), its scan 0.1 ms, and every metric of every arm in
 * a cell usually has the same n.  A cache keeps it from report to
 * report.  Beside it the floor estimator's u (stats_floor_u), which also
 * depends on n and level only. */
#define KMEMO 16
struct kmemo {
	double level;
	size_t n[KMEMO];
	uint64_t k[KMEMO];
	size_t u[KMEMO];
	size_t used, next;
};

bool tally_k_known(const struct kmemo *km, size_t n);

/* One metric of one arm by one estimator: what SPEC.md's report lists,
 * with the verdict left for the caller (it needs the cell's biased
 * flag). */
struct tally_est {
	double est, lo, hi;
	bool has_ci;
};

/* Both estimators of one metric, indexed by enum spec_estimator: the
 * round's decides the verdict, the other is reported beside it ("alt"). */
struct tally_ests {
	struct tally_est by[2];
};

/* Legs of an arm that ran on a box that was not quiet: the gate let them
 * go on a busy one (the operator's g or G, timeout_s, the budget), or the
 * foreign load or a pinned cpu's went over its threshold during them. */
struct tally_unquiet {
	size_t legs, waived, timeout, budget, noisy;
};

/* Each piece says what it was built from: the versions of the arms it
 * read, and in which pass of the cache (its serial).  valid: built at
 * all. */
struct tally_aa {            /* an A/A arm against its original */
	bool valid;
	uint64_t ver_a, ver_b, pass;
	double *spread;            /* [metric]: its ratios' spread */
	struct tally_ests *est;    /* [metric] */
};

struct tally_piece {         /* an arm's part of its cell */
	bool valid;
	uint64_t ver_a, ver_b, pass;
	uint64_t state_ver;        /* the cell's biased metrics and rows */
	int stopped_rep;           /* the cell's, when built */
	json_t *arm;               /* its "arms" entry; NULL for a baseline */
	double ipc;
	size_t counted, failed, timed_out, planned, ncmp;
	struct tally_unquiet uq;   /* its part of the report's gate.arms */
	struct warns w;            /* its warnings, in the order made */
};

/* What building a cell's pieces reads: the cell, its A/A arms' states
 * (aa[i] of arm i; aa_vs[i] its original, NULL for other arms), the
 * cell's biased metrics and rows, scratch room for the most reps of an
 * arm. */
struct tally_cellwork {
	const struct tally *t;
	const struct tcell *c;
	struct kmemo *km;
	struct warns *w;             /* the piece being built's */
	enum tally_lists lists;
	size_t nm, reps;
	double *ratios, *va, *vb;
	const bool *bias;            /* [metric] */
	bool *shown;                 /* [metric]: a row of this cell (wall,
	                              * cpu, a value in some leg of the cell,
	                              * or a counter the user named) */
	struct tally_aa *aa;         /* [arm] */
	const struct tarm **aa_vs;   /* [arm] */
};

/* Scratch room, the A/A originals and the rows of cell c (the rest
 * filled by the caller); finish frees them. */
void tally_cellwork_init(struct tally_cellwork *cw, const struct tally *t,
    const struct tcell *c);
void tally_cellwork_finish(struct tally_cellwork *cw);

/* Whether arm i of the cell against arm b (NULL: none) needs a k not
 * known yet for the n of some metric (a stats_wilcoxon_k to come: at
 * n = 2000 the one long step of a piece); with make, those k are made
 * now (and remembered). */
bool tally_piece_k(struct tally_cellwork *cw, size_t i, const struct tarm *b,
    bool make);

/* Build A/A arm i's state (arm i against cw->aa_vs[i]). */
void tally_aa_build(struct tally_cellwork *cw, size_t i,
    struct tally_aa *aa);

/* The cell's floor and biased metrics from its A/A arms' states. */
void tally_cell_floor(const struct tally_cellwork *cw, double *floor,
    bool *bias);

/* Both estimators of ratios[0..n), sa and sb their pairs' values
 * sorted. */
void tally_estimate(struct kmemo *km, const double *ratios, const double *sa,
    const double *sb, size_t n, struct tally_ests *e);

/* Paired ratios of metric m, a against b, of the legs that ran on host
 * (1 + its index; 0: legs without a host; -1: any host, as long as both
 * legs name the same), in rep order into out, the pairs' values into va
 * and vb; n. */
size_t tally_pair_host(const struct tarm *a, const struct tarm *b, size_t m,
    size_t reps, int host, double *out, double *va, double *vb);

/* A multi-host round (tally_hosts.c): each host's estimate of arm a
 * against b on metric m, and whether they differ, as the keys "hosts",
 * "depends_on_machine" and "hosts_differ" of the metric's object o. */
void tally_hosts_add(struct tally_cellwork *cw, const struct tarm *a,
    const struct tarm *b, size_t m, json_t *o);

/* The reps where a's and b's counted ok legs name different hosts (never
 * paired), *first the first of them. */
size_t tally_cross_hosts(const struct tarm *a, const struct tarm *b,
    size_t reps, size_t *first);

/* Build arm i's piece (its warnings into p->w, emptied first). */
void tally_piece_build(struct tally_cellwork *cw, size_t i,
    struct tally_piece *p);

/* x as a json real, null when it is not finite. */
json_t *tally_real(double x);

/* The cell's object from its pieces (one per arm), floor and rows
 * (tally_join.c, as tally_report_json). */
json_t *tally_cell_json(const struct tally *t, const struct tcell *c,
    const struct tally_piece *pieces, const double *floor,
    const bool *bias, const bool *shown);

/* The report object around the cells' objects, their pieces' counts and
 * warnings (cells[i] and pieces[i] of t->cells[i]; NULL for a cell
 * without arms). */
json_t *tally_report_json(const struct tally *t, json_t *const *cells,
    struct tally_piece *const *pieces);

/* What the tally's cache built for cell i so far (since the last change
 * of shape): pieces, A/A states, cell objects.  For the tests that a leg
 * costs only its own cell. */
struct tally_cache_counts {
	size_t pieces, aa, cells;
};
void tally_cache_counts(const struct tally *t, size_t cell,
    struct tally_cache_counts *out);

/* The report built whole, without the tally's cache: tally_cache.c. */
json_t *tally_report_lists(const struct tally *t, enum tally_lists lists);

#endif
