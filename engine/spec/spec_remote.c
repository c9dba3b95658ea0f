/* spec: a cell server on another host -- server.host and server.dir, and
 * the round's ssh (the argv prefix that reaches a host) and agent (the
 * command ssh runs there).  Nothing here reaches a host: the round file
 * is only read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_int.h"
#include "template.h"
#include "xalloc.h"

static const char *const spec_remote_ssh_default[] = { "ssh", "-o",
	"BatchMode=yes", NULL };
static const char *const spec_remote_agent_default[] = { "benchtui", "agent",
	NULL };

bool
spec_server_remote(const struct spec_server *sv)
{
	return sv != NULL && (sv->host != NULL || sv->on_hosts);
}

/* A host or a folder name passed to ssh as one argument: never through a
 * shell here, so shell metacharacters are only characters; but a leading
 * '-' would be read by ssh as an option, and a control character (a
 * newline) has no place in a host name or a path.  A host is never
 * expanded, so a ${VAR} in it would reach ssh as written.  What is wrong
 * with w (a host when host), or NULL. */
static const char *
spec_remote_word_why(const char *w, bool host)
{
	if (host && strstr(w, "${") != NULL)
		return "holds ${...}, which is never expanded in a host: write "
		    "the host itself";
	if (w[0] == '-')
		return "starts with '-', which ssh would read as an option";
	for (const char *c = w; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "holds a control character";
	return NULL;
}

static int
spec_remote_word(struct parser *p, json_t *v, const char *path, char **out)
{
	const char *why;

	if (spec_want_string(p, v, path, true, out) < 0)
		return -1;
	why = spec_remote_word_why(*out, strcmp(path, "host") == 0 ||
	    strstr(path, ".host") != NULL || strncmp(path, "hosts", 5) == 0);
	if (why == NULL)
		return 0;
	if (strstr(why, "control") != NULL)
		return spec_perr(p, path, "%s", why);
	return spec_perr(p, path, "\"%s\" %s", *out, why);
}

int
spec_parse_server_host(struct parser *p, json_t *j, const char *path,
    struct spec_server *srv)
{
	char sub[256];
	json_t *v;

	spec_path_join(sub, sizeof sub, path, "host");
	if ((v = json_object_get(j, "host")) != NULL &&
	    spec_remote_word(p, v, sub, &srv->host) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "dir");
	if ((v = json_object_get(j, "dir")) != NULL) {
		if (srv->host == NULL)
			return spec_perr(p, sub, "is the agent's folder on the "
			    "server's host: it needs server.host");
		if (spec_remote_word(p, v, sub, &srv->dir) < 0)
			return -1;
	} else if (srv->host != NULL) {
		srv->dir = xstrdup(SPEC_AGENT_DIR);
	}
	srv->host_own = srv->host != NULL;
	return 0;
}

/* Every server without a host of its own runs on the legs' one host
 * (none: here), or on each of their several hosts, a copy each;
 * called again when the hosts are replaced. */
static void
spec_remote_inherit(struct spec *s)
{
	for (size_t c = 0; c < s->ncells; c++) {
		struct spec_server *sv = s->cells[c].server;

		if (sv == NULL || sv->host_own)
			continue;
		free(sv->host);
		free(sv->dir);
		sv->on_hosts = s->host == NULL && s->nhosts > 1;
		sv->host = s->host != NULL ? xstrdup(s->host) : NULL;
		sv->dir = s->host != NULL || sv->on_hosts ?
		    xstrdup(SPEC_AGENT_DIR) : NULL;
	}
}

/* "hosts": a non-empty array of hosts, each once. */
static int
spec_parse_hosts(struct parser *p, json_t *v)
{
	struct spec *s = p->s;
	char path[32];
	size_t i;
	json_t *e;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return spec_perr(p, "hosts", "must be a non-empty array of "
		    "hosts, not %s", json_is_array(v) ? "an empty array" :
		    spec_json_type(v));
	s->hosts = xcalloc(json_array_size(v) + 1, sizeof *s->hosts);
	json_array_foreach(v, i, e) {
		snprintf(path, sizeof path, "hosts[%zu]", i);
		if (spec_remote_word(p, e, path, &s->hosts[i]) < 0)
			return -1;
		s->nhosts++;
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->hosts[k], s->hosts[i]) == 0)
				return spec_perr(p, path, "\"%s\" is hosts[%zu] "
				    "already; a host is listed once", s->hosts[i],
				    k);
	}
	if (s->nhosts == 1)
		s->host = xstrdup(s->hosts[0]);
	return 0;
}

