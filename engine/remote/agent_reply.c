/* The agent's replies and its side of the wire: what every op needs to
 * answer (a reply, a refusal, a line out, the request that came while one
 * waited) and nothing of any op.  The ops' files call it; it calls none
 * of them: a request that came meanwhile goes to the loop's dispatch
 * through a->handle. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_int.h"
#include "scratch.h"
#include "xalloc.h"

json_t *
agent_reply(const json_t *req, bool ok)
{
	json_t *id = json_object_get(req, "id"), *r = json_object();

	json_object_set_new(r, "id", json_is_integer(id) ? json_incref(id) :
	    json_null());
	json_object_set_new(r, "ok", json_boolean(ok));
	return r;
}

json_t *
agent_refuse(const json_t *req, const char *cause, const char *fmt, ...)
{
	json_t *r = agent_reply(req, false);
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	json_object_set_new(r, "cause", json_string(cause));
	json_object_set_new(r, "error", json_string(msg));
	return r;
}

void
agent_send(struct agent *a, json_t *msg)
{
	if (msg != NULL && wire_write(a->out, msg) != 0 && !a->quit) {
		a->quit = true;
		a->exit_code = 1;
	}
	json_decref(msg);
}

json_t *
agent_then(struct agent *a, json_t *r, json_t *next)
{
	if (next == NULL)
		return r;
	agent_send(a, r);
	a->handle(a, next);
	json_decref(next);
	return NULL;
}

const char *
agent_op(const json_t *req)
{
	return json_string_value(json_object_get(req, "op"));
}

bool
agent_interrupted(const struct agent *a)
{
	char c;

	if (wire_pending(&a->in))
		return true;
	/* A signal's byte stays for the loop to see. */
	return recv(a->sig_rd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 1;
}

json_t *
agent_strv(const json_t *req, const json_t *arr, const char *what,
    char ***out, size_t *n)
{
	size_t i;
	json_t *v;

	*n = 0;
	*out = xcalloc(json_array_size(arr) + 1, sizeof **out);
	if (!json_is_array(arr))
		return agent_refuse(req, "malformed", "%s must be an array of "
		    "strings", what);
	json_array_foreach(arr, i, v) {
		if (!json_is_string(v))
			return agent_refuse(req, "malformed", "%s[%zu] is not a "
			    "string", what, i);
		(*out)[(*n)++] = xstrdup(json_string_value(v));
	}
	return NULL;
}

bool
agent_log_name_ok(const char *s)
{
	if (s == NULL || s[0] == '\0' || s[0] == '.' || strlen(s) > 200)
		return false;
	for (; *s != '\0'; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') &&
		    !(*s >= '0' && *s <= '9') && *s != '-' && *s != '_' &&
		    *s != '.')
			return false;
	return true;
}

char *
agent_own_file(const struct agent *a, const char *name)
{
	return xasprintf("%s/%ld.%s", a->dir, (long)getpid(), name);
}

json_t *
agent_scratch(struct agent *a, const json_t *req, const char *scratch,
    const char *cwd, const char *path, char *const *keep)
{
	size_t n = 0, k = 0;
	struct scratch_hold *h;
	char err[1024];
	int rc;

	while (keep != NULL && keep[n] != NULL)
		n++;
	if (scratch[0] != '/')
		return agent_refuse(req, "malformed", "scratch: \"%s\" is not "
		    "an absolute path", scratch);
	h = xcalloc(n + 3, sizeof *h);
	h[k++] = (struct scratch_hold){ cwd, "holds the workdir" };
	h[k++] = (struct scratch_hold){ a->dir, "holds the agent's folder" };
	h[k++] = (struct scratch_hold){ path, "holds the leg's program" };
	for (size_t i = 0; i < n; i++)
		h[k++] = (struct scratch_hold){ keep[i], "holds a path the "
		    "leg's command names" };
	rc = scratch_empty(scratch, h, k, &a->scratch_lock, err, sizeof err);
	free(h);
	return rc != 0 ? agent_refuse(req, "failed", "%s", err) : NULL;
}
