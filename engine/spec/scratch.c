/* The scratch folder: checked, claimed and emptied before each leg, its
 * bytes counted after; here for the round driver and for the agent of
 * legs on another host alike.
 *
 * Emptying a folder deletes whatever is in it, so the folder must be one
 * that is nobody else's (benchtui-round(5), "scratch"):
 * - benchtui made it, or it was empty when first used, and it carries the
 *   marker file .benchtui-scratch, looked for before every emptying: a
 *   folder that holds files and no marker is refused, never emptied;
 * - it is not, and does not hold, a system folder, nor any path the
 *   caller names (the workdir, the round folder, the round file, the
 *   leg's program, a path the leg's command names);
 * - it is not a symlink (nor becomes one during a leg);
 * - the marker is flock'ed while a round uses the folder, so two rounds
 *   cannot share it.
 * Emptying and measuring walk the tree by file descriptors, one folder open
 * at a time, down by openat and back up by "..", so a tree thousands of
 * levels deep (a leg can make one) is emptied like any other. */
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec.h"
#include "xalloc.h"

#define SCRATCH_MARKER ".benchtui-scratch"

/* mkdir -p, 0755. */
static int
scratch_mkdirs(const char *path)
{
	char buf[PATH_MAX];

	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (char *p = buf + 1; *p != '\0'; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(buf, 0755) < 0 && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) < 0 && errno != EEXIST ? -1 : 0;
}

/* --- walking by descriptors ------------------------------------------- */

/* One level above the folder being walked: where to come back to. */
struct scratch_up {
	dev_t dev;
	ino_t ino;
	long pos;        /* the walk's place in that folder (measuring) */
	char *name;      /* the folder below, by name (emptying) */
};

struct scratch_walk {
	struct scratch_up *up;
	size_t depth, cap;
};

static int
scratch_walk_push(struct scratch_walk *w, int fd, long pos, const char *name)
{
	struct stat st;

	if (w->depth == w->cap) {
		w->cap = xgrow(w->cap, w->depth + 1, 64);
		w->up = xreallocarray(w->up, w->cap, sizeof *w->up);
	}
	if (fstat(fd, &st) != 0)
		return -1;
	w->up[w->depth++] = (struct scratch_up){ st.st_dev, st.st_ino, pos,
		name != NULL ? xstrdup(name) : NULL };
	return 0;
}

/* Up from the folder fd to its parent, which must be the folder the walk
 * came down from (a folder moved meanwhile is an error, not a walk of
 * somewhere else).  The parent's fd, or -1. */
static int
scratch_walk_pop(struct scratch_walk *w, int fd)
{
	struct scratch_up *u = &w->up[--w->depth];
	int parent = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	if (parent >= 0 && (fstat(parent, &st) != 0 || st.st_dev != u->dev ||
	    st.st_ino != u->ino)) {
		close(parent);
		errno = ESTALE;
		return -1;
	}
	return parent;
}

static void
scratch_walk_free(struct scratch_walk *w)
{
	for (size_t i = 0; i < w->depth; i++)
		free(w->up[i].name);
	free(w->up);
}

/* DIR over a copy of fd (fd stays the caller's). */
static DIR *
scratch_opendir(int fd)
{
	int d2 = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	DIR *d = d2 >= 0 ? fdopendir(d2) : NULL;

	if (d == NULL && d2 >= 0)
		close(d2);
	return d;
}

/* unlinkat, and once more after making the folder writable (a leg may
 * leave a read-only folder behind; its owner may still empty it). */
static int
scratch_unlinkat(int dfd, const char *name, int flags)
{
	if (unlinkat(dfd, name, flags) == 0)
		return 0;
	if (errno != EACCES && errno != EPERM)
		return -1;
	if (fchmod(dfd, 0700) != 0)
		return -1;
	return unlinkat(dfd, name, flags);
}

/* openat of the folder name under dfd, making it searchable if need be. */
static int
scratch_openat_dir(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);

	if (fd < 0 && errno == EACCES && fchmodat(dfd, name, 0700, 0) == 0)
		fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	return fd;
}

/* One pass over the folder cur: its files removed, and its folders that
 * are empty (the marker stays at the top).  0 with *down the first folder
 * that is not (malloc'd), or NULL when none is left; -1 with errno and
 * what naming the entry. */
static int
scratch_rm_level(int cur, bool top, char **down, char *what, size_t whatlen)
{
	DIR *d = scratch_opendir(cur);
	struct dirent *de;
	int rc = -1, e;

	*down = NULL;
	if (d == NULL)
		return -1;
	while ((errno = 0, de = readdir(d)) != NULL) {
		const char *n = de->d_name;
		struct stat st;

		if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 ||
		    (top && strcmp(n, SCRATCH_MARKER) == 0))
			continue;
		snprintf(what, whatlen, "%s", n);
		if (fstatat(cur, n, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			if (errno == ENOENT)
				continue;
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (scratch_unlinkat(cur, n, 0) != 0 && errno != ENOENT)
				goto out;
			continue;
		}
		if (scratch_unlinkat(cur, n, AT_REMOVEDIR) == 0)
			continue;
		if (errno != ENOTEMPTY && errno != EEXIST)
			goto out;
		*down = xstrdup(n);
		break;
	}
	rc = de == NULL && errno != 0 ? -1 : 0;
out:
	e = errno;
	closedir(d);
	errno = e;
	return rc;
}

