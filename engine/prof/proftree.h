/* A server's process tree under a profiler (SPEC.md "Profiles"): its
 * processes and tasks, who traces them, the profiler's command line over
 * them, whether it has attached, and its stop by a signal to it alone.
 * The round driver (a server here) and the agent (a server on its host)
 * both profile a server with these, so a far profile is taken as a local
 * one is. */
#ifndef BENCHTUI_PROFTREE_H
#define BENCHTUI_PROFTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The most processes of a server's tree a profile names. */
#define PROFTREE_MAX 4096

/* The server's processes: root and its descendants, sorted. */
size_t proftree_tree(pid_t root, pid_t *pids, size_t max);

struct proftree_tasks {
	int tasks;      /* threads of every process of the tree */
	int by_tracer;  /* of which traced by the tracer */
	int traced;     /* of which traced by anyone */
};
/* Every task of every process of the tree, and who traces it (TracerPid
 * in /proc/PID/task/TID/status).  O(threads of the server). */
struct proftree_tasks proftree_count_tasks(const pid_t *pids, size_t n,
    pid_t tracer);

/* "P1,P2,..." (malloc'd). */
char *proftree_pidlist(const pid_t *pids, size_t n);

/* perf_event descriptors pid holds open, or -1. */
int proftree_perf_events(pid_t pid);

/* strace -f -c -p P... -o OUT (every call counted), or perf record
 * ARGS... -p P1,P2 -o OUT (args NULL-terminated): the argv, one
 * allocation with the strings it makes (free it); the others borrowed. */
char **proftree_strace_argv(const char *strace, const pid_t *pids,
    size_t n, const char *out);
char **proftree_perf_argv(const char *perf, char *const *args,
    const pid_t *pids, size_t n, const char *out);

/* Whether the profiler has attached to the tree: 1 yes, 0 not yet, -1
 * it has exited (reaped).  syscalls: every task traced by tool;
 * otherwise perf holds an event for each of the tree's tasks. */
int proftree_attached(bool syscalls, pid_t tool, const pid_t *pids,
    size_t n, int tasks);

/* SIGINT to a profiler alone (never its group, never the server: it
 * detaches and writes what it gathered), waited on for seconds (then
 * SIGKILL): its wait status, or -1 when it had to be killed. */
int proftree_stop_tool(pid_t tool, double seconds);

/* Whether a profiler's wait status is the end a SIGINT asks for: strace
 * exits or ends by the signal; perf also exits 130. */
bool proftree_stopped_ok(bool syscalls, int status);

#endif
