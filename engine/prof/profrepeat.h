/* A leg repeated under one perf record: `benchtui prof-repeat`, the
 * program perf record runs, runs the leg again and again until the
 * samples perf has taken (estimated from the CPU time of the runs and
 * perf's sampling rate) reach min_samples, or max_s have passed, and
 * writes what it did to a result file.  Several arms' runs take turns
 * under the one recording.  The round's profile phase
 * (round_prof_perf.c) builds the command line; nobody else runs it. */
#ifndef BENCHTUI_PROFREPEAT_H
#define BENCHTUI_PROFREPEAT_H

/* The name of the internal subcommand. */
#define PROFREPEAT_CMD "prof-repeat"

/* benchtui prof-repeat --plan PLAN --result FILE (argv[0] is
 * "prof-repeat").  PLAN: {"min_samples", "min_runs", "max_s", "rate",
 * "timeout", "arms": [{"path", "argv", "env", "cwd", "fixed_layout"}]}.
 * It is started with the fixed address layout (ADDR_NO_RANDOMIZE), and
 * runs each arm with a randomized one (fixed_layout: the fixed one, for
 * benchtui itself).  Runs the arms in
 * passes of mirror order (A B, B A, ...) with their own environment and
 * folder (no PATH search, no shell), each run in its own process group
 * (whatever it leaves is killed) bounded by timeout seconds (0: none),
 * until every arm has min_runs runs and (as its runs' CPU time x rate
 * tells) min_samples, or max_s have passed; stops after a run that did
 * not exit 0.  FILE gets {"self" (its own pid), "runs", "wall_s", "stopped":
 * "samples"|"max_s"|"failed", "rc", "signal", "timed_out", "failed_arm",
 * "arms": [{"runs", "cpu_s"}], "list": [{"arm", "pid", "cpu_s"}] (every
 * run in order: a run's processes have the pids from its own up to the
 * next run's)}.  The exit status is 0, 2 for bad usage, or 1 when FILE
 * cannot be written. */
int profrepeat_main(int argc, char **argv);

#endif
