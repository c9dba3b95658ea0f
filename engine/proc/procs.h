/* The process table: our own tree, and ending processes by pid or pgid. */
#ifndef BENCHTUI_PROCS_H
#define BENCHTUI_PROCS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What benchtui reads of a process's /proc/PID/stat. */
struct procs_stat {
	pid_t pid, ppid, pgrp;
	char state;          /* R, S, D, Z (zombie), X (dead), ... */
	long long ticks;     /* utime + stime + cutime + cstime, clock ticks */
	long long user, sys; /* utime + cutime, stime + cstime: its part */
	long long self;      /* utime + stime: its own threads' alone */
	double started;      /* epoch seconds (starttime + btime), or -1 */
	char comm[16];       /* its name (comm), cut to 15 bytes */
};

/* Read pid's /proc/PID/stat (the one parser of it).  0, or -1 when the
 * process is gone or the line cannot be read. */
int procs_stat(pid_t pid, struct procs_stat *st);

/* Call fn for every process of the host until it returns true (then true).
 * A walk of all of /proc: O(the host's processes), some milliseconds on a
 * busy machine; never on a leg's path. */
bool procs_each(bool (*fn)(const struct procs_stat *st, void *arg),
    void *arg);

/* Whether this process may set a nice value as low as nice (< 0 needs
 * CAP_SYS_NICE, which root has unless it was dropped, or an RLIMIT_NICE
 * of at least 20 - nice). */
bool procs_can_nice(int nice);

/* Make this process a child subreaper, so orphaned grandchildren of legs and
 * servers are reparented to us and can be reaped and ended. */
void procs_become_subreaper(void);

/* Summed utime+stime+cutime+cstime, in clock ticks, of root and all its
 * descendants, zombies included (down the children links of every thread,
 * /proc/PID/task/TID/children: O(root's tree), not of the host).  The
 * cutime terms keep the sum continuous when a member exits and is reaped
 * inside the tree: its time moves into its reaper's cutime.  -1 when root
 * is gone or /proc cannot be read. */
long long procs_tree_ticks(pid_t root);

/* The same sum split in two: *user (utime + cutime) and *sys (stime +
 * cstime) of root's tree, zombies included, in clock ticks.  0, or -1 when
 * root is gone (then *user and *sys are unset). */
int procs_tree_cpu(pid_t root, long long *user, long long *sys);

/* Append the children of every thread of pid (its threads' children
 * links, /proc/PID/task/TID/children) to *v, growing it (*n used, *cap
 * held).  Nothing is appended when pid is gone. */
void procs_children(pid_t pid, pid_t **v, size_t *n, size_t *cap);

/* Whether this process has a child (a zombie too) other than the nkeep
 * pids of keep, from its threads' children links: a handful of small
 * reads, where a descendant search walks all of /proc.  A descendant
 * always has an ancestor among our children, so false means there is
 * none. */
bool procs_has_child_except(const pid_t *keep, size_t nkeep);

/* Collect the pids of root's live descendants (not root itself) into pids
 * (up to max).  Returns how many. */
size_t procs_descendants(pid_t root, pid_t *pids, size_t max);

/* Parse a cpu list ("0-3,6") into a mask of ncpus entries.  0, or -1 (bad
 * syntax, or a cpu >= ncpus). */
int procs_cpulist_parse(const char *list, unsigned char *mask, int ncpus);

/* Whether pid is alive (and not a zombie). */
bool procs_alive(pid_t pid);

/* The process that took the flock held on fd's file, from /proc/locks, or
 * -1 when none is listed (or /proc/locks cannot be read).  The lock lives
 * on while any descriptor of it is open: a child holding a copy keeps it
 * after the taker died, and this still names the taker. */
pid_t procs_flock_owner(int fd);

/* End a process group: SIGTERM, wait up to grace_s for the group to empty,
 * then SIGKILL; reap what are our children.  Safe when the group is gone. */
void procs_end_group(pid_t pgid, double grace_s);

/* Kill every remaining member of a group with SIGKILL and reap those that
 * are our children. */
void procs_kill_group(pid_t pgid);

/* End every descendant of root except the kept pids and their own trees
 * (servers): SIGTERM by pid, up to grace_s for them to go, then SIGKILL, and
 * reap those that are our children.  For what a leg left behind outside its
 * process group (setsid, double forks reparented to us as subreaper).
 * Returns how many processes it found to end. */
size_t procs_end_descendants(pid_t root, const pid_t *keep, size_t nkeep,
    double grace_s);

/* Wait until none of pids[0..n) is alive (a zombie counts as gone) or
 * wait_s has passed, reaping our exited children but the kept ones
 * meanwhile and napping nap_ms between looks. */
void procs_wait_gone(const pid_t *pids, size_t n, const pid_t *keep,
    size_t nkeep, double wait_s, int nap_ms);

/* Reap, without blocking, every child of ours that has exited except the
 * pids in keep (servers, whose status their owner reads).  Orphans of legs
 * reparented to us as subreaper end up here. */
void procs_reap_orphans(const pid_t *keep, size_t nkeep);

#endif
