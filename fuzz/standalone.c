/* A main for the fuzz targets without libFuzzer: runs the target once over
 * every file named on the command line, descending into folders.  This is
 * how the corpora and the repo's fixtures run as regression tests in every
 * build.  Each input is copied into a buffer of exactly its size, so an
 * ASan build catches a read past the end as libFuzzer would. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static size_t standalone_count;

static int
standalone_file(const char *path)
{
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0, got;
	FILE *f = fopen(path, "rb");
	int rc = -1;

	if (f == NULL) {
		fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		if (len == cap) {
			unsigned char *n;

			cap = cap ? cap * 2 : 4096;
			if ((n = realloc(buf, cap)) == NULL) {
				fprintf(stderr, "%s: out of memory\n", path);
				goto out;
			}
			buf = n;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "%s: read error\n", path);
		goto out;
	}
	/* Exactly len bytes, so an over-read is caught. */
	{
		unsigned char *exact = malloc(len ? len : 1);

		if (exact == NULL)
			goto out;
		if (len)
			memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	standalone_count++;
	rc = 0;
out:
	free(buf);
	fclose(f);
	return rc;
}

static int
standalone_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, i, rc = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return standalone_file(path);
	/* Sorted, so a failing run names the same input every time. */
	if ((n = scandir(path, &names, NULL, alphasort)) < 0) {
		fprintf(stderr, "%s: cannot list: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		char *child;

		if (names[i]->d_name[0] != '.' &&
		    asprintf(&child, "%s/%s", path, names[i]->d_name) >= 0) {
			if (standalone_path(child) < 0)
				rc = -1;
			free(child);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int
main(int argc, char **argv)
{
	int i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (i = 1; i < argc; i++)
		if (standalone_path(argv[i]) < 0)
			rc = 1;
	printf("%s: %zu inputs\n", argv[0], standalone_count);
	/* No input at all means the test ran over nothing: a failure. */
	return rc != 0 || standalone_count == 0;
}
