/* The round driver, profile phase: what the profiles of a cell's server
 * share (syscalls and server_perf).  One leg of the arm run as the
 * server's load with the profiler attached after the load's warm-up, and
 * the check that the server still answers a real request afterwards (the
 * server's tree, its tasks and the profiler's stop are proftree.c's). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "legcmd.h"
#include "procs.h"
#include "profile.h"
#include "round_int.h"
#include "server.h"
#include "template.h"
#include "xalloc.h"

/* leg_run's look at the load: stopped after its warm-up, the profiler
 * attaches, and the load goes on. */
static void
round_prof_load_state(int stop_sig, void *arg)
{
	struct prof_load *pl = arg;

	if (stop_sig == 0 || pl->attached || pl->ps.pid <= 0)
		return;
	pl->attached = true;
	pl->attach_failed = pl->attach(pl->arg) != 0;
	kill(pl->ps.pid, SIGCONT);
}

/* The leg's environment with BENCHTUI_LOAD_HOLD=warmup added (the
 * strings borrowed but that one). */
static char **
round_prof_hold_env(char *const *envp)
{
	size_t n = 0;
	char **e;

	while (envp[n] != NULL)
		n++;
	e = xcalloc(n + 2, sizeof *e);
	memcpy(e, envp, n * sizeof *e);
	e[n] = xstrdup("BENCHTUI_LOAD_HOLD=warmup");
	return e;
}

static void
round_prof_hold_env_free(char **e)
{
	size_t n = 0;

	if (e == NULL)
		return;
	while (e[n] != NULL)
		n++;
	free(e[n - 1]);
	free(e);
}

/* The load there, the server's profiler attached there by its agent at
 * the load's stop after its warm-up (the one it serves with the legs);
 * round_prof_load's answer. */
static int
round_prof_load_far_hold(struct prof_load *pl)
{
	const struct spec_profile *pr = pl->u->r->spec->profile;
	bool perf = strcmp(pl->kind, "server_perf") == 0;
	json_t *args = json_array(), *far = NULL, *attach;
	int rc;

	for (size_t i = 0; perf && i < pr->nsrv_perf_args; i++)
		json_array_append_new(args, json_string(pr->srv_perf_args[i]));
	attach = json_pack("{s:s,s:o}", "kind", pl->kind, "args", args);
	rc = round_far_load(pl->u, pl->cmd, NULL, pl->out_abs, 0, attach, &far,
	    &pl->res, pl->why, sizeof pl->why);
	json_decref(attach);
	if (rc == 0 && (json_object_get(far, "attach") != NULL ||
	    json_object_get(far, "attach_error") != NULL)) {
		pl->attached = true;
		round_prof_far_given(pl->pf, json_object_get(far, "attach"),
		    json_string_value(json_object_get(far, "attach_error")));
		pl->attach_failed = pl->attach(pl->arg) != 0;
	}
	json_decref(far);
	return rc != 0 || pl->attach_failed ? 1 : 0;
}

int
round_prof_load(struct prof_load *pl)
{
	struct run *u = pl->u;
	const struct spec *s = u->r->spec;
	char **env = pl->hold ? round_prof_hold_env(pl->cmd->envp) : NULL;
	struct leg_spec ls = {
		.path = pl->cmd->exec_path, .argv = pl->cmd->argv,
		.envp = env != NULL ? env : pl->cmd->envp, .cwd = s->workdir,
		.out_path = pl->out_abs, .cpus = u->client_mask,
		.ncpus = u->ncpus, .nice = s->nice, .timeout_s = s->timeout_s,
		.abort_fd = u->r->abort_pipe[0],
		.state_fn = pl->hold ? round_prof_load_state : NULL,
		.state_arg = pl,
	};
	int rc = 0;

	pl->ps = (struct prof_start){ u, pl->cell->name, pl->arm->name,
	    pl->kind, 0 };
	/* The load of legs on another host runs there: its agent attaches
	 * the profiler at its stop after the warm-up when the server is
	 * there too, else the profiler attaches first. */
	if ((pl->far = round_remote_legs(u) != NULL) && pl->hold &&
	    pl->pf != NULL && pl->pf->rm == round_remote_legs(u)) {
		round_prof_hold_env_free(env);
		return round_prof_load_far_hold(pl);
	}
	if (pl->far)
		pl->hold = false;
	/* Without a warm-up to wait out, the profiler attaches first. */
	if (!pl->hold) {
		pl->attached = true;
		pl->attach_failed = pl->attach(pl->arg) != 0;
	}
	if (!pl->attach_failed && pl->far)
		rc = round_far_load(u, pl->cmd, NULL, pl->out_abs, 0, NULL, NULL,
		    &pl->res, pl->why, sizeof pl->why) != 0 ? 1 : 0;
	else if (!pl->attach_failed)
		rc = leg_run(&ls, &pl->res, round_prof_started, &pl->ps,
		    pl->why, sizeof pl->why) != 0 ? 1 : 0;
	round_prof_hold_env_free(env);
	return pl->attach_failed ? 1 : rc;
}

