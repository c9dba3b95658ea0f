/* Inside the agent's client: the connection (struct remote) and the
 * request machinery remote.c keeps (ssh, the handshake, the wait for a
 * reply, a lost connection), which remote_ops.c's requests on the
 * server and the legs use.  Not part of the engine's public surface. */
#ifndef BENCHTUI_REMOTE_CONN_H
#define BENCHTUI_REMOTE_CONN_H

#include <jansson.h>
#include <stdbool.h>
#include <sys/types.h>

#include "remote.h"
#include "wire.h"

#define REMOTE_PINGS 5
/* How long a request that does not wait on the server may take. */
#define REMOTE_CALL_S 60.0

struct remote {
	char *host;
	char name[REMOTE_NAME_MAX]; /* host, as messages name it */
	char *cmdline;
	char *cmdname;         /* cmdline with name for host: for messages */
	char *stderr_path;
	off_t err_from;        /* where this connection's stderr begins */
	int err_rd;            /* ssh's stderr (a pipe), -1 once closed */
	int err_log;           /* its copy in stderr_path, up to err_max */
	size_t err_bytes, err_max;
	char **counters;       /* the window's events, as close names them */
	bool cancelled;        /* a cancel was sent: an "aborted" refusal is
	                        * the answer to it */
	bool timed_out;        /* a wait for a reply ran out of time */
	bool broke;            /* lost to a protocol error (what the far
	                        * side sent, or how much) */
	pid_t ssh_pid;
	bool reaped;
	int status;
	int to;                /* the agent's input (a socket) */
	struct wire_in from;   /* its output */
	long long next_id;
	unsigned long requests, taken;
	json_t *hello;
	double rtt[REMOTE_PINGS];
	int nrtt;
	bool lost;
	char why[1536];
};

/* What the waiting side does while a request is out. */
struct remote_wait {
	double deadline;
	int abort_fd, release_fd;
	remote_event_fn fn;
	void *arg;
	int extra;             /* cancel and release sent: replies to drop */
	double t0;             /* when the request was sent */
	int events;            /* the far gate's samples passed on */
	bool give_up;          /* abort_fd loses the connection (no cancel:
	                        * nothing is under way there yet) */
};

/* Send req (its reference taken) with the next id and wait for its
 * reply; then drop the replies to a cancel or release sent meanwhile.
 * The reply, or NULL with the connection lost. */
json_t *remote_call(struct remote *rm, json_t *req, struct remote_wait *w);
/* A call that does not wait on the server or the gate. */
json_t *remote_call_plain(struct remote *rm, json_t *req, double timeout_s);
/* A reply that says no: "HOST: the agent's message" (made printable,
 * cut) into err; false when it said yes. */
bool remote_refused(const struct remote *rm, const json_t *reply, char *err,
    size_t errlen);
/* The far side broke the protocol (what it sent, or how much): the
 * connection is lost, said as a protocol error naming the host. */
void remote_broken(struct remote *rm, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
