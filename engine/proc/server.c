/* Servers: spawned (spawn.c) with no shell, in their own process group,
 * pinned, output appended to the cell's log; ready when a listener on PORT
 * is the server's own (its socket inode among the tree's fds) and
 * 127.0.0.1:PORT accepts; stopped by pid and pgid.  Nothing is left running
 * when a start fails. */
#include "server.h"

#include <arpa/inet.h>
#include <dirent.h>
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
#include "xalloc.h"

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

bool
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

#define SERVER_MAX_INODES 16

/* Inodes of the sockets listening on TCP port, from /proc/net/tcp and tcp6
 * (this network namespace, where 127.0.0.1 leads).  How many (up to max).
 * O(sockets on the host), read every poll of the ready wait. */
static size_t
server_listen_inodes(int port, unsigned long *inodes, size_t max)
{
	static const char *const files[] = { "/proc/net/tcp", "/proc/net/tcp6" };
	char line[512];
	size_t n = 0;

	for (size_t f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "re");

		if (fp == NULL)
			continue;
		/* The first line is a header. */
		if (fgets(line, sizeof line, fp) == NULL) {
			fclose(fp);
			continue;
		}
		while (fgets(line, sizeof line, fp) != NULL && n < max) {
			char local[64], remote[64], *colon;
			unsigned st, lport;
			unsigned long inode;

			/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, " %*s %63s %63s %x %*s %*s %*s %*u %*u %lu",
			    local, remote, &st, &inode) != 4)
				continue;
			colon = strrchr(local, ':');
			if (colon == NULL || sscanf(colon + 1, "%x", &lport) != 1)
				continue;
			if (st == 0x0A /* TCP_LISTEN */ && (int)lport == port &&
			    inode != 0)
				inodes[n++] = inode;
		}
		fclose(fp);
	}
	return n;
}

/* Whether pid has an fd on one of the sockets.  O(its fds). */
static bool
server_pid_holds(pid_t pid, const unsigned long *inodes, size_t n)
{
	char path[64], link[64];
	struct dirent *d;
	bool found = false;
	DIR *dir;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if ((dir = opendir(path)) == NULL)
		return false;
	while (!found && (d = readdir(dir)) != NULL) {
		unsigned long ino;
		ssize_t len;

		if (d->d_name[0] == '.')
			continue;
		len = readlinkat(dirfd(dir), d->d_name, link, sizeof link - 1);
		if (len <= 0)
			continue;
		link[len] = '\0';
		if (sscanf(link, "socket:[%lu]", &ino) != 1)
			continue;
		for (size_t i = 0; i < n; i++)
			if (inodes[i] == ino)
				found = true;
	}
	closedir(dir);
	return found;
}

/* How many of the sockets the server's tree (root and its descendants)
 * holds; the rest belong to someone else. */
static size_t
server_tree_holds(pid_t root, const unsigned long *inodes, size_t n)
{
	pid_t desc[SERVER_MAX_DESC];
	size_t nd = procs_descendants(root, desc, SERVER_MAX_DESC), held = 0;

	for (size_t i = 0; i < n; i++) {
		bool mine = server_pid_holds(root, &inodes[i], 1);

		for (size_t k = 0; !mine && k < nd; k++)
			mine = server_pid_holds(desc[k], &inodes[i], 1);
		held += mine;
	}
	return held;
}

void
server_port_holder(int port, char *buf, size_t len)
{
	unsigned long inodes[SERVER_MAX_INODES];
	size_t n = server_listen_inodes(port, inodes, SERVER_MAX_INODES);
	struct dirent *d;
	DIR *proc;

	if (n == 0) {
		snprintf(buf, len, "%s", "");
		return;
	}
	snprintf(buf, len, "a process benchtui cannot see");
	if ((proc = opendir("/proc")) == NULL)
		return;
	while ((d = readdir(proc)) != NULL) {
		char path[64], comm[64] = "?";
		pid_t pid = (pid_t)atoi(d->d_name);
		FILE *fp;

		if (pid <= 0 || !server_pid_holds(pid, inodes, n))
			continue;
		snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
		if ((fp = fopen(path, "re")) != NULL) {
			if (fgets(comm, sizeof comm, fp) != NULL)
				comm[strcspn(comm, "\n")] = '\0';
			fclose(fp);
		}
		snprintf(buf, len, "pid %d (%s)", (int)pid, comm);
		break;
	}
	closedir(proc);
}

