/* "did you mean": the closest of some names to a misspelt one. */
#ifndef BENCHTUI_SUGGEST_H
#define BENCHTUI_SUGGEST_H

#include <stddef.h>

/* The name of names[0..n) (n SIZE_MAX: up to a NULL) nearest to word by
 * edit distance (insertions, deletions, substitutions and swaps of two
 * neighbours, case ignored), when it is near enough to be a slip: at
 * most 1 edit for a word of up to 4 characters, 2 up to 8, 3 beyond.
 * The first of equals wins.  NULL when none is. */
const char *suggest_nearest(const char *word, const char *const *names,
    size_t n);

/* " (did you mean \"NAME\"?)" into buf for the nearest name, or "" when
 * there is none: for the end of an error message.  buf. */
const char *suggest_hint(char *buf, size_t len, const char *word,
    const char *const *names, size_t n);

#endif
