/* The round driver, a leg on another host (the round's "host"): its
 * command as legcmd builds it here, run there by that host's agent as a
 * local leg is run (remote_leg), its values (checked by the client) into
 * the leg_result the leg line is made from, and its counters onto that
 * line.  The log, the arithmetic and the seal stay here. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "event.h"
#include "legcmd.h"
#include "remote.h"
#include "rfile.h"
#include "round_int.h"
#include "xalloc.h"

/* The most of a leg's stdin sent to its host: its request is one line
 * of at most 1 MiB once the content is in base64. */
#define ROUND_FAR_STDIN_MAX (512 << 10)

/* The leg's output file's name in the agent's folder: its path in the
 * round folder, '/' as '_'. */
static char *
round_far_out(const char *rel)
{
	char *n = xasprintf("leg-%s", rel);

	for (char *c = n; *c != '\0'; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		    (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			*c = '_';
	return n;
}

int
round_far_prepare_rc(const json_t *far)
{
	const json_t *p = json_object_get(far, "prepare_rc");

	return json_is_integer(p) ? (int)json_integer_value(p) : -1;
}

static double
round_far_num(const json_t *far, const char *key)
{
	return json_number_value(json_object_get(far, key));
}

static struct timeval
round_far_tv(double s)
{
	struct timeval tv = { .tv_sec = (time_t)s };

	tv.tv_usec = (suseconds_t)((s - (double)tv.tv_sec) * 1e6);
	return tv;
}

/* The checked reply into res (every value in range: remote_check.c). */
static void
round_far_result(const json_t *far, struct leg_result *res)
{
	const json_t *peak = json_object_get(far, "mem_peak_kb");

	memset(res, 0, sizeof *res);
	res->pid = (pid_t)json_integer_value(json_object_get(far, "pid"));
	res->rc = (int)json_integer_value(json_object_get(far, "rc"));
	res->signal = (int)json_integer_value(json_object_get(far, "signal"));
	res->timed_out = json_is_true(json_object_get(far, "timed_out"));
	res->aborted = json_is_true(json_object_get(far, "aborted"));
	res->exec_errno = (int)json_integer_value(json_object_get(far,
	    "exec_errno"));
	res->exec_step = (int)json_integer_value(json_object_get(far,
	    "exec_step"));
	res->wall = round_far_num(far, "wall");
	res->ru.ru_utime = round_far_tv(round_far_num(far, "utime"));
	res->ru.ru_stime = round_far_tv(round_far_num(far, "stime"));
	res->ru.ru_maxrss = (long)json_integer_value(json_object_get(far,
	    "maxrss_kb"));
	res->ru.ru_minflt = (long)json_integer_value(json_object_get(far,
	    "minflt"));
	res->ru.ru_majflt = (long)json_integer_value(json_object_get(far,
	    "majflt"));
	res->mem_peak_kb = json_is_integer(peak) ? json_integer_value(peak) :
	    -1;
	res->strays = (size_t)json_integer_value(json_object_get(far,
	    "strays"));
}

/* The leg's output, kept there, copied into legs/ here (no link
 * followed) within output.max_bytes, so the folder holds what a local
 * leg's would.  A copy that fails leaves the leg's numbers as they are;
 * a connection lost meanwhile is seen before the next leg. */
void
round_far_output(const struct round *r, struct remote *rm,
    const char *out_rel)
{
	long long max = r->spec->output_max_bytes;
	char *name, *file, *abs, err[512];
	struct remote_fetch f;
	bool refused;
	int fd;

	if (out_rel == NULL || !r->spec->output_keep || max <= 0)
		return;
	name = round_far_out(out_rel);
	file = xasprintf("leg:%s", name);
	abs = xasprintf("%s/%s", r->dir, out_rel);
	if ((fd = rfile_create(abs, O_CLOEXEC, 0644)) >= 0) {
		(void)remote_prof_get(rm, file, fd, max, &f, &refused, err,
		    sizeof err);
		close(fd);
	}
	free(abs);
	free(file);
	free(name);
}

/* The leg's stdin file, read here whole (it is bounded: it travels in
 * the leg's request, one line the agent reads at most 1 MiB of) into
 * req as base64.  0; -1 with u->err naming the file. */
static int
round_far_stdin(struct run *u, const char *path, json_t *req)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	unsigned char *buf;
	char *b64;
	size_t n = 0;
	ssize_t got = 1;

	if (fd < 0) {
		snprintf(u->err, sizeof u->err, "stdin %s: %s", path,
		    strerror(errno));
		return -1;
	}
	buf = xmalloc(ROUND_FAR_STDIN_MAX + 1);
	while (n <= ROUND_FAR_STDIN_MAX && (got = read(fd, buf + n,
	    ROUND_FAR_STDIN_MAX + 1 - n)) > 0)
		n += (size_t)got;
	close(fd);
	if (got < 0 || n > ROUND_FAR_STDIN_MAX) {
		if (got < 0)
			snprintf(u->err, sizeof u->err, "stdin %s: %s", path,
			    strerror(errno));
		else
			snprintf(u->err, sizeof u->err, "stdin %s holds more than "
			    "%d bytes, the most a leg on another host takes (its "
			    "content travels in the leg's request)", path,
			    ROUND_FAR_STDIN_MAX);
		free(buf);
		return -1;
	}
	b64 = xmalloc(4 * ((n + 2) / 3) + 1);
	EVP_EncodeBlock((unsigned char *)b64, buf, (int)n);
	json_object_set_new(req, "stdin", json_string(b64));
	free(b64);
	free(buf);
	return 0;
}

/* The leg request for argv with cmd's env and cwd, its output into the
 * agent's file for rel (the round folder's path), its scratch folder (and
 * keep, the paths emptying it must not take); a timed leg's (leg) with
 * the round's prepare and the leg's stdin.  NULL with u->err (its stdin
 * cannot be sent). */
static json_t *
round_far_req(struct run *u, const struct legcmd *cmd, char *const *argv,
    const char *rel, bool leg, char *const *keep)
{
	const struct spec *s = u->r->spec;
	char *out = round_far_out(rel != NULL ? rel : "none");
	json_t *req;

	req = json_pack("{s:o,s:o,s:s,s:s?,s:i,s:f,s:s,s:b,s:I}", "argv",
	    legcmd_argv_json(argv), "env", legcmd_env_json(cmd), "cwd",
	    cmd->cwd, "cpus", s->client_cpus, "nice", s->nice, "timeout_s",
	    s->timeout_s, "out", out, "keep", s->output_keep, "max_bytes",
	    (json_int_t)s->output_max_bytes);
	free(out);
	/* its scratch folder is emptied there, by the same rules */
	if (cmd->scratch != NULL)
		json_object_set_new(req, "scratch", json_string(cmd->scratch));
	if (cmd->scratch != NULL && keep != NULL)
		json_object_set_new(req, "scratch_keep", legcmd_argv_json(keep));
	if (leg && cmd->prepare != NULL)
		json_object_set_new(req, "prepare", legcmd_argv_json(
		    cmd->prepare));
	if (leg && cmd->stdin_path != NULL &&
	    round_far_stdin(u, cmd->stdin_path, req) != 0) {
		json_decref(req);
		return NULL;
	}
	return req;
}

int
round_far_load(struct run *u, const struct legcmd *cmd, char *const *argv,
    const char *out_abs, double timeout_s, const json_t *attach,
    json_t **far_out, struct leg_result *res, char *why, size_t len)
{
	struct remote *rm = round_remote_legs(u);
	size_t n = strlen(u->r->dir);
	const char *rel = out_abs != NULL && strncmp(out_abs, u->r->dir, n) ==
	    0 && out_abs[n] == '/' ? out_abs + n + 1 : NULL;
	json_t *req, *far;
	bool started;

	memset(res, 0, sizeof *res);
	if (rm == NULL || remote_lost(rm, true)) {
		snprintf(why, len, "the legs' host is not connected");
		if (rm != NULL)
			round_remote_lost(u, rm, "before a profile's load");
		return -1;
	}
	req = round_far_req(u, cmd, argv != NULL ? argv : cmd->argv, rel,
	    false, NULL);
	if (timeout_s > 0)
		json_object_set_new(req, "timeout_s", json_real(timeout_s));
	if (attach != NULL) {
		json_object_set(req, "attach", (json_t *)attach);
		json_object_set_new(json_object_get(req, "env"),
		    "BENCHTUI_LOAD_HOLD", json_string("warmup"));
	}
	far = remote_leg(rm, req, timeout_s > 0 ? timeout_s :
	    u->r->spec->timeout_s, NULL, u->r->abort_pipe[0], -1, round_emit_cb,
	    u, &started, why, len);
	if (far == NULL) {
		if (remote_lost(rm, false)) {
			round_remote_lost(u, rm, "during a profile's load");
			return -1;
		}
		return 1;
	}
	round_far_result(far, res);
	if (far_out != NULL)
		*far_out = json_incref(far);
	json_decref(far);
	if (argv == NULL)
		round_far_output(u->r, rm, rel);
	return 0;
}

json_t *
round_far_request(struct run *u, const struct legcmd *cmd, char *const *keep,
    json_t *start, const char *host)
{
	json_t *req = round_far_req(u, cmd, cmd->argv, cmd->out_rel, true,
	    keep);

	if (req == NULL) {
		round_abort_internal(u->r, "a leg's stdin could not be sent to "
		    "its host");
		return NULL;
	}
	/* Its leg_start: the host's, with no pid of this machine (resume
	 * ends only local pids). */
	json_object_set_new(start, "pid", json_null());
	json_object_set_new(start, "host", json_string(host));
	round_emit(u->r, start);
	return req;
}

int
round_far_reply(struct run *u, const char *leg, const char *host,
    bool gated, const json_t *far, struct leg_result *res,
    struct round_gate_rec *g, double *foreign)
{
	const json_t *fg;

	round_far_result(far, res);
	if (u->quiet != NULL && isfinite(res->wall))
		quiet_legs_ran(u->quiet, res->wall);
	fg = json_object_get(far, "foreign");
	*foreign = json_is_number(fg) ? json_number_value(fg) : -1;
	return gated ? round_gate_far_mark(u, leg, host, far, g) : 0;
}

int
round_far_leg(struct run *u, const struct plan_leg *pl, const char *leg,
    const struct legcmd *cmd, char *const *keep, json_t *start,
    struct leg_result *res, struct round_gate_rec *g, double *foreign,
    json_t **far)
{
	struct remote *rm = round_remote_legs(u);
	struct remote_gate rg;
	bool started = false, gated;
	json_t *req;

	*far = NULL;
	if (rm == NULL || remote_lost(rm, true)) {
		if (rm != NULL)
			round_remote_lost(u, rm, "before a leg");
		return -1;
	}
	if ((req = round_far_request(u, cmd, keep, start,
	    u->r->spec->host)) == NULL)
		return -1;
	gated = round_gate_far_ask(u, pl, &rg);
	*far = remote_leg(rm, req, u->r->spec->timeout_s, gated ? &rg : NULL,
	    u->r->abort_pipe[0], u->r->gate_pipe[0], round_emit_cb, u,
	    &started, u->err, sizeof u->err);
	if (*far == NULL) {
		if (remote_lost(rm, false)) {
			round_remote_lost(u, rm, "while a leg ran there");
		} else if (!round_aborted(u)) {
			size_t n = strlen(u->err);

			snprintf(u->err + n, sizeof u->err - n, "; the round "
			    "stopped, resume runs the leg again");
			round_abort_internal(u->r, "a leg could not start on the "
			    "legs' host");
		}
		return -1;
	}
	round_far_output(u->r, rm, cmd->out_rel);
	return round_far_reply(u, leg, u->r->spec->host, gated, *far, res, g,
	    foreign);
}

void
round_far_record(json_t *ev, const json_t *far, const char *host)
{
	const json_t *ctr = json_object_get(far, "counters"),
	    *cy = json_object_get(ctr, "cycles"),
	    *in = json_object_get(ctr, "instructions");

	json_object_set_new(ev, "host", json_string(host));
	json_object_set(ev, "counters", (json_t *)ctr);
	json_object_set(ev, "multiplexed", json_object_get(far,
	    "multiplexed"));
	json_object_set_new(ev, "cycles", cy != NULL ? json_incref((json_t *)cy) :
	    json_null());
	json_object_set_new(ev, "instructions", in != NULL ?
	    json_incref((json_t *)in) : json_null());
	round_record_ipc(ev);
	json_object_set_new(ev, "output_bytes", json_incref(json_object_get(far,
	    "output_bytes")));
	json_object_set_new(ev, "output_truncated", json_incref(
	    json_object_get(far, "output_truncated")));
	json_object_set_new(ev, "exec", json_incref(json_object_get(far,
	    "exec")));
}
