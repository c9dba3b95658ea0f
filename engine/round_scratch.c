/* The round driver, the scratch folder: emptied before each leg (never a
 * folder that holds the workdir or the round's own files), its bytes
 * counted after. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "round_int.h"

static _Thread_local long long run_scratch_bytes;

static int
run_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	if (f->level == 0)
		return 0;
	if (flag == FTW_DP)
		return rmdir(path) < 0 ? -1 : 0;
	return unlink(path) < 0 ? -1 : 0;
}

static int
run_du_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)path;
	(void)f;
	if (flag == FTW_F && S_ISREG(st->st_mode))
		run_scratch_bytes += st->st_size;
	return 0;
}

/* Whether dir is inside (or is) the folder top; both canonical. */
static bool
run_path_within(const char *dir, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

/* A scratch folder that holds the workdir or the round folder (".", "..",
 * "/") would take the round's own files with it. */
static bool
run_scratch_unsafe(const char *path, const char *workdir, const char *dir)
{
	char *sp = realpath(path, NULL), *wd = realpath(workdir, NULL),
	    *rd = realpath(dir, NULL);
	bool bad;

	bad = sp != NULL && ((wd != NULL && run_path_within(wd, sp)) ||
	    (rd != NULL && run_path_within(rd, sp)));
	free(sp);
	free(wd);
	free(rd);
	return bad;
}

int
run_scratch_empty(const char *path, const char *workdir,
    const char *round_dir, char *err, size_t errlen)
{
	struct stat st;

	if (strcmp(path, "/") == 0 ||
	    run_scratch_unsafe(path, workdir, round_dir)) {
		snprintf(err, errlen, "scratch: %s holds the workdir or the round "
		    "folder; refusing to empty it", path);
		return -1;
	}
	if (stat(path, &st) < 0) {
		char cmd[PATH_MAX];

		snprintf(cmd, sizeof cmd, "%s", path);
		for (char *p = cmd + 1; *p != '\0'; p++)
			if (*p == '/') {
				*p = '\0';
				mkdir(cmd, 0755);
				*p = '/';
			}
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			snprintf(err, errlen, "scratch: %s: cannot create: %s",
			    path, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "scratch: %s: not a folder", path);
		return -1;
	}
	if (nftw(path, run_rm_cb, 32, FTW_DEPTH | FTW_PHYS) != 0) {
		snprintf(err, errlen, "scratch: %s: cannot empty: %s", path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

long long
run_scratch_size(const char *path)
{
	run_scratch_bytes = 0;
	if (nftw(path, run_du_cb, 32, FTW_PHYS) != 0)
		return -1;
	return run_scratch_bytes;
}

char *
run_abspath(const char *p, const char *base)
{
	char *out;

	if (p[0] == '/')
		return strdup(p);
	return asprintf(&out, "%s/%s", base, p) < 0 ? NULL : out;
}
