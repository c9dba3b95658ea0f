/* compare's environment header: two rounds' environment.json (and round
 * files) side by side, every difference named, so "before and after" on
 * one host and "across machines" are never confused. */
#ifndef BENCHTUI_ENVDIFF_H
#define BENCHTUI_ENVDIFF_H

#include <jansson.h>

#include "spec.h"

/* {"same": {KEY: VALUE}, "differ": {KEY: [A_VALUE, B_VALUE]}} over, in
 * this order: hostname, kernel, cpu_model, cpus (cores online),
 * microcode, governor (each CPU's, the distinct ones joined by ","),
 * benchtui_version, confidence and margin (the round files'), then
 * "bin:PATH" for every binary either round hashed (its sha256; null
 * where a round has none), "file:NAME" for every `files` entry either
 * recorded, then each server's host of environment.json's hosts, keyed
 * "host:NAME:" (the name the round file gives it): "host:NAME:host"
 * where the paired hosts' names differ, its facts as above
 * ("host:NAME:kernel", ...) and "host:NAME:bin:PATH" for every binary
 * its agent hashed there.  Hosts pair by name, then those left in
 * order; a host one round has alone is set against nulls.  A fact a
 * round could not read is null. */
json_t *envdiff_build(const json_t *env_a, const json_t *env_b,
    const struct spec *a, const struct spec *b);

#endif
