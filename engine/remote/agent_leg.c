/* The agent's leg op: a leg of a round whose "host" is this one, run as
 * the round driver runs a local leg and with the same code (leg.c: no
 * shell, pinned, niced, its own process group, counters opened on it
 * before its exec, the legs' cgroup, rusage from wait4, its output
 * through legout.c's cap), its values sent back for the client to check
 * and record.  The output file stays here, in the agent's folder. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "agent_int.h"
#include "cgroup.h"
#include "counters.h"
#include "leg.h"
#include "legcmd.h"
#include "legout.h"
#include "procs.h"
#include "quiet.h"
#include "rfile.h"
#include "scratch.h"
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
 * out (a file name in the agent's folder), keep, max_bytes; and the
 * round's prepare argv to run before it, its stdin's content (base64),
 * its scratch folder and the paths emptying it must not take
 * (scratch_keep), and the profiler to attach to the server when the leg
 * (a load) stops after its warm-up (attach), all optional. */
struct agent_leg_req {
	char **argv;
	char **envp;
	char **prepare;
	char **skeep;           /* scratch_keep: what emptying must not take */
	const char *cwd, *cpus, *out, *in_b64, *scratch;
	const json_t *attach;   /* prof_start's {kind, args}, at the stop */
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
	if (json_object_get(req, "prepare") != NULL) {
		size_t np = 0;

		if ((r = agent_strv(req, json_object_get(req, "prepare"),
		    "leg: prepare", &q->prepare, &np)) != NULL)
			return r;
		if (np == 0)
			return agent_refuse(req, "malformed", "leg: prepare is "
			    "empty");
	}
	q->scratch = json_string_value(json_object_get(req, "scratch"));
	if (json_object_get(req, "scratch") != NULL && q->scratch == NULL)
		return agent_refuse(req, "malformed", "leg: scratch is a path");
	if (json_object_get(req, "scratch_keep") != NULL) {
		size_t nk = 0;

		if ((r = agent_strv(req, json_object_get(req, "scratch_keep"),
		    "leg: scratch_keep", &q->skeep, &nk)) != NULL)
			return r;
	}
	q->attach = json_object_get(req, "attach");
	if (q->attach != NULL && !json_is_object(q->attach))
		return agent_refuse(req, "malformed", "leg: attach is an "
		    "object (prof_start's kind and args)");
	q->in_b64 = json_string_value(json_object_get(req, "stdin"));
	if (json_object_get(req, "stdin") != NULL && (q->in_b64 == NULL ||
	    strlen(q->in_b64) % 4 != 0))
		return agent_refuse(req, "malformed", "leg: stdin is the "
		    "content in base64");
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

/* The stdin's content into DIR/stdin-OUT (no link followed), its path
 * (malloc'd) for the leg to open; NULL with err. */
static char *
agent_leg_stdin(struct agent *a, const struct agent_leg_req *q, char *err,
    size_t errlen)
{
	size_t n = strlen(q->in_b64), pad = 0;
	unsigned char *buf = xmalloc(n / 4 * 3 + 1);
	char *name = xasprintf("stdin-%s", q->out),
	    *path = agent_own_file(a, name);
	int got = EVP_DecodeBlock(buf, (const unsigned char *)q->in_b64,
	    (int)n), fd = -1;
	bool ok = false;

	free(name);

	/* EVP_DecodeBlock counts the padding's zero bytes in */
	if (n > 0 && q->in_b64[n - 1] == '=')
		pad = n > 1 && q->in_b64[n - 2] == '=' ? 2 : 1;
	if (got < 0 || (size_t)got < pad)
		snprintf(err, errlen, "leg: stdin is not base64");
	else if ((void)unlink(path), (fd = rfile_create(path, O_CLOEXEC,
	    0600)) < 0 ||
	    write(fd, buf, (size_t)got - pad) != (ssize_t)((size_t)got - pad))
		snprintf(err, errlen, "leg: its stdin %s: %s", path,
		    strerror(errno));
	else
		ok = true;
	if (fd >= 0)
		close(fd);
	free(buf);
	if (!ok) {
		(void)unlink(path);
		free(path);
		return NULL;
	}
	return path;
}

/* A load that stops after its warm-up (BENCHTUI_LOAD_HOLD): the
 * profiler attached to the server then (prof_start's own code), and the
 * load continued, as the round driver does for a load here. */
struct agent_leg_hold {
	struct agent *a;
	const json_t *req, *attach;
	pid_t pid;
	json_t *reply;          /* prof_start's, once the load stopped */
};

static void
agent_leg_hold_started(pid_t pid, void *arg)
{
	((struct agent_leg_hold *)arg)->pid = pid;
}

static void
agent_leg_hold_state(int stop_sig, void *arg)
{
	struct agent_leg_hold *h = arg;
	json_t *start;

	if (stop_sig == 0 || h->reply != NULL || h->pid <= 0)
		return;
	start = json_pack("{s:O?,s:s,s:O?,s:O?}", "id", json_object_get(h->req,
	    "id"), "op", "prof_start", "kind", json_object_get(h->attach,
	    "kind"), "args", json_object_get(h->attach, "args"));
	h->reply = agent_prof(h->a, "prof_start", start);
	json_decref(start);
	kill(h->pid, SIGCONT);
}

/* Run it (or with prepare the round's prepare argv, unmeasured): the
 * program resolved here, pinned to cpus (this host's), its output
 * drained into DIR/out under the cap; ended by a request that arrives
 * meanwhile (cancel) as an abort ends a local leg. */
static json_t *
agent_leg_run(struct agent *a, const json_t *req, struct agent_leg_req *q,
    bool prepare)
{
	int ncpus = get_nprocs_conf();
	unsigned char *mask = NULL;
	char **argv = prepare ? q->prepare : q->argv, *in = NULL,
	    *path = spec_resolve_program(argv[0], q->cwd), *out,
	    err[1024] = "";
	struct counters *ctr = NULL;
	struct legout *lo;
	struct leg_result res;
	struct agent_leg_hold hold = { .a = a, .req = req,
	    .attach = q->attach };
	long long bytes = 0;
	bool trunc = false;
	json_t *r;

	if (path == NULL)
		return agent_refuse(req, "failed", "leg: no %sprogram \"%s\" "
		    "(relative to %s or on PATH) on this host", prepare ?
		    "prepare " : "", argv[0], q->cwd);
	if (!prepare && q->in_b64 != NULL &&
	    (in = agent_leg_stdin(a, q, err, sizeof err)) == NULL) {
		free(path);
		return agent_refuse(req, "failed", "%s", err);
	}
	if (q->cpus != NULL) {
		mask = xcalloc((size_t)ncpus, 1);
		if (procs_cpulist_parse(q->cpus, mask, ncpus) != 0) {
			free(mask);
			mask = NULL;
		}
	}
	agent_leg_cgroup(a);
	out = agent_own_file(a, q->out);
	if ((lo = legout_create(out, q->keep, q->max_bytes, err,
	    sizeof err)) == NULL) {
		r = agent_refuse(req, "failed", "leg: %s", err);
		goto done;
	}
	if (a->ncounters > 0 && !prepare)
		ctr = counters_create((const char *const *)a->counters,
		    a->ncounters);
	{
		struct leg_spec ls = { .path = path, .argv = argv,
			.envp = q->envp, .cwd = q->cwd, .out_path = out,
			.out = lo, .cpus = mask, .ncpus = ncpus, .nice = q->nice,
			.timeout_s = q->timeout_s, .ctr = ctr, .cg = a->cg_legs,
			.abort_fd = a->wake, .in_path = in };

		if (!prepare && q->attach != NULL) {
			ls.state_fn = agent_leg_hold_state;
			ls.state_arg = &hold;
		}
		if (leg_run(&ls, &res, ls.state_fn != NULL ?
		    agent_leg_hold_started : NULL, &hold, err,
		    sizeof err) != 0) {
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
	if (hold.reply != NULL) {
		json_object_set_new(r, "attach", hold.reply);
		hold.reply = NULL;
	}
	if (prepare) {
		int prc = res.signal == 0 && !res.timed_out ? res.rc : 128 +
		    (res.signal != 0 ? res.signal : 9);

		/* the file is the leg's once it runs (a failed prepare's
		 * stays) */
		if (prc == 0 && bytes > 0)
			(void)unlink(out);
		json_object_set_new(r, "prepare_rc", json_integer(prc));
	}
done:
	json_decref(hold.reply);
	if (in != NULL)
		(void)unlink(in);
	free(in);
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
	/* The scratch folder, emptied first as a local leg's is (its
	 * program as resolved here kept). */
	if (q.scratch != NULL) {
		char *path = spec_resolve_program(q.argv[0], q.cwd);

		r = agent_scratch(a, req, q.scratch, q.cwd, path, q.skeep);
		free(path);
		if (r != NULL)
			goto out;
	}
	/* The round's prepare, before the gate as a local leg's: one that
	 * exits non-zero is the leg's line, and the leg does not run. */
	if (q.prepare != NULL) {
		json_t *p = agent_leg_run(a, req, &q, true);

		if (!json_is_true(json_object_get(p, "ok")) ||
		    json_is_true(json_object_get(p, "aborted")) ||
		    json_integer_value(json_object_get(p, "prepare_rc")) != 0) {
			r = p;
			if (json_is_true(json_object_get(r, "ok")))
				agent_leg_gated(r, "off", &seen, NAN);
			goto out;
		}
		json_decref(p);
	}
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
	r = agent_leg_run(a, req, &q, false);
	if (q.prepare != NULL && json_is_true(json_object_get(r, "ok")))
		json_object_set_new(r, "prepare_rc", json_integer(0));
	if (a->quiet != NULL) {
		struct quiet_seen during;

		foreign = quiet_leg_end(a->quiet, &during);
	}
	if (json_is_true(json_object_get(r, "ok")))
		agent_leg_gated(r, word, &seen, foreign);
	if (q.scratch != NULL && json_is_true(json_object_get(r, "ok"))) {
		char err[1024];
		long long n = scratch_size(q.scratch, err, sizeof err);

		/* A folder turned into a link: the leg's values are not
		 * kept, and the round stops (resume runs it again). */
		if (n == -2) {
			json_decref(r);
			r = agent_refuse(req, "failed", "%s", err);
		} else {
			json_object_set_new(r, "scratch_bytes", n >= 0 ?
			    json_integer(n) : json_null());
		}
	}
out:
	template_free_argv(q.argv);
	template_free_argv(q.prepare);
	template_free_argv(q.skeep);
	template_free_argv(q.envp);
	return agent_then(a, r, next);
}
