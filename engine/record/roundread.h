/* A round folder read back whole for a reader that runs nothing: its log
 * into a tally (report), and for compare the folder checked first (a
 * round, sealed, the seal intact), with its round file and
 * environment.json. */
#ifndef BENCHTUI_ROUNDREAD_H
#define BENCHTUI_ROUNDREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "logread.h"
#include "spec.h"
#include "tally.h"

/* What reading a log found. */
struct roundread_log {
	size_t legs;              /* leg lines, counted or not */
	char spec_sha256[65];     /* the round event's, or "" */
	struct logread_info info; /* lines, and a torn last line */
};

/* The log at path into t: leg lines straight from their text where the
 * tally reads them (most of a log), every other line through jansson.
 * 0, or -1 with err (an unreadable log, a bad line). */
int roundread_log(const char *path, struct tally *t, struct roundread_log *out,
    char *err, size_t errlen);

struct roundread {
	char *dir;                /* as given */
	struct spec *spec;        /* DIR/round.json */
	struct tally *tally;      /* DIR/log.jsonl, with the spec's arms */
	json_t *env;              /* DIR/environment.json */
	bool sealed;              /* false: unsealed, read with partial */
	struct roundread_log log;
};

/* Read DIR for compare.  It must be a round folder (round.json,
 * environment.json and log.jsonl: else 2 naming what is missing), sealed
 * (no SHA256SUMS: 2, suggesting --partial; with partial it is read as it
 * is), with a seal that verifies (else 4 naming every file changed,
 * missing or added), whose round.json is the one its log ran and whose
 * log has legs (else 2).  Returns that exit status, 0 with *out (free it
 * with roundread_destroy), or 1 for anything else, with err. */
int roundread_open(const char *dir, bool partial, struct roundread **out,
    char *err, size_t errlen);

void roundread_destroy(struct roundread *r);

#endif