/* The port has a listener that is not the server's: name it. */
static void
server_foreign(const struct server_params *p, bool started, char *err,
    size_t errlen)
{
	char who[128];

	server_port_holder(p->tcp_port, who, sizeof who);
	if (who[0] == '\0')
		snprintf(who, sizeof who, "a process benchtui cannot see");
	snprintf(err, errlen, "cell %s: port %d %s by %s, not by the cell's "
	    "server; stop it or give the server another ready.tcp_port",
	    p->cell, p->tcp_port, started ? "was taken while the server "
	    "started," : "already has a listener before the server was "
	    "started: it is held", who);
}

/* Spawn the server, its output appended to its log.  Its pid, or -1 with
 * err. */
static pid_t
server_spawn(const struct server_params *p, char *err, size_t errlen)
{
	int logfd = rfile_open(p->log_path, O_WRONLY | O_CREAT | O_APPEND,
	    0644);
	char serr[512];
	pid_t pid;

	if (logfd < 0) {
		snprintf(err, errlen, "cell %s: cannot open server log %s: %s",
		    p->cell, p->log_path, rfile_strerror(errno));
		return -1;
	}
	/* The one spawn path (spawn.c): no PATH search in the child, so the
	 * program is the one the caller resolved (legcmd, as check did). */
	struct spawn_req rq = { .path = p->path != NULL ? p->path : p->argv[0],
		.argv = p->argv, .envp = p->envp != NULL ? p->envp : environ,
		.cwd = p->cwd, .out_fd = logfd, .cpus = p->cpus,
		.ncpus = p->ncpus, .cgroup_procs_fd = p->cgroup_procs_fd > 0 ?
		    p->cgroup_procs_fd : -1 };

	pid = spawn_run(&rq, NULL, serr, sizeof serr);
	close(logfd);
	if (pid < 0)
		snprintf(err, errlen, "cell %s: cannot start the server: %s; "
		    "see %s", p->cell, serr, server_log_name(p->log_path));
	return pid;
}

/* Wait until the server pid is ready: a listener on the port in its
 * process tree, never merely something that answers.  NULL; or, with err,
 * why not (a server_start cause: it died, someone else took the port, the
 * time ran out, the wait was aborted; nothing of it is left running). */
static const char *
server_wait_ready(const struct server_params *p, pid_t pid, char *err,
    size_t errlen)
{
	double deadline = clock_now() + p->ready_timeout_s;
	unsigned long inodes[SERVER_MAX_INODES];
	char how[96];
	int status;
	size_t n;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			server_describe(status, how, sizeof how);
			/* Its children may still hold the group. */
			procs_kill_group(pid);
			snprintf(err, errlen, "cell %s: server %s before it was "
			    "ready; see %s", p->cell, how,
			    server_log_name(p->log_path));
			return "died";
		}
		n = server_listen_inodes(p->tcp_port, inodes, SERVER_MAX_INODES);
		if (n > 0) {
			if (server_tree_holds(pid, inodes, n) < n) {
				server_foreign(p, true, err, errlen);
				server_kill_all(pid);
				return "port_taken";
			}
			if (server_port_accepts(p->tcp_port, SERVER_POLL_MS))
				return NULL;
		}
		if (clock_now() >= deadline) {
			server_kill_all(pid);
			snprintf(err, errlen, "cell %s: server did not accept on "
			    "127.0.0.1:%d within %g s; see %s", p->cell,
			    p->tcp_port, p->ready_timeout_s,
			    server_log_name(p->log_path));
			return "ready_timeout";
		}
		if (clock_nap(p->abort_fd, SERVER_POLL_MS)) {
			server_kill_all(pid);
			snprintf(err, errlen, "cell %s: server start aborted "
			    "before it was ready", p->cell);
			return "aborted";
		}
	}
}

struct server *
server_start(const struct server_params *p, const char **cause, char *err,
    size_t errlen)
{
	unsigned long inodes[SERVER_MAX_INODES];
	const char *why = "failed";
	struct server *srv;
	pid_t pid;

	if (p->argv == NULL || p->argv[0] == NULL) {
		snprintf(err, errlen, "cell %s: no server command", p->cell);
		goto fail;
	}
	/* With someone else already on the port, the legs would talk to
	 * them and the numbers be theirs. */
	if (server_listen_inodes(p->tcp_port, inodes, SERVER_MAX_INODES) > 0 ||
	    server_port_accepts(p->tcp_port, SERVER_POLL_MS)) {
		server_foreign(p, false, err, errlen);
		why = "port_taken";
		goto fail;
	}
	if ((pid = server_spawn(p, err, errlen)) < 0 ||
	    (why = server_wait_ready(p, pid, err, errlen)) != NULL)
		goto fail;
	srv = xcalloc(1, sizeof *srv);
	srv->pid = pid;
	return srv;
fail:
	if (cause != NULL)
		*cause = why;
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
