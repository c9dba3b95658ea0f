/* The round driver, profile phase: after a cell's timed legs, each
 * profiled arm (in the round file's arm order) gets its perf profile (the
 * leg repeated under one perf record, round_prof_perf.c), and with a cell
 * server a perf profile of the server under one leg's load and an strace
 * of it (round_prof_sys.c).  Each profile ends in one "profile" event; one
 * the log already holds is not taken again, and one an abort cut short is
 * taken again on resume.  round_run.c runs the phase, kind by kind; this
 * file holds what the kinds share. */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "event.h"
#include "legcmd.h"
#include "profile.h"
#include "round_int.h"
#include "server.h"
#include "template.h"


void
round_prof_fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

json_t *
round_prof_event(const char *cell, const char *arm, const char *kind,
    const char *status)
{
	json_t *ev = event_new(status != NULL ? "profile" : "profile_start");

	json_object_set_new(ev, "cell", json_string(cell));
	json_object_set_new(ev, "arm", json_string(arm));
	json_object_set_new(ev, "kind", json_string(kind));
	if (status != NULL)
		json_object_set_new(ev, "status", json_string(status));
	return ev;
}

void
round_prof_started(pid_t pid, void *arg)
{
	struct prof_start *ps = arg;
	json_t *ev = round_prof_event(ps->cell, ps->arm, ps->kind, NULL);

	json_object_set_new(ev, "pid", json_integer(pid));
	round_emit_new(ps->u, ev);
	ps->pid = pid;
}

/* Where a profile of kind is taken (NULL: here): the legs' perf on the
 * legs' host (of several, the first), a server's where the cell's server
 * runs (a copy of each host's own: the first host's). */
static const char *
round_prof_host(const struct run *u, const char *cell, const char *kind)
{
	const struct spec *s = u->r->spec;
	const char *first = s->host != NULL ? s->host : s->nhosts > 0 ?
	    s->hosts[0] : NULL;

	if (strcmp(kind, "perf") == 0)
		return first;
	for (size_t c = 0; c < s->ncells; c++) {
		const struct spec_server *sv = s->cells[c].server;

		if (strcmp(s->cells[c].name, cell) != 0 || sv == NULL)
			continue;
		return sv->host != NULL ? sv->host : sv->on_hosts ? first : NULL;
	}
	return NULL;
}

void
round_prof_failed(struct run *u, const char *cell, const char *arm,
    const char *kind, const char *reason, const char *const *files)
{
	json_t *ev = round_prof_event(cell, arm, kind, "failed"),
	    *fl = json_array();
	const char *host = round_prof_host(u, cell, kind);

	if (host != NULL)
		json_object_set_new(ev, "host", json_string(host));
	json_object_set_new(ev, "reason", json_string(reason));
	for (size_t i = 0; files != NULL && files[i] != NULL; i++)
		json_array_append_new(fl, json_string(files[i]));
	json_object_set_new(ev, "files", fl);
	round_emit_new(u, ev);
}

void
round_prof_paths(struct run *u, const char *name, const char *ext,
    char *rel, char *abs, size_t len)
{
	round_prof_fmt(rel, len, "legs/%s%s", name, ext);
	round_prof_fmt(abs, len, "%s/%s", u->r->dir, rel);
}

