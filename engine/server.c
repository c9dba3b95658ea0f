/* Cell servers: spawned (spawn.c) with no shell, in their own process group, pinned,
 * output appended to the cell's log; ready when 127.0.0.1:PORT accepts;
 * stopped by pid and pgid.  Nothing is left running when a start fails. */
#include "server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"
#include "rfile.h"
#include "spawn.h"

extern char **environ;

#define SERVER_POLL_MS 50
#define SERVER_MAX_DESC 256

struct server {
	pid_t pid;
	bool dead;
	int status;        /* wait status, valid when dead */
	char death[96];
};

/* "servers/CELL.log" out of DIR/servers/CELL.log: the name the user sees in
 * the round folder. */
static const char *
server_log_name(const char *log_path)
{
	const char *last = strrchr(log_path, '/');
	const char *p;

	if (last == NULL || last == log_path)
		return log_path;
	for (p = last - 1; p > log_path; p--)
		if (*p == '/')
			return p + 1;
	return log_path;
}

static void
server_describe(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exited with status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "was killed by signal %d (%s)",
		    WTERMSIG(status), strsignal(WTERMSIG(status)));
	else
		snprintf(buf, len, "ended with wait status %d", status);
}

/* Whether 127.0.0.1:port accepts a connection within wait_ms. */
static bool
server_port_accepts(int port, int wait_ms)
{
	struct sockaddr_in sa;
	struct pollfd p;
	int fd, soerr = 0;
	socklen_t sl = sizeof soerr;
	bool ok = false;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		p.fd = fd;
		p.events = POLLOUT;
		if (poll(&p, 1, wait_ms) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == 0 &&
		    soerr == 0)
			ok = true;
	}
	close(fd);
	return ok;
}

/* End the server, its group and any descendant that left the group (setsid),
 * and reap it. */
static void
server_kill_all(pid_t pid)
{
	pid_t desc[SERVER_MAX_DESC];
	size_t n, i;

	n = procs_descendants(pid, desc, SERVER_MAX_DESC);
	(void)kill(pid, SIGKILL);
	for (i = 0; i < n; i++)
		(void)kill(desc[i], SIGKILL);
	procs_kill_group(pid);
	(void)waitpid(pid, NULL, 0);
	for (i = 0; i < n; i++)
		(void)waitpid(desc[i], NULL, WNOHANG);
}

struct server *
server_start(const struct spec_cell *cell, char *const *argv,
    char *const *envp, const char *cwd, const char *log_path,
    const unsigned char *cpus, int ncpus, int abort_fd, char *err,
    size_t errlen)
{
	const struct spec_server *ss = cell->server;
	struct server *srv = NULL;
	double deadline;
	int logfd = -1, status;
	pid_t pid;

	if (ss == NULL || argv == NULL || argv[0] == NULL) {
		snprintf(err, errlen, "cell %s: no server command", cell->name);
		return NULL;
	}
	/* Readiness is "the port accepts": with someone else already on it,
	 * the legs would talk to them and the numbers be theirs. */
	if (server_port_accepts(ss->tcp_port, SERVER_POLL_MS)) {
		snprintf(err, errlen, "cell %s: something already accepts on "
		    "127.0.0.1:%d before the server was started; stop it or give "
		    "the server another ready.tcp_port", cell->name,
		    ss->tcp_port);
		return NULL;
	}
	logfd = rfile_open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (logfd < 0) {
		snprintf(err, errlen, "cell %s: cannot open server log %s: %s",
		    cell->name, log_path, rfile_strerror(errno));
		return NULL;
	}
	srv = calloc(1, sizeof *srv);
	if (srv == NULL) {
		snprintf(err, errlen, "cell %s: out of memory", cell->name);
		goto fail;
	}
	/* The one spawn path (spawn.c): no PATH search in the child, so the
	 * program is resolved here as check resolved it. */
	{
		char *path = spec_resolve_program(argv[0], cwd != NULL ? cwd : ".");
		struct spawn_req rq = { .path = path != NULL ? path : argv[0],
			.argv = argv, .envp = envp != NULL ? envp : environ,
			.cwd = cwd, .out_fd = logfd, .cpus = cpus, .ncpus = ncpus,
			.cgroup_procs_fd = -1 };
		char serr[512];

		pid = spawn_run(&rq, NULL, serr, sizeof serr);
		free(path);
		if (pid < 0) {
			snprintf(err, errlen, "cell %s: cannot start the server: "
			    "%s; see %s", cell->name, serr,
			    server_log_name(log_path));
			goto fail;
		}
	}
	close(logfd);
	logfd = -1;
	srv->pid = pid;

	deadline = clock_now() + ss->ready_timeout_s;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid) {
			char how[96];

			server_describe(status, how, sizeof how);
			/* Its children may still hold the group. */
			procs_kill_group(pid);
			snprintf(err, errlen, "cell %s: server %s before it was "
			    "ready; see %s", cell->name, how,
			    server_log_name(log_path));
			goto fail;
		}
		if (server_port_accepts(ss->tcp_port, SERVER_POLL_MS))
			break;
		if (clock_now() >= deadline) {
			server_kill_all(pid);
			snprintf(err, errlen, "cell %s: server did not accept on "
			    "127.0.0.1:%d within %g s; see %s", cell->name,
			    ss->tcp_port, ss->ready_timeout_s,
			    server_log_name(log_path));
			goto fail;
		}
		if (clock_nap(abort_fd, SERVER_POLL_MS)) {
			server_kill_all(pid);
			snprintf(err, errlen, "cell %s: server start aborted "
			    "before it was ready", cell->name);
			goto fail;
		}
	}
	/* A port held by someone else would answer too: make sure ours is
	 * still the one running. */
	if (waitpid(pid, &status, WNOHANG) == pid) {
		char how[96];

		server_describe(status, how, sizeof how);
		procs_kill_group(pid);
		snprintf(err, errlen, "cell %s: server %s before it was ready "
		    "(something else answers on 127.0.0.1:%d); see %s",
		    cell->name, how, ss->tcp_port, server_log_name(log_path));
		goto fail;
	}
	return srv;
