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
#include <sys/stat.h>

#include <sys/sysinfo.h>
#include <unistd.h>

#include "cmd.h"
#include "plan.h"
#include "quiet.h"
#include "stats.h"
#include "stats_floor.h"
#include "profile.h"
#include "spec.h"
#include "legcmd.h"
#include "words.h"
#include "xalloc.h"

enum { CHECK_HOST = 1 };

static const struct opts_opt cmd_check_rows[] = {
	{ "host", 0, "HOST", OPTS_OPTARG | OPTS_REPEAT, CHECK_HOST, "bare: "
	  "also look at this box's load for a few seconds, as run does before "
	  "its first leg; =HOST: check HOST as run's --host HOST would" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_check_opts = {
	"check", "ROUND.json",
	"Validate a round file, print its plan and commands; run nothing.",
	"benchtui-check(1), benchtui-round(5)", cmd_check_rows,
};

/* An argv as a shell would read it back, only for the reader: the leg
 * itself never passes through a shell. */
static void
cmd_check_print_argv(const char *what, char *const *argv)
{
	char *line = legcmd_argv_line(argv);

	printf("    %s %s\n", what, line != NULL ? line : "?");
	free(line);
}

static void
cmd_check_print_arg(FILE *f, const char *a)
{
	char *const one[] = { (char *)a, NULL };
	char *line = legcmd_argv_line(one);

	fputs(line != NULL ? line : a, f);
	free(line);
}

/* A var's value: a string, or an array as [a b]. */
static void
cmd_check_print_var(const struct spec_kv *kv)
{
	printf(" var %s=", kv->key);
	if (kv->list == NULL) {
		cmd_check_print_arg(stdout, kv->val);
		return;
	}
	putchar('[');
	for (size_t i = 0; i < kv->nlist; i++) {
		if (i > 0)
			putchar(' ');
		cmd_check_print_arg(stdout, kv->list[i]);
	}
	putchar(']');
}

/* How a server on another host is reached: ssh, the host as one
 * argument, the agent's command line as the far shell reads it (run
 * checks nothing there). */
static void
cmd_check_print_ssh(const struct spec *s, const struct spec_server *sv)
{
	size_t n = s->nssh + 2, k = 0;
	char **far = xcalloc(s->nagent + 3, sizeof *far), **argv, *line;

	for (size_t i = 0; i < s->nagent; i++)
		far[i] = s->agent[i];
	far[s->nagent] = "--dir";
	far[s->nagent + 1] = sv->dir;
	argv = xcalloc(n + 1, sizeof *argv);
	for (size_t i = 0; i < s->nssh; i++)
		argv[k++] = s->ssh[i];
	argv[k++] = sv->host;
	argv[k++] = line = legcmd_argv_line(far);
	cmd_check_print_argv("server-ssh", argv);
	free(line);
	free(argv);
	free(far);
}

/* A cell's server lines: its port; "server-per-leg" when it is started
 * before each leg with the leg's arm and stopped after it; then its argv
 * as the builder makes it for the cell (no ARM or REP: it serves every
 * leg of the cell), or for each arm with its server_bin and server_env
 * when per leg. */
static void
cmd_check_print_server(const struct spec *s, size_t ci)
{
	const struct spec_cell *c = &s->cells[ci];
	bool per_leg = spec_server_per_leg(s, c);
	struct legcmd lc;
	char err[640];

	printf("    server tcp_port %d ready_timeout_s %g", c->server->tcp_port,
	    c->server->ready_timeout_s);
	if (c->server->cpus)
		printf(" cpus %s", c->server->cpus);
	if (c->server->host != NULL) {
		printf(" host ");
		cmd_check_print_arg(stdout, c->server->host);
		printf(" dir ");
		cmd_check_print_arg(stdout, c->server->dir);
	}
	putchar('\n');
	if (c->server->host != NULL)
		cmd_check_print_ssh(s, c->server);
	if (c->server->on_hosts)
		printf("    server-hosts: each host runs its own copy, for its "
		    "own legs\n");
	if (per_leg)
		printf("    server-per-leg: started before each leg with its "
		    "arm's server_bin and server_env, stopped after it\n");
	for (size_t ai = 0; ai < (per_leg ? s->narms : 1); ai++) {
		const struct spec_arm *a = per_leg ? &s->arms[ai] : NULL;
		char what[128];

		snprintf(what, sizeof what, a != NULL ? "server-exec (arm %s):" :
		    "server-exec", a != NULL ? a->name : "");
		if (legcmd_server(s, ci, per_leg ? (int)ai : -1, per_leg ? 1 : 0,
		    NULL, &lc, err, sizeof err) == 0)
			cmd_check_print_argv(what, lc.argv);
		else
			printf("    %s ? (%s)\n", what, err);
		legcmd_finish(&lc);
		for (size_t k = 0; a != NULL && k < a->nserver_env; k++) {
			printf("    server-env (arm %s): %s=", a->name,
			    a->server_env[k].key);
			cmd_check_print_arg(stdout, a->server_env[k].val);
			putchar('\n');
		}
	}
}

/* Too few reps for an interval: every verdict would be unknown. */
static void
cmd_check_warn_reps(const struct spec *s)
{
	int reps = s->adaptive.on ? s->adaptive.min : s->reps;
	double level = s->adaptive.on ? stats_look_level(s->confidence,
	    spec_looks(s, NULL, 0)) : s->confidence;
	size_t need = s->estimator == SPEC_ESTIMATOR_FLOOR ?
	    stats_floor_min_n(level) : stats_min_n(level);

	if (s->estimator != SPEC_ESTIMATOR_FLOOR && need < 6)
		need = 6;
	if ((size_t)reps < need)
		fprintf(stderr, "benchtui check: %s: warning: %s is %d: an "
		    "interval at level %g needs at least %zu paired reps, so "
		    "verdicts stay unknown%s\n", s->path, s->adaptive.on ?
		    "reps.min" : "reps", reps, level, need,
		    s->adaptive.on ? " until a later look" : "");
}

/* A cell's setup and cleanup as the builder makes them. */
static void
cmd_check_print_hooks(const struct spec *s, size_t ci)
{
	struct legcmd lc;
	char err[640];

	for (int h = 0; h < 2; h++) {
		const char *what = h ? "cleanup" : "setup";

		if ((h ? s->cells[ci].cleanup : s->cells[ci].setup) == NULL)
			continue;
		if (legcmd_hook(s, ci, h == 1, NULL, &lc, err, sizeof err) == 0)
			cmd_check_print_argv(what, lc.argv);
		else
			printf("    %s ? (%s)\n", what, err);
		legcmd_finish(&lc);
	}
}

/* The counters, ok_rc, and the files the round keeps: each copied into
 * files/ up to 16 MiB, a larger one only hashed (said here, before the
 * round runs). */
static void
cmd_check_print_io(const struct spec *s)
{
	char size[32];
	struct stat st;

	printf("counters");
	for (size_t i = 0; i < s->ncounters; i++)
		printf(" %s", s->counters[i]);
	printf("%s\n", s->counters_given ? "" : " (what this machine counts)");
	printf("ok_rc");
	for (size_t i = 0; i < s->nok_rc; i++)
		printf(" %d", s->ok_rc[i]);
	putchar('\n');
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct spec_file *f = &s->files[i];
		bool seen = stat(f->abs, &st) == 0;
		bool big = seen && st.st_size > SPEC_FILE_COPY_MAX;

		printf("files %s ", f->as);
		cmd_check_print_arg(stdout, f->abs);
		printf(" %s: %s\n", seen ? words_bytes(size, sizeof size,
		    (double)st.st_size) : "(size unknown)", big ?
		    "hashed into environment.json, not copied (over 16 MiB)" :
		    "hashed and copied into files/");
	}
}

static void
cmd_check_print_header(const struct spec *s, size_t nlegs)
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
	/* Several hosts: rep r on the ((r - 1) mod n)-th, whole, each
	 * host's j-th rep in the arm order of the plan's rep j below. */
	if (s->nhosts > 1) {
		printf("hosts");
		for (size_t i = 0; i < s->nhosts; i++) {
			printf(" ");
			cmd_check_print_arg(stdout, s->hosts[i]);
		}
		printf(" (rep r on the ((r-1) mod %zu)-th)\n", s->nhosts);
	}
	printf("confidence %g\n", s->confidence);
	printf("margin %g\n", s->margin);
	printf("estimator %s\n", spec_estimator_name(s->estimator));
	printf("fail_fast %d\n", s->fail_fast);
	if (s->fail_on.n > 0) {
		printf("fail_on");
		for (size_t i = 0; i < s->fail_on.n; i++)
			printf(" %s", s->fail_on.r[i].text);
		printf(" (a matching verdict: exit 6)\n");
	}
	if (s->adaptive.on) {
		size_t nl = spec_looks(s, NULL, 0);
		int *at = xcalloc(nl + 1, sizeof *at);

		printf("adaptive min %d max %d metric %s\n", s->adaptive.min,
		    s->adaptive.max, s->adaptive.metric);
		if (s->adaptive.implied)
			printf("reps left out: each cell runs until every arm "
			    "is decided (above, below or same) on %s, %s, at "
			    "least %d reps and at most %d\n", s->adaptive.metric,
			    strcmp(s->adaptive.metric, "rps") == 0 ?
			    "the requests/s of a server round" :
			    "the legs' cpu time", s->adaptive.min,
			    s->adaptive.max);
		printf("looks");
		spec_looks(s, at, nl);
		for (size_t i = 0; i < nl; i++)
			printf(" %d", at[i]);
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
			cmd_check_print_arg(stdout, bin);
		}
		for (size_t k = 0; k < a->nenv; k++) {
			printf(" env %s=", a->env[k].key);
			cmd_check_print_arg(stdout, a->env[k].val);
		}
		for (size_t k = 0; a->aa_of == NULL && k < a->nvars; k++)
			cmd_check_print_var(&a->vars[k]);
		putchar('\n');
	}
	for (size_t i = 0; i < s->ncells; i++) {
		const struct spec_cell *c = &s->cells[i];

		printf("cell %s", c->name);
		for (size_t k = 0; k < c->nvars; k++)
			cmd_check_print_var(&c->vars[k]);
		putchar('\n');
		if (c->server != NULL)
			cmd_check_print_server(s, i);
		cmd_check_print_hooks(s, i);
	}
	cmd_check_print_io(s);
	if (s->warmup > 0)
		printf("warmup %d\n", s->warmup);
	if (!s->output_keep || s->output_max_bytes != SPEC_OUTPUT_MAX_BYTES)
		printf("output keep %s max_bytes %lld\n", s->output_keep ? "all" :
		    "none", s->output_max_bytes);
	printf("legs %zu\n", nlegs);
}

