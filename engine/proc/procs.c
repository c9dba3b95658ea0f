/* The process table: our own tree (by /proc/PID/stat ppid links), and ending
 * processes by pid or process group, never by name. */
#include "procs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "xalloc.h"

struct procs_table {
	struct procs_stat *v;
	size_t n;
	size_t cap;
};

bool
procs_can_nice(int nice)
{
	char buf[4096], *p;
	struct rlimit rl;
	ssize_t n;
	int fd;

	if (nice >= 0)
		return true;
	if (getrlimit(RLIMIT_NICE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY ||
	    20 - (long long)rl.rlim_cur <= nice))
		return true;
	/* CapEff, bit 23: CAP_SYS_NICE. */
	if ((fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) < 0)
		return geteuid() == 0;
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return geteuid() == 0;
	buf[n] = '\0';
	if ((p = strstr(buf, "CapEff:")) == NULL)
		return geteuid() == 0;
	return (strtoull(p + 7, NULL, 16) >> 23) & 1;
}

void
procs_become_subreaper(void)
{
	/* Failure only costs us the orphans (they go to init), so it is not
	 * fatal; the caller has nothing better to do about it. */
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* The boot time in epoch seconds (/proc/stat's btime), read once; -1 when
 * it cannot be read. */
static long long
procs_btime(void)
{
	static long long btime = -1;
	char line[256];
	FILE *f;

	if (btime >= 0 || (f = fopen("/proc/stat", "re")) == NULL)
		return btime;
	while (fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "btime %lld", &btime) == 1)
			break;
	fclose(f);
	return btime;
}

/* Parse one /proc/PID/stat line.  The comm field is in parentheses and may
 * itself hold spaces and ')', so the fields after it are found from the
 * LAST ')' of the line. */
static int
procs_parse_stat(const char *buf, struct procs_stat *e)
{
	const char *rp = strrchr(buf, ')'), *lp = strchr(buf, '(');
	char *end;
	long long f[19], btime;
	const char *p;
	size_t n;
	int i;

	if (rp == NULL || rp[1] != ' ' || lp == NULL || lp > rp)
		return -1;
	n = (size_t)(rp - lp - 1);
	if (n >= sizeof e->comm)
		n = sizeof e->comm - 1;
	memcpy(e->comm, lp + 1, n);
	e->comm[n] = '\0';
	e->pid = (pid_t)strtol(buf, &end, 10);
	if (end == buf)
		return -1;
	p = rp + 2;
	e->state = *p;
	if (e->state == '\0' || p[1] != ' ')
		return -1;
	p += 2;
	/* Fields 4..22: ppid pgrp session tty_nr tpgid flags minflt cminflt
	 * majflt cmajflt utime stime cutime cstime priority nice num_threads
	 * itrealvalue starttime. */
	for (i = 0; i < 19; i++) {
		errno = 0;
		f[i] = strtoll(p, &end, 10);
		if (end == p || errno != 0)
			return -1;
		p = end;
	}
	e->ppid = (pid_t)f[0];
	e->pgrp = (pid_t)f[1];
	e->user = f[10] + f[12];
	e->sys = f[11] + f[13];
	e->ticks = e->user + e->sys;
	e->self = f[10] + f[11];
	btime = procs_btime();
	e->started = btime < 0 ? -1 : (double)btime + (double)f[18] /
	    (double)sysconf(_SC_CLK_TCK);
	return 0;
}

int
procs_stat(pid_t pid, struct procs_stat *e)
{
	char path[64], buf[1024];
	FILE *fp;
	size_t n;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	fp = fopen(path, "re");
	if (fp == NULL)
		return -1;
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	if (n == 0)
		return -1;
	buf[n] = '\0';
	return procs_parse_stat(buf, e);
}

/* Snapshot of every process.  Processes that vanish while we read are
 * simply skipped. */
static int
procs_table_read(struct procs_table *t)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	t->v = NULL;
	t->n = t->cap = 0;
	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		struct procs_stat e;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end != '\0' || pid <= 0)
			continue;
		if (procs_stat((pid_t)pid, &e) != 0)
			continue;
		if (t->n == t->cap) {
			size_t cap = t->cap ? t->cap * 2 : 256;
			struct procs_stat *v = realloc(t->v, cap * sizeof *v);

			if (v == NULL) {
				closedir(d);
				free(t->v);
				t->v = NULL;
				return -1;
			}
			t->v = v;
			t->cap = cap;
		}
		t->v[t->n++] = e;
	}
	closedir(d);
	return 0;
}

