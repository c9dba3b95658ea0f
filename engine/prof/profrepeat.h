/* A leg repeated under one perf record: `benchtui prof-repeat`, the
 * program perf record runs, runs the leg again and again until the
 * samples perf has taken (estimated from the CPU time of the runs and
 * perf's sampling rate) reach min_samples, or max_s have passed, and
 * writes what it did to a result file.  The round's profile phase
 * (round_prof_perf.c) builds the command line; nobody else runs it. */
#ifndef BENCHTUI_PROFREPEAT_H
#define BENCHTUI_PROFREPEAT_H

/* The name of the internal subcommand. */
#define PROFREPEAT_CMD "prof-repeat"

/* benchtui prof-repeat --min-samples N --max-s S --rate R --timeout T
 *     --result FILE --path PROGRAM -- ARGV...
 * (argv[0] is "prof-repeat").  Runs PROGRAM (no PATH search, no shell)
 * with ARGV and this process's environment, working folder, CPUs and
 * output, each run in its own process group (whatever it leaves is
 * killed), each bounded by T seconds (0: none); stops after a run that
 * did not exit 0.  FILE gets {"runs", "cpu_s", "wall_s", "stopped":
 * "samples"|"max_s"|"failed", "rc", "signal", "timed_out"}.  The exit
 * status is 0, 2 for bad usage, or 1 when FILE cannot be written. */
int profrepeat_main(int argc, char **argv);

#endif