int
round_prof_claim(struct run *u, char *const *rel, char *why, size_t len)
{
	int links = 0;

	why[0] = '\0';
	for (size_t i = 0; rel[i] != NULL; i++) {
		char abs[PATH_MAX], to[PATH_MAX];
		struct stat st;
		ssize_t n;

		round_prof_fmt(abs, sizeof abs, "%s/%s", u->r->dir, rel[i]);
		if (lstat(abs, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			round_prof_fmt(why, len, "%s: a folder is in the way; the "
			    "profile was not taken", rel[i]);
			return -1;
		}
		/* A link at a profile's name was put there by a leg: nothing
		 * is written through it.  It goes (unlink never follows a
		 * link, so what it points to is untouched; the seal covers
		 * regular files only), and the profile fails saying so. */
		if (S_ISLNK(st.st_mode)) {
			n = readlink(abs, to, sizeof to - 1);
			to[n > 0 ? n : 0] = '\0';
			if (links++ == 0)
				round_prof_fmt(why, len, "%s: a symlink is in the "
				    "way (to %s; a leg may have planted it): the "
				    "profile was not taken, the link was removed "
				    "and what it points to is untouched", rel[i], to);
		}
		/* What an earlier attempt left (cut short by an abort or a
		 * kill) is not evidence: no profile event names it. */
		if (unlink(abs) != 0 && errno != ENOENT) {
			round_prof_fmt(why, len, "%s: cannot remove what is in "
			    "the way: %s", rel[i], strerror(errno));
			return -1;
		}
	}
	return links > 0 ? -1 : 0;
}

/* A profile leg's command as legcmd builds it (rep 0 for perf's, -1 for
 * syscalls', -2 for server_perf's load), its stale metrics file removed
 * and its scratch folder emptied.  0; -1 with u->err; -2 when the scratch
 * folder was refused (the round is aborted). */
static int
round_prof_cmd(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, int rep, struct legcmd *cmd)
{
	const struct spec *s = u->r->spec;
	struct legcmd_where w = { .spec = s, .cell = (size_t)(cell - s->cells),
	    .arm = (size_t)(arm - s->arms), .rep = rep,
	    .round_dir = u->r->dir };
	char e[640];

	if (legcmd_build(&w, cmd, e, sizeof e) != 0) {
		snprintf(u->err, sizeof u->err, "%s", e);
		return -1;
	}
	(void)unlink(cmd->metrics);
	return round_leg_scratch(u, &w, cmd) != 0 ? -2 : 0;
}

int
round_prof_ready(struct run *u, const struct spec_cell *cell,
    const struct spec_arm *arm, const char *kind, const char *tool,
    const char *path, int rep, struct legcmd *cmd)
{
	char why[512], missing[64];
	/* tool NULL: taken on another host, whose agent looks for the
	 * tool and the kernel's settings there */
	const char *blocked = tool != NULL ? profile_blocked(kind, why,
	    sizeof why) : NULL;
	int rc;

	if (blocked != NULL || (tool != NULL && path == NULL)) {
		snprintf(missing, sizeof missing, "%s is not installed", tool);
		round_prof_failed(u, cell->name, arm->name, kind, blocked != NULL ?
		    blocked : missing, NULL);
		return 1;
	}
	if ((rc = round_prof_cmd(u, cell, arm, rep, cmd)) == -2)
		return -1;
	if (rc != 0) {
		round_prof_failed(u, cell->name, arm->name, kind, u->err, NULL);
		u->err[0] = '\0';
		return 1;
	}
	return 0;
}

const char *
round_prof_server_where(const struct spec_cell *cell,
    const struct round_srv *srv, char *buf, size_t len)
{
	struct server *here = round_server_here(srv);

	(void)buf;              /* for a reason that names more, later */
	(void)len;

	/* The one place that knows whether the cell's server can be
	 * profiled. */
	if (cell->server == NULL)
		return "the cell has no server";
	/* One on another host is profiled there, by its agent, which
	 * refuses when it runs no server. */
	if (round_server_host(srv) != NULL)
		return NULL;
	if (here == NULL || !server_alive(here))
		return "the cell's server is not running";
	return NULL;
}

bool
round_prof_is_load(const struct legcmd *cmd)
{
	const char *self = template_self_path();

	return self != NULL && cmd->exec_path != NULL &&
	    strcmp(cmd->exec_path, self) == 0 && cmd->argc >= 2 &&
	    strcmp(cmd->argv[1], "load") == 0;
}

bool
round_prof_hold(const struct legcmd *cmd)
{
	long warmup = 0;

	/* benchtui load with a warm-up: it can stop between the warm-up
	 * and the counted requests (BENCHTUI_LOAD_HOLD) */
	if (!round_prof_is_load(cmd))
		return false;
	for (size_t i = 2; i < cmd->argc; i++) {
		if (strcmp(cmd->argv[i], "--warmup") == 0 && i + 1 < cmd->argc)
			warmup = atol(cmd->argv[i + 1]);
		else if (strncmp(cmd->argv[i], "--warmup=", 9) == 0)
			warmup = atol(cmd->argv[i] + 9);
	}
	return warmup > 0;
}
