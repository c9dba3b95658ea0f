/* The leg plan (SPEC.md "Leg order"): cells in file order; within a cell,
 * each rep runs every arm once in the order of the round's rule (mirror,
 * seed or shuffle; see benchtui-round(5)).  seq numbers legs 1..n in that
 * order.  resume follows the plan of the recorded rule. */
#ifndef BENCHTUI_PLAN_H
#define BENCHTUI_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

struct plan_leg {
	size_t cell;  /* index into spec->cells */
	size_t arm;   /* index into spec->arms */
	int rep;      /* 1-based */
	size_t seq;   /* 1-based position in the plan */
};

struct plan {
	struct plan_leg *legs;
	size_t n;
	size_t narms, ncells; /* the shape, so plan_find need not search */
	int reps;
	size_t *index;        /* (cell, rep, arm) -> position in legs */
};

/* Build the plan for s into caller-owned p, under s->order (and
 * s->shuffle_seed for shuffle).  0, or -1 when the plan would not fit
 * in memory at all (its size overflows). */
int plan_init(struct plan *p, const struct spec *s);
void plan_finish(struct plan *p);

/* Index of the leg (cell, arm, rep), or -1.  Constant time: resume calls it
 * once per logged leg. */
long plan_find(const struct plan *p, size_t cell, size_t arm, int rep);

/* The arm order of one rep under a rule: out[i] is the arm at position i.
 * For shuffle, *state is the PRNG's state, advanced (seed it with
 * shuffle_seed once per round, then call rep after rep, cell after cell). */
void plan_rep_order(enum spec_order order, size_t narms, int rep,
    uint64_t *state, size_t *out);

/* SplitMix64, the shuffle's PRNG: advances *state, returns 64 bits. */
uint64_t plan_splitmix64(uint64_t *state);

#endif
