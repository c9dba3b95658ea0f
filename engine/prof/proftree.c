/* A server's process tree under a profiler: its processes and tasks,
 * the profiler's argv over them, whether it attached, its stop.  O(the
 * server's processes and threads) per call; a profile calls it a few
 * hundred times at most (the attach waits in 10 ms steps). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "procs.h"
#include "profile.h"
#include "proftree.h"
#include "xalloc.h"

size_t
proftree_tree(pid_t root, pid_t *pids, size_t max)
{
	size_t n = procs_descendants(root, pids + 1, max - 1) + 1;

	pids[0] = root;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && pids[j - 1] > pids[j]; j--) {
			pid_t t = pids[j];

			pids[j] = pids[j - 1];
			pids[j - 1] = t;
		}
	return n;
}

struct proftree_tasks
proftree_count_tasks(const pid_t *pids, size_t n, pid_t tracer)
{
	struct proftree_tasks t = { 0 };

	for (size_t i = 0; i < n; i++) {
		char path[64];
		struct dirent *de;
		DIR *d;

		snprintf(path, sizeof path, "/proc/%d/task", (int)pids[i]);
		if ((d = opendir(path)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL) {
			char sp[128], *st, *tp;

			if (de->d_name[0] == '.')
				continue;
			snprintf(sp, sizeof sp, "/proc/%d/task/%.20s/status",
			    (int)pids[i], de->d_name);
			/* a thread may end between the listing and this */
			if ((st = profile_slurp(sp, 8192)) == NULL)
				continue;
			if ((tp = strstr(st, "\nTracerPid:")) != NULL) {
				long who = strtol(tp + 11, NULL, 10);

				t.tasks++;
				t.traced += who != 0;
				t.by_tracer += who == (long)tracer;
			}
			free(st);
		}
		closedir(d);
	}
	return t;
}

char *
proftree_pidlist(const pid_t *pids, size_t n)
{
	char *s = xmalloc(n * 12 + 1);
	size_t k = 0;

	s[0] = '\0';
	for (size_t i = 0; i < n; i++)
		k += (size_t)snprintf(s + k, 13, "%s%d", i ? "," : "",
		    (int)pids[i]);
	return s;
}

int
proftree_perf_events(pid_t pid)
{
	char path[64], link[64], lp[384];
	struct dirent *de;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		ssize_t k;

		if (de->d_name[0] == '.')
			continue;
		snprintf(lp, sizeof lp, "%s/%.200s", path, de->d_name);
		if ((k = readlink(lp, link, sizeof link - 1)) <= 0)
			continue;
		link[k] = '\0';
		n += strcmp(link, "anon_inode:[perf_event]") == 0;
	}
	closedir(d);
	return n;
}

/* The argv and the strings it makes are one allocation: free() it. */
char **
proftree_strace_argv(const char *strace, const pid_t *pids, size_t n,
    const char *out)
{
	size_t ptrs = 2 * n + 8, k = 0;
	char **argv = xcalloc(1, ptrs * sizeof *argv + n * 16),
	    *num = (char *)(argv + ptrs);

	argv[k++] = (char *)strace;
	argv[k++] = "-f";
	argv[k++] = "-c";
	for (size_t i = 0; i < n; i++, num += 16) {
		snprintf(num, 16, "%d", (int)pids[i]);
		argv[k++] = "-p";
		argv[k++] = num;
	}
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	return argv;
}

char **
proftree_perf_argv(const char *perf, char *const *args, const pid_t *pids,
    size_t n, const char *out)
{
	size_t na = 0, k = 0, ptrs;
	char **argv, *list;

	while (args != NULL && args[na] != NULL)
		na++;
	ptrs = na + 8;
	argv = xcalloc(1, ptrs * sizeof *argv + n * 12 + 1);
	list = (char *)(argv + ptrs);
	for (size_t i = 0, at = 0; i < n; i++)
		at += (size_t)snprintf(list + at, 13, "%s%d", i ? "," : "",
		    (int)pids[i]);
	argv[k++] = (char *)perf;
	argv[k++] = "record";
	for (size_t i = 0; i < na; i++)
		argv[k++] = args[i];
	argv[k++] = "-p";
	argv[k++] = list;
	argv[k++] = "-o";
	argv[k++] = (char *)out;
	return argv;
}

int
proftree_attached(bool syscalls, pid_t tool, const pid_t *pids, size_t n,
    int tasks)
{
	int st;

	if (syscalls) {
		struct proftree_tasks t = proftree_count_tasks(pids, n, tool);

		if (t.tasks > 0 && t.by_tracer == t.tasks)
			return 1;
	} else if (tasks > 0 && proftree_perf_events(tool) >= tasks) {
		return 1;
	}
	return waitpid(tool, &st, WNOHANG) == tool ? -1 : 0;
}

/* Wait (abort-blind: a detach must finish even during an abort) until pid
 * exits: its status, or -1 after seconds. */
static int
proftree_wait_exit(pid_t pid, double seconds)
{
	double waited = 0;
	int st;

	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return st;
		if (w < 0 && errno != EINTR)
			return -1;
		if (waited >= seconds)
			return -1;
		usleep(10000);
		waited += 0.01;
	}
}

int
proftree_stop_tool(pid_t tool, double seconds)
{
	int st;

	kill(tool, SIGINT);
	if ((st = proftree_wait_exit(tool, seconds)) >= 0)
		return st;
	kill(tool, SIGKILL);
	(void)proftree_wait_exit(tool, 3.0);
	return -1;
}

bool
proftree_stopped_ok(bool syscalls, int st)
{
	if (st < 0)
		return false;
	if (WIFSIGNALED(st))
		return WTERMSIG(st) == SIGINT;
	return WIFEXITED(st) && (syscalls || WEXITSTATUS(st) == 0 ||
	    WEXITSTATUS(st) == 130);
}
