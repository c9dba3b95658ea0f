/* Files of a round folder, never through a symlink (see rfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rfile.h"

/* Set once openat2 is known not to be there: ENOSYS (before Linux 5.6),
 * E2BIG (a struct it does not know), or EPERM from a seccomp filter that
 * refuses it (some container runtimes do). */
static atomic_bool rfile_no_openat2;

/* path under dirfd one folder at a time, each opened with O_NOFOLLOW and
 * O_DIRECTORY (a symlink there fails: ENOTDIR, said as ELOOP), the last
 * name with O_NOFOLLOW: openat2's RESOLVE_NO_SYMLINKS where it is
 * missing.  fd, or -1 with errno. */
static int
rfile_walk(int dirfd, const char *path, int flags, mode_t mode)
{
	const int dirflags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	char name[256];
	const char *p = path;
	int fd = openat(dirfd, path[0] == '/' ? "/" : ".", dirflags), next, e;

	while (fd >= 0) {
		size_t n;

		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n >= sizeof name) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		if (*p == '\0') /* the last name */
			next = openat(fd, n > 0 ? name : ".", flags | O_NOFOLLOW |
			    O_CLOEXEC, mode);
		else
			next = openat(fd, name, dirflags);
		e = errno;
		if (next < 0 && e == ENOTDIR && *p != '\0') {
			struct stat st;

			if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode))
				e = ELOOP;
		}
		close(fd);
		errno = e;
		if (next < 0 || *p == '\0')
			return next;
		fd = next;
	}
	return -1;
}

/* openat2 resolving no symlink anywhere on the way, asked again while it
 * says EAGAIN (a rename or mount raced the lookup).  fd, or -1 with
 * errno. */
static int
rfile_openat2(int dirfd, const char *path, int flags, mode_t mode)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
		.mode = (flags & O_CREAT) ? mode : 0,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do
		fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
	while (fd < 0 && errno == EAGAIN);
	return (int)fd;
}

static int
rfile_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	int fd;

	if (!atomic_load(&rfile_no_openat2)) {
		fd = rfile_openat2(dirfd, path, flags, mode);
		if (fd >= 0 || (errno != ENOSYS && errno != E2BIG &&
		    errno != EPERM))
			return fd;
		/* EPERM may also be a folder's own: ask the walk, which
		 * says so again if it is. */
		atomic_store(&rfile_no_openat2, true);
	}
	return rfile_walk(dirfd, path, flags, mode);
}

int
rfile_open(const char *path, int flags, mode_t mode)
{
	return rfile_openat(AT_FDCWD, path, flags, mode);
}

/* The whole path in one call, made only if nothing holds the name: no
 * symlink on the way (RESOLVE_NO_SYMLINKS), none followed at the end
 * (O_EXCL).  A leg's output file takes this one call instead of four;
 * anything else (the name taken, an old kernel, an error to explain)
 * goes the long way.  fd, or -1. */
static int
rfile_create_new(const char *path, int flags, mode_t mode)
{
	if (atomic_load(&rfile_no_openat2))
		return -1;  /* the long way walks the path */
	return rfile_openat2(AT_FDCWD, path,
	    O_WRONLY | O_CREAT | O_EXCL | flags, mode);
}

/* The folder holding path's last name, opened without a symlink on the
 * way; *name points at that name in path.  fd, or -1 with errno (ELOOP:
 * a link is in the way). */
static int
rfile_parent(const char *path, const char **name)
{
	const char *slash = strrchr(path, '/');
	char parent[4096];
	int dfd;

	if (slash == NULL || (size_t)(slash - path) >= sizeof parent) {
		errno = EINVAL;
		return -1;
	}
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	*name = slash + 1;
	if ((dfd = rfile_openat(AT_FDCWD, parent[0] ? parent : "/",
	    O_RDONLY | O_DIRECTORY, 0)) < 0) {
		struct stat st;

		/* O_NOFOLLOW | O_DIRECTORY on a link says ENOTDIR: say what
		 * is in the way. */
		if (errno == ENOTDIR && lstat(parent, &st) == 0 &&
		    S_ISLNK(st.st_mode))
			errno = ELOOP;
		return -1;
	}
	return dfd;
}

int
rfile_create(const char *path, int flags, mode_t mode)
{
	const char *name;
	int dfd, fd, e;

	if ((fd = rfile_create_new(path, flags, mode)) >= 0)
		return fd;
	/* The folder, reached without a symlink; the name removed and made
	 * again inside it (unlinkat never follows a link, it removes it). */
	if ((dfd = rfile_parent(path, &name)) < 0)
		return -1;
	if (unlinkat(dfd, name, 0) != 0 && errno != ENOENT) {
		e = errno;
		close(dfd);
		errno = e;
		return -1;
	}
	fd = rfile_openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | flags,
	    mode);
	e = errno;
	close(dfd);
	errno = e;
	return fd;
}

int
rfile_remove(const char *path)
{
	const char *name;
	int dfd, rc, e;

	if ((dfd = rfile_parent(path, &name)) < 0)
		return -1;
	rc = unlinkat(dfd, name, 0);
	e = errno;
	close(dfd);
	errno = e;
	return rc;
}

int
rfile_reopen(int fd, int flags)
{
	char path[64];

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	return open(path, flags | O_CLOEXEC);
}

const char *
rfile_fd_path(int fd, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/%d/fd/%d", (int)getpid(), fd);
	return buf;
}

const char *
rfile_strerror(int e)
{
	if (e == ELOOP)
		return "a symlink is in the way (a round's files are never "
		    "written through one)";
	return strerror(e);
}

int
rfile_write_new(const char *path, const void *buf, size_t len, mode_t mode,
    const char **stage)
{
	int fd = rfile_open(path, O_WRONLY | O_CREAT | O_EXCL, mode), e;
	size_t done = 0;

	*stage = "create";
	if (fd < 0)
		return -1;
	*stage = "write";
	while (done < len) {
		ssize_t n = write(fd, (const char *)buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = 0;
			goto fail;
		}
		done += (size_t)n;
	}
	*stage = "sync";
	if (fdatasync(fd) < 0 && errno != EINVAL)
		goto fail;
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	unlink(path);  /* ours (O_EXCL), and only a stub */
	errno = e;
	return -1;
}
