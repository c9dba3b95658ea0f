/* legcmd: the one command builder (legcmd.h). */
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "legcmd.h"
#include "procs.h"
#include "xalloc.h"

/* Programs already resolved, so that a cell and arm's program is looked up
 * once per round, not with a stat and an access() before every leg.  What
 * a leg execs is therefore what was found the first time: a program that
 * vanishes later fails its exec (ENOENT) instead of its lookup.  A round
 * names a few programs; past the table's size lookups are not kept. */
#define LEGCMD_BINS_MAX 64
static struct {
	char *prog, *workdir, *path; /* path NULL: not found */
} legcmd_bins[LEGCMD_BINS_MAX];
static size_t legcmd_nbins;
static pthread_mutex_t legcmd_bins_mu = PTHREAD_MUTEX_INITIALIZER;

static char *
legcmd_resolve(const char *prog, const char *workdir)
{
	char *path = NULL;
	bool hit = false;

	if (prog == NULL || workdir == NULL)
		return spec_resolve_program(prog, workdir);
	pthread_mutex_lock(&legcmd_bins_mu);
	for (size_t i = 0; i < legcmd_nbins && !hit; i++) {
		if (strcmp(legcmd_bins[i].prog, prog) == 0 &&
		    strcmp(legcmd_bins[i].workdir, workdir) == 0) {
			hit = true;
			path = legcmd_bins[i].path != NULL ?
			    xstrdup(legcmd_bins[i].path) : NULL;
		}
	}
	pthread_mutex_unlock(&legcmd_bins_mu);
	if (hit)
		return path;
	path = spec_resolve_program(prog, workdir);
	pthread_mutex_lock(&legcmd_bins_mu);
	if (legcmd_nbins < LEGCMD_BINS_MAX) {
		legcmd_bins[legcmd_nbins].prog = xstrdup(prog);
		legcmd_bins[legcmd_nbins].workdir = xstrdup(workdir);
		legcmd_bins[legcmd_nbins].path = path != NULL ? xstrdup(path) :
		    NULL;
		legcmd_nbins++;
	}
	pthread_mutex_unlock(&legcmd_bins_mu);
	return path;
}

extern char **environ;

static void
legcmd_ctx(const struct legcmd_where *w, struct template_ctx *ctx)
{
	const struct spec *s = w->spec;
	const struct spec_arm *arm = &s->arms[w->arm];

	*ctx = (struct template_ctx){
		.spec = s,
		.cell = &s->cells[w->cell],
		.arm = arm->name,
		.arm_vars = arm->vars,
		.narm_vars = arm->nvars,
		/* warm-up and profile legs (rep 0, -1, -2) are outside the
		 * counted reps: ${REP} is "0" for them */
		.rep = w->rep > 0 ? w->rep : 0,
		.warmup = w->warmup > 0 || w->rep <= 0,
		.round_dir = w->round_dir != NULL ? w->round_dir :
		    LEGCMD_NO_ROUND_DIR,
	};
}

void
legcmd_leg_ctx(const struct legcmd_where *w, const struct legcmd *c,
    struct template_ctx *ctx)
{
	legcmd_ctx(w, ctx);
	/* ${BIN} is the absolute program, as it is exec'd. */
	ctx->bin = c->program != NULL ? c->program : c->bin;
	ctx->scratch = c->scratch;
	ctx->metrics = c->metrics;
}

void
legcmd_finish(struct legcmd *c)
{
	if (c == NULL)
		return;
	template_free_argv(c->argv);
	template_free_argv(c->prepare);
	template_free_argv(c->envp);
	free(c->bin);
	free(c->program);
	free(c->exec_path);
	free(c->prepare_path);
	free(c->scratch);
	free(c->stdin_path);
	free(c->out_rel);
	free(c->out_abs);
	free(c->metrics);
	free(c->metrics_rel);
	free(c->env_own);
	free(c->server_bin);
	memset(c, 0, sizeof *c);
}