/* The argv the first leg of (cell, arm) would exec, and its prepare, as
 * the builder makes them.  ROUND_DIR is unknown until run picks the
 * folder, so it prints as a placeholder. */
static int
cmd_check_print_command(const struct spec *s, const struct plan_leg *leg)
{
	struct legcmd_where w = { .spec = s, .cell = leg->cell,
	    .arm = leg->arm, .rep = leg->rep };
	struct legcmd lc;
	char err[640];
	int rc = -1;

	if (legcmd_build(&w, &lc, err, sizeof err) < 0) {
		fprintf(stderr, "benchtui check: %s: %s\n", s->path, err);
		goto out;
	}
	if (lc.prepare != NULL)
		cmd_check_print_argv("prepare", lc.prepare);
	cmd_check_print_argv("exec", lc.argv);
	if (lc.stdin_path != NULL) {
		printf("    stdin ");
		cmd_check_print_arg(stdout, lc.stdin_path);
		putchar('\n');
	}
	rc = 0;
out:
	legcmd_finish(&lc);
	return rc;
}

/* The profiles taken after each cell's timed legs, in the order they run:
 * "profile CELL ARM KIND". */
static void
cmd_check_print_profiles(const struct spec *s)
{
	for (size_t c = 0; s->profile != NULL && c < s->ncells; c++)
		for (size_t a = 0; a < s->narms; a++)
			for (int k = 0; k < SPEC_PROFILE_KINDS; k++)
				if (spec_profiles(s, s->cells[c].name,
				    s->arms[a].name, spec_profile_kinds[k]))
					printf("profile %s %s %s\n",
					    s->cells[c].name, s->arms[a].name,
					    spec_profile_kinds[k]);
}

