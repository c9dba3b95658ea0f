/* The round's cgroup v2: found through mountinfo, made under our own
 * cgroup, killed with cgroup.kill, read through cgroup.events, cpu.stat and
 * memory.peak. */
#include "cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "xalloc.h"

struct cgroup {
	char *path;
	char *home;       /* cgroup_enter: the folder benchtui came from */
	int procs_fd;
	int peak_fd;      /* memory.peak opened and reset by cgroup_peak_begin */
	bool no_peak;     /* the group has none, or it cannot be reset */
	int events_fd;    /* cgroup.events, kept open: one pread a leg */
	int stat_fd;      /* cpu.stat, kept open: the quiet gate reads it
	                   * ten times a second (a pread, no openat) */
	int dir_fd;       /* the group's folder, for CLONE_INTO_CGROUP */
	bool killed;      /* cgroup.kill was written: no CLONE_INTO_CGROUP */
};

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void
cgroup_unescape(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '7' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
			    (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* The cgroup2 mount point and the root of the hierarchy it shows.  The
 * file has one line per mount: O(mounts), a few dozen. */
static int
cgroup_find_mount(char *mnt, size_t mntlen, char *root, size_t rootlen)
{
	FILE *fp = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int found = -1;

	if (fp == NULL)
		return -1;
	while (found != 0 && getline(&line, &cap, fp) > 0) {
		char *f[6], *save = NULL, *sep = strstr(line, " - ");
		int n = 0;

		if (sep == NULL || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (char *t = strtok_r(line, " ", &save); t != NULL && n < 6;
		    t = strtok_r(NULL, " ", &save))
			f[n++] = t;
		if (n < 5)
			continue;
		cgroup_unescape(f[3]);
		cgroup_unescape(f[4]);
		snprintf(root, rootlen, "%s", f[3]);
		snprintf(mnt, mntlen, "%s", f[4]);
		found = 0;
	}
	free(line);
	fclose(fp);
	return found;
}

/* Our own cgroup in the v2 hierarchy: the "0::PATH" line. */
static int
cgroup_own(char *own, size_t ownlen)
{
	FILE *fp = fopen("/proc/self/cgroup", "re");
	char line[4096];
	int found = -1;

	if (fp == NULL)
		return -1;
	while (found != 0 && fgets(line, sizeof line, fp) != NULL) {
		if (strncmp(line, "0::", 3) != 0)
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(own, ownlen, "%s", line + 3);
		found = 0;
	}
	fclose(fp);
	return found;
}

static char *
cgroup_file(const struct cgroup *cg, const char *name)
{
	return xasprintf("%s/%s", cg->path, name);
}

/* Read a small file of the group folder dir into buf.  Bytes read, or
 * -1. */
static ssize_t
cgroup_read_at(const char *dir, const char *name, char *buf, size_t len)
{
	char *path = xasprintf("%s/%s", dir, name);
	ssize_t n = -1;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, buf, len - 1);
		close(fd);
	}
	free(path);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

static ssize_t
cgroup_read(const struct cgroup *cg, const char *name, char *buf, size_t len)
{
	return cgroup_read_at(cg->path, name, buf, len);
}

static int
cgroup_write(const struct cgroup *cg, const char *name, const char *val)
{
	char *path = cgroup_file(cg, name);
	ssize_t n = -1;
	int fd, e = ENOMEM;

	if (path != NULL && (fd = open(path, O_WRONLY | O_CLOEXEC)) >= 0) {
		n = write(fd, val, strlen(val));
		e = errno;
		close(fd);
	} else if (path != NULL) {
		e = errno;
	}
	free(path);
	if (n < 0) {
		errno = e;
		return -1;
	}
	return 0;
}

/* Benchtui's own cgroup's folder (malloc'd), or NULL with why (errno
 * untouched) when there is no v2 hierarchy or no v2 cgroup of ours. */
static char *
cgroup_own_folder(const char **why)
{
	char mnt[1024], root[1024], own[4096];
	const char *rel;
	size_t rl;

	if (cgroup_find_mount(mnt, sizeof mnt, root, sizeof root) != 0) {
		*why = "no cgroup v2 hierarchy is mounted (/proc/self/mountinfo)";
		return NULL;
	}
	if (cgroup_own(own, sizeof own) != 0) {
		*why = "benchtui is in no cgroup v2 (/proc/self/cgroup has no "
		    "0:: line)";
		return NULL;
	}
	/* The mount may show a subtree (a container's): our path is then
	 * below its root. */
	rl = strcmp(root, "/") == 0 ? 0 : strlen(root);
	rel = strncmp(own, root, rl) == 0 ? own + rl : own;
	return xasprintf("%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel);
}

/* The folder new groups go in: parent's, or benchtui's own cgroup (with
 * cg->home set to it).  malloc'd, or NULL with err. */
static char *
cgroup_base(struct cgroup *cg, const struct cgroup *parent, char *err,
    size_t errlen)
{
	const char *why;
	char *base;

	if (parent != NULL) {
		if (parent->home != NULL)
			cg->home = xstrdup(parent->home);
		return xstrdup(parent->path);
	}
	if ((base = cgroup_own_folder(&why)) == NULL) {
		snprintf(err, errlen, "%s", why);
		return NULL;
	}
	cg->home = xstrdup(base);
	return base;
}

/* One file of the group, opened with flags; -1 with errno. */
static int
cgroup_open(const struct cgroup *cg, const char *name, int flags)
{
	char *path = cgroup_file(cg, name);
	int fd = path != NULL ? open(path, flags | O_CLOEXEC) : -1;

	free(path);
	return fd;
}

/* fn(arg, child path) for each child group of the folder path (one
 * level: the groups benchtui makes). */
static void
cgroup_each_child(const char *path, void (*fn)(void *, const char *),
    void *arg)
{
	DIR *d = opendir(path);
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		char *child;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		child = xasprintf("%s/%s", path, de->d_name);
		fn(arg, child);
		free(child);
	}
	closedir(d);
}

static void
cgroup_rmdir_child(void *arg, const char *child)
{
	(void)arg;
	(void)rmdir(child);
}

/* Remove the group folder path, its child groups first.  0, or -1 with
 * errno from path's own rmdir. */
static int
cgroup_rmdir_tree(const char *path)
{
	cgroup_each_child(path, cgroup_rmdir_child, NULL);
	return rmdir(path);
}

/* Remove the empty groups named PREFIX-PID-... (PREFIX the first plen
 * bytes of prefix) in the folder base whose PID is dead, with their child
 * groups.  How many were removed. */
static size_t
cgroup_sweep(const char *base, const char *prefix, size_t plen)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if ((d = opendir(base)) == NULL)
		return 0;
	/* O(groups beside ours): a few, or as many as killed rounds left. */
	while ((de = readdir(d)) != NULL) {
		char *dir = NULL, *end;
		long pid;

		if (strncmp(de->d_name, prefix, plen) != 0 ||
		    de->d_name[plen] != '-')
			continue;
		pid = strtol(de->d_name + plen + 1, &end, 10);
		if (end == de->d_name + plen + 1 || *end != '-' || pid <= 0 ||
		    pid == (long)getpid() || kill((pid_t)pid, 0) == 0 ||
		    errno != ESRCH)
			continue;
		dir = xasprintf("%s/%s", base, de->d_name);
		if (cgroup_rmdir_tree(dir) == 0)
			n++;
		free(dir);
	}
	closedir(d);
	return n;
}

/* The group's cgroup.procs (to write), cgroup.events and folder fds.
 * 0, or -1 with errno when cgroup.procs cannot be opened. */
static int
cgroup_open_fds(struct cgroup *cg)
{
	if ((cg->procs_fd = cgroup_open(cg, "cgroup.procs", O_WRONLY)) < 0)
		return -1;
	cg->events_fd = cgroup_open(cg, "cgroup.events", O_RDONLY);
	cg->stat_fd = cgroup_open(cg, "cpu.stat", O_RDONLY);
	/* For clone3's CLONE_INTO_CGROUP (spawn_req.cgroup_dir_fd). */
	cg->dir_fd = open(cg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return 0;
}

static struct cgroup *
cgroup_new(void)
{
	struct cgroup *cg = xcalloc(1, sizeof *cg);

	cg->procs_fd = cg->peak_fd = cg->events_fd = cg->dir_fd = -1;
	cg->stat_fd = -1;
	return cg;
}

struct cgroup *
cgroup_create(struct cgroup *parent, const char *name, char *err,
    size_t errlen)
{
	struct cgroup *cg = cgroup_new();
	char *base;

	if ((base = cgroup_base(cg, parent, err, errlen)) == NULL)
		goto fail;
	/* What benchtuis killed with SIGKILL left beside it: their groups
	 * are named as this one is, up to its first '-'. */
	if (parent == NULL)
		(void)cgroup_sweep(base, name, strcspn(name, "-"));
	cg->path = xasprintf("%s/%s", base, name);
	free(base);
	if (mkdir(cg->path, 0755) < 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot make the cgroup %s: %s", cg->path,
		    strerror(errno));
		goto fail;
	}
	if (cgroup_open_fds(cg) != 0) {
		snprintf(err, errlen, "cannot open %s/cgroup.procs: %s", cg->path,
		    strerror(errno));
		rmdir(cg->path);
		goto fail;
	}
	/* Hand the memory controller (for memory.peak) to the children
	 * where the parent has it; nothing is lost where it does not. */
	if (parent == NULL)
		(void)cgroup_write(cg, "cgroup.subtree_control", "+memory");
	return cg;
fail:
	free(cg->path);
	free(cg->home);
	free(cg);
	return NULL;
}

/* Whether the group folder path holds benchtui (its own group, or one
 * above it): the group's name is a part of our "0::" path.  true when
 * that path cannot be read. */
static bool
cgroup_holds_self(const char *path)
{
	const char *name = strrchr(path, '/');
	size_t nl = name != NULL ? strlen(name) : 0;
	char own[4096];

	if (cgroup_own(own, sizeof own) != 0)
		return true;
	if (name == NULL)
		return false;
	for (const char *p = strstr(own, name); p != NULL;
	    p = strstr(p + 1, name))
		if (p[nl] == '\0' || p[nl] == '/')
			return true;
	return false;
}

struct cgroup *
cgroup_attach(const char *path)
{
	struct cgroup *cg;

	if (cgroup_holds_self(path))
		return NULL;
	cg = cgroup_new();
	cg->path = xstrdup(path);
	if (cgroup_open_fds(cg) != 0) {
		free(cg->path);
		free(cg);
		return NULL;
	}
	return cg;
}

const char *
cgroup_path(const struct cgroup *cg)
{
	return cg->path;
}

int
cgroup_procs_fd(const struct cgroup *cg)
{
	return cg->procs_fd;
}

int
cgroup_dir_fd(const struct cgroup *cg)
{
	return cg->killed ? -1 : cg->dir_fd;
}

int
cgroup_add(struct cgroup *cg, pid_t pid)
{
	char num[24];
	int len = snprintf(num, sizeof num, "%d", (int)pid);

	return write(cg->procs_fd, num, (size_t)len) == len ? 0 : -1;
}

/* The pids in the folder dir's cgroup.procs (its first 8 KiB: 4096 pids
 * at most), up to max into pids.  How many. */
static size_t
cgroup_pids_at(const char *dir, pid_t *pids, size_t max)
{
	char buf[8192];
	size_t n = 0;

	if (cgroup_read_at(dir, "cgroup.procs", buf, sizeof buf) <= 0)
		return 0;
	for (char *p = buf, *end; *p != '\0' && n < max; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		if (pid > 0)
			pids[n++] = (pid_t)pid;
	}
	return n;
}

size_t
cgroup_pids(const struct cgroup *cg, pid_t *pids, size_t max)
{
	return cgroup_pids_at(cg->path, pids, max);
}

bool
cgroup_populated(const struct cgroup *cg)
{
	char buf[256];
	const char *p;
	ssize_t n;

	if (cg->events_fd < 0)
		n = cgroup_read(cg, "cgroup.events", buf, sizeof buf);
	else if ((n = pread(cg->events_fd, buf, sizeof buf - 1, 0)) >= 0)
		buf[n] = '\0';
	if (n < 0 && (errno == ENOENT || errno == ENODEV))
		return false; /* the group is gone, and all in it */
	if (n <= 0 || (p = strstr(buf, "populated ")) == NULL)
		return true;
	return p[10] != '0';
}

/* SIGKILL each pid listed in the folder's cgroup.procs (kernels without
 * cgroup.kill); *(size_t *)arg counts them. */
static void
cgroup_kill_procs(void *arg, const char *path)
{
	pid_t pids[4096];
	size_t *n = arg, k = cgroup_pids_at(path, pids, 4096);

	for (size_t i = 0; i < k; i++)
		if (pids[i] > 1) {
			(void)kill(pids[i], SIGKILL);
			(*n)++;
		}
}

/* SIGKILL each pid listed in the group's and its child groups'
 * cgroup.procs.  How many were listed. */
static size_t
cgroup_kill_listed(const struct cgroup *cg)
{
	size_t n = 0;

	cgroup_kill_procs(&n, cg->path);
	cgroup_each_child(cg->path, cgroup_kill_procs, &n);
	return n;
}

size_t
cgroup_kill(struct cgroup *cg, double wait_s)
{
	double deadline = clock_now() + wait_s;
	size_t n;

	if (!cgroup_populated(cg))
		return 0;
	n = cgroup_kill_listed(cg);
	(void)cgroup_write(cg, "cgroup.kill", "1");
	/* Some kernels (6.18 here) kill every child that clone3 later starts
	 * in a group once cgroup.kill was written to it (its kill count is
	 * compared with the parent group's): from now on the group's
	 * children are moved in through cgroup.procs instead. */
	cg->killed = true;
	/* Killed processes leave the group as they exit, zombies or not. */
	while (cgroup_populated(cg) && clock_now() < deadline) {
		(void)cgroup_kill_listed(cg);
		clock_nap(-1, 5);
	}
	return n > 0 ? n : 1;
}

/* The value of one "KEY N" line of cpu.stat text (KEY at a line's
 * start), or -1. */
static long long
cgroup_stat_value(const char *buf, const char *key)
{
	size_t kl = strlen(key);
	const char *p = buf;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, key, kl) == 0 && p[kl] == ' ')
			return strtoll(p + kl + 1, NULL, 10);
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return -1;
}