char **
legcmd_envp(const struct spec_kv *kv, size_t nkv)
{
	size_t n = 0, k = 0;
	char **v;

	while (environ[n] != NULL)
		n++;
	v = xcalloc(n + nkv + 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		bool over = false;

		for (size_t j = 0; j < nkv && !over; j++) {
			size_t l = strlen(kv[j].key);

			over = strncmp(environ[i], kv[j].key, l) == 0 &&
			    environ[i][l] == '=';
		}
		if (!over)
			v[k++] = xstrdup(environ[i]);
	}
	for (size_t j = 0; j < nkv; j++)
		v[k++] = xasprintf("%s=%s", kv[j].key, kv[j].val != NULL ?
		    kv[j].val : "");
	return v;
}

static int
legcmd_argv(char *const *tmpl, size_t n, const char *field,
    const struct template_ctx *ctx, char ***out, size_t *nout, char *err,
    size_t errlen)
{
	char terr[512];
	size_t at = 0;

	if (template_expand_argv(tmpl, n, ctx, out, nout, &at, terr,
	    sizeof terr) == 0)
		return 0;
	snprintf(err, errlen, "%s[%zu]: %s", field, at, terr);
	return -1;
}

/* The output file: relative to the round folder (fmt with a, b and n),
 * and absolute when there is one. */
static void
legcmd_paths(struct legcmd *c, const char *round_dir, const char *fmt,
    const char *a, const char *b, int n)
{
	c->out_rel = xasprintf(fmt, a, b, n);
	if (round_dir != NULL)
		c->out_abs = xasprintf("%s/%s", round_dir, c->out_rel);
}

/* The arm's bin expanded for this leg (a bin may hold templates,
 * "${TOOLS}/zstd": what runs is the expansion for this cell and arm, never
 * the raw string) and resolved.  0, or -1 with err. */
static int
legcmd_bin(const struct spec *s, const struct spec_arm *arm,
    const struct template_ctx *ctx, struct legcmd *c, char *err,
    size_t errlen)
{
	const char *bin = spec_arm_bin(s, arm);
	char terr[512];

	if (bin == NULL)
		return 0;
	if ((c->bin = template_expand(bin, ctx, terr, sizeof terr)) == NULL) {
		snprintf(err, errlen, "%s: %s", arm->bin != NULL ? "arms.bin" :
		    "bin", terr);
		return -1;
	}
	c->program = legcmd_resolve(c->bin, s->workdir);
	c->bin_found = c->program != NULL;
	return 0;
}

/* ${METRICS}: in the round folder, so the seal covers it.  A warm-up leg
 * has -wK, a counted one -rREP, a profile leg its own: rep 0 perf's
 * (prof-CELL-ARM), rep -1 syscalls' (sys-CELL-ARM), rep -2 server_perf's
 * (prof-CELL-ARM-server). */
static void
legcmd_metrics(const struct legcmd_where *w, const char *cell,
    const char *arm, const char *round_dir, struct legcmd *c)
{
	if (w->warmup > 0)
		c->metrics_rel = xasprintf("legs/%s-%s-w%d.metrics.json", cell,
		    arm, w->warmup);
	else if (w->rep > 0)
		c->metrics_rel = xasprintf("legs/%s-%s-r%d.metrics.json", cell,
		    arm, w->rep);
	else
		c->metrics_rel = xasprintf("legs/%s-%s-%s%s.metrics.json",
		    w->rep == -1 ? "sys" : "prof", cell, arm,
		    w->rep == -2 ? "-server" : "");
	c->metrics = xasprintf("%s/%s", round_dir, c->metrics_rel);
}

/* A path field (scratch, stdin) expanded into *out, relative to the
 * workdir; *out stays NULL when the field is.  0, or -1 with err. */
