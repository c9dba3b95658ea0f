/* A cgroup v2 of the round's own, where the machine allows one.
 *
 * The v2 hierarchy is found through /proc/self/mountinfo (a host may mount
 * it beside v1, at /sys/fs/cgroup/unified), and the groups are made under
 * benchtui's own cgroup (/proc/self/cgroup "0::PATH").  A round makes one
 * group and a child group per kind of process (legs, servers): every
 * process of a kind, and all its descendants however they escape their
 * process group or reparent, stay in it, so cgroup.kill ends them all,
 * cgroup.events tells whether any is left, cpu.stat counts their CPU (the
 * dead ones' included), and memory.peak, where the memory controller is
 * enabled for it, their peak memory.
 *
 * cgroup_kill is never pointed at a group benchtui is in: cgroup_destroy
 * of the group it entered moves it home first.
 *
 * Where no group can be made (no v2 mount, no permission), cgroup_create
 * returns NULL and says why: the callers fall back to process groups and
 * /proc. */
#ifndef BENCHTUI_CGROUP_H
#define BENCHTUI_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct cgroup;

/* Make a group called name under parent, or under benchtui's own cgroup
 * when parent is NULL (sweeping there first what cgroup_remove_stale of
 * name's part before its first '-' would).  NULL with err when the machine
 * does not allow it. */
struct cgroup *cgroup_create(struct cgroup *parent, const char *name,
    char *err, size_t errlen);

/* Open an existing group by its folder (one an earlier benchtui made, to
 * cgroup_kill and cgroup_destroy it).  NULL when path is no group (its
 * cgroup.procs cannot be opened) or holds benchtui itself (its name is a
 * part of our own cgroup's path, or that path cannot be read). */
struct cgroup *cgroup_attach(const char *path);

/* The group's folder (for messages). */
const char *cgroup_path(const struct cgroup *cg);

/* An open fd of the group's cgroup.procs: writing a pid there moves that
 * process in (spawn_req.cgroup_procs_fd does, before the exec). */
int cgroup_procs_fd(const struct cgroup *cg);

/* An open fd of the group's folder: clone3 with CLONE_INTO_CGROUP starts
 * a child in the group (spawn_req.cgroup_dir_fd); -1 when it could not be
 * opened, or once cgroup_kill wrote cgroup.kill (some kernels then kill
 * whatever is cloned into the group). */
int cgroup_dir_fd(const struct cgroup *cg);

/* Move pid (and so its future children) into the group.  0 or -1. */
int cgroup_add(struct cgroup *cg, pid_t pid);

/* The pids in the group's own cgroup.procs (not its child groups'), up
 * to max.  How many (0 when it cannot be read). */
size_t cgroup_pids(const struct cgroup *cg, pid_t *pids, size_t max);

/* Whether any process is left in the group or below it (cgroup.events
 * "populated").  true when it cannot be read. */
bool cgroup_populated(const struct cgroup *cg);

/* SIGKILL every process in the group and below (cgroup.kill, or one by
 * one from the cgroup.procs of the group and its child groups on kernels
 * before 5.14), and wait up to wait_s for the group to empty.  Those that are our children (or were reparented to
 * us) are left for the caller to reap.  0 when the group was empty, else
 * how many processes it listed (at least 1). */
size_t cgroup_kill(struct cgroup *cg, double wait_s);

/* CPU time of everything that ran in the group, dead processes included
 * (cpu.stat usage_usec), in microseconds; -1 when it cannot be read. */
long long cgroup_cpu_usec(const struct cgroup *cg);

/* The same split in two, from the same file: *user_usec (user_usec) and
 * *sys_usec (system_usec).  0, or -1 when it cannot be read. */
int cgroup_cpu_split(const struct cgroup *cg, long long *user_usec,
    long long *sys_usec);

/* Start a peak-memory window (memory.peak, reset for this reader where the
 * kernel allows: Linux 6.12 and later).  false when the group has no
 * memory.peak or it cannot be reset (then no per-leg figure exists). */
bool cgroup_peak_begin(struct cgroup *cg);
/* The peak in KiB since cgroup_peak_begin, or -1. */
long long cgroup_peak_end(struct cgroup *cg);

/* Move benchtui itself (every thread) into the group, so that whatever it
 * starts without a group of its own (servers, profiles) starts there too
 * and the group's cpu.stat counts all of the round.  cgroup_destroy of
 * that group moves benchtui back first.  0, or -1 (benchtui stays where it
 * was). */
int cgroup_enter(struct cgroup *cg);

/* Remove the empty groups named PREFIX-PID-... beside parent's children
 * (or under benchtui's own cgroup) whose PID is dead: what a benchtui
 * killed with SIGKILL left behind.  A group that still holds a process is
 * left alone.  How many were removed. */
size_t cgroup_remove_stale(const char *prefix);

/* Kill what is left, remove the group (children first: destroy them
 * before their parent; child groups left, as an attached group's are,
 * are removed with it), free.  NULL is a no-op. */
void cgroup_destroy(struct cgroup *cg);

#endif
