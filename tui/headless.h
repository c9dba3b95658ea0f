/* The headless front end: one line per leg as it finishes, then a closing
 * table of each arm's median ratio against its comparison arm per cell. */
#ifndef BENCHTUI_HEADLESS_H
#define BENCHTUI_HEADLESS_H

#include <jansson.h>
#include <stdio.h>

struct headless;
struct round;
struct spec;

/* A printer to out; spec (may be NULL for a bare log) gives vs and aa_of. */
struct headless *headless_create(FILE *out, const struct spec *spec);
/* Print what an event warrants (leg lines, warnings, aborts). */
void headless_event(struct headless *h, const json_t *ev);
/* Print the summary (words_summary) and the seal. */
void headless_finish(struct headless *h);
void headless_destroy(struct headless *h);

/* Run r in this thread, printing as it goes; SIGINT and SIGTERM abort it
 * (resumably).  Returns the exit status. */
int headless_run_round(struct round *r);
/* The same, printing nothing (a bisect's step, said in a line of its
 * own); err gets the reason for anything but OK. */
int headless_run_silent(struct round *r, char *err, size_t errlen);

#endif