/* Up from the folder *cur, emptied, to its parent (*cur then), and remove
 * it there.  0, or -1 with errno and what naming it. */
static int
scratch_rm_up(struct scratch_walk *w, int *cur, char *what, size_t whatlen)
{
	int parent = scratch_walk_pop(w, *cur), rc = -1;
	char *name = w->up[w->depth].name;

	if (parent >= 0) {
		close(*cur);
		*cur = parent;
		snprintf(what, whatlen, "%s", name);
		rc = scratch_unlinkat(parent, name, AT_REMOVEDIR) != 0 &&
		    errno != ENOENT && errno != ENOTEMPTY ? -1 : 0;
	}
	free(name);
	return rc;
}

/* Remove everything in the folder top but the marker.  Each folder is read
 * from its start again after a subfolder is removed, so nothing depends on
 * a directory position across deletions.  -1 with errno and *what naming
 * the entry. */
static int
scratch_rm_tree(int top, char *what, size_t whatlen)
{
	struct scratch_walk w = { 0 };
	int cur = fcntl(top, F_DUPFD_CLOEXEC, 0), child, rc = 0, e;
	char *down;

	snprintf(what, whatlen, ".");
	if (cur < 0)
		return -1;
	while (rc == 0) {
		if ((rc = scratch_rm_level(cur, w.depth == 0, &down, what,
		    whatlen)) != 0)
			break;
		if (down != NULL) {
			child = scratch_openat_dir(cur, down);
			if (child < 0 || scratch_walk_push(&w, cur, 0, down) != 0) {
				e = errno;
				if (child >= 0)
					close(child);
				errno = e;
				rc = -1;
			} else {
				close(cur);
				cur = child;
			}
			free(down);
		} else if (w.depth == 0)
			break;
		else
			rc = scratch_rm_up(&w, &cur, what, whatlen);
	}
	e = errno;
	close(cur);
	scratch_walk_free(&w);
	errno = e;
	return rc;
}

/* Bytes in the regular files under the folder top, its marker aside.
 * -1 with errno. */
static long long
scratch_du(int top)
{
	struct scratch_walk w = { 0 };
	long long total = 0;
	DIR *d = scratch_opendir(top);
	struct dirent *de;

	if (d == NULL)
		return -1;
	for (;;) {
		struct stat st;

		errno = 0;
		if ((de = readdir(d)) == NULL) {
			long pos;
			int parent;

			if (errno != 0 || w.depth == 0)
				break;
			pos = w.up[w.depth - 1].pos;
			if ((parent = scratch_walk_pop(&w, dirfd(d))) < 0)
				break;
			closedir(d);
			if ((d = fdopendir(parent)) == NULL) {
				close(parent);
				scratch_walk_free(&w);
				return -1;
			}
			seekdir(d, pos);
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    (w.depth == 0 && strcmp(de->d_name, SCRATCH_MARKER) == 0))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		if (S_ISREG(st.st_mode)) {
			total += st.st_size;
		} else if (S_ISDIR(st.st_mode)) {
			int child = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			DIR *cd;

			if (child < 0)
				continue;
			if (scratch_walk_push(&w, dirfd(d), telldir(d),
			    NULL) != 0 || (cd = fdopendir(child)) == NULL) {
				close(child);
				break;
			}
			closedir(d);
			d = cd;
		}
	}
	if (errno != 0) {
		int e = errno;

		closedir(d);
		scratch_walk_free(&w);
		errno = e;
		return -1;
	}
	closedir(d);
	scratch_walk_free(&w);
	return total;
}

/* --- the marker and its lock ------------------------------------------ */

/* Hold the lock on the marker fd in *lock: kept when it is the marker
 * already held, refused when another round holds it. */
static int
scratch_lock(int *lock, const char *sp, int mfd, char *err, size_t errlen)
{
	struct stat st, held;

	if (fstat(mfd, &st) != 0) {
		snprintf(err, errlen, "scratch: %s/%s: %s", sp, SCRATCH_MARKER,
		    strerror(errno));
		return -1;
	}
	if (*lock >= 0 && fstat(*lock, &held) == 0 &&
	    held.st_dev == st.st_dev && held.st_ino == st.st_ino)
		return 0;
	if (flock(mfd, LOCK_EX | LOCK_NB) != 0) {
		snprintf(err, errlen, "scratch: %s is in use by another round "
		    "(it holds the lock on %s); two rounds never share a scratch "
		    "folder", sp, SCRATCH_MARKER);
		return -1;
	}
	scratch_release(lock);
	if ((*lock = fcntl(mfd, F_DUPFD_CLOEXEC, 0)) < 0) {
		snprintf(err, errlen, "scratch: %s: %s", sp, strerror(errno));
		return -1;
	}
	return 0;
}