/* agent_limits: {"line_bytes", "stderr_bytes", "hello_s",
 * "profile_bytes"}, each optional. */
static int
spec_parse_agent_limits(struct parser *p, json_t *j)
{
	static const char *const keys[] = { "line_bytes", "stderr_bytes",
	    "hello_s", "profile_bytes", NULL };
	struct spec *s = p->s;
	json_t *v;

	s->agent_limits.line_bytes = SPEC_AGENT_LINE_BYTES;
	s->agent_limits.stderr_bytes = SPEC_AGENT_STDERR_BYTES;
	s->agent_limits.hello_s = SPEC_AGENT_HELLO_S;
	s->agent_limits.profile_bytes = SPEC_AGENT_PROFILE_BYTES;
	if (j == NULL)
		return 0;
	if (!json_is_object(j))
		return spec_perr(p, "agent_limits", "must be an object, not %s",
		    spec_json_type(j));
	if (spec_check_keys(p, j, "agent_limits", keys) < 0)
		return -1;
	if ((v = json_object_get(j, "line_bytes")) != NULL &&
	    spec_want_int(p, v, "agent_limits.line_bytes", 4096, 1 << 30,
	    &s->agent_limits.line_bytes) < 0)
		return -1;
	if ((v = json_object_get(j, "stderr_bytes")) != NULL &&
	    spec_want_int(p, v, "agent_limits.stderr_bytes", 0, 1 << 30,
	    &s->agent_limits.stderr_bytes) < 0)
		return -1;
	if ((v = json_object_get(j, "profile_bytes")) != NULL &&
	    spec_want_int(p, v, "agent_limits.profile_bytes", 4096, 1 << 30,
	    &s->agent_limits.profile_bytes) < 0)
		return -1;
	if ((v = json_object_get(j, "hello_s")) != NULL &&
	    spec_want_number(p, v, "agent_limits.hello_s", 0, true,
	    &s->agent_limits.hello_s) < 0)
		return -1;
	return 0;
}

int
spec_parse_remote(struct parser *p, json_t *root)
{
	struct spec *s = p->s;
	json_t *v;

	if (spec_parse_agent_limits(p, json_object_get(root, "agent_limits")) <
	    0)
		return -1;
	if ((v = json_object_get(root, "host")) != NULL &&
	    json_object_get(root, "hosts") != NULL)
		return spec_perr(p, "hosts", "and \"host\" are both set: \"host\" "
		    "runs the legs on one host, \"hosts\" deals them among "
		    "several; keep one");
	if (v != NULL && spec_remote_word(p, v, "host", &s->host) < 0)
		return -1;
	if ((v = json_object_get(root, "hosts")) != NULL &&
	    spec_parse_hosts(p, v) < 0)
		return -1;
	spec_remote_inherit(s);

	if ((v = json_object_get(root, "ssh")) != NULL) {
		if (spec_want_argv(p, v, "ssh", &s->ssh, &s->nssh) < 0)
			return -1;
	} else {
		s->ssh = spec_strv_copy(spec_remote_ssh_default, &s->nssh);
	}
	if ((v = json_object_get(root, "agent")) != NULL) {
		if (spec_want_argv(p, v, "agent", &s->agent, &s->nagent) < 0)
			return -1;
	} else {
		s->agent = spec_strv_copy(spec_remote_agent_default,
		    &s->nagent);
	}
	return 0;
}

/* Legs on another host ("host") run its command there.  On several
 * hosts at once, a cell server without a host of its own runs on each of
 * them, a copy for that host's legs; one with a host of its own runs
 * there once, and that host must be one of them (as for --host). */
