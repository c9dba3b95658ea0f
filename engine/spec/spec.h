/* Round files: parsing and validation (SPEC.md "Round file").
 *
 * A parsed round is plain data that the rest of the engine reads, so unlike
 * the engine's running objects its struct is public.  Every error names the
 * file, the field as a JSON path (for example "arms[2].aa_of") and what is
 * wrong, in one sentence:
 *   "round.json: arms[2].aa_of: no arm named \"l9\""
 */
#ifndef BENCHTUI_SPEC_H
#define BENCHTUI_SPEC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "failon.h"

#define SPEC_NAME_MAX 49 /* [A-Za-z][A-Za-z0-9_-]{0,48} */

struct spec_kv {
	char *key;
	char *val;           /* NULL when the value is an array */
	char **list;         /* an array value of vars (NULL-terminated), or
	                      * NULL: it splices where an argv element is
	                      * exactly "${KEY}" (template_expand_argv) */
	size_t nlist;
};

struct spec_server {
	char **cmd;          /* argv, templates unexpanded; NULL-terminated */
	size_t ncmd;
	char *cpus;          /* cpu list ("4-7,9") or NULL: the round's cpus.server */
	struct spec_kv *env;
	size_t nenv;
	int tcp_port;        /* ready.tcp_port, 1..65535 */
	double ready_timeout_s; /* ready.timeout_s, default 30 */
	char *host;          /* another host (one argument to ssh), or NULL:
	                      * this machine */
	char *dir;           /* with host: the agent's folder there (the
	                      * server's cwd and log), default SPEC_AGENT_DIR;
	                      * else NULL */
	bool host_own;       /* the round file named server.host (not the
	                      * round's "host" inherited) */
	bool on_hosts;       /* no host of its own in a round on several
	                      * hosts: each of them runs its own copy (host
	                      * NULL, dir SPEC_AGENT_DIR) */
};

/* The agent's folder on a server's host when server.dir is absent:
 * relative to where ssh starts the agent (the far user's home). */
#define SPEC_AGENT_DIR "benchtui-agent"

/* agent_limits' defaults: a line (a reply or an event) of at most 1 MiB,
 * 1 MiB of ssh's stderr per connection, 60 s for hello's answer. */
#define SPEC_AGENT_LINE_BYTES (1 << 20)
#define SPEC_AGENT_STDERR_BYTES (1 << 20)
#define SPEC_AGENT_HELLO_S 60.0
/* ... and 64 MiB for each profile file copied back from a far host (a
 * recording past it stays there; a text is cut at it). */
#define SPEC_AGENT_PROFILE_BYTES (64 << 20)

/* Whether the cell's server runs on another host (server.host), or on
 * each of the round's several hosts (on_hosts). */
bool spec_server_remote(const struct spec_server *sv);

/* The hosts a round runs on, in place of the round file's "host" and
 * "hosts" (run --host, or the hosts a resumed round's log recorded):
 * one host is as "host"; several deal the reps among them.  what names
 * where they came from in messages ("--host").  0, or -1 with err: a
 * host given twice, or one ssh would misread; a cell whose server.host
 * is not one of them (named); a round file several hosts cannot run
 * yet (a server per leg on a cell server's own host). */
int spec_use_hosts(struct spec *s, const char *const *hosts, size_t n,
    const char *what, char *err, size_t errlen);

struct spec_arm {
	char *name;
	struct spec_kv *env; /* own env; for an aa_of arm, a copy of its twin's */
	size_t nenv;
	char *bin;           /* own bin, or its twin's, or NULL for the round's */
	char *vs;            /* comparison arm: aa_of, vs, or the baseline; NULL
	                      * for the baseline itself */
	char *aa_of;         /* NULL unless this is an A/A copy */
	char *server_bin;    /* ${SERVER_BIN} for a server per leg, or NULL;
	                      * an aa_of arm's is its twin's */
	struct spec_kv *server_env; /* over server.env, for a server per leg */
	size_t nserver_env;
	struct spec_kv *vars; /* own vars, or a copy of its twin's; never a
	                      * name a cell also sets */
	size_t nvars;
};

struct spec_cell {
	char *name;
	struct spec_kv *vars;
	size_t nvars;
	struct spec_server *server; /* NULL when the cell has none */
	char **setup;        /* argv run once before the cell's first leg
	                      * (after its server is ready), or NULL */
	size_t nsetup;
	char **cleanup;      /* argv run once after its last, or NULL */
	size_t ncleanup;
};

