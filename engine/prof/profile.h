/* Profiles (SPEC.md "Profiles"): the tools, the kernel settings that can
 * block them, and the readers of what they print.  The profile phase of a
 * round is the driver's (round_prof.c); the side-by-side comparison is
 * profdiff.h.  Nothing here enters the arithmetic. */
#ifndef BENCHTUI_PROFILE_H
#define BENCHTUI_PROFILE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "spec.h"

/* How many symbols a perf profile's event carries. */
#define PROFILE_TOP 20

/* For environment.json: {"perf": {"path", "version", "sha256"} | null,
 * "strace": {...} | null, "perf_event_paranoid": N|null,
 * "ptrace_scope": N|null}.  Runs `perf --version` and `strace -V`. */
json_t *profile_tools(void);

/* Why the kernel would refuse this kind of profile to this process, or
 * NULL when nothing blocks it: "syscalls" by the ptrace rule, any other
 * kind ("perf", "server_perf") by perf's.  The string is buf. */
const char *profile_blocked(const char *kind, char *buf, size_t len);

/* The rule profile_blocked applies, on given settings (-1000: the kernel
 * has no such setting) and whether the user is root. */
const char *profile_blocked_by(const char *kind, int paranoid,
    int ptrace_scope, bool root, char *buf, size_t len);

/* check's warnings for a round that profiles: an array of strings (empty
 * when nothing blocks).  A missing tool is not here: spec_check_host
 * refuses it. */
json_t *profile_warnings(const struct spec *s);

/* Run argv (no shell) to its end with stdout and stderr into out_path, in
 * cwd, ended by abort_fd or after timeout_s (0: none).  The exit status
 * (0..255), 128+signal, -2 when aborted, or -1 when it could not start. */
int profile_exec(char *const *argv, const char *cwd, const char *out_path,
    int abort_fd, double timeout_s);

/* Like profile_exec, with stdout and stderr to out_fd (-1: /dev/null)
 * and the environment envp (NULL: benchtui's).  124 after timeout_s. */
int profile_exec_fd(char *const *argv, char *const *envp, const char *cwd,
    int out_fd, int abort_fd, double timeout_s);

/* The samples per second of CPU that perf record takes with these
 * options: -F (or --freq) N, a period -c N read as nanoseconds of a clock,
 * else perf's default 4000; at most kernel.perf_event_max_sample_rate. */
double profile_perf_rate(char *const *args, size_t n);

/* The stack perf copies per sample to unwind from DWARF (bytes): what a
 * few dozen frames of an -O2 program take, at 8 KiB of data a sample. */
#define PROFILE_DWARF_STACK "8192"

/* What check warns, and the report says, where perf cannot unwind from
 * DWARF and the default falls back to frame pointers. */
#define PROFILE_NO_DWARF "this perf cannot unwind call chains from DWARF " \
    "(perf version --build-options lists no unwinding library on), so " \
    "the profiles fall back to frame pointers (--call-graph fp): a leaf " \
    "function that keeps no frame skips its caller, and code built " \
    "without frame pointers ends the chain"

/* What the report says of call chains unwound by frame pointers. */
#define PROFILE_FP_NOTE "call chains by frame pointers: a leaf function " \
    "that keeps no frame (libc's memcpy, memmove) skips its immediate " \
    "caller, and code built without frame pointers (-O2) ends the chain " \
    "or names a wrong caller; --call-graph dwarf gets the callers right"

/* Whether this perf can unwind call chains from DWARF (perf version
 * --build-options): 1, 0, or -1 when it does not say. */
int profile_perf_dwarf(void);

/* perf record's options: args (borrowed), and where they choose no
 * call-graph method, --call-graph dwarf,PROFILE_DWARF_STACK (or fp when
 * dwarf is false).  *unwind: "dwarf", "fp" or "lbr".  NULL-terminated;
 * free the array only. */
char **profile_perf_args(char *const *args, size_t n, bool dwarf,
    const char **unwind);

/* Whether a perf event is a software clock (no hardware PMU behind it). */
bool profile_event_is_clock(const char *event);

/* Read an `strace -c` summary: *rows [{"syscall", "calls", "errors",
 * "seconds"}] in its order, *total {"calls", "errors", "seconds"}.  0, or -1
 * with err when there is no total row or the rows do not add up to it.
 * An empty text (strace prints nothing when no traced call was made) is
 * 0 with no rows and a total of 0 calls. */
int profile_strace_table(const char *text, json_t **rows, json_t **total,
    char *err, size_t errlen);

/* The same from an open descriptor, which it closes (also on failure). */
char *profile_slurp_fd(int fd, size_t max);

/* A whole small file as a string (NUL-terminated), or NULL. */
char *profile_slurp(const char *path, size_t max);

#endif