void
scratch_release(int *lock)
{
	if (*lock >= 0)
		close(*lock);
	*lock = -1;
}

int
scratch_dir_has_entries(int dfd)
{
	int fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0), found = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
			found = 1;
			break;
		}
	closedir(d);
	return found;
}

/* The marker of the folder dfd: opened (never through a link), or made
 * when the folder is empty.  fd, or -1 with err. */
static int
scratch_marker(int dfd, const char *sp, char *err, size_t errlen)
{
	static const char text[] = "benchtui scratch folder: emptied before "
	    "every leg of a round (see benchtui(1))\n";
	int fd = openat(dfd, SCRATCH_MARKER, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int full;

	if (fd >= 0) {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			return fd;
		close(fd);
		errno = EINVAL;
	}
	if (errno != ENOENT) {
		snprintf(err, errlen, "scratch: %s/%s is not benchtui's marker "
		    "(%s); refusing to empty the folder", sp, SCRATCH_MARKER,
		    errno == ELOOP ? "a symlink" : errno == EINVAL ?
		    "not a regular file" : strerror(errno));
		return -1;
	}
	if ((full = scratch_dir_has_entries(dfd)) != 0) {
		if (full < 0)
			snprintf(err, errlen, "scratch: %s: cannot read: %s", sp,
			    strerror(errno));
		else
			snprintf(err, errlen, "scratch: %s holds files but no %s "
			    "marker: benchtui did not make it and it was not empty, "
			    "so it is not emptied; empty it yourself or choose "
			    "another scratch folder", sp, SCRATCH_MARKER);
		return -1;
	}
	fd = openat(dfd, SCRATCH_MARKER, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, text, sizeof text - 1) != (ssize_t)sizeof text - 1) {
		snprintf(err, errlen, "scratch: %s/%s: cannot create: %s", sp,
		    SCRATCH_MARKER, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

int
scratch_empty(const char *path, const struct scratch_hold *holds,
    size_t nholds, int *lock, char *err, size_t errlen)
{
	char *sp = NULL, what[NAME_MAX + 1];
	const char *why = NULL, *held = NULL;
	int dfd = -1, mfd = -1, rc = -1;
	struct stat st;

	if (lstat(path, &st) != 0) {
		/* Made by benchtui, so its own; but never under a system
		 * folder. */
		int e = errno;

		if (e == ENOENT && (why = spec_scratch_system(path)) != NULL) {
			snprintf(err, errlen, "scratch: %s %s; refusing to make "
			    "it", path, why);
			return -1;
		}
		errno = e;
		if (e != ENOENT || scratch_mkdirs(path) != 0) {
			snprintf(err, errlen, "scratch: %s: cannot create: %s",
			    path, strerror(errno));
			return -1;
		}
	} else if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "scratch: %s is a symlink; a scratch folder "
		    "is emptied, so it must be a folder of its own, never reached "
		    "through a link", path);
		return -1;
	} else if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "scratch: %s: not a folder", path);
		return -1;
	}
	if ((sp = realpath(path, NULL)) == NULL) {
		snprintf(err, errlen, "scratch: %s: %s", path, strerror(errno));
		return -1;
	}
	if ((why = spec_scratch_system(sp)) == NULL)
		for (size_t i = 0; why == NULL && i < nholds; i++)
			if (holds[i].path != NULL &&
			    spec_path_holds(sp, holds[i].path))
				why = holds[i].why, held = holds[i].path;
	if (why != NULL) {
		snprintf(err, errlen, "scratch: %s %s%s%s; refusing to empty it",
		    sp, why, held ? " " : "", held ? held : "");
		goto out;
	}
	if ((dfd = open(sp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "scratch: %s: %s", sp, strerror(errno));
		goto out;
	}
	if ((mfd = scratch_marker(dfd, sp, err, errlen)) < 0 ||
	    scratch_lock(lock, sp, mfd, err, errlen) != 0)
		goto out;
	if (scratch_rm_tree(dfd, what, sizeof what) != 0) {
		snprintf(err, errlen, "scratch: %s: cannot empty it (at %s): %s",
		    sp, what, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (mfd >= 0)
		close(mfd);
	if (dfd >= 0)
		close(dfd);
	free(sp);
	return rc;
}

long long
scratch_size(const char *path, char *err, size_t errlen)
{
	int dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	long long n;

	if (dfd < 0) {
		struct stat st;

		if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
			snprintf(err, errlen, "scratch: %s became a symlink during "
			    "the leg; a scratch folder is never reached through a "
			    "link", path);
			return -2;
		}
		return -1;
	}
	n = scratch_du(dfd);
	close(dfd);
	return n;
}
