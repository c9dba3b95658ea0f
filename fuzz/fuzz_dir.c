/* See fuzz_dir.h. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_dir.h"

static char fuzz_dir_path[] = "/tmp/benchtui-fuzz-XXXXXX";
static int fuzz_dir_made;

static void
fuzz_dir_remove(void)
{
	DIR *d = opendir(fuzz_dir_path);
	struct dirent *e;

	if (d != NULL) {
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				unlinkat(dirfd(d), e->d_name, 0);
		closedir(d);
	}
	rmdir(fuzz_dir_path);
}

const char *
fuzz_dir(void)
{
	if (!fuzz_dir_made) {
		if (mkdtemp(fuzz_dir_path) == NULL) {
			perror("fuzz_dir: mkdtemp");
			abort();
		}
		fuzz_dir_made = 1;
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

void
fuzz_dir_put(const char *name, const void *data, size_t len)
{
	char path[128];
	int fd;

	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	/* Unlinked first: a file left read-only must not stop the write. */
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || (len > 0 && write(fd, data, len) != (ssize_t)len)) {
		perror(path);
		abort();
	}
	close(fd);
}