/* One of "files": configuration the result depends on, hashed into
 * environment.json and copied into DIR/files/AS before the first leg
 * (up to SPEC_FILE_COPY_MAX; a larger one is hashed, not copied). */
struct spec_file {
	char *path;          /* as written */
	char *abs;           /* expanded (round vars) and absolute */
	char *as;            /* its name in files/ */
};
#define SPEC_FILE_COPY_MAX (16LL << 20)

/* The quiet gate's calibration probe (benchtui-round(5)). */
enum spec_probe {
	SPEC_PROBE_AUTO,   /* "auto": before legs that are CPU-bound */
	SPEC_PROBE_ON,     /* true: before every leg */
	SPEC_PROBE_OFF,    /* false */
};

struct spec_quiet {
	bool enabled;             /* false when "quiet": false */
	double max_foreign_cores; /* default documented in benchtui-round(5) */
	int window_ms;
	double timeout_s;
	double budget_s;          /* the whole round's wait, seconds */
	double max_client_busy;   /* foreign cores on the client cpus */
	double max_server_busy;   /* on a server's cpus */
	enum spec_probe probe;
	bool abort_on_timeout;    /* on_timeout: "abort" (true) or "proceed" */
};

/* "profile": what to profile after a cell's timed legs (SPEC.md
 * Profiles).  arms and cells are names checked against the round's. */
struct spec_profile {
	char **arms;         /* NULL-terminated, in the round file's order */
	size_t narms;
	char **cells;        /* NULL-terminated; every cell when absent */
	size_t ncells;
	bool perf;           /* "perf" given */
	char **perf_args;    /* perf record's options; default -F 999 (and
	                      * --call-graph dwarf where they choose none) */
	size_t nperf_args;
	long min_samples;    /* perf.min_samples: repeat the leg until this
	                      * many samples (default 2000) ... */
	long min_runs;       /* ... and this many runs per arm (default 10) */
	double max_s;        /* ... or this many seconds (default 60) */
	bool server_perf;    /* "server_perf" given */
	char **srv_perf_args; /* its perf record options; default as perf's */
	size_t nsrv_perf_args;
	long srv_min_samples; /* server_perf's, as perf's: load runs per */
	long srv_min_runs;    /* arm until these samples and runs, */
	double srv_max_s;     /* or these seconds */
	bool syscalls;       /* "syscalls" given */
	char **trace;        /* the calls shown (all are counted); none: all */
	size_t ntrace;
};

/* The leg order within a cell (SPEC.md "Leg order"). */
enum spec_order {
	SPEC_ORDER_MIRROR,   /* default: drift cancels within each pair of reps */
	SPEC_ORDER_SEED,     /* the older rule, kept for old folders */
	SPEC_ORDER_SHUFFLE,  /* a seeded permutation per rep */
};

/* How arms are compared (SPEC.md "Arithmetic", benchtui(1) STATISTICS). */
enum spec_estimator {
	SPEC_ESTIMATOR_PAIRED,  /* default: Hodges-Lehmann of the paired ratios */
	SPEC_ESTIMATOR_FLOOR,   /* the arms' low order statistics */
};

struct spec {
	char *path;          /* the round file as given */
	char *raw;           /* the file's bytes, exactly as read (NUL-terminated) */
	size_t rawlen;
	char sha256[65];     /* sha256 of raw, hex */

	char *name;
	int reps;
	char *bin;           /* round bin, or NULL */
	char **command;      /* argv, templates unexpanded; NULL-terminated */
	size_t ncommand;
	char *baseline;
	struct spec_arm *arms;
	size_t narms;
	struct spec_cell *cells;
	size_t ncells;

	char *workdir;       /* absolute; default: the round file's folder */
	char *client_cpus;   /* cpus.client or NULL (no pinning) */
	char *server_cpus;   /* cpus.server or NULL */
	int nice;            /* default 0 */
	double settle_s;     /* default 0 */
	double timeout_s;    /* default 0: no per-leg timeout */
	double hook_timeout_s; /* a cell's setup or cleanup; 0: timeout_s,
	                        * or SPEC_HOOK_TIMEOUT_S without one */
	char **counters;     /* NULL-terminated; default counters_default() */
	size_t ncounters;
	bool counters_given; /* named in the file, not the machine's default */
	struct spec_quiet quiet;
	char *scratch;       /* NULL when unset; may hold templates */
	struct spec_kv *vars;
	size_t nvars;
	struct spec_profile *profile; /* NULL when the round profiles nothing */

