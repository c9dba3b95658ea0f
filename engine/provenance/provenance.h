/* Host facts and provenance for environment.json and the "env" event:
 * kernel, CPU model, cores, SMT, governor, turbo, perf_event_paranoid,
 * cgroup limits, swap, benchtui version and counter backend, the round's
 * settings, and the sha256 of every binary the round runs. */
#ifndef BENCHTUI_PROVENANCE_H
#define BENCHTUI_PROVENANCE_H

#include <jansson.h>

#include "spec.h"

/* The host facts alone (used by resume to re-check the machine). */
json_t *provenance_host(void);

/* Everything environment.json holds for this round.  bins is an object
 * {path: sha256} of every binary the round runs (see provenance_bins). */
json_t *provenance_collect(const struct spec *s, const char *round_dir);

/* {absolute path: sha256} of every binary the round's arms and servers run. */
json_t *provenance_bins(const struct spec *s);

/* Hash prog, resolved as execvp would from workdir, into bins as
 * {absolute path: sha256}, once per path; a program not found is
 * {prog: null}.  A remote server's agent hashes its binaries with it. */
void provenance_add_bin(json_t *bins, const char *prog, const char *workdir);

/* Noise warnings that apply on this host (governor not performance, turbo
 * on, swap in use, paranoid > 1 for non-root, ...): an array of strings. */
json_t *provenance_warnings(const json_t *host);

#endif
