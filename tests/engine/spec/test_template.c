/* test: */
/* ${NAME} templates: lookup order (cell vars, round vars, built-ins),
 * recursion, cycles, "$$", syntax errors, and template_check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "template.h"

static struct spec_kv round_vars[] = {
	{ .key = "INPUT", .val = "round-input" },
	{ .key = "DIR", .val = "/data/${CELL}" },
	{ .key = "FILE", .val = "${DIR}/${INPUT}" },
	{ .key = "A", .val = "${B}" },
	{ .key = "B", .val = "${A}" },
	{ .key = "SELF", .val = "x${SELF}" },
	{ .key = "MISSING", .val = "${NOPE}" },
};

static struct spec_kv cell_vars[] = {
	{ .key = "INPUT", .val = "cell-input" },
	{ .key = "SIZE", .val = "4k" },
};

static struct spec spec = {
	.name = "r",
	.vars = round_vars,
	.nvars = sizeof round_vars / sizeof round_vars[0],
};

static struct spec_cell cell = {
	.name = "small",
	.vars = cell_vars,
	.nvars = sizeof cell_vars / sizeof cell_vars[0],
};

static const struct template_ctx full = {
	.spec = &spec, .cell = &cell, .arm = "l3", .rep = 7,
	.bin = "/usr/bin/zstd", .scratch = "/tmp/s", .round_dir = "/rounds/x",
};

static const struct {
	const char *in;
	const char *out;
} expand_ok[] = {
	{ "plain", "plain" },
	{ "", "" },
	{ "${INPUT}", "cell-input" },            /* cell vars first */
	{ "${SIZE}-${CELL}", "4k-small" },
	{ "${FILE}", "/data/small/cell-input" }, /* recursion, cell var inside */
	{ "${BIN} ${SCRATCH} ${CELL} ${ARM} ${REP} ${ROUND_DIR}",
	  "/usr/bin/zstd /tmp/s small l3 7 /rounds/x" },
	{ "$$", "$" },
	{ "$${INPUT}", "${INPUT}" },
	{ "cost: $$5", "cost: $5" },
	{ "{print $1}", "{print $1}" },         /* a lone $ passes through */
	{ "a$", "a$" },
	{ "$", "$" },
	{ "x${REP}y${REP}z", "x7y7z" },
	{ "${_u}", NULL },                        /* unknown (see below) */
};

static void
test_expand(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof expand_ok / sizeof expand_ok[0]; i++) {
		char *v;

		strcpy(err, "untouched");
		v = template_expand(expand_ok[i].in, &full, err, sizeof err);

		if (expand_ok[i].out == NULL) {
			assert_null(v);
			continue;
		}
		assert_non_null(v);
		assert_string_equal(v, expand_ok[i].out);
		assert_string_equal(err, "untouched"); /* err only on failure */
		free(v);
	}
}

static void
test_round_level(void **state)
{
	/* Without a cell, round vars answer and CELL has no value. */
	struct template_ctx ctx = full;
	char err[256], *v;

	(void)state;
	ctx.cell = NULL;
	v = template_expand("${INPUT}", &ctx, err, sizeof err);
	assert_string_equal(v, "round-input");
	free(v);
	assert_null(template_expand("${SIZE}", &ctx, err, sizeof err));
	assert_non_null(strstr(err, "unknown variable ${SIZE}"));
	assert_null(template_expand("${CELL}", &ctx, err, sizeof err));
	assert_non_null(strstr(err, "${CELL} has no value here"));
}

static const struct {
	const char *in;
	const char *err;
} expand_bad[] = {
	{ "${NOPE}", "unknown variable ${NOPE}" },
	{ "x/${MISSING}", "unknown variable ${NOPE}" },
	{ "${A}", "variable cycle: A -> B -> A" },
	{ "${B}", "variable cycle: B -> A -> B" },
	{ "${SELF}", "variable cycle: SELF -> SELF" },
	{ "${INPUT", "unterminated \"${\"" },
	{ "a ${", "unterminated \"${\"" },
	{ "${}", "bad variable name \"${}\"" },
	{ "${1X}", "bad variable name \"${1X}\"" },
	{ "${A B}", "bad variable name \"${A B}\"" },
	{ "${input}", "unknown variable ${input}" }, /* names are case-sensitive */
};

static void
test_expand_errors(void **state)
{
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof expand_bad / sizeof expand_bad[0]; i++) {
		char *v = template_expand(expand_bad[i].in, &full, err,
		    sizeof err);

		assert_null(v);
		if (strstr(err, expand_bad[i].err) == NULL)
			fail_msg("\"%s\": got \"%s\", want \"%s\"",
			    expand_bad[i].in, err, expand_bad[i].err);
	}
}

static void
test_builtin_missing(void **state)
{
	struct template_ctx ctx = full;
	char err[256];

	(void)state;
	ctx.bin = NULL;
	assert_null(template_expand("${BIN} -q", &ctx, err, sizeof err));
	assert_non_null(strstr(err, "${BIN} has no value here"));
	ctx = full;
	ctx.rep = 0;
	assert_null(template_expand("${REP}", &ctx, err, sizeof err));
	ctx = full;
	ctx.scratch = NULL;
	assert_null(template_expand("${SCRATCH}/o", &ctx, err, sizeof err));
	assert_non_null(strstr(err, "${SCRATCH}"));
}