	/* Leg order, arithmetic and failures (benchtui-round(5)). */
	enum spec_order order;
	bool has_shuffle_seed;  /* set in the file, or chosen by run/resume */
	uint64_t shuffle_seed;
	double confidence;      /* default 0.95 */
	double margin;          /* default 0.01 */
	enum spec_estimator estimator;  /* default paired */
	int fail_fast;          /* default 2; 0 never stops */
	struct failon fail_on;  /* fail_on's rules (none by default) */
	struct {
		bool on;        /* reps is an object: reps == max */
		int min, max;
		char *metric;   /* default "wall" */
		bool implied;   /* reps left out: min 8, max 40, on the
		                 * headline metric (rps for a server round
		                 * that writes ${METRICS}, else cpu) */
	} adaptive;
	int warmup;          /* legs per cell and arm before the counted reps */
	char **prepare;      /* argv run before each leg, or NULL */
	size_t nprepare;
	char **ssh;          /* the argv before a host that reaches it
	                      * (default ssh -o BatchMode=yes) */
	size_t nssh;
	char **agent;        /* what ssh runs there (default benchtui agent),
	                      * before --dir DIR */
	size_t nagent;
	char *host;          /* "host": every leg there (and every server
	                      * without a host of its own), or NULL; also
	                      * hosts[0] when hosts holds one */
	char **hosts;        /* "hosts" (or run --host): the reps dealt among
	                      * them; NULL-terminated, or NULL */
	size_t nhosts;
	/* agent_limits: what a far side may send, set on this side. */
	struct {
		int line_bytes;      /* one line (a reply or an event) */
		int stderr_bytes;    /* ssh's stderr, per connection */
		double hello_s;      /* the wait for hello's answer */
		int profile_bytes;   /* each profile file copied back */
	} agent_limits;
	bool output_keep;    /* output.keep: "all" (true) or "none" */
	long long output_max_bytes; /* output.max_bytes, default 8 MiB */
	int *ok_rc;          /* exit codes that count as ok; default {0} */
	size_t nok_rc;
	char *stdin_path;    /* each leg's stdin (templated), or NULL:
	                      * /dev/null */
	struct spec_file *files;
	size_t nfiles;
};

/* Whether m can be a metric of round s: wall, cpu, bytes, a counter,
 * with a server server_cpu and server_COUNTER, and in a round that
 * writes ${METRICS} any name a leg may write.  When not, why (with the
 * nearest name) into why and "its metrics are ..." into metrics. */
bool spec_metric_known(const struct spec *s, const char *m, char *why,
    size_t len, char *metrics, size_t mlen);

/* Whether exit code rc counts as ok (ok_rc). */
bool spec_ok_rc(const struct spec *s, int rc);

#define SPEC_OUTPUT_MAX_BYTES (8LL << 20)
/* A setup or cleanup's limit when the round names none (benchtui-round(5)):
 * one that never exits would hold the round with nothing on screen. */
#define SPEC_HOOK_TIMEOUT_S 600.0

/* Read and validate a round file.  workdir_override, when not NULL, replaces
 * the workdir (resume uses the recorded one).  0 and *out, or -1 with err. */
int spec_load(const char *path, const char *workdir_override,
    struct spec **out, char *err, size_t errlen);

/* The same from bytes already read; path is used for messages and for the
 * default workdir. */
int spec_parse(const char *text, size_t len, const char *path,
    const char *workdir_override, struct spec **out, char *err, size_t errlen);

void spec_destroy(struct spec *s);

/* Index of the arm or cell with that name, or -1. */
int spec_arm_index(const struct spec *s, const char *name);
int spec_cell_index(const struct spec *s, const char *name);

/* The binary an arm runs (its own, its twin's, or the round's); may be NULL
 * when the round has no bin and the command names its program directly. */
const char *spec_arm_bin(const struct spec *s, const struct spec_arm *arm);