static bool procs_kept(pid_t pid, const pid_t *keep, size_t nkeep);

/* Mark root's descendants in mark[] (root itself marked 1 too), not going
 * through the kept pids (they and their trees stay unmarked).  The table is
 * small (hundreds), so repeated passes until nothing changes are fine. */
static void
procs_table_mark_except(const struct procs_table *t, pid_t root,
    const pid_t *keep, size_t nkeep, unsigned char *mark)
{
	bool changed = true;
	size_t i, j;

	for (i = 0; i < t->n; i++)
		mark[i] = t->v[i].pid == root;
	while (changed) {
		changed = false;
		for (i = 0; i < t->n; i++) {
			if (mark[i] || procs_kept(t->v[i].pid, keep, nkeep))
				continue;
			for (j = 0; j < t->n; j++) {
				if (mark[j] && t->v[j].pid == t->v[i].ppid) {
					mark[i] = 1;
					changed = true;
					break;
				}
			}
		}
	}
}


void
procs_children(pid_t pid, pid_t **v, size_t *n, size_t *cap)
{
	char path[64], buf[4096];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		ssize_t len;
		int fd;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof path, "/proc/%d/task/%.20s/children",
		    (int)pid, de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (char *p = buf, *end; *p != '\0'; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			if (*n == *cap) {
				*cap = xgrow(*cap, *n + 1, 32);
				*v = xreallocarray(*v, *cap, sizeof **v);
			}
			(*v)[(*n)++] = (pid_t)c;
		}
	}
	closedir(d);
}

bool
procs_has_child_except(const pid_t *keep, size_t nkeep)
{
	pid_t *v = NULL;
	size_t n = 0, cap = 0;
	bool found = false;

	procs_children(getpid(), &v, &n, &cap);
	for (size_t i = 0; i < n && !found; i++) {
		found = true;
		for (size_t k = 0; k < nkeep && found; k++)
			found = v[i] != keep[k];
	}
	free(v);
	return found;
}

/* Through the children links from root down, not a walk of all of /proc:
 * O(root's own tree), a handful of processes for a round. */
int
procs_tree_cpu(pid_t root, long long *user, long long *sys)
{
	pid_t *todo = NULL;
	size_t n = 0, cap = 0;
	struct procs_stat e;

	if (procs_stat(root, &e) != 0)
		return -1;
	*user = e.user;
	*sys = e.sys;
	procs_children(root, &todo, &n, &cap);
	/* Zombies count too: their time is not yet in anyone's cutime.  A
	 * member's cutime is what it reaped, so utime+stime+cutime+cstime
	 * over the tree stays continuous when a member exits and is reaped
	 * inside the tree (its time moves into its reaper's cutime). */
	while (n > 0) {
		pid_t pid = todo[--n];

		if (procs_stat(pid, &e) != 0)
			continue; /* gone since: its time is in our cutime */
		*user += e.user;
		*sys += e.sys;
		procs_children(pid, &todo, &n, &cap);
	}
	free(todo);
	return 0;
}

long long
procs_tree_ticks(pid_t root)
{
	long long user, sys;

	return procs_tree_cpu(root, &user, &sys) == 0 ? user + sys : -1;
}

