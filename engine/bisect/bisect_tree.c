/* A revision's worktree and build: DIR/work/SHA/tree, a git worktree of
 * the repository at the revision (the repository's own worktree is never
 * touched), and DIR/work/SHA/out, the build's ${OUT}.  Each is made once
 * per run and kept for later steps; bisect_tree_clean removes them all on
 * the way out.  The build's output is kept as evidence in
 * DIR/builds/SHA.log. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect_int.h"
#include "rfile.h"
#include "xalloc.h"

char *
bisect_tree_out(const char *dir, const char *rev)
{
	return xasprintf("%s/work/%s/out", dir, rev);
}

/* word with every ${OUT} replaced by out (malloc'd). */
static char *
bisect_tree_expand(const char *word, const char *out)
{
	struct xbuf b = { 0 };
	const char *p;

	while ((p = strstr(word, "${OUT}")) != NULL) {
		xbuf_add(&b, word, (size_t)(p - word));
		xbuf_add(&b, out, strlen(out));
		word = p + 6;
	}
	xbuf_add(&b, word, strlen(word) + 1);
	return b.p;
}

/* The build command split at spaces, ${OUT} expanded: a NULL-ended argv
 * of malloc'd words. */
static char **
bisect_tree_argv(const char *build, const char *out)
{
	char *copy = xstrdup(build), *save = NULL, *w;
	char **argv = NULL;
	size_t n = 0;

	for (w = strtok_r(copy, " ", &save); w != NULL;
	    w = strtok_r(NULL, " ", &save)) {
		argv = xreallocarray(argv, n + 2, sizeof *argv);
		argv[n++] = bisect_tree_expand(w, out);
	}
	argv = xreallocarray(argv, n + 1, sizeof *argv);
	argv[n] = NULL;
	free(copy);
	return argv;
}

static void
bisect_tree_argv_free(char **argv)
{
	for (size_t i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* A marker file, name in rev's work folder: its presence is the state. */
static bool
bisect_tree_marked(const char *dir, const char *rev, const char *name)
{
	char *p = xasprintf("%s/work/%s/%s", dir, rev, name);
	bool yes = access(p, F_OK) == 0;

	free(p);
	return yes;
}

static void
bisect_tree_mark(const char *dir, const char *rev, const char *name)
{
	char *p = xasprintf("%s/work/%s/%s", dir, rev, name);
	const char *stage;

	rfile_write_new(p, "", 0, 0644, &stage);
	free(p);
}

/* The worktree at the revision, and the empty build folder. */
static int
bisect_tree_make(const char *dir, const char *repo, const char *rev,
    char *err, size_t errlen)
{
	char *top = xasprintf("%s/work/%s", dir, rev);
	char *tree = xasprintf("%s/tree", top);
	char *out = xasprintf("%s/out", top);
	const char *add[] = { "worktree", "add", "--detach", "--force", tree,
	    rev, NULL };
	int rc = -1;

	if (mkdir(top, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create: %s", top,
		    strerror(errno));
		goto out;
	}
	if (access(tree, F_OK) != 0 &&
	    bisect_git(repo, add, NULL, err, errlen) != 0)
		goto out;
	if (mkdir(out, 0755) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "%s: cannot create: %s", out,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(top);
	free(tree);
	free(out);
	return rc;
}

int
bisect_tree_build(const char *dir, const char *repo, const char *build,
    const char *rev, char *err, size_t errlen)
{
	char *tree, *out, *log, **argv;
	int fd, rc;

	if (bisect_tree_marked(dir, rev, "built"))
		return 0;
	if (bisect_tree_marked(dir, rev, "failed"))
		return 1;
	if (bisect_tree_make(dir, repo, rev, err, errlen) != 0)
		return -1;
	tree = xasprintf("%s/work/%s/tree", dir, rev);
	out = bisect_tree_out(dir, rev);
	log = xasprintf("%s/builds/%s.log", dir, rev);
	argv = bisect_tree_argv(build, out);
	rc = -1;
	if ((fd = rfile_create(log, O_APPEND, 0644)) < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", log,
		    rfile_strerror(errno));
		goto done;
	}
	rc = bisect_exec(argv, tree, fd, NULL, err, errlen);
	close(fd);
	if (rc < 0) {
		/* A build command that does not exist at this revision
		 * (./build.sh added later) fails this revision's build. */
		if (strstr(err, "not found") == NULL)
			goto done;
		rc = 1;
	}
	rc = rc == 0 ? 0 : 1;
	bisect_tree_mark(dir, rev, rc == 0 ? "built" : "failed");
done:
	bisect_tree_argv_free(argv);
	free(tree);
	free(out);
	free(log);
	return rc;
}

static int
bisect_tree_rm_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void
bisect_tree_clean(const char *dir, const char *repo)
{
	char *work = xasprintf("%s/work", dir);
	char err[512];
	DIR *d = opendir(work);
	struct dirent *de;

	/* Through git first, so its record of the worktree goes with the
	 * folder; then whatever is left (the builds, a tree git no longer
	 * knows).  No "git worktree prune": the repository's other records
	 * are not bisect's to tidy. */
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char *tree = xasprintf("%s/%s/tree", work, de->d_name);
		const char *rm[] = { "worktree", "remove", "--force", tree,
		    NULL };

		if (access(tree, F_OK) == 0)
			bisect_git(repo, rm, NULL, err, sizeof err);
		free(tree);
	}
	if (d != NULL)
		closedir(d);
	nftw(work, bisect_tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(work);
}