static void
test_depth_limit(void **state)
{
	/* A chain of 40 distinct variables has no cycle but is past the
	 * depth limit. */
	struct spec_kv kv[40] = { 0 };
	char names[40][16], vals[40][16];
	struct spec sp = { .vars = kv, .nvars = 40 };
	struct template_ctx ctx = { .spec = &sp };
	char err[256], *v;

	(void)state;
	for (int i = 0; i < 40; i++) {
		snprintf(names[i], sizeof names[i], "V%d", i);
		if (i < 39)
			snprintf(vals[i], sizeof vals[i], "${V%d}", i + 1);
		else
			snprintf(vals[i], sizeof vals[i], "end");
		kv[i].key = names[i];
		kv[i].val = vals[i];
	}
	assert_null(template_expand("${V0}", &ctx, err, sizeof err));
	assert_non_null(strstr(err, "nested deeper than"));
	v = template_expand("${V30}", &ctx, err, sizeof err);
	assert_string_equal(v, "end");
	free(v);
}

static void
test_check(void **state)
{
	char err[256];

	(void)state;
	/* Built-ins are always defined for check, values or not. */
	assert_int_equal(template_check("${BIN} ${SCRATCH} ${ARM} ${REP} "
	    "${ROUND_DIR} ${CELL}", &spec, &cell, err, sizeof err), 0);
	assert_int_equal(template_check("${FILE} ${SIZE}", &spec, &cell, err,
	    sizeof err), 0);
	assert_int_equal(template_check("${SIZE}", &spec, NULL, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "${SIZE}"));
	assert_int_equal(template_check("${A}", &spec, &cell, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "cycle"));
	assert_int_equal(template_check("${X", &spec, &cell, err,
	    sizeof err), -1);
	assert_int_equal(template_check("$$ $1", &spec, &cell, err,
	    sizeof err), 0);
}

static void
test_names(void **state)
{
	static const struct {
		const char *name;
		bool ok;
	} t[] = {
		{ "A", true }, { "_", true }, { "a_1", true }, { "INPUT", true },
		{ "", false }, { "1A", false }, { "A-B", false }, { "A B", false },
		{ "A.B", false }, { "é", false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (template_name_valid(t[i].name, strlen(t[i].name)) != t[i].ok)
			fail_msg("template_name_valid(\"%s\") != %d", t[i].name,
			    t[i].ok);
	assert_true(template_is_builtin("ROUND_DIR"));
	assert_true(template_is_builtin("BIN"));
	assert_false(template_is_builtin("bin"));
	assert_false(template_is_builtin("INPUT"));
}

/* Nested variables multiply: eleven levels of eight uses of the one below
 * ask for 50 * 8^10 bytes (a 673-byte round file of this shape took four
 * minutes and a gigabyte), and eleven levels of ten uses of an empty one
 * ask for 10^11 lookups.  Both stop within a second of cpu, naming the
 * chain (cpu, not wall: a loaded box stretched the wall past 2 s). */
static void
test_bounds(void **state)
{
	static char vals[2][12][128];
	static char names[2][12][16];
	struct spec_kv kv[2][12] = { 0 };
	char err[512];
	struct timespec t0, t1;

	(void)state;
	for (int b = 0; b < 2; b++) {
		for (int i = 0; i < 12; i++) {
			snprintf(names[b][i], sizeof names[b][i], "V%d", i);
			vals[b][i][0] = '\0';
			if (i == 0)
				snprintf(vals[b][i], sizeof vals[b][i], "%s",
				    b == 0 ? "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" : "");
			else
				for (int k = 0; k < (b == 0 ? 8 : 10); k++)
					snprintf(vals[b][i] + strlen(vals[b][i]), 16,
					    "${V%d}", i - 1);
			kv[b][i].key = names[b][i];
			kv[b][i].val = vals[b][i];
		}
		struct spec sp = { .name = "r", .vars = kv[b], .nvars = 12 };
		struct template_ctx ctx = { .spec = &sp };

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		assert_null(template_expand("${V11}", &ctx, err, sizeof err));
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		assert_true(t1.tv_sec - t0.tv_sec < 2);
		assert_non_null(strstr(err, "${V11} -> ${V10}"));
		assert_non_null(strstr(err, b == 0 ? "1048576 bytes" :
		    "1048576 variable references"));
		/* One level less of the first is 50 * 8^9 bytes: refused
		 * too; three levels (25600 bytes) are fine. */
		if (b == 0) {
			char *v = template_expand("${V3}", &ctx, err, sizeof err);
			assert_non_null(v);
			assert_int_equal(strlen(v), 25600);
			free(v);
		}
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_round_level),
		cmocka_unit_test(test_expand_errors),
		cmocka_unit_test(test_builtin_missing),
		cmocka_unit_test(test_depth_limit),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