/* The warm-up legs of a cell, before its first counted leg: the arms in
 * the order of its first rep, warmup times. */
static void
cmd_check_print_warmups(const struct spec *s, const struct plan *plan,
    size_t first)
{
	size_t cell = plan->legs[first].cell;

	for (int k = 1; k <= s->warmup; k++)
		for (size_t i = first; i < plan->n &&
		    plan->legs[i].cell == cell && plan->legs[i].rep == 1; i++)
			printf("warmup %d %s %s\n", k, s->cells[cell].name,
			    s->arms[plan->legs[i].arm].name);
}

/* --host: the quiet gate's start-up look at this box, as run takes it
 * before the first leg: "host: the box is quiet: ..." on stdout. */
static void
cmd_check_host_look(const struct spec *s)
{
	int ncpus = get_nprocs_conf();
	unsigned char *mask = NULL;
	struct quiet_params qp = spec_quiet_params(s);
	struct quiet *q;
	struct quiet_startup st;
	char line[1024];

	if (s->client_cpus != NULL) {
		mask = xcalloc((size_t)ncpus, 1);
		if (spec_cpulist_parse(s->client_cpus, mask, ncpus) != 0) {
			free(mask);
			mask = NULL;
		}
	}
	q = quiet_create(&qp, mask, ncpus, getpid(), NULL);
	if (q == NULL || quiet_startup(q, -1, &st) != 0) {
		printf("host: cannot sample the box's load (/proc/stat)\n");
	} else {
		quiet_startup_line(q, &st, line, sizeof line);
		printf("host: %s\n", line);
	}
	quiet_destroy(q);
	free(mask);
}

