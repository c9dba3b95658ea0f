/* The server meter.  One perf fd per (thread, event): a per-thread event
 * with inherit counts that thread and every task it creates afterwards, so
 * opening on each thread that exists at the start covers the whole tree
 * through the leg.  The walk is O(tasks of the tree x events), at most
 * SRVMETER_MAX_FDS fds; a server with more threads than that is counted on
 * the first ones and says so ("tasks" vs "tasks_counted"). */
#include "srvmeter.h"

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cgroup.h"
#include "counters.h"
#include "procs.h"
#include "xalloc.h"

#define SRVMETER_MAX_FDS 4096

struct srvmeter_fd {
	int fd;
	int event;
};

struct srvmeter {
	pid_t root;
	int nev;
	char **names;
	struct srvmeter_fd *fds;
	size_t nfds, ntasks, ncounted;
	bool user_only;
	struct perf_event_attr *attr; /* each event's, from counters_attr */
	bool *known;                  /* counters_attr knew the name */
	const struct cgroup *cg; /* the servers' cgroup, or NULL */
	long long t0[2];      /* utime, stime at the start (ticks, or usec
	                       * from the cgroup); -1: unread */
};

/* Each event's attr, set up by counters.c once a meter (again when the
 * paranoid fallback turns user_only on), not once a thread. */
static void
srvmeter_attrs(struct srvmeter *m)
{
	for (int e = 0; e < m->nev; e++)
		m->known[e] = counters_attr(&m->attr[e], m->names[e],
		    m->user_only, false);
}

