/* check: validate a round file and print its leg plan; run nothing.
 *
 * The output is line-oriented and stable (benchtui(1), CHECK) so scripts and
 * tests can compare plans: a header of "KEY value" lines, then one
 * "leg SEQ CELL REP ARM" line per leg in run order, the first leg of each
 * (cell, arm) followed by the indented command it would exec. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "plan.h"
#include "stats.h"
#include "profile.h"
#include "spec.h"
#include "template.h"

static const char check_usage[] = "usage: benchtui check ROUND.json\n";

/* Quote an argument the way a shell would need it, only for the reader: the
 * leg itself never passes through a shell. */
static void
print_arg(FILE *f, const char *a)
{
	const char *safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789_./=:,@%+-";

	if (a[0] != '\0' && strspn(a, safe) == strlen(a)) {
		fputs(a, f);
		return;
	}
	fputc('\'', f);
	for (; *a != '\0'; a++) {
		if (*a == '\'')
			fputs("'\\''", f);
		else
			fputc(*a, f);
	}
	fputc('\'', f);
}

/* One "server-exec" line: the server's argv expanded in ctx. */
static void
print_server_exec(const struct spec_cell *c, const struct template_ctx *ctx,
    const char *arm)
{
	char err[512];

	printf("    server-exec");
	if (arm != NULL)
		printf(" (arm %s)", arm);
	putchar(arm != NULL ? ':' : ' ');
	for (size_t k = 0; k < c->server->ncmd; k++) {
		char *a = template_expand(c->server->cmd[k], ctx, err,
		    sizeof err);

		if (k > 0 || arm != NULL)
			putchar(' ');
		print_arg(stdout, a ? a : c->server->cmd[k]);
		free(a);
	}
	putchar('\n');
}

/* A cell's server lines: its port; "server-per-leg" when it is started
 * before each leg with the leg's arm and stopped after it; then its argv
 * expanded for the cell (no ARM or REP: it serves every leg of the cell),
 * or for each arm with its server_bin and server_env when per leg. */
static void
print_server(const struct spec *s, const struct spec_cell *c)
{
	struct template_ctx ctx = {
		.spec = s, .cell = c, .round_dir = "<ROUND_DIR>",
	};
	bool per_leg = spec_server_per_leg(s, c);
	char err[512], *bin = NULL, *abin;

	if (s->bin != NULL)
		bin = template_expand(s->bin, &ctx, err, sizeof err);
	if (bin != NULL && (abin = spec_resolve_program(bin,
	    s->workdir)) != NULL) {
		free(bin);
		bin = abin;
	}
	ctx.bin = bin;
	printf("    server tcp_port %d ready_timeout_s %g", c->server->tcp_port,
	    c->server->ready_timeout_s);
	if (c->server->cpus)
		printf(" cpus %s", c->server->cpus);
	putchar('\n');
	if (per_leg)
		printf("    server-per-leg: started before each leg with its "
		    "arm's server_bin and server_env, stopped after it\n");
	if (!per_leg)
		print_server_exec(c, &ctx, NULL);
	for (size_t ai = 0; per_leg && ai < s->narms; ai++) {
		const struct spec_arm *a = &s->arms[ai];

		ctx.arm = a->name;
		ctx.rep = 1;
		ctx.server_bin = a->server_bin;
		print_server_exec(c, &ctx, a->name);
		for (size_t k = 0; k < a->nserver_env; k++) {
			printf("    server-env (arm %s): %s=", a->name,
			    a->server_env[k].key);
			print_arg(stdout, a->server_env[k].val);
			putchar('\n');
		}
	}
	free(bin);
}