static int
spec_check_leg_host(struct parser *p)
{
	const struct spec *s = p->s;

	/* the legs' perf profile is taken there (its agent's prof_legs), and
	 * a cell server's there with the legs (prof_start, its load a leg
	 * there; on several hosts, the first host's copy); prepare, stdin
	 * and scratch go with each leg's request */
	if (s->host == NULL && s->nhosts == 0)
		return 0;
	for (size_t c = 0; s->nhosts > 1 && c < s->ncells; c++) {
		const struct spec_server *sv = s->cells[c].server;
		bool in = false;
		char path[64];

		if (sv == NULL)
			continue;
		if (!sv->host_own)
			continue;
		/* each host starts its own per leg; one host's server would
		 * have to serve every host's legs, one at a time */
		if (spec_server_per_leg(s, &s->cells[c])) {
			snprintf(path, sizeof path, "cells[%zu].server", c);
			return spec_perr(p, path, "cell %s starts a server for "
			    "each leg (an arm sets server_bin or server_env, or "
			    "the cmd uses ${ARM}) on its host \"%s\", and a round "
			    "on several hosts (%zu) runs a server per leg only as "
			    "each host's own: drop the cell's server.host",
			    s->cells[c].name, sv->host, s->nhosts);
		}
		for (size_t i = 0; i < s->nhosts; i++)
			in |= strcmp(s->hosts[i], sv->host) == 0;
		if (in)
			continue;
		snprintf(path, sizeof path, "cells[%zu].server.host", c);
		return spec_perr(p, path, "cell %s runs its server on \"%s\", "
		    "which is not one of the round's hosts; add it to hosts, or "
		    "drop the cell's server.host (each host then runs its own "
		    "copy)", s->cells[c].name, sv->host);
	}
	return 0;
}

/* One agent serves a host for the whole round, in one folder: two cells
 * that name the same host name the same folder. */
int
spec_check_hosts(struct parser *p)
{
	const struct spec *s = p->s;

	if (spec_check_leg_host(p) < 0)
		return -1;

	for (size_t i = 0; i < s->ncells; i++) {
		const struct spec_server *a = s->cells[i].server;

		if (!spec_server_remote(a) || a->host == NULL)
			continue;
		for (size_t k = 0; k < i; k++) {
			const struct spec_server *b = s->cells[k].server;
			char path[64];

			if (!spec_server_remote(b) || b->host == NULL ||
			    strcmp(a->host, b->host) != 0 ||
			    strcmp(a->dir, b->dir) == 0)
				continue;
			snprintf(path, sizeof path, "cells[%zu].server.dir", i);
			return spec_perr(p, path, "\"%s\" differs from "
			    "cells[%zu].server.dir \"%s\" on the same host %s; "
			    "one agent serves a host, in one folder", a->dir, k,
			    b->dir, a->host);
		}
	}
	return 0;
}

/* The hosts' own checks, as the round file's (each once, a word ssh
 * reads as a host). */
static int
spec_use_hosts_words(struct parser *p, const char *const *hosts, size_t n,
    const char *what)
{
	for (size_t i = 0; i < n; i++) {
		const char *why = spec_remote_word_why(hosts[i], true);

		if (hosts[i][0] == '\0')
			why = "is empty";
		if (why != NULL) {
			snprintf(p->err, p->errlen, "%s \"%s\": %s", what,
			    hosts[i], why);
			return -1;
		}
		for (size_t k = 0; k < i; k++)
			if (strcmp(hosts[k], hosts[i]) == 0) {
				snprintf(p->err, p->errlen, "%s \"%s\" is given "
				    "twice; each host runs its own share of the "
				    "reps, so name it once", what, hosts[i]);
				return -1;
			}
	}
	return 0;
}

int
spec_use_hosts(struct spec *s, const char *const *hosts, size_t n,
    const char *what, char *err, size_t errlen)
{
	struct parser p = { .file = s->path, .err = err, .errlen = errlen,
		.s = s };

	if (n == 0)
		return 0;
	if (spec_use_hosts_words(&p, hosts, n, what) < 0)
		return -1;
	/* A server the round file puts on a host of its own stays there;
	 * one the hosts do not include would be reached by no leg host. */
	for (size_t c = 0; c < s->ncells; c++) {
		const struct spec_server *sv = s->cells[c].server;
		bool in = false;
		char path[64];

		if (sv == NULL || !sv->host_own)
			continue;
		for (size_t i = 0; i < n; i++)
			in |= strcmp(hosts[i], sv->host) == 0;
		if (in)
			continue;
		snprintf(path, sizeof path, "cells[%zu].server.host", c);
		return spec_perr(&p, path, "cell %s runs its server on \"%s\", "
		    "which is not one of %s's hosts; add %s %s, or drop the "
		    "cell's server.host", s->cells[c].name, sv->host, what,
		    what, sv->host);
	}
	free(s->host);
	template_free_argv(s->hosts);
	s->hosts = xcalloc(n + 1, sizeof *s->hosts);
	for (size_t i = 0; i < n; i++)
		s->hosts[i] = xstrdup(hosts[i]);
	s->nhosts = n;
	s->host = n == 1 ? xstrdup(hosts[0]) : NULL;
	spec_remote_inherit(s);
	return spec_check_leg_host(&p);
}