static int
legcmd_path(const struct spec *s, const char *tmpl, const char *field,
    const struct template_ctx *ctx, char **out, char *err, size_t errlen)
{
	char terr[512], *x;

	if (tmpl == NULL)
		return 0;
	if ((x = template_expand(tmpl, ctx, terr, sizeof terr)) == NULL) {
		snprintf(err, errlen, "%s: %s", field, terr);
		return -1;
	}
	if (x[0] == '/')
		*out = x;
	else {
		*out = xasprintf("%s/%s", s->workdir, x);
		free(x);
	}
	return 0;
}

/* The command's argv and the prepare argv, expanded and spliced, and
 * their programs resolved.  0, or -1 with err. */
static int
legcmd_argvs(const struct spec *s, const struct template_ctx *ctx,
    struct legcmd *c, char *err, size_t errlen)
{
	if (legcmd_argv(s->command, s->ncommand, "command", ctx, &c->argv,
	    &c->argc, err, errlen) < 0)
		return -1;
	if (c->argc == 0) {
		snprintf(err, errlen, "command: splices to no arguments at all");
		return -1;
	}
	if (s->prepare != NULL && legcmd_argv(s->prepare, s->nprepare,
	    "prepare", ctx, &c->prepare, &c->nprepare, err, errlen) < 0)
		return -1;
	c->exec_path = legcmd_resolve(c->argv[0], s->workdir);
	if (c->prepare != NULL)
		c->prepare_path = legcmd_resolve(c->prepare[0], s->workdir);
	return 0;
}

int
legcmd_build(const struct legcmd_where *w, struct legcmd *c, char *err,
    size_t errlen)
{
	const struct spec *s = w->spec;
	const struct spec_arm *arm = &s->arms[w->arm];
	const struct spec_cell *cell = &s->cells[w->cell];
	struct template_ctx ctx;

	memset(c, 0, sizeof *c);
	legcmd_ctx(w, &ctx);
	c->cwd = s->workdir;
	c->env = arm->env;
	c->nenv = arm->nenv;
	if (legcmd_bin(s, arm, &ctx, c, err, errlen) < 0)
		return -1;
	/* ${BIN} is the absolute program, as it is exec'd. */
	ctx.bin = c->program != NULL ? c->program : c->bin;
	legcmd_metrics(w, cell->name, arm->name, ctx.round_dir, c);
	ctx.metrics = c->metrics;
	if (legcmd_path(s, s->scratch, "scratch", &ctx, &c->scratch, err,
	    errlen) < 0)
		return -1;
	ctx.scratch = c->scratch;
	/* Opened afresh for each leg, so every leg reads all of it. */
	if (legcmd_path(s, s->stdin_path, "stdin", &ctx, &c->stdin_path, err,
	    errlen) < 0)
		return -1;
	if (legcmd_argvs(s, &ctx, c, err, errlen) < 0)
		return -1;
	if (c->program == NULL && c->exec_path != NULL)
		c->program = xstrdup(c->exec_path);
	c->envp = legcmd_envp(arm->env, arm->nenv);
	legcmd_paths(c, w->round_dir, w->warmup > 0 ? "legs/%s-%s-w%d.out" :
	    "legs/%s-%s-r%d.out", cell->name, arm->name, w->warmup > 0 ?
	    w->warmup : w->rep);
	return 0;
}

