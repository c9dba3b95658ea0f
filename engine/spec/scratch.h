/* The scratch folder of a round's legs: made, checked and emptied before
 * each leg, measured after (scratch.c says the rules).  The round driver
 * and the agent of legs on another host use it alike. */
#ifndef BENCHTUI_SCRATCH_H
#define BENCHTUI_SCRATCH_H

#include <stddef.h>

/* A path the folder must not hold, and the words that say so ("holds the
 * workdir"); path NULL is skipped. */
struct scratch_hold {
	const char *path;
	const char *why;
};

/* Make the folder path when missing (never under a system folder), check
 * it (no symlink, no system folder, none of holds), claim it by its
 * marker, hold the marker's lock in *lock (-1: none yet; kept across
 * legs, released by scratch_release) and empty it.  0, or -1 with err
 * (nothing deleted). */
int scratch_empty(const char *path, const struct scratch_hold *holds,
    size_t nholds, int *lock, char *err, size_t errlen);
/* Bytes in the folder's regular files, its marker aside: -1 when it
 * cannot be read, -2 (with err) when it became a symlink. */
long long scratch_size(const char *path, char *err, size_t errlen);
void scratch_release(int *lock);
/* Whether the folder dfd holds anything but . and ..: 1, 0, or -1. */
int scratch_dir_has_entries(int dfd);

#endif