/* cpu.stat through the open fd (pread: safe from any thread), else
 * opened afresh. */
static ssize_t
cgroup_read_cpu_stat(const struct cgroup *cg, char *buf, size_t len)
{
	ssize_t n;

	if (cg->stat_fd < 0)
		return cgroup_read(cg, "cpu.stat", buf, len);
	if ((n = pread(cg->stat_fd, buf, len - 1, 0)) >= 0)
		buf[n] = '\0';
	return n;
}

long long
cgroup_cpu_usec(const struct cgroup *cg)
{
	char buf[1024];

	if (cgroup_read_cpu_stat(cg, buf, sizeof buf) <= 0)
		return -1;
	return cgroup_stat_value(buf, "usage_usec");
}

int
cgroup_cpu_split(const struct cgroup *cg, long long *user_usec,
    long long *sys_usec)
{
	char buf[1024];

	if (cgroup_read_cpu_stat(cg, buf, sizeof buf) <= 0)
		return -1;
	*user_usec = cgroup_stat_value(buf, "user_usec");
	*sys_usec = cgroup_stat_value(buf, "system_usec");
	return *user_usec >= 0 && *sys_usec >= 0 ? 0 : -1;
}

bool
cgroup_peak_begin(struct cgroup *cg)
{
	if (cg->no_peak)
		return false;
	if (cg->peak_fd < 0) {
		cg->peak_fd = cgroup_open(cg, "memory.peak", O_RDWR);
		if (cg->peak_fd < 0) {
			cg->no_peak = true; /* asked once, not every leg */
			return false;
		}
	}
	/* Any write resets the peak for reads through this fd (6.12+);
	 * an older kernel refuses it, and a peak since the group was made
	 * is no leg's. */
	if (write(cg->peak_fd, "reset\n", 6) != 6) {
		close(cg->peak_fd);
		cg->peak_fd = -1;
		cg->no_peak = true;
		return false;
	}
	return true;
}

