/* plan: the leg order of SPEC.md.
 *
 * Rotating and reversing the arm order from rep to rep spreads slow drift
 * (thermal, page cache, a neighbour waking up) evenly over the arms instead
 * of charging it to whichever arm always runs first or last. */
#include <stdint.h>
#include <stdlib.h>

#include "plan.h"

int
plan_init(struct plan *p, const struct spec *s)
{
	size_t narms = s->narms, n, k = 0;

	p->legs = NULL;
	p->n = 0;
	p->narms = p->ncells = 0;
	p->reps = 0;
	if (narms == 0 || s->ncells == 0 || s->reps <= 0)
		return 0;
	if ((size_t)s->reps > SIZE_MAX / narms / s->ncells)
		return -1;
	n = s->ncells * (size_t)s->reps * narms;
	p->legs = calloc(n, sizeof *p->legs);
	if (p->legs == NULL)
		return -1;

	for (size_t c = 0; c < s->ncells; c++) {
		for (int r = 1; r <= s->reps; r++) {
			size_t rot = (size_t)(r - 1) % narms;

			for (size_t i = 0; i < narms; i++) {
				/* Position i of the reversed order is position
				 * narms-1-i of the rotated one. */
				size_t j = (r % 2 == 0) ? narms - 1 - i : i;
				struct plan_leg *leg = &p->legs[k];

				leg->cell = c;
				leg->arm = (j + rot) % narms;
				leg->rep = r;
				leg->seq = ++k;
			}
		}
	}
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
	p->legs = NULL;
	p->n = 0;
	p->narms = p->ncells = 0;
	p->reps = 0;
}

long
plan_find(const struct plan *p, size_t cell, size_t arm, int rep)
{
	size_t n = p->narms, rot, j, i, k;

	if (p->legs == NULL || cell >= p->ncells || arm >= n || rep < 1 ||
	    rep > p->reps)
		return -1;
	/* Invert plan_init: arm = (j + rot) % n, j = i or n-1-i. */
	rot = (size_t)(rep - 1) % n;
	j = (arm + n - rot) % n;
	i = (rep % 2 == 0) ? n - 1 - j : j;
	k = (cell * (size_t)p->reps + (size_t)(rep - 1)) * n + i;
	return (long)k;
}