int
procs_cpulist_parse(const char *list, unsigned char *mask, int ncpus)
{
	const char *q = list;

	memset(mask, 0, (size_t)ncpus);
	if (*q == '\0')
		return -1;
	for (;;) {
		char *end;
		long lo, hi;

		if (*q < '0' || *q > '9')
			return -1;
		lo = strtol(q, &end, 10);
		hi = lo;
		q = end;
		if (*q == '-') {
			q++;
			if (*q < '0' || *q > '9')
				return -1;
			hi = strtol(q, &end, 10);
			q = end;
		}
		if (lo > hi || hi >= ncpus)
			return -1;
		for (long c = lo; c <= hi; c++)
			mask[c] = 1;
		if (*q == '\0')
			return 0;
		if (*q != ',')
			return -1;
		q++;
	}
}

bool
procs_alive(pid_t pid)
{
	struct procs_stat e;

	if (pid <= 0 || procs_stat(pid, &e) != 0)
		return false;
	return e.state != 'Z' && e.state != 'X';
}

pid_t
procs_flock_owner(int fd)
{
	struct stat st;
	char line[256], type[16];
	unsigned int maj, min;
	unsigned long ino;
	pid_t owner = -1;
	int pid;
	FILE *f;

	if (fstat(fd, &st) != 0 || (f = fopen("/proc/locks", "re")) == NULL)
		return -1;
	/* "1: FLOCK  ADVISORY  WRITE 1234 fe:00:5678 0 EOF"; a waiter's
	 * line has "->" where the type is. */
	while (owner < 0 && fgets(line, sizeof line, f) != NULL)
		if (sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%lu", type, &pid,
		    &maj, &min, &ino) == 5 && strcmp(type, "FLOCK") == 0 &&
		    maj == major(st.st_dev) && min == minor(st.st_dev) &&
		    ino == (unsigned long)st.st_ino)
			owner = pid;
	fclose(f);
	return owner;
}

/* Reap every exited child of ours in the group; zombies still count as group
 * members for kill(-pgid, 0), so waiting for ESRCH needs this. */
static void
procs_reap_group(pid_t pgid)
{
	while (waitpid(-pgid, NULL, WNOHANG) > 0)
		;
}

/* Whether the group still has a member that is not a zombie we cannot reap
 * (a zombie whose parent is someone else still answers kill(-pgid, 0)). */
static bool
procs_group_alive(pid_t pgid)
{
	procs_reap_group(pgid);
	return kill(-pgid, 0) == 0 || errno != ESRCH;
}

void
procs_end_group(pid_t pgid, double grace_s)
{
	double deadline;

	if (pgid <= 1)
		return;
	if (kill(-pgid, SIGTERM) != 0 && errno == ESRCH) {
		procs_reap_group(pgid);
		return;
	}
	/* Not the leg's timing path: polling with short naps is fine here. */
	deadline = clock_now() + grace_s;
	while (procs_group_alive(pgid) && clock_now() < deadline)
		clock_nap(-1, 10);
	procs_kill_group(pgid);
}

void
procs_kill_group(pid_t pgid)
{
	double deadline;

	if (pgid <= 1)
		return;
	if (kill(-pgid, SIGKILL) != 0 && errno == ESRCH) {
		procs_reap_group(pgid);
		return;
	}
	/* SIGKILL is delivered asynchronously; give the members a moment to
	 * die so the ones that are our children can be reaped now. */
	deadline = clock_now() + 2.0;
	while (procs_group_alive(pgid) && clock_now() < deadline)
		clock_nap(-1, 5);
	procs_reap_group(pgid);
}

static bool
procs_kept(pid_t pid, const pid_t *keep, size_t nkeep)
{
	size_t i;

	for (i = 0; i < nkeep; i++)
		if (keep[i] == pid)
			return true;
	return false;
}

/* Reap our zombie children found through /proc, skipping the kept ones;
 * used once waitid keeps reporting a kept pid first. */
