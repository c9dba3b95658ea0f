/* ${NAME} templates in command, server.cmd, vars and scratch.
 *
 * Names are looked up, in order, in the cell's vars, the arm's vars, the
 * round's vars and the built-ins BIN, SCRATCH, CELL, ARM, REP, ROUND_DIR,
 * BENCHTUI (this program's own path), METRICS (a leg's metrics file) and
 * SERVER_BIN (the arm's server binary).  A variable whose value is an
 * array splices into an argv where an element is exactly "${NAME}"
 * (template_expand_argv); anywhere else it is an error.  Values of vars may
 * themselves hold templates (expanded recursively, with a depth limit that
 * catches cycles).  "$$" is a literal "$". */
#ifndef BENCHTUI_TEMPLATE_H
#define BENCHTUI_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "spec.h"

struct template_ctx {
	const struct spec *spec;
	const struct spec_cell *cell;  /* may be NULL (round-level) */
	const char *arm;               /* built-in ARM */
	const struct spec_kv *arm_vars; /* the arm's vars (may be NULL) */
	size_t narm_vars;
	int rep;                       /* built-in REP */
	bool warmup;                   /* a warm-up or profile leg: ${REP}
	                                * is "0" */
	const char *bin;               /* built-in BIN */
	const char *scratch;           /* built-in SCRATCH (absolute) */
	const char *round_dir;         /* built-in ROUND_DIR (absolute) */
	const char *metrics;           /* built-in METRICS (absolute) */
	const char *server_bin;        /* built-in SERVER_BIN */
};

/* The most one expansion may produce: 1 MiB.  Past it, or past 2^20
 * variable references (nested variables that expand to nothing still cost
 * time), expansion stops with an error naming the chain of variables. */
#define TEMPLATE_ARG_MAX (1u << 20)

/* Expand s.  malloc'd result (err untouched), or NULL with err naming the
 * unknown variable, the syntax error or the bound exceeded. */
char *template_expand(const char *s, const struct template_ctx *ctx,
    char *err, size_t errlen);

/* Expand an argv template of n elements: an element that is exactly
 * "${NAME}" of an array variable becomes 0 or more arguments (each
 * expanded); every other element becomes one.  0 with *out (malloc'd,
 * NULL-terminated) and *nout, or -1 with err and *at the index of the
 * element that failed. */
int template_expand_argv(char *const *tmpl, size_t n,
    const struct template_ctx *ctx, char ***out, size_t *nout, size_t *at,
    char *err, size_t errlen);

/* Free a NULL-terminated vector of strings (NULL is a no-op). */
void template_free_argv(char **v);

/* Check that every name s uses is defined for that cell (built-ins always
 * are), without expanding.  0, or -1 with err naming the variable. */
int template_check(const char *s, const struct spec *spec,
    const struct spec_cell *cell, char *err, size_t errlen);

/* Whether name[0..len) is a variable name: [A-Za-z_][A-Za-z0-9_]*. */
bool template_name_valid(const char *name, size_t len);

/* Whether name is one of the built-ins (BIN, SCRATCH, CELL, ARM, REP,
 * ROUND_DIR, BENCHTUI, METRICS, SERVER_BIN), which vars may not shadow. */
bool template_is_builtin(const char *name);

/* The running benchtui's own path (${BENCHTUI}), or NULL when the kernel
 * does not say. */
const char *template_self_path(void);

#endif
