/* The round's "files", hashed and copied (see keepfiles.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "keepfiles.h"
#include "rfile.h"
#include "xalloc.h"

/* path's bytes, hashed into hex as they are read and kept in *buf
 * (malloc'd) when there are at most max of them, else *buf is NULL: how
 * many there are, or -1 with errno (EIO: the hash failed). */
static ssize_t
keepfiles_read(const char *path, size_t max, char **buf,
    char hex[DIGEST_HEX_LEN])
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), e;
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
		    strerror(errno));
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
