/* The agent's leg op: a leg of a round whose "host" is this one, run as
 * the round driver runs a local leg and with the same code (leg.c: no
 * shell, pinned, niced, its own process group, counters opened on it
 * before its exec, the legs' cgroup, rusage from wait4, its output
 * through legout.c's cap), its values sent back for the client to check
 * and record.  The output file stays here, in the agent's folder. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <unistd.h>

#include "agent_int.h"
#include "cgroup.h"
#include "counters.h"
#include "leg.h"
#include "legcmd.h"
#include "legout.h"
#include "procs.h"
#include "quiet.h"
#include "server.h"
#include "spec.h"
#include "template.h"
#include "xalloc.h"

/* The legs' cgroup here, made at the first leg as a local round makes
 * its own: the agent moved into a child of it, the legs into another.
 * None where this host allows none (the process group then). */
static void
agent_leg_cgroup(struct agent *a)
{
	char name[64], e[512];

	if (a->cg_tried)
		return;
	a->cg_tried = true;
	snprintf(name, sizeof name, "benchtui-agent-%d", (int)getpid());
	if ((a->cg = cgroup_create(NULL, name, e, sizeof e)) == NULL ||
	    (a->cg_self = cgroup_create(a->cg, "agent", e, sizeof e)) == NULL ||
	    (a->cg_legs = cgroup_create(a->cg, "legs", e, sizeof e)) == NULL ||
	    cgroup_enter(a->cg_self) != 0)
		agent_leg_cgroup_end(a);
}

void
agent_leg_cgroup_end(struct agent *a)
{
	cgroup_destroy(a->cg_self); /* moves the agent home first */
	cgroup_destroy(a->cg_legs);
	cgroup_destroy(a->cg);
	a->cg = a->cg_self = a->cg_legs = NULL;
}

/* What leg asks: argv, env over the agent's, cwd, cpus, nice, timeout_s,
 * out (a file name in the agent's folder), keep, max_bytes. */
struct agent_leg_req {
	char **argv;
	char **envp;
	const char *cwd, *cpus, *out;
	int nice;
	double timeout_s;
	bool keep;
	long long max_bytes;
};

static json_t *
agent_leg_parse(const json_t *req, struct agent_leg_req *q)
{
	const json_t *env = json_object_get(req, "env"), *v;
	struct spec_kv *kv;
	size_t n = 0;
	const char *k;
	json_t *r;

	q->cwd = json_string_value(json_object_get(req, "cwd"));
	q->cpus = json_string_value(json_object_get(req, "cpus"));
	q->out = json_string_value(json_object_get(req, "out"));
	q->nice = (int)json_integer_value(json_object_get(req, "nice"));
	q->timeout_s = json_number_value(json_object_get(req, "timeout_s"));
	q->keep = json_is_true(json_object_get(req, "keep"));
	q->max_bytes = json_integer_value(json_object_get(req, "max_bytes"));
	if ((r = agent_strv(req, json_object_get(req, "argv"), "leg: argv",
	    &q->argv, &n)) != NULL)
		return r;
	if (n == 0 || q->cwd == NULL || !agent_log_name_ok(q->out) ||
	    !(q->timeout_s >= 0) || q->timeout_s > 1e9 || q->max_bytes < 0 ||
	    q->nice < -20 || q->nice > 19 ||
	    (env != NULL && !json_is_object(env)))
		return agent_refuse(req, "malformed", "leg needs argv (not "
		    "empty), cwd, out (a file name), timeout_s (>= 0), nice "
		    "(-20 to 19) and max_bytes (>= 0); env is an object");
	kv = xcalloc(json_object_size(env) + 1, sizeof *kv);
	n = 0;
	json_object_foreach((json_t *)env, k, v) {
		if (!json_is_string(v)) {
			free(kv);
			return agent_refuse(req, "malformed", "leg: env.%s is not "
			    "a string", k);
		}
		kv[n].key = (char *)k;
		kv[n++].val = (char *)json_string_value(v);
	}
	q->envp = legcmd_envp(kv, n);
	free(kv);
	return NULL;
}

static json_t *
agent_leg_secs(const struct timeval *tv)
{
	return json_real((double)tv->tv_sec + (double)tv->tv_usec / 1e6);
}

/* The reply: the leg's values as leg.c and the counters give them. */
static json_t *
agent_leg_reply(const json_t *req, const struct leg_result *res,
    struct counters *ctr, long long bytes, bool truncated, const char *path)
{
	json_t *r = agent_reply(req, true), *c = json_object(),
	    *mux = json_array();

	json_object_set_new(r, "pid", json_integer(res->pid));
	json_object_set_new(r, "rc", json_integer(res->rc));
	json_object_set_new(r, "signal", json_integer(res->signal));
	json_object_set_new(r, "timed_out", json_boolean(res->timed_out));
	json_object_set_new(r, "aborted", json_boolean(res->aborted));
	json_object_set_new(r, "exec_errno", json_integer(res->exec_errno));
	json_object_set_new(r, "exec_step", json_integer(res->exec_step));
	json_object_set_new(r, "wall", json_real(res->wall));
	json_object_set_new(r, "utime", agent_leg_secs(&res->ru.ru_utime));
	json_object_set_new(r, "stime", agent_leg_secs(&res->ru.ru_stime));
	json_object_set_new(r, "maxrss_kb", json_integer(res->ru.ru_maxrss));
	json_object_set_new(r, "minflt", json_integer(res->ru.ru_minflt));
	json_object_set_new(r, "majflt", json_integer(res->ru.ru_majflt));
	json_object_set_new(r, "mem_peak_kb", res->mem_peak_kb >= 0 ?
	    json_integer(res->mem_peak_kb) : json_null());
	json_object_set_new(r, "strays", json_integer((json_int_t)res->strays));
	for (int i = 0; ctr != NULL && i < counters_count(ctr); i++) {
		uint64_t v;

		json_object_set_new(c, counters_name(ctr, i), counters_value(ctr,
		    i, &v) ? json_integer((json_int_t)v) : json_null());
		if (counters_multiplexed(ctr, i))
			json_array_append_new(mux, json_string(counters_name(ctr,
			    i)));
	}
	json_object_set_new(r, "counters", c);
	json_object_set_new(r, "multiplexed", mux);
	json_object_set_new(r, "output_bytes", json_integer(bytes));
	json_object_set_new(r, "output_truncated", json_boolean(truncated));
	json_object_set_new(r, "exec", json_string(path));
	return r;
}