int
legcmd_server(const struct spec *s, size_t ci, int arm, int rep,
    const char *round_dir, struct legcmd *c, char *err, size_t errlen)
{
	const struct spec_cell *cell = &s->cells[ci];
	const struct spec_server *sv = cell->server;
	const struct spec_arm *a = arm >= 0 ? &s->arms[arm] : NULL;
	struct template_ctx ctx = { .spec = s, .cell = cell,
	    .round_dir = round_dir != NULL ? round_dir : LEGCMD_NO_ROUND_DIR };
	char terr[512];

	memset(c, 0, sizeof *c);
	c->cwd = s->workdir;
	c->env = sv->env;
	c->nenv = sv->nenv;
	if (a != NULL) {
		size_t n = 0;

		ctx.arm = a->name;
		ctx.arm_vars = a->vars;
		ctx.narm_vars = a->nvars;
		ctx.rep = rep;
		/* server_bin may hold templates, as bin may. */
		if (a->server_bin != NULL && (c->server_bin = template_expand(
		    a->server_bin, &ctx, terr, sizeof terr)) == NULL) {
			snprintf(err, errlen, "arms[%d].server_bin: %s", arm,
			    terr);
			return -1;
		}
		ctx.server_bin = c->server_bin;
		/* server.env, and the arm's server_env over it. */
		c->env_own = xcalloc(sv->nenv + a->nserver_env + 1,
		    sizeof *c->env_own);
		for (size_t i = 0; i < sv->nenv; i++) {
			bool over = false;

			for (size_t j = 0; j < a->nserver_env && !over; j++)
				over = strcmp(sv->env[i].key,
				    a->server_env[j].key) == 0;
			if (!over)
				c->env_own[n++] = sv->env[i];
		}
		for (size_t j = 0; j < a->nserver_env; j++)
			c->env_own[n++] = a->server_env[j];
		c->env = c->env_own;
		c->nenv = n;
	}
	/* The round's bin for the cell alone; when it needs the arm, the
	 * round file's check made sure the server's cmd does not use it. */
	if (s->bin != NULL &&
	    (c->bin = template_expand(s->bin, &ctx, terr, sizeof terr)) != NULL)
		c->program = legcmd_resolve(c->bin, s->workdir);
	ctx.bin = c->program != NULL ? c->program : c->bin;
	if (legcmd_argv(sv->cmd, sv->ncmd, "server.cmd", &ctx, &c->argv,
	    &c->argc, err, errlen) < 0)
		return -1;
	if (c->argc == 0) {
		snprintf(err, errlen, "server.cmd: splices to no arguments");
		return -1;
	}
	free(c->program);
	c->program = NULL;
	/* A server on another host: its program is looked up there, in
	 * its agent's folder, by the agent (and so is its environment). */
	if (spec_server_remote(sv)) {
		c->cwd = sv->dir;
	} else {
		c->program = legcmd_resolve(c->argv[0], s->workdir);
		if (c->program != NULL)
			c->exec_path = xstrdup(c->program);
		c->envp = legcmd_envp(c->env, c->nenv);
	}
	legcmd_paths(c, round_dir, "servers/%s%s.log", cell->name, "", 0);
	return 0;
}

int
legcmd_hook(const struct spec *s, size_t ci, bool cleanup,
    const char *round_dir, struct legcmd *c, char *err, size_t errlen)
{
	const struct spec_cell *cell = &s->cells[ci];
	const char *field = cleanup ? "cleanup" : "setup";
	struct template_ctx ctx = { .spec = s, .cell = cell,
	    .round_dir = round_dir != NULL ? round_dir : LEGCMD_NO_ROUND_DIR };
	char terr[512];

	memset(c, 0, sizeof *c);
	c->cwd = s->workdir;
	if (s->bin != NULL &&
	    (c->bin = template_expand(s->bin, &ctx, terr, sizeof terr)) != NULL)
		c->program = legcmd_resolve(c->bin, s->workdir);
	ctx.bin = c->program != NULL ? c->program : c->bin;
	if (legcmd_argv(cleanup ? cell->cleanup : cell->setup, cleanup ?
	    cell->ncleanup : cell->nsetup, field, &ctx, &c->argv, &c->argc,
	    err, errlen) < 0)
		return -1;
	if (c->argc == 0) {
		snprintf(err, errlen, "%s: splices to no arguments", field);
		return -1;
	}
	free(c->program);
	c->program = legcmd_resolve(c->argv[0], s->workdir);
	if (c->program != NULL)
		c->exec_path = xstrdup(c->program);
	c->envp = legcmd_envp(NULL, 0);
	legcmd_paths(c, round_dir, "legs/%s-%s.out", cell->name, field, 0);
	return 0;
}

