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

/* path's bytes, up to max + 1 of them (so a file past max shows), into
 * *buf (malloc'd); its length, or -1 with errno. */
static ssize_t
keepfiles_read(const char *path, size_t max, char **buf)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 0;

	*buf = NULL;
	if (fd < 0)
		return -1;
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > max)
				break;
			cap = xgrow(cap, len + 1, 64 * 1024);
			*buf = xrealloc(*buf, cap);
		}
		n = read(fd, *buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			free(*buf);
			*buf = NULL;
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	return (ssize_t)len;
}

json_t *
keepfiles_hash(const char *path)
{
	char hex[DIGEST_HEX_LEN];
	struct stat st;

	if (stat(path, &st) != 0 || digest_file(path, hex) != 0)
		return NULL;
	return json_pack("{s:s, s:I}", "sha256", hex, "bytes",
	    (json_int_t)st.st_size);
}

/* One file: hashed, and copied when small enough.  Its record, or NULL
 * with err. */
static json_t *
keepfiles_one(const struct spec_file *f, const char *dir, char *err,
    size_t errlen)
{
	char hex[DIGEST_HEX_LEN], *buf = NULL, *dst;
	ssize_t len = keepfiles_read(f->abs, (size_t)SPEC_FILE_COPY_MAX, &buf);
	bool copy = len >= 0 && len <= SPEC_FILE_COPY_MAX;
	json_t *rec, *big = NULL;
	const char *stage;

	if (len < 0) {
		snprintf(err, errlen, "files: %s: cannot read: %s", f->abs,
		    strerror(errno));
		return NULL;
	}
	if (copy)
		digest_buf(buf, (size_t)len, hex);
	else if ((big = keepfiles_hash(f->abs)) == NULL) {
		snprintf(err, errlen, "files: %s: cannot read: %s", f->abs,
		    strerror(errno));
		free(buf);
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
	rec = json_pack("{s:s, s:s, s:I, s:b}", "path", f->abs, "sha256",
	    copy ? hex : json_string_value(json_object_get(big, "sha256")),
	    "bytes", copy ? (json_int_t)len : json_integer_value(
	    json_object_get(big, "bytes")), "copied", copy);
	json_decref(big);
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
