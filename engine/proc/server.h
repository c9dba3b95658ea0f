/* Servers: started (for a cell, or for one leg), pinned to their cpus,
 * waited on until their own listener on ready.tcp_port accepts on loopback,
 * and stopped by pid (SIGTERM, a grace period, SIGKILL). */
#ifndef BENCHTUI_SERVER_H
#define BENCHTUI_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup;
struct server;

/* What a server is started with: plain values, so any caller (a cell's
 * server for the whole cell, or one per leg with the arm's binary and
 * environment) builds them its own way. */
struct server_params {
	const char *cell;             /* named in every message */
	const char *path;             /* the program as the caller resolved
	                               * argv[0] (legcmd), execve'd as is;
	                               * NULL: argv[0] as is */
	char *const *argv;            /* expanded */
	char *const *envp;            /* NULL: benchtui's own */
	const char *cwd;
	const char *log_path;         /* appended to */
	const unsigned char *cpus;    /* pin mask of ncpus entries, or NULL */
	int ncpus;
	int tcp_port;                 /* ready: ours listens and it accepts */
	double ready_timeout_s;
	int abort_fd;                 /* readable: stop waiting; or -1 */
	struct cgroup *cg;            /* the group it runs in, alone (joined
	                               * before its exec; what it forks, however
	                               * it escapes, stays there), or NULL */
};

/* Start a server and wait until it is ready: a socket listening on
 * tcp_port belongs to the server's processes (its inode is among their
 * fds) and 127.0.0.1:tcp_port accepts.  The server's processes are its
 * tree and what escaped it (a daemon's double fork, reparented to
 * benchtui as subreaper): with a cgroup the group's members, else
 * benchtui's children started no earlier than the server, and their
 * trees.  A port that already has a
 * listener before the start, or that another process takes while we wait,
 * is an error naming the port and that process when /proc shows it.  NULL
 * with err naming the cell, the exit status or the timeout, and the log
 * file when it died or never listened (nothing is left running then), and
 * *cause (when cause is not NULL) saying which: "port_taken", "died",
 * "ready_timeout", "aborted" or "failed" (it could not be started). */
struct server *server_start(const struct server_params *p,
    const char **cause, char *err, size_t errlen);

/* Who listens on TCP port (any address, IPv4 or IPv6): "pid N (COMM)",
 * "a process benchtui cannot see" when no readable fd table holds the
 * socket, or "" when nothing listens.  Walks every process's fds: O(all
 * processes x their fds), so only for error messages. */
void server_port_holder(int port, char *buf, size_t len);

pid_t server_pid(const struct server *srv);

/* Whether the server is still running (reaps it if it has died, keeping
 * its status for the message). */
bool server_alive(struct server *srv);

/* A one-sentence description of how it died ("exited with status 1",
 * "killed by signal 9"), valid after server_alive returned false. */
const char *server_death(const struct server *srv);

/* Stop it by pid and its process group: SIGTERM, grace_s, SIGKILL; then
 * every process of the server's that is left (see server_start) gets
 * SIGKILL, and the stop waits until they are gone, so the port is free
 * for the next server.  Returns "stopped" or "died" (had already exited)
 * for the log. */
const char *server_stop(struct server *srv, double grace_s);

void server_destroy(struct server *srv);

/* Whether 127.0.0.1:port accepts a connection within wait_ms. */
bool server_port_accepts(int port, int wait_ms);

#endif
