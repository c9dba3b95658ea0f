/* Fuzz target: a round file (spec_parse).  A round that parses is also
 * planned, as run and check would, and its strings expanded for every cell
 * and arm, so the fuzzer reaches what a valid round file feeds. */
#include <stdlib.h>

#include "fuzz.h"
#include "plan.h"
#include "spec.h"
#include "template.h"

/* The strings of one cell expanded for every arm; the results are thrown
 * away, only crashes, leaks and hangs matter. */
static void
fuzz_spec_expand(const struct spec *s, const struct spec_cell *cell)
{
	char err[512];
	size_t a, i;

	for (a = 0; a < s->narms; a++) {
		struct template_ctx ctx = {
			.spec = s, .cell = cell, .arm = s->arms[a].name,
			.rep = 1, .bin = spec_arm_bin(s, &s->arms[a]),
			.scratch = "/tmp/scratch", .round_dir = "/tmp/round",
		};

		for (i = 0; i < s->ncommand; i++)
			free(template_expand(s->command[i], &ctx, err,
			    sizeof err));
		if (s->scratch != NULL)
			free(template_expand(s->scratch, &ctx, err, sizeof err));
		if (cell != NULL && cell->server != NULL)
			for (i = 0; i < cell->server->ncmd; i++)
				free(template_expand(cell->server->cmd[i], &ctx,
				    err, sizeof err));
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec *s = NULL;
	struct plan plan;
	char err[1024];
	size_t c;

	/* /tmp exists everywhere, so the default workdir resolves. */
	if (spec_parse((const char *)data, size, "/tmp/fuzz-round.json", NULL,
	    &s, err, sizeof err) != 0)
		return 0;
	if (spec_check_commands(s, err, sizeof err) != 0) {
		spec_destroy(s);
		return 0;
	}
	/* A huge reps x cells x arms plan is legal but says nothing new;
	 * keep each input fast. */
	if ((size_t)s->reps * s->ncells * s->narms <= 100000 &&
	    plan_init(&plan, s) == 0) {
		if (plan.n > 0)
			(void)plan_find(&plan, plan.legs[plan.n - 1].cell,
			    plan.legs[plan.n - 1].arm, plan.legs[plan.n - 1].rep);
		plan_finish(&plan);
	}
	for (c = 0; c < s->ncells; c++) {
		(void)spec_cell_index(s, s->cells[c].name);
		fuzz_spec_expand(s, &s->cells[c]);
	}
	fuzz_spec_expand(s, NULL);
	spec_destroy(s);
	return 0;
}