long long
cgroup_peak_end(struct cgroup *cg)
{
	char buf[64];
	ssize_t n;

	if (cg->peak_fd < 0)
		return -1;
	n = pread(cg->peak_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtoll(buf, NULL, 10) / 1024;
}

size_t
cgroup_remove_stale(const char *prefix)
{
	const char *why;
	char *base;
	size_t n;

	if ((base = cgroup_own_folder(&why)) == NULL)
		return 0;
	n = cgroup_sweep(base, prefix, strlen(prefix));
	free(base);
	return n;
}

/* The group benchtui entered, if any. */
static struct cgroup *cgroup_entered;

int
cgroup_enter(struct cgroup *cg)
{
	if (cg->home == NULL || cgroup_add(cg, getpid()) != 0)
		return -1;
	cgroup_entered = cg;
	return 0;
}

/* Back to where benchtui was before cgroup_enter. */
static void
cgroup_leave(struct cgroup *cg)
{
	char *procs, num[24];
	int fd;

	procs = xasprintf("%s/cgroup.procs", cg->home);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	free(procs);
	if (fd < 0)
		return;
	snprintf(num, sizeof num, "%d", (int)getpid());
	if (write(fd, num, strlen(num)) > 0)
		cgroup_entered = NULL;
	close(fd);
}

void
cgroup_destroy(struct cgroup *cg)
{
	if (cg == NULL)
		return;
	if (cgroup_entered == cg)
		cgroup_leave(cg);
	if (cgroup_entered == cg) /* could not leave: never kill ourselves */
		return;
	(void)cgroup_kill(cg, 2.0);
	if (cg->procs_fd >= 0)
		close(cg->procs_fd);
	if (cg->peak_fd >= 0)
		close(cg->peak_fd);
	if (cg->events_fd >= 0)
		close(cg->events_fd);
	if (cg->stat_fd >= 0)
		close(cg->stat_fd);
	if (cg->dir_fd >= 0)
		close(cg->dir_fd);
	(void)cgroup_rmdir_tree(cg->path);
	free(cg->path);
	free(cg->home);
	free(cg);
}