/* Too few reps for an interval: every verdict would be unknown. */
static void
check_warn_reps(const struct spec *s)
{
	int reps = s->adaptive.on ? s->adaptive.min : s->reps;
	double level = s->adaptive.on ? stats_look_level(s->confidence,
	    spec_looks(s, NULL, 0)) : s->confidence;
	size_t need = stats_min_n(level);

	if (reps < 6 || (size_t)reps < need)
		fprintf(stderr, "benchtui check: %s: warning: %s is %d: an "
		    "interval at level %g needs at least %zu paired reps, so "
		    "verdicts stay unknown%s\n", s->path, s->adaptive.on ?
		    "reps.min" : "reps", reps, level, need < 6 ? 6 : need,
		    s->adaptive.on ? " until a later look" : "");
}

static void
print_header(const struct spec *s, size_t nlegs)
{
	printf("round %s\n", s->name);
	printf("file %s\n", s->path);
	printf("sha256 %s\n", s->sha256);
	printf("workdir %s\n", s->workdir);
	printf("reps %d\n", s->reps);
	printf("order %s\n", spec_order_name(s->order));
	if (s->order == SPEC_ORDER_SHUFFLE && s->has_shuffle_seed)
		printf("shuffle_seed %llu\n",
		    (unsigned long long)s->shuffle_seed);
	else if (s->order == SPEC_ORDER_SHUFFLE)
		printf("shuffle_seed (chosen by run; the plan below is "
		    "seed 0's)\n");
	printf("confidence %g\n", s->confidence);
	printf("margin %g\n", s->margin);
	printf("fail_fast %d\n", s->fail_fast);
	if (s->adaptive.on) {
		size_t nl = spec_looks(s, NULL, 0);
		int *at = calloc(nl, sizeof *at);

		printf("adaptive min %d max %d metric %s\n", s->adaptive.min,
		    s->adaptive.max, s->adaptive.metric);
		printf("looks");
		if (at != NULL) {
			spec_looks(s, at, nl);
			for (size_t i = 0; i < nl; i++)
				printf(" %d", at[i]);
		}
		printf(" level %.6g\n", stats_look_level(s->confidence, nl));
		free(at);
	}
	for (size_t i = 0; i < s->narms; i++) {
		const struct spec_arm *a = &s->arms[i];
		const char *bin = spec_arm_bin(s, a);

		printf("arm %s", a->name);
		if (a->aa_of != NULL)
			printf(" aa_of %s", a->aa_of);
		else if (a->vs != NULL)
			printf(" vs %s", a->vs);
		else
			printf(" baseline");
		if (bin != NULL) {
			printf(" bin ");
			print_arg(stdout, bin);
		}
		for (size_t k = 0; k < a->nenv; k++) {
			printf(" env %s=", a->env[k].key);
			print_arg(stdout, a->env[k].val);
		}
		putchar('\n');
	}
	for (size_t i = 0; i < s->ncells; i++) {
		const struct spec_cell *c = &s->cells[i];

		printf("cell %s", c->name);
		for (size_t k = 0; k < c->nvars; k++) {
			printf(" var %s=", c->vars[k].key);
			print_arg(stdout, c->vars[k].val);
		}
		putchar('\n');
		if (c->server != NULL)
			print_server(s, c);
	}
	printf("legs %zu\n", nlegs);
}

/* The argv the first leg of (cell, arm) would exec.  ROUND_DIR is unknown
 * until run picks the folder, so it prints as a placeholder. */
