/* benchtui bisect: the commit that moved a metric, each step a sealed
 * round.
 *
 * A bisect folder holds bisect.json (the hunt: its ends, its metric, each
 * step's revision, round folder and verdict, and the culprit), the round
 * file it was given (bisect-round.json), each step's round folder
 * (steps/NN-SHA, run by the round driver and sealed as any round), each
 * revision's build output (builds/SHA.log), and once the hunt is over
 * SHA256SUMS over all of it.  Builds and worktrees live in DIR/work while
 * the hunt runs and are removed when it stops or ends. */
#ifndef BENCHTUI_BISECT_H
#define BENCHTUI_BISECT_H

#include <jansson.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct round;

/* The exit status when the bad end is not worse than the good (SPEC.md);
 * the others are round.h's: 0 a culprit, 2 bad input, 3 stopped, 1 any
 * other failure. */
#define BISECT_EXIT_NONE 7

/* What a front end shows of the hunt while a step's round runs. */
struct bisect_hunt {
	const char *dir;         /* the bisect folder */
	size_t step;             /* 1-based: the step now running */
	const char *rev;         /* its candidate (a full sha) */
	const char *kind;        /* "ends" (good against bad), "step" or
	                          * "confirm" (the culprit against its
	                          * parent) */
	size_t left;             /* revisions not yet tested in the range */
	size_t range;            /* revisions still in the range */
	const json_t *steps;     /* bisect.json's steps so far (borrowed) */
};

struct bisect_opts {
	/* bisect: */
	const char *round_path;  /* the round file (uses ${OUT}) */
	const char *repo;        /* --repo */
	const char *good, *bad;  /* --good, --bad */
	const char *build;       /* --build "CMD ARG..." */
	const char *metric;      /* --metric, or NULL: cpu */
	const char *out_dir;     /* --out, or NULL: ./bisects/NAME-DATE */
	/* resume: the folder (the others NULL) */
	const char *resume_dir;
	/* Run a step's round to its end (round_run, with whatever the front
	 * end shows); returns round_run's exit status. */
	int (*run_round)(struct round *r, const struct bisect_hunt *h,
	    void *arg);
	/* Set (by a signal handler) to stop between steps and builds, as an
	 * abort stops a round: resumably.  May be NULL. */
	volatile sig_atomic_t *stop;
	/* A line for the user: the folder, each step's verdict, the end. */
	void (*say)(const char *line, void *arg);
	void *arg;
};

/* Check the input (every error before anything is built), then hunt.
 * Returns the exit status; err says why for anything but 0. */
int bisect_run(const struct bisect_opts *o, char *err, size_t errlen);

/* Whether dir is a bisect folder (holds bisect.json). */
bool bisect_is_folder(const char *dir);

/* verify of a bisect folder whose own seal holds: each step's round
 * checked against its own seal too (a line per mismatch on out).  0 with
 * *rounds the number checked, 4 on a mismatch, 2 with err when
 * bisect.json cannot be read or a step's round is not sealed. */
int bisect_verify_steps(const char *dir, FILE *out, size_t *rounds,
    char *err, size_t errlen);

#endif
