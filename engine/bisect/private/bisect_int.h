/* What the bisect layer's files share: the hunt's state, the programs it
 * runs (git, the build) and the step rounds it writes and reads back. */
#ifndef BENCHTUI_BISECT_INT_H
#define BENCHTUI_BISECT_INT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "bisect.h"

/* A revision's standing in the hunt. */
enum bisect_mark {
	BISECT_UNTESTED = 0,
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,
};

/* The revisions between --good and --bad, oldest first: revs[n - 1] is
 * the bad end, and the good end is before revs[0]. */
struct bisect_range {
	char **revs;            /* full sha1s */
	enum bisect_mark *mark;
	size_t n;
};

/* A hunt, new or read back (bisect_open.c), run by bisect.c. */
struct bisect {
	const struct bisect_opts *o;
	char *dir;              /* the bisect folder, absolute */
	char *repo;             /* the repository, absolute */
	char *build;            /* the build command's text */
	char *metric;
	char *workdir;          /* the round file's workdir, absolute */
	char good[41], bad[41]; /* the ends, full */
	json_t *tmpl;           /* the round file */
	json_t *doc;            /* bisect.json */
	struct bisect_range r;
	char worse[16];         /* "above" or "below" once the ends were
	                         * compared, else "" */
};

/* Check the options and make the folder (new), or read the folder back
 * (resume): 0, or an exit status with err. */
int bisect_open(struct bisect *b, const struct bisect_opts *o, char *err,
    size_t errlen);
void bisect_close(struct bisect *b);
/* bisect.json written anew (a new file renamed over the old): 0, or -1
 * with err. */
int bisect_save(struct bisect *b, char *err, size_t errlen);

/* What narrowing says next (bisect_narrow.c). */
struct bisect_next {
	long pick;              /* the index to test, or -1: the hunt is over */
	long lo;                /* last good index (-1: the good end) */
	long hi;                /* first bad index */
	size_t left;            /* untested revisions inside (lo, hi) */
};

void bisect_narrow(const struct bisect_range *r, struct bisect_next *nx);

/* bisect_exec.c: a program run to its end through the engine's spawn
 * path, no shell.  argv[0] is resolved against cwd (or PATH); stdout and
 * stderr go to out_fd (-1: kept, then into *text when text is not NULL;
 * malloc'd).  The exit status (128 + N for a signal), or -1 with err when
 * it could not be started. */
int bisect_exec(char *const *argv, const char *cwd, int out_fd, char **text,
    char *err, size_t errlen);

/* git -C repo ARGS... to its end; its output (trailing newline cut) into
 * *out when not NULL.  0, or -1 with err naming the command and saying
 * what git said. */
int bisect_git(const char *repo, const char *const *args, char **out,
    char *err, size_t errlen);

/* bisect_tree.c: a revision's worktree and build.  The build folder
 * (${OUT}) of rev inside the bisect folder's work/ (malloc'd). */
char *bisect_tree_out(const char *dir, const char *rev);
/* Make rev's worktree and build it with the build command (argv split at
 * spaces, ${OUT} expanded), its output into DIR/builds/SHA.log, unless
 * built before in this run.  0 built, 1 the build failed (log says how),
 * -1 with err when it could not be tried. */
int bisect_tree_build(const char *dir, const char *repo, const char *build,
    const char *rev, char *err, size_t errlen);
/* Remove every worktree and build of DIR/work (git worktree remove, then
 * the folder). */
void bisect_tree_clean(const char *dir, const char *repo);

/* bisect_step.c: the round file of a step from the user's (tmpl, its
 * workdir absolute): two arms, "good" from good_out and "candidate" from
 * cand_out, adaptive until decided on metric.  A new object. */
json_t *bisect_step_spec(const json_t *tmpl, const char *workdir,
    const char *name, const char *good_out, const char *cand_out,
    const char *metric);
/* Whether the round file uses ${OUT} where bisect can fill it (the
 * round's bin or command, or its first arm). */
bool bisect_step_uses_out(const json_t *tmpl);

/* A finished step round read back: the candidate's verdict on metric
 * (the worse one across cells), its estimate, interval and reps. */
struct bisect_verdict {
	char verdict[16];       /* above, below, same, undecided, unknown */
	double estimate;        /* 0: none */
	double lo, hi;          /* 0: no interval */
	long reps;
};
int bisect_step_read(const char *round_dir, const char *metric,
    const char *worse, struct bisect_verdict *v, char *err, size_t errlen);

#endif