json_t *
legcmd_argv_json(char *const *argv)
{
	json_t *a = json_array();

	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
		json_t *v = json_string(argv[i]);

		json_array_append_new(a, v != NULL ? v : json_null());
	}
	return a;
}

json_t *
legcmd_env_json(const struct legcmd *c)
{
	json_t *o = json_object();

	for (size_t i = 0; i < c->nenv; i++) {
		json_t *v = json_string(c->env[i].val != NULL ?
		    c->env[i].val : "");

		json_object_set_new(o, c->env[i].key, v != NULL ? v :
		    json_null());
	}
	return o;
}

char *
legcmd_argv_line(char *const *argv)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789_./=:,@%+-";
	struct xbuf b = { 0 };

	/* An xbuf, not open_memstream: check makes a line for every leg,
	 * and a memory stream's own set-up cost more than the line. */
	xbuf_add(&b, "", 0);
	for (size_t i = 0; argv != NULL && argv[i] != NULL; i++) {
		const char *a = argv[i];
		size_t n = strlen(a);

		if (i > 0)
			xbuf_add(&b, " ", 1);
		if (n > 0 && strspn(a, safe) == n) {
			xbuf_add(&b, a, n);
			continue;
		}
		xbuf_add(&b, "'", 1);
		for (const char *q; (q = strchr(a, '\'')) != NULL; a = q + 1) {
			xbuf_add(&b, a, (size_t)(q - a));
			xbuf_add(&b, "'\\''", 4);
		}
		xbuf_add(&b, a, strlen(a));
		xbuf_add(&b, "'", 1);
	}
	return b.p;
}

/* --- check's warnings ------------------------------------------------- */

struct lint {
	legcmd_warn_fn warn;
	void *arg;
	char **seen;            /* messages said already */
	size_t nseen, cap;
};