/* The load's URL and its request options, when the load is benchtui
 * load: argv for one more request, or NULL. */
static char **
round_prof_request_argv(const struct legcmd *cmd)
{
	char **argv;
	size_t k = 0;

	/* Its URL is checked below: a load with none has no request. */
	if (!round_prof_is_load(cmd))
		return NULL;
	argv = xcalloc(cmd->argc + 8, sizeof *argv);
	argv[k++] = (char *)template_self_path();
	argv[k++] = "load";
	k++;                          /* the URL's place */
	for (size_t i = 2; i < cmd->argc; i++) {
		const char *a = cmd->argv[i];

		if ((strncmp(a, "http://", 7) == 0 ||
		    strncmp(a, "https://", 8) == 0) && argv[2] == NULL)
			argv[2] = (char *)a;
		else if (strcmp(a, "--insecure") == 0 || strcmp(a, "--h2") == 0)
			argv[k++] = (char *)a;
		else if ((strcmp(a, "--header") == 0 ||
		    strcmp(a, "--cacert") == 0 ||
		    strcmp(a, "--expect-status") == 0) && i + 1 < cmd->argc) {
			argv[k++] = (char *)a;
			argv[k++] = cmd->argv[++i];
		}
	}
	if (argv[2] == NULL) {
		free(argv);
		return NULL;
	}
	argv[k++] = "--requests";
	argv[k++] = "1";
	argv[k++] = "--timeout";
	argv[k++] = "5";
	return argv;
}

bool
round_prof_answers(struct run *u, const struct spec_cell *cell,
    const struct legcmd *cmd, char *how, size_t len)
{
	char **argv = round_prof_request_argv(cmd);
	int rc;

	if (argv == NULL && round_remote_legs(u) != NULL) {
		/* not an HTTP load benchtui knows, and the port is the far
		 * host's: its agent's word that the server lives */
		round_prof_fmt(how, len, "the server alive on the legs' host, "
		    "as its agent says (the load is not benchtui load)");
		return true;
	}
	if (argv == NULL) {
		/* not an HTTP load benchtui knows: the port must accept */
		round_prof_fmt(how, len, "a TCP connect to port %d (the load is "
		    "not benchtui load)", cell->server->tcp_port);
		return server_port_accepts(cell->server->tcp_port, 5000);
	}
	if (round_remote_legs(u) != NULL) {
		struct leg_result res;
		char why[512];

		/* there, with the load's own program */
		argv[0] = cmd->argv[0];
		if (round_far_load(u, cmd, argv, NULL, 15.0, NULL, NULL, &res,
		    why, sizeof why) != 0) {
			round_prof_fmt(how, len, "an HTTP request for %s on the "
			    "legs' host: %s", argv[2], why);
			free(argv);
			return false;
		}
		rc = res.signal != 0 || res.timed_out ? -1 : res.rc;
	} else {
		rc = profile_exec_fd(argv, NULL, u->r->dir, -1, -1, 15.0);
	}
	round_prof_fmt(how, len, "an HTTP request for %s (benchtui load "
	    "--requests 1%s: %s %d)", argv[2], round_remote_legs(u) != NULL ?
	    ", on the legs' host" : "", rc == 0 ? "exit" : "it exited", rc);
	free(argv);
	return rc == 0;
}

const char *
round_prof_attach_words(const struct prof_load *pl)
{
	if (pl->hold)
		return "after the load's warm-up";
	return pl->far ? "before the load (its legs run on another host, "
	    "and its server elsewhere)" : "before the load (it has no "
	    "warm-up to wait out)";
}
