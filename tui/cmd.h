/* The subcommands.  Each parses its own arguments (argv[0] is the
 * subcommand's name) and returns the process exit status (SPEC.md). */
#ifndef BENCHTUI_CMD_H
#define BENCHTUI_CMD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "opts.h"

struct failon;

/* Each command's option table (opts.h), in the file of the command. */
extern const struct opts_cmd cmd_run_opts, cmd_resume_opts, cmd_replay_opts,
    cmd_report_opts, cmd_compare_opts, cmd_verify_opts, cmd_seal_opts,
    cmd_check_opts, cmd_help_opts, cmd_load_opts, cmd_agent_opts,
    cmd_bisect_opts;

/* Each command's options are its table's (cmd_NAME_opts below). */
int cmd_run(int argc, char **argv);
int cmd_resume(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_seal(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_help(int argc, char **argv);

/* COMMAND's synopsis, what it does, its options one line each and where
 * the manual says more, on stdout; -1 for a command that does not exist. */
int cmd_help_print(const char *name);
/* Every command's synopsis, "usage: " before the first: benchtui --help. */
void cmd_help_usage(FILE *f);
int cmd_bisect(int argc, char **argv);
/* resume DIR of a bisect folder (cmd_run's resume asks bisect_is_folder). */
int cmd_bisect_resume(const char *dir, bool headless, const char *theme);
int cmd_load(int argc, char **argv);
int cmd_agent(int argc, char **argv);

/* The helpers the subcommands share live in cmd.c.  Usage errors are
 * opts_error's (opts.h): "benchtui NAME: what is wrong" and the usage
 * line made from the command's table, on stderr; 2. */

/* The one operand after the options (argv[optind]) into *operand: 0, or
 * opts_error's 2 with none (no operand) or many (more than one: a
 * format given the second operand, then the first) as what is wrong.  */
int cmd_operand(int argc, char **argv, const struct opts_cmd *c,
    const char *none, const char *many, const char **operand);

/* The log of report's or replay's DIR|LOG: DIR/log.jsonl for a folder
 * (is_dir), else the input itself; malloc'd.  */
char *cmd_log_path(const char *input, bool is_dir);

/* --fail-on RULE (report, compare, run, resume) added to f: 0, or
 * opts_error's 2 naming what is wrong with it. */
int cmd_fail_on(const struct opts_cmd *c, const char *rule, struct failon *f);

/* Each rule of f against the rounds t[0..nt) read back: its arm one of
 * theirs (any arm when baseline_too, as compare's rows include the
 * baseline; else an arm with a comparison arm) and its metric one of
 * theirs, with the nearest name.  0, or opts_error's 2. */
struct tally;
int cmd_fail_on_check(const struct opts_cmd *c, const struct failon *f,
    const struct tally *const *t, size_t nt, bool baseline_too);

/* f's matches in rep (a report or compare object), on stderr one a line
 * under "benchtui SUB: N verdicts matched fail_on"; how many, or 0 when
 * !apply (an incomplete round: printed, said not applied). */
size_t cmd_fail_on_matches(const char *sub, const struct failon *f,
    const json_t *rep, bool apply);

/* --host HOST (run, check): an ssh destination passed to ssh as one
 * argument, so neither empty, nor starting with '-' (ssh would read an
 * option), nor holding a control character.  0, or opts_error's 2. */
int cmd_host(const struct opts_cmd *c, const char *host);

/* Whether dir holds round.json and environment.json (access mode: F_OK,
 * or R_OK for both readable): a round folder, not a bare log's.  */
bool cmd_round_folder(const char *dir, int mode);

#endif