/* check --host=HOST...: the hosts run --host would deal the reps among,
 * each as ssh is given it. */
static void
cmd_check_print_hosts(const char *const *hosts, size_t n)
{
	if (n == 0)
		return;
	printf("hosts");
	for (size_t i = 0; i < n; i++) {
		putchar(' ');
		cmd_check_print_arg(stdout, hosts[i]);
	}
	putchar('\n');
}

static void
cmd_check_warn(const char *msg, void *arg)
{
	fprintf(stderr, "benchtui check: %s: warning: %s\n",
	    (const char *)arg, msg);
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
	const char *file = NULL;
	const char **hosts = NULL;
	size_t nhosts = 0;
	struct opts_parser p;
	bool host = false;
	int c;

	opts_init(&p, &cmd_check_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		if (c == OPTS_STOP) {
			rc = p.status;
			goto out;
		}
		if (p.arg == NULL) {
			host = true;
			continue;
		}
		if ((rc = cmd_host(&cmd_check_opts, p.arg)) != 0)
			goto out;
		hosts = xreallocarray(hosts, nhosts + 1, sizeof *hosts);
		hosts[nhosts++] = p.arg;
	}
	if ((rc = cmd_operand(argc, argv, &cmd_check_opts, "no round file "
	    "given", "too many arguments ('%s')", &file)) != 0)
		goto out;
	rc = 2;

	/* --host=HOST as run takes it: the hosts replace the file's, and
	 * what they cannot run is refused here, not at run. */
	if (spec_load(file, NULL, &s, err, sizeof err) < 0 ||
	    (nhosts > 0 && spec_use_hosts(s, hosts, nhosts, "--host", err,
	    sizeof err) < 0) ||
	    spec_check_commands(s, err, sizeof err) < 0 ||
	    spec_check_host(s, err, sizeof err) < 0) {
		fprintf(stderr, "benchtui check: %s\n", err);
		goto out;
	}
	warn = profile_warnings(s);
	for (size_t i = 0; i < json_array_size(warn); i++)
		fprintf(stderr, "benchtui check: %s: warning: %s\n", s->path,
		    json_string_value(json_array_get(warn, i)));
	json_decref(warn);
	cmd_check_warn_reps(s);
	if (plan_init(&plan, s) < 0) {
		fprintf(stderr, "benchtui check: cannot hold the plan (too many "
		    "legs, or out of memory)\n");
		rc = 1;
		goto out;
	}
	shown = xcalloc(s->ncells * s->narms, 1);
	cmd_check_print_header(s, plan.n);
	cmd_check_print_hosts(hosts, nhosts);
	for (size_t i = 0; i < plan.n; i++) {
		const struct plan_leg *l = &plan.legs[i];
		unsigned char *seen = &shown[l->cell * s->narms + l->arm];

		if (s->warmup > 0 && (i == 0 || plan.legs[i - 1].cell != l->cell))
			cmd_check_print_warmups(s, &plan, i);
		printf("leg %zu %s %d %s\n", l->seq, s->cells[l->cell].name,
		    l->rep, s->arms[l->arm].name);
		if (!*seen) {
			*seen = 1;
			if (cmd_check_print_command(s, l) < 0)
				goto out;
		}
	}
	cmd_check_print_profiles(s);
	legcmd_lint(s, cmd_check_warn, s->path);
	if (host)
		cmd_check_host_look(s);
	rc = 0;
out:
	free(hosts);
	free(shown);
	plan_finish(&plan);
	spec_destroy(s);
	return rc;
}