/* Run it: the program resolved here, pinned to cpus (this host's), its
 * output drained into DIR/out under the cap; ended by a request that
 * arrives meanwhile (cancel) as an abort ends a local leg. */
static json_t *
agent_leg_run(struct agent *a, const json_t *req, struct agent_leg_req *q)
{
	int ncpus = get_nprocs_conf();
	unsigned char *mask = NULL;
	char *path = spec_resolve_program(q->argv[0], q->cwd), *out, err[1024];
	struct counters *ctr = NULL;
	struct legout *lo;
	struct leg_result res;
	long long bytes = 0;
	bool trunc = false;
	json_t *r;

	if (path == NULL)
		return agent_refuse(req, "failed", "leg: no program \"%s\" "
		    "(relative to %s or on PATH) on this host", q->argv[0],
		    q->cwd);
	if (q->cpus != NULL) {
		mask = xcalloc((size_t)ncpus, 1);
		if (procs_cpulist_parse(q->cpus, mask, ncpus) != 0) {
			free(mask);
			mask = NULL;
		}
	}
	agent_leg_cgroup(a);
	out = xasprintf("%s/%s", a->dir, q->out);
	if ((lo = legout_create(out, q->keep, q->max_bytes, err,
	    sizeof err)) == NULL) {
		r = agent_refuse(req, "failed", "leg: %s", err);
		goto done;
	}
	if (a->ncounters > 0)
		ctr = counters_create((const char *const *)a->counters,
		    a->ncounters);
	{
		struct leg_spec ls = { .path = path, .argv = q->argv,
			.envp = q->envp, .cwd = q->cwd, .out_path = out,
			.out = lo, .cpus = mask, .ncpus = ncpus, .nice = q->nice,
			.timeout_s = q->timeout_s, .ctr = ctr, .cg = a->cg_legs,
			.abort_fd = a->wake };

		if (leg_run(&ls, &res, NULL, NULL, err, sizeof err) != 0) {
			legout_finish(lo, NULL, NULL, NULL);
			r = agent_refuse(req, "failed", "leg: %s", err);
			goto done;
		}
	}
	/* The server's status is its own to read (a death it reports at the
	 * window's close), so a server that died during the leg is not
	 * reaped with the leg's orphans. */
	{
		pid_t keep = a->srv != NULL ? server_pid(a->srv) : 0;

		procs_reap_orphans(&keep, keep > 0 ? 1 : 0);
	}
	legout_finish(lo, &bytes, &trunc, NULL);
	r = agent_leg_reply(req, &res, ctr, bytes, trunc, path);
done:
	counters_destroy(ctr);
	free(out);
	free(mask);
	free(path);
	return r;
}

/* The gate's part of the reply: how it let the leg go, its wait and
 * probe, and the foreign load during the leg. */
static void
agent_leg_gated(json_t *r, const char *word, const struct quiet_seen *seen,
    double foreign)
{
	json_object_set_new(r, "gate", json_string(word));
	json_object_set_new(r, "wait_s", json_real(seen->waited_s));
	json_object_set_new(r, "probe", agent_num(seen->probe));
	json_object_set_new(r, "probe_us", agent_num(seen->probe_us));
	json_object_set_new(r, "foreign", agent_num(foreign));
}

json_t *
agent_leg(struct agent *a, const json_t *req)
{
	struct agent_leg_req q = { 0 };
	struct quiet_seen seen = { .foreign = 0, .client_busy = NAN,
	    .server_busy = NAN, .probe = NAN, .probe_us = NAN };
	bool gate = json_is_true(json_object_get(req, "gate")) &&
	    a->quiet != NULL;
	const char *word = "off";
	double foreign = NAN;
	json_t *r, *next = NULL;

	if ((r = agent_leg_parse(req, &q)) != NULL)
		goto out;
	if (gate && !agent_gate_setup(a, req)) {
		r = agent_refuse(req, "malformed", "leg: a gate needs "
		    "budget_left_s (a number), release_all and probe (true or "
		    "false)");
		goto out;
	}
	/* This host's quiet gate holds the leg as the local gate holds a
	 * local one. */
	if (gate && (word = agent_gate(a, &seen, &next)) == NULL) {
		r = agent_refuse(req, "aborted", "the gate was left before the "
		    "leg ran");
		goto out;
	}
	if (a->quiet != NULL)
		quiet_leg_begin(a->quiet);
	r = agent_leg_run(a, req, &q);
	if (a->quiet != NULL) {
		struct quiet_seen during;

		foreign = quiet_leg_end(a->quiet, &during);
	}
	if (json_is_true(json_object_get(r, "ok")))
		agent_leg_gated(r, word, &seen, foreign);
out:
	template_free_argv(q.argv);
	template_free_argv(q.envp);
	return agent_then(a, r, next);
}