fail:
	if (logfd >= 0)
		close(logfd);
	free(srv);
	return NULL;
}

pid_t
server_pid(const struct server *srv)
{
	return srv->pid;
}

/* The server has been reaped with this wait status. */
static void
server_reaped(struct server *srv, int status)
{
	srv->dead = true;
	srv->status = status;
	server_describe(status, srv->death, sizeof srv->death);
}

bool
server_alive(struct server *srv)
{
	int status;

	if (srv->dead)
		return false;
	if (waitpid(srv->pid, &status, WNOHANG) == srv->pid) {
		server_reaped(srv, status);
		return false;
	}
	return true;
}

const char *
server_death(const struct server *srv)
{
	return srv->dead ? srv->death : "is running";
}

const char *
server_stop(struct server *srv, double grace_s)
{
	pid_t desc[SERVER_MAX_DESC];
	size_t n, i;
	double deadline;
	int status;

	if (!server_alive(srv)) {
		/* Whatever it left in its group goes too. */
		procs_kill_group(srv->pid);
		return "died";
	}
	/* Descendants that left the group (setsid) are ended by pid. */
	n = procs_descendants(srv->pid, desc, SERVER_MAX_DESC);
	(void)kill(srv->pid, SIGTERM);
	(void)kill(-srv->pid, SIGTERM);
	for (i = 0; i < n; i++)
		(void)kill(desc[i], SIGTERM);
	deadline = clock_now() + grace_s;
	while (server_alive(srv) && clock_now() < deadline)
		clock_nap(-1, 10);
	if (!srv->dead) {
		(void)kill(srv->pid, SIGKILL);
		if (waitpid(srv->pid, &status, 0) == srv->pid)
			server_reaped(srv, status);
	}
	/* The rest of the group had the same grace; what is left is killed. */
	procs_end_group(srv->pid, grace_s > 0.2 ? 0.2 : grace_s);
	for (i = 0; i < n; i++) {
		if (procs_alive(desc[i]))
			(void)kill(desc[i], SIGKILL);
		(void)waitpid(desc[i], NULL, WNOHANG);
	}
	return "stopped";
}

void
server_destroy(struct server *srv)
{
	if (srv == NULL)
		return;
	/* A server still running when its owner lets go is stopped, so no
	 * round leaves one behind. */
	if (!srv->dead)
		(void)server_stop(srv, 1.0);
	free(srv);
}
