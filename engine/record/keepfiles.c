/* The round's "files", hashed and copied (see keepfiles.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "digest.h"
#include "keepfiles.h"
#include "rfile.h"
#include "xalloc.h"

/* path's bytes, hashed into hex as they are read and kept in *buf
 * (malloc'd) when there are at most max of them, else *buf is NULL: how
 * many there are, or -1 with errno (EIO: the hash failed). */
/* A kept file is a regular file outside /proc and /sys, opened without
 * blocking (a fifo, a device or /proc/kmsg would hold the round before
 * its first leg).  The descriptor, or -1 with errno (EINVAL for a file of
 * another kind; ENOTSUP for a pseudo file system's). */
static int
keepfiles_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	struct statfs fs;
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || fstatfs(fd, &fs) != 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode) || fs.f_type == PROC_SUPER_MAGIC ||
	    fs.f_type == SYSFS_MAGIC) {
		close(fd);
		errno = S_ISREG(st.st_mode) ? ENOTSUP : EINVAL;
		return -1;
	}
	return fd;
}

/* Why keepfiles_open refused a file, for errno e. */
static const char *
keepfiles_why(int e)
{
	if (e == EINVAL)
		return "not a regular file (a kept file is read whole before "
		    "the first leg: no fifo, device or socket)";
	if (e == ENOTSUP)
		return "a file of /proc or /sys (their contents are the "
		    "kernel's of the moment, not a file's)";
	return strerror(e);
}

static ssize_t
keepfiles_read(const char *path, size_t max, char **buf,
    char hex[DIGEST_HEX_LEN])
{
	int fd = keepfiles_open(path), e;
	size_t len = 0, cap = 0, total = 0; /* (*buf)[0..len) not hashed yet */
	struct digest_ctx *d;
	ssize_t n;

	*buf = NULL;
	if (fd < 0)
		return -1;
	d = digest_create();
	digest_start(d);
	for (;;) {
		if (len == cap && cap > max) {
			/* Past max: the buffer only carries the rest to the
			 * hash. */
			digest_update(d, *buf, len);
			total += len;
			len = 0;
		} else if (len == cap) {
			cap = xgrow(cap, len + 1, 64 * 1024);
			*buf = xrealloc(*buf, cap);
		}
		n = read(fd, *buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	e = n < 0 ? errno : 0;
	close(fd);
	digest_update(d, *buf, len);
	total += len;
	digest_finish(d, hex);
	digest_destroy(d);
	if (e == 0 && hex[0] == '\0')
		e = EIO;
	if (e != 0 || total > max) {
		free(*buf);
		*buf = NULL;
	}
	if (e != 0) {
		errno = e;
		return -1;
	}
	return (ssize_t)total;
}

/* One file: hashed, and copied when small enough.  Its record, or NULL
 * with err. */
static json_t *
keepfiles_one(const struct spec_file *f, const char *dir, char *err,
    size_t errlen)
{
	char hex[DIGEST_HEX_LEN], *buf, *dst;
	ssize_t len = keepfiles_read(f->abs, (size_t)SPEC_FILE_COPY_MAX, &buf,
	    hex);
	bool copy = len >= 0 && len <= SPEC_FILE_COPY_MAX;
	json_t *rec;
	const char *stage;

	if (len < 0) {
		snprintf(err, errlen, "files: %s: cannot read: %s", f->abs,
		    keepfiles_why(errno));
		return NULL;
	}
	dst = xasprintf("%s/files/%s", dir, f->as);
	if (copy && rfile_write_new(dst, buf, (size_t)len, 0644, &stage) != 0) {
		snprintf(err, errlen, "%s: cannot %s: %s", dst, stage, errno ?
		    rfile_strerror(errno) : "disk full");
		free(dst);
		free(buf);
		return NULL;
	}
	rec = json_pack("{s:s, s:s, s:I, s:b}", "path", f->abs, "sha256", hex,
	    "bytes", (json_int_t)len, "copied", copy);
	free(dst);
	free(buf);
	return rec;
}

json_t *
keepfiles_keep(const struct spec *s, const char *dir, char *err,
    size_t errlen)
{
	json_t *all = json_object();
	char *fdir;

	if (s->nfiles == 0)
		return all;
	fdir = xasprintf("%s/files", dir);
	if (mkdir(fdir, 0755) != 0) {
		snprintf(err, errlen, "%s: cannot create: %s", fdir,
		    strerror(errno));
		free(fdir);
		json_decref(all);
		return NULL;
	}
	free(fdir);
	for (size_t i = 0; i < s->nfiles; i++) {
		json_t *rec = keepfiles_one(&s->files[i], dir, err, errlen);

		if (rec == NULL) {
			json_decref(all);
			return NULL;
		}
		json_object_set_new(all, s->files[i].as, rec);
	}
	return all;
}

void
keepfiles_unmake(const struct spec *s, const char *dir)
{
	char *path;

	for (size_t i = 0; i < s->nfiles; i++) {
		path = xasprintf("%s/files/%s", dir, s->files[i].as);
		(void)unlink(path);
		free(path);
	}
	path = xasprintf("%s/files", dir);
	(void)rmdir(path);
	free(path);
}

size_t
keepfiles_verify(const struct spec *s, const json_t *ref, json_t *changed)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfiles; i++) {
		const struct spec_file *f = &s->files[i];
		const char *was = json_string_value(json_object_get(
		    json_object_get(ref, f->as), "sha256"));
		char hex[DIGEST_HEX_LEN], *buf;
		ssize_t len = keepfiles_read(f->abs, 0, &buf, hex);

		free(buf);
		if (was != NULL && len >= 0 && strcmp(was, hex) == 0)
			continue;
		json_array_append_new(changed, json_pack("{s:s, s:s, s:s?, "
		    "s:s?, s:s?}", "file", f->as, "path", f->abs, "was", was,
		    "now", len >= 0 ? hex : NULL, "error", len >= 0 ? NULL :
		    keepfiles_why(errno)));
		n++;
	}
	return n;
}

void
keepfiles_ref_update(json_t *ref, const json_t *changed)
{
	const json_t *c;
	size_t i;

	json_array_foreach(changed, i, c) {
		json_t *rec = json_object_get(ref, json_string_value(
		    json_object_get(c, "file")));
		const json_t *now = json_object_get(c, "now");
		if (json_is_object(rec))
			json_object_set(rec, "sha256", now ? (json_t *)now :
			    json_null());
	}
}

void
keepfiles_describe(const json_t *changed, char *buf, size_t len)
{
	const json_t *c;
	size_t i, k = 0;

	buf[0] = '\0';
	json_array_foreach(changed, i, c) {
		const char *now = json_string_value(json_object_get(c, "now"));
		if (k >= len)
			break;
		k += (size_t)snprintf(buf + k, len - k, "%sfiles: %s (%s) "
		    "changed since the round kept it: sha256 %s then, %s%s now",
		    i ? "; " : "", json_string_value(json_object_get(c, "file")),
		    json_string_value(json_object_get(c, "path")),
		    json_string_value(json_object_get(c, "was")) ?
		    json_string_value(json_object_get(c, "was")) : "none",
		    now ? now : "unreadable: ", now ? "" : json_string_value(
		    json_object_get(c, "error")));
	}
}
