/* legcmd: what a leg (or a cell's server) runs, built in one place.
 *
 * A leg's argv (templates expanded, arrays spliced), its environment, its
 * working directory, its program, its scratch folder and its output file
 * are derived from the round file here and nowhere else: the driver runs
 * what this builds, the leg_start event carries the argv it built, and
 * check, the console, replay and provenance read that instead of expanding
 * templates again.  A new built-in template gets its value in
 * legcmd_ctx() (legcmd.c), the one place a leg's template context is
 * filled; legcmd_leg_ctx() hands it out with what the build added. */
#ifndef BENCHTUI_LEGCMD_H
#define BENCHTUI_LEGCMD_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "spec.h"
#include "template.h"

/* Which leg: counted legs have rep >= 1 and warmup 0; a warm-up leg has
 * rep 0 and warmup K (1-based); a profile's leg rep 0 (perf) or -1
 * (syscalls) and warmup 0. */
/* What ${ROUND_DIR} reads before a run has picked its folder (check, the
 * host check, provenance): a program path holding it is known only per
 * leg. */
#define LEGCMD_NO_ROUND_DIR "<ROUND_DIR>"

struct legcmd_where {
	const struct spec *spec;
	size_t cell, arm;
	int rep;
	int warmup;
	const char *round_dir;  /* absolute; NULL before run picks it (check):
	                         * ${ROUND_DIR} reads "<ROUND_DIR>" and the
	                         * output path is only relative */
};

struct legcmd {
	char **argv;            /* expanded and spliced; NULL-terminated */
	size_t argc;
	char **prepare;         /* the round's prepare argv, or NULL */
	size_t nprepare;
	char **envp;            /* inherited environment + the arm's env */
	const struct spec_kv *env; /* the arm's own env (borrowed) */
	size_t nenv;
	const char *cwd;        /* the workdir (borrowed) */
	char *bin;              /* the bin as expanded, or NULL when none */
	char *program;          /* the leg's program, absolute, for the leg
	                         * line's "bin": the bin's (else argv[0]'s)
	                         * resolution as execvp would, or NULL when
	                         * not found */
	char *exec_path;        /* argv[0] resolved: what is execve'd, or NULL
	                         * (not found: the exec fails and says so) */
	char *prepare_path;     /* the same for prepare[0] */
	bool bin_found;         /* bin is set and program is its resolution */
	char *scratch;          /* absolute, or NULL when the round has none */
	char *stdin_path;       /* the leg's stdin ("stdin" expanded,
	                         * absolute), or NULL: /dev/null */
	char *out_rel;          /* legs/CELL-ARM-rREP.out, legs/CELL-ARM-wK.out,
	                         * servers/CELL.log */
	char *out_abs;          /* under round_dir, or NULL without one */
	char *metrics;          /* ${METRICS}: the leg's metrics file under
	                         * round_dir (or "<ROUND_DIR>/..." for check) */
	char *metrics_rel;      /* legs/CELL-ARM-rREP.metrics.json (-wK for a
	                         * warm-up leg; prof-CELL-ARM for rep 0,
	                         * sys-CELL-ARM for rep -1) */
	struct spec_kv *env_own; /* a per-leg server's merged env (owned) */
	char *server_bin;       /* a per-leg server's arm's server_bin as
	                         * expanded (its templates, as bin's), or NULL */
};

/* Build leg w into caller-owned c (legcmd_finish frees it, also after a
 * failure).  0, or -1 with err as "FIELD: what is wrong" (for example
 * "command[2]: unknown variable ${X}"). */
int legcmd_build(const struct legcmd_where *w, struct legcmd *c, char *err,
    size_t errlen);

/* The same for a cell's server.  Serving the whole cell (arm -1): no ARM,
 * no REP, no SCRATCH, BIN only as the round's bin expands for the cell
 * alone, env server.env.  A server per leg (arm >= 0, rep): that arm's
 * ARM, vars and SERVER_BIN, and its server_env over server.env.  A server
 * on another host (server.host) gets its argv and env (the pairs, not
 * envp) only, and cwd its server.dir: program, exec_path and envp stay
 * NULL, since its agent resolves them there. */
int legcmd_server(const struct spec *s, size_t cell, int arm, int rep,
    const char *round_dir, struct legcmd *c, char *err, size_t errlen);

/* A cell's setup (cleanup false) or cleanup argv, as the cell's server is
 * built: the cell's and the round's vars, no ARM, REP or SCRATCH, the
 * round's env and workdir; its output legs/CELL-setup.out (-cleanup).
 * The cell must have that argv.  0, or -1 with err. */
int legcmd_hook(const struct spec *s, size_t cell, bool cleanup,
    const char *round_dir, struct legcmd *c, char *err, size_t errlen);

void legcmd_finish(struct legcmd *c);

/* The template context of leg w as c was built with it (bin, scratch,
 * metrics and round_dir included), for expanding other leg strings the
 * same way. */
void legcmd_leg_ctx(const struct legcmd_where *w, const struct legcmd *c,
    struct template_ctx *ctx);

/* The inherited environment with nkv pairs of kv merged over them (a
 * later pair wins), as a leg gets it: NULL-terminated, its strings its
 * own (template_free_argv frees it). */
char **legcmd_envp(const struct spec_kv *kv, size_t nkv);

/* argv as a JSON array of strings (a string that is not UTF-8 becomes
 * null). */
json_t *legcmd_argv_json(char *const *argv);

/* The env the leg sets over the inherited one, as a JSON object. */
json_t *legcmd_env_json(const struct legcmd *c);

/* An argv as one line a POSIX shell reads back as that argv: arguments
 * quoted where needed.  For people, and for the one shell benchtui cannot
 * avoid: the far user's, which ssh hands a remote agent's command line
 * to (no shell runs anything on this machine).  malloc'd. */
char *legcmd_argv_line(char *const *argv);

/* What check warns about but does not refuse: an argument that expands
 * to "" (an empty array passes none), a shell operator in an argv (no
 * shell runs it), an argument naming a relative file that is not in the
 * workdir.  Calls warn once per distinct message; returns their number. */
typedef void (*legcmd_warn_fn)(const char *msg, void *arg);
int legcmd_lint(const struct spec *s, legcmd_warn_fn warn, void *arg);

#endif
