/* plan: the leg order of SPEC.md.
 *
 * A machine drifts (thermal, page cache, a neighbour waking up): an arm
 * that always runs first or last is charged with it.  mirror puts every arm
 * at positions adding up to n-1 in reps 2k-1 and 2k, so a linear drift
 * cancels within each pair of reps; seed is the older rule (with 2 arms it
 * never alternates) kept to resume and reproduce old folders; shuffle draws
 * a permutation per rep. */
#include <stdint.h>
#include <stdlib.h>

#include "plan.h"
#include "xalloc.h"

uint64_t
plan_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));

	z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
	return z ^ (z >> 31);
}

void
plan_rep_order(enum spec_order order, size_t narms, int rep,
    uint64_t *state, size_t *out)
{
	size_t rot;

	if (order == SPEC_ORDER_SHUFFLE) {
		/* Fisher-Yates from the identity, i from n-1 down to 1. */
		for (size_t i = 0; i < narms; i++)
			out[i] = i;
		for (size_t i = narms; i-- > 1;) {
			size_t j = (size_t)(plan_splitmix64(state) % (i + 1));
			size_t t = out[i];
			out[i] = out[j];
			out[j] = t;
		}
		return;
	}
	/* Odd reps rotate left; an even rep is the rep before it reversed.
	 * mirror rotates once per pair of reps, seed once per rep. */
	rot = order == SPEC_ORDER_SEED ? (size_t)(rep - 1) % narms :
	    (size_t)((rep - 1) / 2) % narms;
	for (size_t i = 0; i < narms; i++) {
		size_t j = (rep % 2 == 0) ? narms - 1 - i : i;
		out[i] = (j + rot) % narms;
	}
}

int
plan_init(struct plan *p, const struct spec *s)
{
	size_t narms = s->narms, n, k = 0, *order;
	uint64_t state = s->shuffle_seed;

	p->legs = NULL;
	p->index = NULL;
	p->n = 0;
	p->narms = p->ncells = 0;
	p->reps = 0;
	if (narms == 0 || s->ncells == 0 || s->reps <= 0)
		return 0;
	if ((size_t)s->reps > SIZE_MAX / narms / s->ncells / sizeof(size_t))
		return -1;
	n = s->ncells * (size_t)s->reps * narms;
	p->legs = xcalloc(n, sizeof *p->legs);
	p->index = xcalloc(n, sizeof *p->index);
	order = xcalloc(narms, sizeof *order);
	for (size_t c = 0; c < s->ncells; c++) {
		for (int r = 1; r <= s->reps; r++) {
			plan_rep_order(s->order, narms, r, &state, order);
			for (size_t i = 0; i < narms; i++) {
				struct plan_leg *leg = &p->legs[k];

				leg->cell = c;
				leg->arm = order[i];
				leg->rep = r;
				leg->seq = k + 1;
				p->index[(c * (size_t)s->reps + (size_t)(r - 1)) *
				    narms + order[i]] = k;
				k++;
			}
		}
	}
	free(order);
	p->n = n;
	p->narms = narms;
	p->ncells = s->ncells;
	p->reps = s->reps;
	return 0;
}

void
plan_finish(struct plan *p)
{
	if (p == NULL)
		return;
	free(p->legs);
	free(p->index);
	p->legs = NULL;
	p->index = NULL;
	p->n = 0;
	p->narms = p->ncells = 0;
	p->reps = 0;
}

long
plan_find(const struct plan *p, size_t cell, size_t arm, int rep)
{
	if (p->legs == NULL || cell >= p->ncells || arm >= p->narms ||
	    rep < 1 || rep > p->reps)
		return -1;
	return (long)p->index[(cell * (size_t)p->reps + (size_t)(rep - 1)) *
	    p->narms + arm];
}