static void
procs_reap_scan(const pid_t *keep, size_t nkeep)
{
	struct procs_table t;
	pid_t self = getpid();
	size_t i;

	if (procs_table_read(&t) != 0)
		return;
	for (i = 0; i < t.n; i++) {
		if (t.v[i].ppid == self && t.v[i].state == 'Z' &&
		    !procs_kept(t.v[i].pid, keep, nkeep))
			(void)waitpid(t.v[i].pid, NULL, WNOHANG);
	}
	free(t.v);
}

void
procs_reap_orphans(const pid_t *keep, size_t nkeep)
{
	for (;;) {
		siginfo_t si;

		memset(&si, 0, sizeof si);
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
		    si.si_pid == 0)
			return;
		if (procs_kept(si.si_pid, keep, nkeep)) {
			procs_reap_scan(keep, nkeep);
			return;
		}
		if (waitpid(si.si_pid, NULL, WNOHANG) <= 0)
			return;
	}
}

/* Live descendants of root outside the kept trees. */
static size_t
procs_collect_except(pid_t root, const pid_t *keep, size_t nkeep,
    pid_t **out)
{
	struct procs_table t;
	unsigned char *mark;
	size_t i, n = 0;

	*out = NULL;
	if (procs_table_read(&t) != 0)
		return 0;
	mark = calloc(t.n ? t.n : 1, 1);
	*out = calloc(t.n ? t.n : 1, sizeof **out);
	if (mark == NULL || *out == NULL) {
		free(mark);
		free(t.v);
		return 0;
	}
	procs_table_mark_except(&t, root, keep, nkeep, mark);
	for (i = 0; i < t.n; i++) {
		if (mark[i] && t.v[i].pid != root && t.v[i].state != 'Z' &&
		    t.v[i].state != 'X')
			(*out)[n++] = t.v[i].pid;
	}
	free(mark);
	free(t.v);
	return n;
}

size_t
procs_descendants(pid_t root, pid_t *pids, size_t max)
{
	pid_t *all = NULL;
	size_t n = procs_collect_except(root, NULL, 0, &all);

	if (n > max)
		n = max;
	if (n > 0)
		memcpy(pids, all, n * sizeof *pids);
	free(all);
	return n;
}

bool
procs_each(bool (*fn)(const struct procs_stat *st, void *arg), void *arg)
{
	struct procs_table t;
	bool stopped = false;

	if (procs_table_read(&t) != 0)
		return false;
	for (size_t i = 0; i < t.n && !stopped; i++)
		stopped = fn(&t.v[i], arg);
	free(t.v);
	return stopped;
}

void
procs_wait_gone(const pid_t *pids, size_t n, const pid_t *keep, size_t nkeep,
    double wait_s, int nap_ms)
{
	double deadline = clock_now() + wait_s;

	for (;;) {
		bool any = false;

		procs_reap_orphans(keep, nkeep);
		for (size_t i = 0; i < n && !any; i++)
			any = procs_alive(pids[i]);
		if (!any || clock_now() >= deadline)
			return;
		clock_nap(-1, nap_ms);
	}
}

size_t
procs_end_descendants(pid_t root, const pid_t *keep, size_t nkeep,
    double grace_s)
{
	pid_t *pids = NULL;
	size_t n, i, found;
	int round;

	found = n = procs_collect_except(root, keep, nkeep, &pids);
	if (n == 0)
		goto out;
	for (i = 0; i < n; i++)
		(void)kill(pids[i], SIGTERM);
	procs_wait_gone(pids, n, keep, nkeep, grace_s, 10);
	/* What is left gets SIGKILL; a few passes catch what the stubborn
	 * ones forked during the grace. */
	for (round = 0; round < 3; round++) {
		free(pids);
		n = procs_collect_except(root, keep, nkeep, &pids);
		if (n == 0)
			break;
		for (i = 0; i < n; i++)
			(void)kill(pids[i], SIGKILL);
		procs_wait_gone(pids, n, keep, nkeep, 1.0, 5);
	}
	procs_reap_orphans(keep, nkeep);
out:
	free(pids);
	return found;
}
