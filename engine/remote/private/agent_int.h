/* Inside the agent: what its files share.  Not part of the engine's
 * public surface.  Calls run one way: a file calls only the files listed
 * below it here.
 *
 *   agent.c          the loop and the op dispatch; hello, ping, bins
 *   agent_leg.c      a leg run here, as a local leg is
 *   agent_server.c   the server's ops: start, open, close, stop; the
 *                    gate before a window or a leg
 *   agent_prof.c     a profile of the server: prof_start, prof_stop,
 *                    prof_report, prof_get; and the legs' (prof_legs)
 *   agent_reply.c    replies, refusals, a line out, a file name's
 *                    rule, its own files' names, a leg's scratch
 *                    folder emptied, and the
 *                    request that came while an op
 *                    waited (answered through
 *                    a->handle, the loop's dispatch: the one call up)
 *
 * tools/include-graph checks it from the objects (make check's
 * link_walls). */
#ifndef BENCHTUI_AGENT_INT_H
#define BENCHTUI_AGENT_INT_H

#include <jansson.h>
#include <stdbool.h>

#include "quiet.h"
#include "wire.h"

struct cgroup;
struct server;
struct srvmeter;
struct agent_prof;

struct agent {
	struct wire_in in;
	int out;
	/* Readable when a request arrives, the input closes or a signal
	 * comes: the abort fd of the server's ready wait and of the gate. */
	int wake;
	int sig_rd;
	const char *version;    /* what it says it is */
	int protocol;           /* and the protocol it speaks */
	char *dir;              /* absolute; NULL when it could not be made */
	char dir_err[512];
	bool greeted;           /* hello answered */
	bool quit;              /* input closed, a signal, or refused */
	int exit_code;
	char **counters;        /* the window's events (hello) */
	int ncounters;
	bool gate;              /* hello's quiet settings were given */
	struct quiet_params qp;
	char probe_off[256];    /* why this host cannot probe ("": it can,
	                         * or it was not asked to) */
	struct quiet *quiet;
	/* The server: one at a time. */
	struct server *srv;
	char cell[64];
	struct srvmeter *meter; /* an open window */
	/* The legs' cgroup (agent_leg.c), tried at the first leg. */
	bool cg_tried;
	struct cgroup *cg, *cg_self, *cg_legs;
	/* The op dispatch (agent.c): agent_then answers a request that came
	 * while an op waited through it, so the ops' files and
	 * agent_reply.c call nothing above them. */
	void (*handle)(struct agent *a, json_t *req);
	/* A profile of the server (agent_prof.c), or NULL. */
	struct agent_prof *prof;
	/* The legs' scratch folder's marker, locked while it is in use
	 * (scratch.c), or -1. */
	int scratch_lock;
};

/* agent_reply.c.  A reply to req: {"id": its id (null when it had
 * none), "ok": ok}. */
json_t *agent_reply(const json_t *req, bool ok);
/* A refusal: ok false, cause and the message. */
json_t *agent_refuse(const json_t *req, const char *cause, const char *fmt,
    ...) __attribute__((format(printf, 3, 4)));
/* The strings of array arr into *out (NULL-terminated, *n of them;
 * freed by the caller also after a refusal).  NULL, or the refusal
 * naming what. */
json_t *agent_strv(const json_t *req, const json_t *arr, const char *what,
    char ***out, size_t *n);
/* One line out; a failed write (the client has gone) ends the agent. */
void agent_send(struct agent *a, json_t *msg);
/* r, or (next not NULL: a request that came while r's request waited)
 * NULL once r is sent and next answered after it (next freed). */
json_t *agent_then(struct agent *a, json_t *r, json_t *next);
/* A request's op, or NULL. */
const char *agent_op(const json_t *req);
/* Whether a wait should end before it begins: a request is buffered
 * already, or a signal came. */
bool agent_interrupted(const struct agent *a);

/* agent_server.c: the ops on the server; each returns its reply (new
 * reference).  open may read the request that ended its gate (release,
 * cancel) and answer it too. */
json_t *agent_start(struct agent *a, const json_t *req);
/* start's fields checked as agent_start reads them, nothing run: NULL,
 * or the refusal (the fuzz target's way in). */
json_t *agent_start_check(const json_t *req);
json_t *agent_open(struct agent *a, const json_t *req);
json_t *agent_close(struct agent *a, const json_t *req);
json_t *agent_stop(struct agent *a, const json_t *req);
/* The gate before a window or a leg (agent_server.c): setup from the
 * request's budget_left_s, release_all and probe (false: malformed);
 * then the hold: its word ("quiet", "timeout", "budget", "released"), or
 * NULL when the wait stops; *next a request that came meanwhile, to be
 * answered after this one. */
bool agent_gate_setup(struct agent *a, const json_t *req);
const char *agent_gate(struct agent *a, struct quiet_seen *seen,
    json_t **next);
/* A number, or null for NAN. */
json_t *agent_num(double x);

/* A file name the agent writes in its folder: one plain name. */
bool agent_log_name_ok(const char *s);
/* DIR/PID.NAME: a file of this agent's own (a leg's output or stdin, a
 * profile's), named by its pid, so that two rounds served from one
 * folder at once (one host, one user, the default folder) never write
 * the same file. */
char *agent_own_file(const struct agent *a, const char *name);
/* The leg's scratch folder there (an absolute path) made or emptied by
 * scratch.c's rules, never holding cwd (the workdir), the agent's
 * folder, the program as resolved here (path) nor keep (the paths the
 * leg's command names; NULL-terminated, or NULL).  NULL, or the refusal
 * naming the folder. */
json_t *agent_scratch(struct agent *a, const json_t *req, const char *scratch,
    const char *cwd, const char *path, char *const *keep);

/* agent_leg.c: a leg run here, as a local leg is; its reply.  And the
 * legs' cgroup removed (at the agent's end). */
json_t *agent_leg(struct agent *a, const json_t *req);
void agent_leg_cgroup_end(struct agent *a);

/* agent_prof.c: prof_start, prof_stop, prof_report, prof_get, prof_legs;
 * their reply.  And a profiler still running stopped (before its server
 * is ended, at the agent's end). */
json_t *agent_prof(struct agent *a, const char *op, const json_t *req);
void agent_prof_end(struct agent *a);

/* The server and its whole tree ended (grace_s between SIGTERM and
 * SIGKILL), the window dropped. */
void agent_end_server(struct agent *a, double grace_s);

#endif