static int
print_command(const struct spec *s, const struct plan_leg *leg)
{
	const struct spec_arm *arm = &s->arms[leg->arm];
	const char *bin = spec_arm_bin(s, arm);
	struct template_ctx ctx = {
		.spec = s, .cell = &s->cells[leg->cell], .arm = arm->name,
		.rep = leg->rep, .round_dir = "<ROUND_DIR>",
	};
	char err[512], *xbin = NULL, *abin, *scratch = NULL, metrics[256];
	int rc = -1;

	/* Where run puts the leg's ${METRICS} file. */
	snprintf(metrics, sizeof metrics, "<ROUND_DIR>/legs/%s-%s-r%d.metrics"
	    ".json", ctx.cell->name, arm->name, leg->rep);
	ctx.metrics = metrics;
	if (bin != NULL && (xbin = template_expand(bin, &ctx, err,
	    sizeof err)) == NULL)
		goto out;
	/* ${BIN} is the absolute program, as run passes it. */
	if (xbin != NULL && (abin = spec_resolve_program(xbin,
	    s->workdir)) != NULL) {
		free(xbin);
		xbin = abin;
	}
	ctx.bin = xbin;
	if (s->scratch != NULL) {
		char *x = template_expand(s->scratch, &ctx, err, sizeof err);

		if (x == NULL)
			goto out;
		if (x[0] == '/')
			scratch = x;
		else {
			if (asprintf(&scratch, "%s/%s", s->workdir, x) < 0)
				scratch = NULL;
			free(x);
			if (scratch == NULL)
				goto out;
		}
	}
	ctx.scratch = scratch;
	printf("    exec");
	for (size_t k = 0; k < s->ncommand; k++) {
		char *a = template_expand(s->command[k], &ctx, err, sizeof err);

		if (a == NULL) {
			putchar('\n');
			goto out;
		}
		putchar(' ');
		print_arg(stdout, a);
		free(a);
	}
	putchar('\n');
	rc = 0;
out:
	if (rc < 0)
		fprintf(stderr, "benchtui check: %s: %s\n", s->path, err);
	free(xbin);
	free(scratch);
	return rc;
}

/* The profiles taken after each cell's timed legs, in the order they run:
 * "profile CELL ARM KIND". */
static void
print_profiles(const struct spec *s)
{
	static const char *const kinds[] = { "perf", "syscalls" };

	for (size_t c = 0; s->profile != NULL && c < s->ncells; c++)
		for (size_t a = 0; a < s->narms; a++)
			for (int k = 0; k < 2; k++)
				if (spec_profiles(s, s->cells[c].name,
				    s->arms[a].name, kinds[k]))
					printf("profile %s %s %s\n",
					    s->cells[c].name, s->arms[a].name,
					    kinds[k]);
}

int
cmd_check(int argc, char **argv)
{
	struct spec *s = NULL;
	struct plan plan = { 0 };
	unsigned char *shown = NULL;
	json_t *warn;
	char err[1024];
	int rc = 2;

	if (argc != 2)
		return cmd_usage_error("check", check_usage, "%s",
		    argc < 2 ? "no round file given" : "too many arguments");
	if (argv[1][0] == '-' && argv[1][1] != '\0')
		return cmd_usage_error("check", check_usage,
		    "unknown option '%s'", argv[1]);

	if (spec_load(argv[1], NULL, &s, err, sizeof err) < 0 ||
	    spec_check_host(s, err, sizeof err) < 0) {
		fprintf(stderr, "benchtui check: %s\n", err);
		goto out;
	}
	warn = profile_warnings(s);
	for (size_t i = 0; i < json_array_size(warn); i++)
		fprintf(stderr, "benchtui check: %s: warning: %s\n", s->path,
		    json_string_value(json_array_get(warn, i)));
	json_decref(warn);
	check_warn_reps(s);
	if (plan_init(&plan, s) < 0 ||
	    (shown = calloc(s->ncells * s->narms, 1)) == NULL) {
		fprintf(stderr, "benchtui check: out of memory\n");
		rc = 1;
		goto out;
	}
	print_header(s, plan.n);
	for (size_t i = 0; i < plan.n; i++) {
		const struct plan_leg *l = &plan.legs[i];
		unsigned char *seen = &shown[l->cell * s->narms + l->arm];

		printf("leg %zu %s %d %s\n", l->seq, s->cells[l->cell].name,
		    l->rep, s->arms[l->arm].name);
		if (!*seen) {
			*seen = 1;
			if (print_command(s, l) < 0)
				goto out;
		}
	}
	print_profiles(s);
	rc = 0;
out:
	free(shown);
	plan_finish(&plan);
	spec_destroy(s);
	return rc;
}
