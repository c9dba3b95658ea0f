/* Cell servers: started before a cell's first leg, pinned to their cpus,
 * waited on until ready.tcp_port accepts on loopback, and stopped by pid
 * (SIGTERM, a grace period, SIGKILL) after the cell. */
#ifndef BENCHTUI_SERVER_H
#define BENCHTUI_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "spec.h"

struct server;

/* Start the cell's server: argv already expanded, output to log_path.
 * Blocks until the port accepts.  NULL with err naming the cell, the exit
 * status or the timeout, and the log file when it died or never listened
 * (nothing is left running then).  abort_fd (or -1) ends the wait early. */
struct server *server_start(const struct spec_cell *cell,
    char *const *argv, char *const *envp, const char *cwd,
    const char *log_path, const unsigned char *cpus, int ncpus,
    int abort_fd, char *err, size_t errlen);

pid_t server_pid(const struct server *srv);

/* Whether the server is still running (reaps it if it has died, keeping
 * its status for the message). */
bool server_alive(struct server *srv);

/* A one-sentence description of how it died ("exited with status 1",
 * "killed by signal 9"), valid after server_alive returned false. */
const char *server_death(const struct server *srv);

/* Stop it by pid and its process group: SIGTERM, grace_s, SIGKILL.  Returns
 * "stopped" or "died" (had already exited) for the log. */
const char *server_stop(struct server *srv, double grace_s);

void server_destroy(struct server *srv);

#endif
