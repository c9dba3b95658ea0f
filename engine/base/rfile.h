/* Files of a round folder, opened so that nothing a leg plants there can
 * send benchtui's writes elsewhere: no symlink is followed, in the file's
 * own name or in any folder of its path.  Paths are absolute and canonical
 * (the round's folder is realpath'd), so "no symlink anywhere" is exact. */
#ifndef BENCHTUI_RFILE_H
#define BENCHTUI_RFILE_H

#include <stddef.h>
#include <sys/types.h>

/* open(2) of path with flags, refusing any symlink on the way (openat2
 * RESOLVE_NO_SYMLINKS; where openat2 is missing, before Linux 5.6 or
 * refused by a seccomp filter, a walk of the path one folder at a time
 * with O_NOFOLLOW, which refuses the same).  O_CLOEXEC is added.  fd, or
 * -1 with errno (ELOOP: a symlink is in the way). */
int rfile_open(const char *path, int flags, mode_t mode);

/* A new file at path for writing (flags add to O_WRONLY | O_CREAT |
 * O_EXCL): whatever holds the name now (a file from an attempt that was
 * aborted, or a link a leg planted) is removed first, never followed.
 * fd, or -1 with errno. */
int rfile_create(const char *path, int flags, mode_t mode);

/* Remove the file (or link) at path, no symlink followed on the way.  0,
 * or -1 with errno (ENOENT: nothing was there). */
int rfile_remove(const char *path);
/* buf[0..len) as a new file at path (O_EXCL, no symlink on the way),
 * synced; a file left half-written is removed.  0, or -1 with errno and
 * *stage ("create", "write" or "sync"; errno 0 after a write of nothing:
 * a full disk). */
int rfile_write_new(const char *path, const void *buf, size_t len,
    mode_t mode, const char **stage);
/* The file open on fd, opened again with flags (through /proc/self/fd,
 * which names the open file itself, never a path in the folder): a file
 * made with rfile_create read back after another process wrote it.  fd,
 * or -1 with errno. */
int rfile_reopen(int fd, int flags);

/* "/proc/PID/fd/FD": how another program (perf) opens the very file this
 * process holds open on fd, whatever has happened to its name since.
 * buf. */
const char *rfile_fd_path(int fd, char *buf, size_t len);

/* strerror(e), but a symlink in the way says so. */
const char *rfile_strerror(int e);

#endif