static int
srvmeter_open_one(const struct perf_event_attr *attr, pid_t tid)
{
	return (int)syscall(SYS_perf_event_open, attr, tid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
}

/* Open every event on one thread. */
static void
srvmeter_open_task(struct srvmeter *m, pid_t tid)
{
	m->ntasks++;
	if (m->nfds + (size_t)m->nev > SRVMETER_MAX_FDS)
		return;
	m->ncounted++;
	for (int e = 0; e < m->nev; e++) {
		int fd;

		if (!m->known[e])
			continue;
		fd = srvmeter_open_one(&m->attr[e], tid);
		if (fd < 0 && errno == EACCES && !m->user_only) {
			/* perf_event_paranoid: user space only, as the
			 * leg's counters do. */
			m->user_only = true;
			srvmeter_attrs(m);
			fd = srvmeter_open_one(&m->attr[e], tid);
		}
		if (fd < 0)
			continue;
		m->fds[m->nfds].fd = fd;
		m->fds[m->nfds].event = e;
		m->nfds++;
	}
}

/* The CPU reading: from the cgroup when there is one, else /proc: utime
 * and stime (each with the children reaped inside the tree) summed over
 * root's tree, zombies included, down the children links (not a walk of
 * the host's /proc), in clock ticks.  -1 when root is gone. */
static int
srvmeter_cpu(const struct srvmeter *m, long long out[2])
{
	if (m->cg != NULL)
		return cgroup_cpu_split(m->cg, &out[0], &out[1]);
	return procs_tree_cpu(m->root, &out[0], &out[1]);
}

struct srvmeter *
srvmeter_begin(pid_t root, const char *const *names, int n,
    const struct cgroup *cg)
{
	struct srvmeter *m = xcalloc(1, sizeof *m);
	pid_t *pids;
	size_t np = 0, cap;

	m->root = root;
	m->nev = n;
	m->names = xcalloc((size_t)n + 1, sizeof *m->names);
	m->fds = xcalloc(SRVMETER_MAX_FDS, sizeof *m->fds);
	for (int i = 0; i < n; i++)
		m->names[i] = xstrdup(names[i]);
	m->attr = xcalloc((size_t)n + 1, sizeof *m->attr);
	m->known = xcalloc((size_t)n + 1, sizeof *m->known);
	srvmeter_attrs(m);
	m->cg = cg;
	/* root's tree down the children links: O(the tree), not the host's
	 * /proc; each member's children are appended behind it. */
	pids = xcalloc(1, sizeof *pids);
	pids[np++] = root;
	cap = 1;
	for (size_t i = 0; i < np; i++)
		procs_children(pids[i], &pids, &np, &cap);
	for (size_t i = 0; i < np; i++) {
		char path[64];
		struct dirent *d;
		DIR *dir;

		if (i > 0 && !procs_alive(pids[i]))
			continue; /* a zombie: no thread left to count */
		snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
		if ((dir = opendir(path)) == NULL)
			continue;
		while ((d = readdir(dir)) != NULL) {
			pid_t tid = (pid_t)atoi(d->d_name);

			if (tid > 0)
				srvmeter_open_task(m, tid);
		}
		closedir(dir);
	}
	free(pids);
	if (srvmeter_cpu(m, m->t0) != 0)
		m->t0[0] = -1;
	return m;
}

/* A CPU difference in seconds: microseconds from the cgroup, else clock
 * ticks. */
static json_t *
srvmeter_seconds(const struct srvmeter *m, long long d)
{
	long hz = sysconf(_SC_CLK_TCK);
	double unit = m->cg != NULL ? 1e6 : (double)(hz > 0 ? hz : 100);

	return json_real((double)(d > 0 ? d : 0) / unit);
}

json_t *
srvmeter_end(struct srvmeter *m)
{
	json_t *b = json_object(), *ctr = json_object();
	long long t1[2];
	uint64_t *sum;
	bool *seen;

	sum = xcalloc((size_t)m->nev + 1, sizeof *sum);
	seen = xcalloc((size_t)m->nev + 1, sizeof *seen);
	for (size_t i = 0; i < m->nfds; i++) {
		uint64_t v[3], val;

		if (read(m->fds[i].fd, v, sizeof v) != (ssize_t)sizeof v ||
		    !counters_scale(v[0], v[1], v[2], &val))
			continue;
		sum[m->fds[i].event] += val;
		seen[m->fds[i].event] = true;
	}
	json_object_set_new(b, "pid", json_integer(m->root));
	json_object_set_new(b, "tasks", json_integer((json_int_t)m->ntasks));
	if (m->ncounted < m->ntasks)
		json_object_set_new(b, "tasks_counted",
		    json_integer((json_int_t)m->ncounted));
	json_object_set_new(b, "cpu_source", json_string(m->cg != NULL ?
	    "cgroup" : "proc"));
	if (m->t0[0] >= 0 && srvmeter_cpu(m, t1) == 0) {
		long long ut = t1[0] - m->t0[0], st = t1[1] - m->t0[1];

		json_object_set_new(b, "utime", srvmeter_seconds(m, ut));
		json_object_set_new(b, "stime", srvmeter_seconds(m, st));
		json_object_set_new(b, "cpu", srvmeter_seconds(m,
		    (ut > 0 ? ut : 0) + (st > 0 ? st : 0)));
	} else {
		json_object_set_new(b, "utime", json_null());
		json_object_set_new(b, "stime", json_null());
		json_object_set_new(b, "cpu", json_null());
	}
	for (int e = 0; e < m->nev; e++)
		json_object_set_new(ctr, m->names[e], seen[e] ?
		    json_integer((json_int_t)sum[e]) : json_null());
	json_object_set_new(b, "cycles", json_incref(json_object_get(ctr,
	    "cycles") ? json_object_get(ctr, "cycles") : json_null()));
	json_object_set_new(b, "instructions", json_incref(json_object_get(ctr,
	    "instructions") ? json_object_get(ctr, "instructions") :
	    json_null()));
	json_object_set_new(b, "counters", ctr);
	free(sum);
	free(seen);
	srvmeter_destroy(m);
	return b;
}

void
srvmeter_destroy(struct srvmeter *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; m->fds != NULL && i < m->nfds; i++)
		close(m->fds[i].fd);
	for (int i = 0; m->names != NULL && i < m->nev; i++)
		free(m->names[i]);
	free(m->names);
	free(m->attr);
	free(m->known);
	free(m->fds);
	free(m);
}
