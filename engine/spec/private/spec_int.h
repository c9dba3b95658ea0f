/* Inside the round-file parser: what spec.c (the fields of the round, in
 * order), spec_fields.c (typed field readers) and spec_checks.c (checks
 * across fields: cpu overlap, scratch, templates) share.  Not part of the
 * engine's public surface; spec_host.c (this machine) takes SPEC_CPUS_MAX. */
#ifndef BENCHTUI_SPEC_INT_H
#define BENCHTUI_SPEC_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "spec.h"

#define SPEC_REPS_MAX 100000
/* What a round may plan (benchtui-round(5)): the name checks are quadratic
 * in arms and in cells, and the plan holds every leg in memory, so past
 * these a round is refused by check, naming the fields, before any folder
 * is made. */
#define SPEC_ARMS_MAX 1000
#define SPEC_CELLS_MAX 10000
#define SPEC_LEGS_MAX 1000000
#define SPEC_CPUS_MAX 4096   /* syntax check only; the host check is exact */

/* Defaults of the quiet gate, suited to a shared machine: a quarter of a
 * core of foreign load is tolerated, judged over one second, and a round
 * that cannot get quiet within five minutes proceeds (and says so in the
 * log) rather than stalling forever. */
#define SPEC_QUIET_MAX_FOREIGN 0.25
/* reps left out: adaptive until decided, from 8 reps (the paired interval
 * needs 6 at 0.95, more at a look's Bonferroni level) to 40. */
#define SPEC_REPS_AUTO_MIN 8
#define SPEC_REPS_AUTO_MAX 40
#define SPEC_QUIET_WINDOW_MS 1000
#define SPEC_QUIET_TIMEOUT_S 300.0
/* The whole round's wait: past it the gate waits no more (and says so).
 * By default it scales with the round (quiet.h: 5 s plus a quarter of the
 * legs' time), so a box that will not get quiet slows a round by a
 * quarter, not by minutes; budget_s fixes it instead. */
#define SPEC_QUIET_BUDGET_S (-1.0)  /* QUIET_BUDGET_SCALED */
/* A pinned cpu busy with foreign work disturbs a leg more than any other
 * load: a tenth of a core on the client's (or a server's) cpus holds the
 * gate, which is a few ticks a second, more than the sampler's own
 * noise. */
#define SPEC_QUIET_MAX_PINNED_BUSY 0.1
#define SPEC_SERVER_READY_TIMEOUT_S 30.0

/* Defaults of the arithmetic and of fail_fast (benchtui-round(5)). */
#define SPEC_CONFIDENCE 0.95
#define SPEC_MARGIN 0.01
#define SPEC_FAIL_FAST 2

struct parser {
	const char *file;
	char *err;
	size_t errlen;
	struct spec *s;
	json_t *cell_names;  /* {name: index} of the cells named so far: a
	                      * 10,000-cell matrix is checked in linear time */
	json_t *fail_on;     /* the root's, for the check once the counters
	                      * are known (borrowed) */
};

/* Whether name is already cells[*k]'s; else it is recorded as cells[i]'s.
 * O(1) on average. */
bool spec_cell_name_taken(struct parser *p, const char *name, size_t i,
    size_t *k);

/* "FILE: PATH: " + the message into p->err; always -1. */
int spec_perr(struct parser *p, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "an object", "a string", ... for messages. */
const char *spec_json_type(const json_t *j);
/* "arms[2]" + "aa_of" -> "arms[2].aa_of"; the root has an empty prefix. */
void spec_path_join(char *out, size_t len, const char *prefix,
    const char *key);
/* Every key of obj is in allowed (NULL-terminated) or a string "comment". */
int spec_check_keys(struct parser *p, json_t *obj, const char *path,
    const char *const *allowed);

/* Typed readers: 0 and *out, or -1 with the error in p. */
int spec_want_string(struct parser *p, json_t *j, const char *path,
    bool nonempty, char **out);
int spec_want_argv(struct parser *p, json_t *j, const char *path,
    char ***out, size_t *n);
/* An array of strings, which may be empty. */
int spec_want_strv(struct parser *p, json_t *j, const char *path,
    char ***out, size_t *n);
/* A copy of a NULL-terminated list (a field's default), *n its length. */
char **spec_strv_copy(const char *const *from, size_t *n);
/* KV_VARS values may be strings or arrays of strings (spec_kv.list). */
enum kv_kind { KV_ENV, KV_VARS };
int spec_want_kv(struct parser *p, json_t *j, const char *path,
    enum kv_kind kind, struct spec_kv **out, size_t *n);
int spec_want_int(struct parser *p, json_t *j, const char *path,
    long long lo, long long hi, int *out);
/* A number (integer or real) with v >= lo, or v > lo when strict. */
int spec_want_number(struct parser *p, json_t *j, const char *path,
    double lo, bool strict, double *out);
int spec_want_name(struct parser *p, json_t *j, const char *path,
    char **out);
int spec_want_cpulist(struct parser *p, json_t *j, const char *path,
    char **out);

/* "quiet" (spec_quiet.c). */
int spec_parse_quiet(struct parser *p, json_t *j);
/* "profile" (spec_profile.c), read after the arms and cells. */
int spec_parse_profile(struct parser *p, json_t *j);
void spec_profile_free(struct spec_profile *pr);
/* spec_stats.c: reps (an integer, or an object for adaptive rounds), and
 * order, shuffle_seed, confidence, margin, fail_fast. */
int spec_parse_reps(struct parser *p, json_t *root);
int spec_parse_stats(struct parser *p, json_t *root);
/* fail_on (may be NULL: none), read once the arms are: a rule scoped to
 * an arm must name one with verdicts (not the baseline). */
int spec_parse_fail_on(struct parser *p, json_t *j);

/* spec_io.c: ok_rc, stdin and files (after the workdir and vars), a
 * cell's setup and cleanup, and freeing what they hold. */
int spec_parse_io(struct parser *p, json_t *root);
int spec_parse_cell_hooks(struct parser *p, json_t *c, const char *path,
    struct spec_cell *cell);
void spec_io_free(struct spec *s);

/* spec_remote.c: server.host and server.dir (from spec_parse_server),
 * and the round's ssh and agent argv (their defaults when absent). */
int spec_parse_server_host(struct parser *p, json_t *j, const char *path,
    struct spec_server *srv);
int spec_parse_remote(struct parser *p, json_t *root);
/* Two cells naming one host name one agent folder there. */
int spec_check_hosts(struct parser *p);

/* Checks across fields, once they are all read. */
int spec_check_cpu_overlap(struct parser *p);
int spec_check_scratch(struct parser *p, const char *sc);
/* sc (expanded) is no system folder, $HOME or $TMPDIR (the rule of
 * spec_scratch_system), made absolute against the workdir. */
int spec_check_scratch_system(struct parser *p, const char *sc);
int spec_check_leg_files(struct parser *p);
/* reps.metric names a metric the round has (spec_stats.c). */
int spec_check_adaptive_metric(struct parser *p);
int spec_check_fail_on(struct parser *p);

#endif
