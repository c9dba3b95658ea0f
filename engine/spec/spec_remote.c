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
	return sv != NULL && sv->host != NULL;
}

/* A host or a folder name passed to ssh as one argument: never through a
 * shell here, so shell metacharacters are only characters; but a leading
 * '-' would be read by ssh as an option, and a control character (a
 * newline) has no place in a host name or a path.  A host is never
 * expanded, so a ${VAR} in it would reach ssh as written. */
static int
spec_remote_word(struct parser *p, json_t *v, const char *path, char **out)
{
	if (spec_want_string(p, v, path, true, out) < 0)
		return -1;
	if ((strcmp(path, "host") == 0 || strstr(path, ".host") != NULL) &&
	    strstr(*out, "${") != NULL)
		return spec_perr(p, path, "\"%s\" holds ${...}, which is never "
		    "expanded in a host: write the host itself", *out);
	if ((*out)[0] == '-')
		return spec_perr(p, path, "\"%s\" starts with '-', which ssh "
		    "would read as an option", *out);
	for (const char *c = *out; *c != '\0'; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return spec_perr(p, path, "holds a control character");
	return 0;
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
	if ((v = json_object_get(root, "host")) != NULL) {
		if (spec_remote_word(p, v, "host", &s->host) < 0)
			return -1;
		/* Every server without a host of its own runs there too. */
		for (size_t c = 0; c < s->ncells; c++) {
			struct spec_server *sv = s->cells[c].server;

			if (sv == NULL || sv->host != NULL)
				continue;
			sv->host = xstrdup(s->host);
			if (sv->dir == NULL)
				sv->dir = xstrdup(SPEC_AGENT_DIR);
		}
	}

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

/* Legs on another host ("host") run its command there; what a leg
 * reads or leaves on this machine around it cannot follow yet. */
static int
spec_check_leg_host(struct parser *p)
{
	const struct spec *s = p->s;
	const char *what = s->prepare != NULL ? "prepare" : s->scratch != NULL ?
	    "scratch" : s->stdin_path != NULL ? "stdin" : s->profile != NULL ?
	    "profile" : NULL;

	if (s->host == NULL || what == NULL)
		return 0;
	return spec_perr(p, "host", "legs on another host (%s) do not take %s "
	    "yet: run the round there, or drop %s", s->host, what, what);
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

		if (!spec_server_remote(a))
			continue;
		for (size_t k = 0; k < i; k++) {
			const struct spec_server *b = s->cells[k].server;
			char path[64];

			if (!spec_server_remote(b) ||
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
