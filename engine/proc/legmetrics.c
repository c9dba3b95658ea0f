/* A leg's metrics file: read once after the leg, never followed through a
 * symlink (the leg could plant one), bounded in size. */
#include "legmetrics.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "counters.h"
#include "rfile.h"
#include "xalloc.h"

bool
legmetrics_name_ok(const char *name)
{
	static const char *const builtin[] = { "wall", "cpu", "utime", "stime",
	    NULL };
	const char *const *ctr = counters_names();
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] < 'a' || name[0] > 'z')
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		    (name[i] >= '0' && name[i] <= '9') || name[i] == '_'))
			return false;
	if (strncmp(name, "server_", 7) == 0)
		return false;
	for (size_t i = 0; builtin[i] != NULL; i++)
		if (strcmp(name, builtin[i]) == 0)
			return false;
	for (size_t i = 0; ctr[i] != NULL; i++)
		if (strcmp(name, ctr[i]) == 0)
			return false;
	return true;
}

json_t *
legmetrics_read(const char *path, double not_after, bool *absent, char *why,
    size_t whylen)
{
	json_error_t jerr;
	struct stat st;
	const char *key;
	json_t *obj, *v;
	char *buf;
	ssize_t n;
	int fd;

	*absent = false;
	/* No symlink anywhere on the path: a leg could swap legs/ itself. */
	fd = rfile_open(path, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0) {
		if (errno == ENOENT) {
			*absent = true;
			return NULL;
		}
		snprintf(why, whylen, "cannot be read (%s)",
		    rfile_strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > LEGMETRICS_MAX_BYTES) {
		snprintf(why, whylen, "is not a regular file of at most %d "
		    "bytes", LEGMETRICS_MAX_BYTES);
		close(fd);
		return NULL;
	}
	if (not_after > 0 && (double)st.st_mtim.tv_sec +
	    st.st_mtim.tv_nsec * 1e-9 > not_after + 1e-3) {
		snprintf(why, whylen, "was written after the leg exited (by a "
		    "process it left running), so it is not the leg's");
		close(fd);
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	n = read(fd, buf, (size_t)st.st_size);
	close(fd);
	if (n < 0) {
		free(buf);
		snprintf(why, whylen, "cannot be read (%s)", strerror(errno));
		return NULL;
	}
	obj = json_loadb(buf, (size_t)n, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (obj == NULL) {
		snprintf(why, whylen, "is not JSON (line %d: %s)", jerr.line,
		    jerr.text);
		return NULL;
	}
	if (!json_is_object(obj)) {
		snprintf(why, whylen, "is not a JSON object");
		goto bad;
	}
	if (json_object_size(obj) > LEGMETRICS_MAX_NAMES) {
		snprintf(why, whylen, "has %zu names; at most %d are taken",
		    json_object_size(obj), LEGMETRICS_MAX_NAMES);
		goto bad;
	}
	json_object_foreach(obj, key, v) {
		if (!legmetrics_name_ok(key)) {
			snprintf(why, whylen, "\"%.64s\" is not a name a leg may "
			    "use ([a-z][a-z0-9_]*, not a built-in metric's "
			    "or server_*)", key);
			goto bad;
		}
		if (!json_is_number(v) || !isfinite(json_number_value(v))) {
			snprintf(why, whylen, "\"%s\" is not a finite number",
			    key);
			goto bad;
		}
	}
	return obj;
bad:
	json_decref(obj);
	return NULL;
}