static void
legcmd_say(struct lint *l, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
legcmd_say(struct lint *l, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	for (size_t i = 0; i < l->nseen; i++)
		if (strcmp(l->seen[i], msg) == 0)
			return;
	if (l->nseen == l->cap) {
		l->cap = xgrow(l->cap, l->nseen + 1, 16);
		l->seen = xreallocarray(l->seen, l->cap, sizeof *l->seen);
	}
	l->seen[l->nseen++] = xstrdup(msg);
	l->warn(msg, l->arg);
}

/* Shell syntax that, in an argv, reaches the program as an argument. */
static bool
legcmd_shell_word(const char *a)
{
	static const char *const ops[] = { ">", ">>", "<", "|", "||", "&&",
	    ";", "&", "2>&1", "1>&2", ">&2", "&>", "2>", NULL };

	for (size_t i = 0; ops[i] != NULL; i++)
		if (strcmp(a, ops[i]) == 0)
			return true;
	return (a[0] == '>' || strncmp(a, "2>", 2) == 0) && a[1] != '\0' &&
	    a[1] != '=';
}

/* Whether a looks like a relative file name: no option, no assignment, no
 * URL, and a folder in it or an extension of 1 to 5 letters or digits. */
static bool
legcmd_file_like(const char *a)
{
	const char *dot = strrchr(a, '.');
	size_t ext;

	if (a[0] == '\0' || a[0] == '/' || a[0] == '-' || a[0] == '<' ||
	    strpbrk(a, "=: \t$*?{}") != NULL)
		return false;
	if (strchr(a, '/') != NULL)
		return true;
	if (dot == NULL || dot == a)
		return false;
	ext = strlen(dot + 1);
	if (ext < 1 || ext > 5 || strspn(dot + 1, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") != ext)
		return false;
	/* "1.5" is a number, not a file. */
	return strspn(a, "0123456789.") != strlen(a);
}

/* Options whose next argument is a file the leg writes. */
static bool
legcmd_output_option(const char *a)
{
	static const char *const opts[] = { "-o", "--output", "-O", "--out",
	    "-w", "--write", NULL };

	for (size_t i = 0; opts[i] != NULL; i++)
		if (strcmp(a, opts[i]) == 0)
			return true;
	return false;
}

static void
legcmd_lint_argv(struct lint *l, const struct spec *s, char *const *tmpl,
    size_t n, const char *field, const struct template_ctx *ctx,
    const char *where)
{
	bool after_output = false;  /* the previous argument was "-o" */
	char **out = NULL;

	for (size_t i = 0; i < n; i++) {
		char terr[256];
		size_t nout = 0, at;
		bool raw = strstr(tmpl[i], "${") == NULL;

		template_free_argv(out);
		out = NULL;
		if (template_expand_argv(&tmpl[i], 1, ctx, &out, &nout, &at,
		    terr, sizeof terr) < 0)
			continue;
		for (size_t k = 0; k < nout; k++) {
			const char *a = out[k];
			struct stat st;
			char *path;

			if (a[0] == '\0')
				legcmd_say(l, "%s[%zu] (\"%s\") is an empty argument%s%s; "
				    "a variable that is an empty array passes no "
				    "argument at all", field, i, tmpl[i],
				    raw ? "" : " in ", raw ? "" : where);
			else if (legcmd_shell_word(a))
				legcmd_say(l, "%s[%zu] is \"%s\": no shell runs the "
				    "command, so the program gets it as an "
				    "argument (the round's output field keeps the leg's output; a pipe needs a script)", field, i, a);
			else if (legcmd_file_like(a) && !after_output) {
				path = xasprintf("%s/%s", s->workdir, a);
				if (stat(path, &st) != 0)
					legcmd_say(l, "%s[%zu]: \"%s\" is not a file in "
					    "the workdir %s%s%s (fine if the leg "
					    "creates it)", field, i, a,
					    s->workdir, raw ? "" : "; ",
					    raw ? "" : where);
				free(path);
			}
			after_output = legcmd_output_option(a);
		}
	}
	template_free_argv(out);
}

int
legcmd_lint(const struct spec *s, legcmd_warn_fn warn, void *arg)
{
	struct lint l = { .warn = warn, .arg = arg };

	/* Every leg sets it before its exec: without the right, every leg
	 * would fail there. */
	if (!procs_can_nice(s->nice))
		legcmd_say(&l, "nice is %d: a negative nice needs root or "
		    "CAP_SYS_NICE (or an RLIMIT_NICE of at least %d), which uid "
		    "%d lacks, so every leg would fail at setpriority before "
		    "it runs", s->nice, 20 - s->nice, (int)geteuid());

	for (size_t c = 0; c < s->ncells; c++)
		for (size_t a = 0; a < s->narms; a++) {
			struct legcmd_where w = { .spec = s, .cell = c, .arm = a,
			    .rep = 1 };
			struct legcmd lc;
			struct template_ctx ctx;
			char err[512], where[160];

			if (s->arms[a].aa_of != NULL)
				continue;
			if (legcmd_build(&w, &lc, err, sizeof err) < 0) {
				legcmd_finish(&lc);
				continue;
			}
			legcmd_leg_ctx(&w, &lc, &ctx);
			snprintf(where, sizeof where, "cell \"%s\", arm \"%s\"",
			    s->cells[c].name, s->arms[a].name);
			legcmd_lint_argv(&l, s, s->command, s->ncommand, "command", &ctx,
			    where);
			if (s->prepare != NULL)
				legcmd_lint_argv(&l, s, s->prepare, s->nprepare, "prepare",
				    &ctx, where);
			legcmd_finish(&lc);
		}
	for (size_t i = 0; i < l.nseen; i++)
		free(l.seen[i]);
	free(l.seen);
	return (int)l.nseen;
}
