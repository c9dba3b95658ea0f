/* The leg plan (SPEC.md "Leg order"): cells in file order; within a cell,
 * rep r runs the arms rotated left by (r-1) mod narms, reversed when r is
 * even.  seq numbers legs 1..n in that order.  resume follows the same plan. */
#ifndef BENCHTUI_PLAN_H
#define BENCHTUI_PLAN_H

#include <stddef.h>

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
};

/* Build the plan for s into caller-owned p.  0 or -1 (out of memory). */
int plan_init(struct plan *p, const struct spec *s);
void plan_finish(struct plan *p);

/* Index of the leg (cell, arm, rep), or -1.  Constant time: resume calls it
 * once per logged leg. */
long plan_find(const struct plan *p, size_t cell, size_t arm, int rep);

#endif