/* Whether dir is inside (or is) the folder top; both canonical. */
bool spec_path_within(const char *dir, const char *top);
/* Whether the canonical folder sp holds (or is) path p, canonicalised
 * when it exists (a path that does not exist holds nothing to lose). */
bool spec_path_holds(const char *sp, const char *p);
/* Why the canonical folder sp may never be a scratch folder ("is or holds
 * a system folder", "is inside a system folder", "is or holds $HOME or
 * $TMPDIR"), or NULL: the one rule, for check and for run. */
const char *spec_scratch_system(const char *sp);

/* Whether the cell's server runs once per leg (started with the leg's arm
 * and stopped after it) rather than once for the cell: the cell has a
 * server, and some arm sets server_bin or server_env, or server.cmd uses
 * ${ARM} or ${SERVER_BIN}. */
bool spec_server_per_leg(const struct spec *s, const struct spec_cell *cell);

/* Parse a cpu list ("0-3,6") into a bit mask array of ncpus entries.
 * 0 or -1 (bad syntax, or a cpu >= ncpus). */
int spec_cpulist_parse(const char *list, unsigned char *mask, int ncpus);

/* The kinds of profile in the order an arm takes them: "perf",
 * "server_perf", "syscalls". */
#define SPEC_PROFILE_KINDS 3
extern const char *const spec_profile_kinds[SPEC_PROFILE_KINDS];

/* Whether the round profiles this cell and arm (names), with perf, perf
 * of the cell's server or strace (kind "perf", "server_perf" or
 * "syscalls"; NULL: any). */
bool spec_profiles(const struct spec *s, const char *cell, const char *arm,
    const char *kind);
/* The call-graph method perf record's args choose: "fp" (-g,
 * --call-graph fp), "dwarf" (--call-graph dwarf[,SIZE]), "lbr", NULL when
 * they choose none, or "?" with *bad the index of an argument that sets
 * one benchtui cannot read back (an unknown method, branch stacks). */
const char *spec_perf_unwind(char *const *args, size_t n, size_t *bad);

/* The reps at which an adaptive round looks at each cell: min, then each
 * 1.5x growth rounded up, then max.  Writes up to cap into at (may be
 * NULL) and returns how many there are; 0 for a fixed reps. */
size_t spec_looks(const struct spec *s, int *at, size_t cap);

/* The gate's settings as environment.json and the round event record
 * them: {"enabled": false}, or every field with its value in force. */
json_t *spec_quiet_json(const struct spec_quiet *q);

struct quiet_params;

/* The gate's settings the round file gives (quiet.h): its quiet numbers
 * and the round's margin as the probe's.  probe is false: whether a
 * probe runs is the caller's to say (this host's clock, or the far
 * host's). */
struct quiet_params spec_quiet_params(const struct spec *s);

/* The name of an order: "mirror", "seed", "shuffle". */
const char *spec_order_name(enum spec_order o);

/* The name of an estimator: "paired", "floor".  spec_estimator_parse:
 * the estimator of a name, or -1 when it is none. */
const char *spec_estimator_name(enum spec_estimator e);
int spec_estimator_parse(const char *name);

/* Validate a name against [A-Za-z][A-Za-z0-9_-]{0,48}. */
bool spec_name_valid(const char *name);

/* Resolve a program as execvp would, relative paths against workdir, PATH
 * for bare names.  malloc'd absolute path, or NULL when not found. */
char *spec_resolve_program(const char *prog, const char *workdir);

/* What parsing leaves out because it builds commands: every leg's and
 * server's command (legcmd) for every cell and arm, so an unknown
 * template, a cycle, an array out of place, a scratch folder that expands
 * to "..", or an argv past the kernel's exec limits is an error before
 * the first leg, not at leg 37.  check, run and resume call it; report
 * and --replay, which only read a recorded round, never do.  0, or -1
 * with err ("FILE: PATH: what is wrong"). */
int spec_check_commands(const struct spec *s, char *err, size_t errlen);

/* The checks against this machine that spec_parse leaves out, so that a
 * recorded round can still be read on another one: every cpu the round pins
 * to is online, and every program it runs (bin, command[0], server.cmd[0],
 * expanded for every cell and arm) is found as execvp would find it from the
 * workdir.  `benchtui check` calls it; run should too, before the first leg.
 * 0, or -1 with err ("FILE: PATH: what is wrong"). */
int spec_check_host(const struct spec *s, char *err, size_t errlen);

#endif
