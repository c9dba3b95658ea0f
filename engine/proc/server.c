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

#include "cgroup.h"
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
	struct cgroup *cg; /* its group (server_params.cg), or NULL */
	double started;    /* the pid's start (procs_stat), or -1 */
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

/* pids[0..n) without root and without repeats, in place.  How many are
 * left.  O(n^2), n <= SERVER_MAX_DESC. */
static size_t
server_unique(pid_t root, pid_t *pids, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		bool seen = pids[i] == root;

		for (size_t j = 0; j < k && !seen; j++)
			seen = pids[j] == pids[i];
		if (!seen)
			pids[k++] = pids[i];
	}
	return k;
}

/* What server_members looks for beyond the root's tree. */
struct server_escaped {
	pid_t self, root;
	double since;
	pid_t *pids;
	size_t n, max;
};

/* procs_each: benchtui's children started after the server: in a later
 * clock tick, or in its tick with a later pid (start times count ticks of
 * 10 ms; pids grow but for a wrap at pid_max). */
static bool
server_escaped_each(const struct procs_stat *st, void *arg)
{
	struct server_escaped *e = arg;

	if (st->ppid == e->self && (st->started > e->since ||
	    (st->started == e->since && st->pid > e->root)) &&
	    st->state != 'Z' && st->state != 'X' && e->n < e->max)
		e->pids[e->n++] = st->pid;
	return false;
}

/* The processes of the server rooted at root (but root): its tree, and
 * what escaped it (a double fork reparented to benchtui, its subreaper):
 * with a group, the group's members; else benchtui's children started
 * no earlier than root (started: root's start, -1 unknown) and their
 * trees.  How many (up to max).  O(the host's processes). */
static size_t
server_members(pid_t root, struct cgroup *cg, double started, pid_t *pids,
    size_t max)
{
	size_t n = procs_descendants(root, pids, max), k;
	struct server_escaped e = { .self = getpid(), .root = root,
		.since = started,
		.pids = pids + n, .max = max - n };

	if (cg != NULL) {
		e.n = cgroup_pids(cg, e.pids, e.max);
	} else if (started >= 0) {
		(void)procs_each(server_escaped_each, &e);
		/* Their own children (reparented ones are counted above). */
		for (k = n, n += e.n; k < n && n < max; k++)
			if (pids[k] != root)
				n += procs_descendants(pids[k], pids + n, max - n);
		return server_unique(root, pids, n);
	}
	return server_unique(root, pids, n + e.n);
}

/* SIGKILL pids[0..n) and wait until they are gone (reaping ours), at most
 * 2 s: a killed process holds its sockets until it has exited (tearing
 * down a large memory takes a while), and the next server on the port
 * must not find them.  With a group, everything in it too. */
static void
server_kill_wait(struct cgroup *cg, const pid_t *pids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (procs_alive(pids[i]))
			(void)kill(pids[i], SIGKILL);
	if (cg != NULL)
		(void)cgroup_kill(cg, 2.0);
	procs_wait_gone(pids, n, NULL, 0, 2.0, 5);
}

/* End the server, its group and every process of its own, and reap it. */
static void
server_kill_all(pid_t pid, struct cgroup *cg, double started)
{
	pid_t desc[SERVER_MAX_DESC];
	size_t n;

	n = server_members(pid, cg, started, desc, SERVER_MAX_DESC);
	(void)kill(pid, SIGKILL);
	procs_kill_group(pid);
	(void)waitpid(pid, NULL, 0);
	server_kill_wait(cg, desc, n);
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

/* How many of the sockets the server's processes (root and its members)
 * hold; the rest belong to someone else. */
static size_t
server_tree_holds(pid_t root, struct cgroup *cg, double started,
    const unsigned long *inodes, size_t n)
{
	pid_t desc[SERVER_MAX_DESC];
	size_t nd = server_members(root, cg, started, desc, SERVER_MAX_DESC);
	size_t held = 0;

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
		.ncpus = p->ncpus, .cgroup_procs_fd = p->cg != NULL ?
		    cgroup_procs_fd(p->cg) : -1 };

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
server_wait_ready(const struct server_params *p, pid_t pid, double started,
    char *err, size_t errlen)
{
	double deadline = clock_now() + p->ready_timeout_s;
	unsigned long inodes[SERVER_MAX_INODES];
	char how[96];
	int status;
	size_t n;

	for (;;) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			server_describe(status, how, sizeof how);
			/* Its children may still hold the group, or the
			 * port. */
			server_kill_all(pid, p->cg, started);
			snprintf(err, errlen, "cell %s: server %s before it was "
			    "ready; see %s", p->cell, how,
			    server_log_name(p->log_path));
			return "died";
		}
		n = server_listen_inodes(p->tcp_port, inodes, SERVER_MAX_INODES);
		if (n > 0) {
			if (server_tree_holds(pid, p->cg, started, inodes,
			    n) < n) {
				server_foreign(p, true, err, errlen);
				server_kill_all(pid, p->cg, started);
				return "port_taken";
			}
			if (server_port_accepts(p->tcp_port, SERVER_POLL_MS))
				return NULL;
		}
		if (clock_now() >= deadline) {
			server_kill_all(pid, p->cg, started);
			snprintf(err, errlen, "cell %s: server did not accept on "
			    "127.0.0.1:%d within %g s; see %s", p->cell,
			    p->tcp_port, p->ready_timeout_s,
			    server_log_name(p->log_path));
			return "ready_timeout";
		}
		if (clock_nap(p->abort_fd, SERVER_POLL_MS)) {
			server_kill_all(pid, p->cg, started);
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
	struct procs_stat st;
	double started;
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
	if ((pid = server_spawn(p, err, errlen)) < 0)
		goto fail;
	started = procs_stat(pid, &st) == 0 ? st.started : -1;
	if ((why = server_wait_ready(p, pid, started, err, errlen)) != NULL)
		goto fail;
	srv = xcalloc(1, sizeof *srv);
	srv->pid = pid;
	srv->cg = p->cg;
	srv->started = started;
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

	/* Descendants that left the group (setsid), and what escaped the
	 * tree, are ended by pid. */
	n = server_members(srv->pid, srv->cg, srv->started, desc,
	    SERVER_MAX_DESC);
	if (!server_alive(srv)) {
		/* Whatever it left goes too. */
		procs_kill_group(srv->pid);
		server_kill_wait(srv->cg, desc, n);
		return "died";
	}
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
	/* The rest of the group had the same grace; what is left is killed,
	 * and waited for. */
	procs_end_group(srv->pid, grace_s > 0.2 ? 0.2 : grace_s);
	server_kill_wait(srv->cg, desc, n);
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
