/* The round driver, one leg: the scratch folder, the expanded command and
 * environment, leg_run, and the leg line with every SPEC.md field. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"
#include "event.h"
#include "leg.h"
#include "procs.h"
#include "quiet.h"
#include "round_int.h"
#include "server.h"
#include "template.h"

/* --- scratch --------------------------------------------------------- */

static _Thread_local long long run_scratch_bytes;

static int
run_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	if (f->level == 0)
		return 0;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

static int
run_du_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)f;
	if (flag == FTW_F && S_ISREG(st->st_mode))
		run_scratch_bytes += st->st_size;
	return 0;
}

/* Empty the scratch folder (its contents, not itself), creating it when
 * missing.  Refuses folders that are obviously not scratch. */
/* Whether dir is inside (or is) the folder top; both canonical. */
static bool
run_path_within(const char *dir, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* A scratch folder that holds the workdir or the round folder (".", "..",
 * "/") would take the round's own files with it. */
static bool
run_scratch_unsafe(const char *path, const char *workdir, const char *dir)
{
	char *sp = realpath(path, NULL), *wd = realpath(workdir, NULL),
	    *rd = realpath(dir, NULL);
	bool bad;

	bad = sp != NULL && ((wd != NULL && run_path_within(wd, sp)) ||
	    (rd != NULL && run_path_within(rd, sp)));
	free(sp);
	free(wd);
	free(rd);
	return bad;
}

static int
run_scratch_empty(const char *path, const char *workdir,
    const char *round_dir, char *err, size_t errlen)
{
	struct stat st;

	if (strcmp(path, "/") == 0 ||
	    run_scratch_unsafe(path, workdir, round_dir)) {
		snprintf(err, errlen, "scratch: %s holds the workdir or the round "
		    "folder; refusing to empty it", path);
		return -1;
	}
	if (stat(path, &st) < 0) {
		char cmd[PATH_MAX];

		snprintf(cmd, sizeof cmd, "%s", path);
		for (char *p = cmd + 1; *p != '\0'; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(cmd, 0755);
				*p = '/';
			}
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "scratch: %s: cannot create: %s",
			    path, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "scratch: %s: not a folder", path);
		return -1;
	}
	if (nftw(path, run_rm_cb, 32, FTW_DEPTH | FTW_PHYS) != 0) {
		snprintf(err, errlen, "scratch: %s: cannot empty: %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static long long
run_scratch_size(const char *path)
{
	run_scratch_bytes = 0;
	if (nftw(path, run_du_cb, 32, FTW_PHYS) != 0)
		return -1;
	return run_scratch_bytes;
}

static char *
run_abspath(const char *p, const char *base)
{
	char *out;

	if (p[0] == '/')
		return strdup(p);
	return asprintf(&out, "%s/%s", base, p) < 0 ? NULL : out;
}

/* Whether this process has a child other than keep (0: none kept).  A
 * descendant always has an ancestor among our children, so without one
 * there is nothing to end and the walk of the whole of /proc (a few
 * milliseconds per leg) is skipped.  Reads /proc/self/task/TID/children
 * of every thread; true when that cannot be read, so the walk still runs. */
static bool
run_has_children(pid_t keep)
{
	char path[64], buf[4096];
	struct dirent *de;
	bool found = false;
	DIR *d = opendir("/proc/self/task");

	if (d == NULL)
		return true;
	while (!found && (de = readdir(d)) != NULL) {
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/proc/self/task/%.20s/children",
		    de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			found = true;
			break;
		}
		n = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (n < 0 || n == (ssize_t)sizeof buf - 1) {
			found = true;
			break;
		}
		buf[n] = '\0';
		for (char *p = buf, *end; *p != '\0'; p = end) {
			long pid = strtol(p, &end, 10);

			if (end == p)
				break;
			if (pid > 0 && pid != (long)keep)
				found = true;
		}
	}
	closedir(d);
	return found;
}

static void
run_quiet_emit(json_t *ev, void *arg)
{
	round_emit(((struct run *)arg)->r, ev);
}

void
run_warn_counters(struct run *u)
{
	for (int i = 0; u->ctr != NULL && i < counters_count(u->ctr); i++) {
		int e = counters_errno(u->ctr, i);

		if (e == 0 || u->ctr_warned[i])
			continue;
		u->ctr_warned[i] = true;
		run_warn(u, "counter %s is not supported here (%s); it is "
		    "recorded as null", counters_name(u->ctr, i), strerror(e));
	}
}

/* --- one leg ------------------------------------------------------------ */

static void
run_started(pid_t pid, void *arg)
{
	struct run *u = arg;
	const struct spec *s = u->r->spec;
	json_t *ev = event_new("leg_start");

	json_object_set_new(ev, "cell", json_string(s->cells[u->cur->cell].name));
	json_object_set_new(ev, "arm", json_string(s->arms[u->cur->arm].name));
	json_object_set_new(ev, "rep", json_integer(u->cur->rep));
	json_object_set_new(ev, "seq", json_integer((json_int_t)u->cur->seq));
	json_object_set_new(ev, "pid", json_integer(pid));
	json_object_set_new(ev, "out", json_string(u->cur_out));
	run_emit_new(u, ev);
}

static double
run_tv(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

/* Seconds rounded to the microsecond: what rusage and the clock resolve. */
static json_t *
run_secs(double s)
{
	if (!isfinite(s))
		return json_null();
	return json_real((double)(long long)(s * 1e6 + 0.5) / 1e6);
}

static const char *
run_status(const struct leg_result *res, bool server_died)
{
	if (res->aborted)
		return "aborted";
	if (res->timed_out)
		return "timed_out";
	if (server_died || res->rc != 0 || res->signal != 0)
		return "failed";
	return "ok";
}

/* The leg line: every field SPEC.md names, then extras. */
static json_t *
run_leg_event(struct run *u, const struct plan_leg *pl,
    const struct leg_result *res, const char *bin, long long bytes,
    double foreign, bool quiet_timeout, bool server_died)
{
	const struct spec *s = u->r->spec;
	json_t *ev = event_new("leg"), *ctrs = json_object(),
	    *mux = json_array(), *cycles = json_null(), *instr = json_null(),
	    *jbin;
	double ut = run_tv(&res->ru.ru_utime), st = run_tv(&res->ru.ru_stime);
	char sig[32];

	for (int i = 0; u->ctr != NULL && i < counters_count(u->ctr); i++) {
		const char *name = counters_name(u->ctr, i);
		uint64_t v;
		json_t *j = counters_value(u->ctr, i, &v) ?
		    json_integer((json_int_t)v) : json_null();

		if (strcmp(name, "cycles") == 0)
			cycles = json_incref(j);
		else if (strcmp(name, "instructions") == 0)
			instr = json_incref(j);
		json_object_set_new(ctrs, name, j);
		if (counters_multiplexed(u->ctr, i))
			json_array_append_new(mux, json_string(name));
	}
	json_object_set_new(ev, "cell", json_string(s->cells[pl->cell].name));
	json_object_set_new(ev, "arm", json_string(s->arms[pl->arm].name));
	json_object_set_new(ev, "rep", json_integer(pl->rep));
	json_object_set_new(ev, "seq", json_integer((json_int_t)pl->seq));
	json_object_set_new(ev, "status",
	    json_string(run_status(res, server_died)));
	json_object_set_new(ev, "rc", res->signal == 0 && res->rc >= 0 ?
	    json_integer(res->rc) : json_null());
	if (res->signal != 0 && sigabbrev_np(res->signal) != NULL) {
		snprintf(sig, sizeof sig, "SIG%s", sigabbrev_np(res->signal));
		json_object_set_new(ev, "signal", json_string(sig));
	} else {
		json_object_set_new(ev, "signal", res->signal != 0 ?
		    json_integer(res->signal) : json_null());
	}
	json_object_set_new(ev, "timed_out", json_boolean(res->timed_out));
	json_object_set_new(ev, "wall", run_secs(res->wall));
	json_object_set_new(ev, "utime", run_secs(ut));
	json_object_set_new(ev, "stime", run_secs(st));
	json_object_set_new(ev, "cpu", run_secs(ut + st));
	json_object_set_new(ev, "maxrss_kb", json_integer(res->ru.ru_maxrss));
	json_object_set_new(ev, "minflt", json_integer(res->ru.ru_minflt));
	json_object_set_new(ev, "majflt", json_integer(res->ru.ru_majflt));
	if (json_is_integer(cycles) && json_is_integer(instr) &&
	    json_integer_value(cycles) > 0)
		json_object_set_new(ev, "ipc", json_real(
		    (double)(long long)((double)json_integer_value(instr) /
		    (double)json_integer_value(cycles) * 1000.0 + 0.5) / 1000.0));
	json_object_set_new(ev, "cycles", cycles);
	json_object_set_new(ev, "instructions", instr);
	json_object_set_new(ev, "counters", ctrs);
	json_object_set_new(ev, "multiplexed", mux);
	json_object_set_new(ev, "bytes", bytes >= 0 ? json_integer(bytes) :
	    json_null());
	json_object_set_new(ev, "foreign", isfinite(foreign) && foreign >= 0 ?
	    json_real((double)(long long)(foreign * 1000.0 + 0.5) / 1000.0) :
	    json_null());
	/* json_string refuses bytes that are not UTF-8: a path that is not
	 * becomes null rather than a missing field. */
	jbin = bin != NULL ? json_string(bin) : NULL;
	json_object_set_new(ev, "bin", jbin != NULL ? jbin : json_null());
	json_object_set_new(ev, "pid", json_integer(res->pid));
	if (res->exec_errno != 0)
		json_object_set_new(ev, "exec_error",
		    json_string(strerror(res->exec_errno)));
	if (quiet_timeout)
		json_object_set_new(ev, "quiet_timeout", json_true());
	if (server_died)
		json_object_set_new(ev, "server_died", json_true());
	return ev;
}

char *
run_resolve_bin(const struct spec *s, const char *bin,
    const struct template_ctx *ctx, char **bin_out, char *err, size_t errlen)
{
	char terr[512];

	*bin_out = NULL;
	if (bin == NULL)
		return NULL;
	/* A bin may hold templates ("${TOOLS}/zstd"): what runs is the
	 * expansion for this cell and arm, never the raw string. */
	if ((*bin_out = template_expand(bin, ctx, terr, sizeof terr)) == NULL) {
		snprintf(err, errlen, "bin \"%s\": %s", bin, terr);
		return NULL;
	}
	return spec_resolve_program(*bin_out, s->workdir);
}

void
run_server_died(struct run *u, const struct spec_cell *cell,
    struct server *srv)
{
	json_t *ev;

	if (u->srv_death_logged)
		return;
	u->srv_death_logged = true;
	ev = event_new("server");
	json_object_set_new(ev, "cell", json_string(cell->name));
	json_object_set_new(ev, "pid", json_integer(server_pid(srv)));
	json_object_set_new(ev, "state", json_string("died"));
	json_object_set_new(ev, "msg", json_string(server_death(srv)));
	run_emit_new(u, ev);
}

/* Before a leg: a server that died since the last leg (or while the gate
 * waited) stops the round resumably, before a leg runs against nothing.
 * waitpid WNOHANG, so cheap enough for the leg path. */
static bool
run_server_gone(struct run *u, const struct plan_leg *pl, struct server *srv)
{
	const struct spec *s = u->r->spec;
	const struct spec_cell *cell = &s->cells[pl->cell];

	if (srv == NULL || server_alive(srv))
		return false;
	run_server_died(u, cell, srv);
	snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) before "
	    "leg %s r%d; the round stopped, resume continues it", cell->name,
	    server_death(srv), s->arms[pl->arm].name, pl->rep);
	round_abort_internal(u->r, "the cell's server died");
	return true;
}

/* Run one planned leg.  0 to go on; -1 to stop the round (aborted, or
 * *failed set for a non-resumable failure); u->err says why. */
int
run_leg(struct run *u, const struct plan_leg *pl, struct server *srv,
    bool *failed)
{
	struct round *r = u->r;
	const struct spec *s = r->spec;
	const struct spec_cell *cell = &s->cells[pl->cell];
	const struct spec_arm *arm = &s->arms[pl->arm];
	struct template_ctx ctx = { .spec = s, .cell = cell, .arm = arm->name,
		.rep = pl->rep, .round_dir = r->dir };
	const char *bin = spec_arm_bin(s, arm);
	char *binabs = NULL, *xbin = NULL, *scratch = NULL, *tmp = NULL, **argv = NULL,
	    **envp = NULL, *outrel = NULL, *outabs = NULL;
	double foreign = -1;
	bool quiet_timeout = false, died = false;
	long long bytes = -1;
	struct leg_result res;
	int ret = -1;

	run_pause_point(u);
	if (s->settle_s > 0 && !run_aborted(u))
		run_wait(u, s->settle_s, false);
	if (run_aborted(u))
		return -1;

	if (run_server_gone(u, pl, srv))
		return -1;

	{
		char e[640];

		binabs = run_resolve_bin(s, bin, &ctx, &xbin, e, sizeof e);
		if (bin != NULL && xbin == NULL) {
			snprintf(u->err, sizeof u->err, "leg %s %s r%d: %s",
			    cell->name, arm->name, pl->rep, e);
			goto fail;
		}
	}
	ctx.bin = binabs != NULL ? binabs : xbin != NULL ? xbin : "";
	if (s->scratch != NULL) {
		char terr[512];

		if ((tmp = template_expand(s->scratch, &ctx, terr,
		    sizeof terr)) == NULL ||
		    (scratch = run_abspath(tmp, s->workdir)) == NULL) {
			snprintf(u->err, sizeof u->err, "scratch: %s", terr);
			goto fail;
		}
		ctx.scratch = scratch;
		if (run_scratch_empty(scratch, s->workdir, r->dir, u->err,
		    sizeof u->err) != 0)
			goto fail;
	} else {
		ctx.scratch = "";
	}

	if (u->quiet != NULL) {
		double f = 0;

		switch (quiet_wait(u->quiet, r->abort_pipe[0], run_quiet_emit, u,
		    &f)) {
		case QUIET_ABORTED:
			goto out;
		case QUIET_TIMEOUT:
			if (s->quiet.abort_on_timeout) {
				snprintf(u->err, sizeof u->err, "the machine did not "
				    "become quiet (%.2f foreign cores, threshold %.2f) "
				    "within %g s before %s %s r%d; the round stopped, "
				    "resume continues it", f, quiet_threshold(u->quiet),
				    s->quiet.timeout_s, cell->name, arm->name, pl->rep);
				round_abort_internal(r, "quiet gate timed out");
				goto out;
			}
			quiet_timeout = true;
			break;
		case QUIET_OK:
			break;
		}
		if (run_server_gone(u, pl, srv))
			goto out;
	}

	if ((argv = run_expand_argv(s->command, s->ncommand, &ctx, u->err,
	    sizeof u->err)) == NULL ||
	    (envp = run_envp(arm->env, arm->nenv)) == NULL ||
	    asprintf(&outrel, "legs/%s-%s-r%d.out", cell->name, arm->name,
	    pl->rep) < 0 || asprintf(&outabs, "%s/%s", r->dir, outrel) < 0) {
		if (u->err[0] == '\0')
			snprintf(u->err, sizeof u->err, "out of memory");
		goto fail;
	}
	if (binabs == NULL)
		binabs = spec_resolve_program(argv[0], s->workdir);

	struct leg_spec ls = {
		.argv = argv, .envp = envp, .cwd = s->workdir,
		.out_path = outabs, .cpus = u->client_mask, .ncpus = u->ncpus,
		.nice = s->nice, .timeout_s = s->timeout_s, .ctr = u->ctr,
		.abort_fd = r->abort_pipe[0],
	};
	u->cur = pl;
	u->cur_out = outrel;
	/* Foreign CPU during the leg costs two walks of /proc; with the gate
	 * switched off ("quiet": false) it is not measured (null). */
	if (u->quiet != NULL && s->quiet.enabled)
		quiet_leg_begin(u->quiet);
	if (leg_run(&ls, &res, run_started, u, u->err, sizeof u->err) != 0) {
		/* Could not start it (disk full for the output file, no
		 * fds): stop resumably. */
		round_abort_internal(r, "a leg could not be started");
		goto out;
	}
	if (u->quiet != NULL && s->quiet.enabled)
		foreign = quiet_leg_end(u->quiet);
	if (srv != NULL && !res.aborted && !server_alive(srv))
		died = true;
	/* What the leg left outside its process group (setsid, double forks
	 * reparented to us as subreaper) would run on into the next leg:
	 * end it now, keeping the cell's server.  (Added by the quiet/server
	 * helper for process hygiene.) */
	{
		pid_t keep = srv != NULL ? server_pid(srv) : 0;

		if (run_has_children(keep))
			(void)procs_end_descendants(getpid(), &keep, srv != NULL,
			    0.5);
	}
	if (scratch != NULL)
		bytes = run_scratch_size(scratch);

	run_emit_new(u, run_leg_event(u, pl, &res, binabs != NULL ? binabs :
	    argv[0], bytes, foreign, quiet_timeout, died));
	run_warn_counters(u);
	if (res.exec_errno != 0)
		run_warn(u, "leg %s %s r%d: cannot run %s: %s", cell->name,
		    arm->name, pl->rep, binabs != NULL ? binabs : argv[0],
		    strerror(res.exec_errno));
	if (died) {
		run_server_died(u, cell, srv);
		snprintf(u->err, sizeof u->err, "cell %s: the server died (%s) "
		    "during leg %s r%d; the round stopped, resume continues it",
		    cell->name, server_death(srv), arm->name, pl->rep);
		round_abort_internal(r, "the cell's server died");
		goto out;
	}
	if (res.aborted || run_aborted(u))
		goto out;
	ret = 0;
	goto out;
fail:
	*failed = true;
out:
	run_free_strv(argv);
	run_free_strv(envp);
	free(binabs);
	free(xbin);
	free(scratch);
	free(tmp);
	free(outrel);
	free(outabs);
	return ret;
}
