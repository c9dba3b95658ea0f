/* The subcommands.  Each parses its own arguments (argv[0] is the
 * subcommand's name) and returns the process exit status (SPEC.md). */
#ifndef BENCHTUI_CMD_H
#define BENCHTUI_CMD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct failon;

int cmd_run(int argc, char **argv);      /* run ROUND.json [--out DIR] [--headless] [--theme NAME] [--sign KEY] */
int cmd_resume(int argc, char **argv);   /* resume DIR [--headless] [--sign KEY] [--theme NAME] */
int cmd_replay(int argc, char **argv);   /* replay DIR|LOG [--speed X | --instant] [--headless] [--theme NAME] */
int cmd_report(int argc, char **argv);   /* report DIR|LOG [--format F] [--baseline ARM] [--aa ARM=OF] */
int cmd_compare(int argc, char **argv);  /* compare DIR_A DIR_B [--format F] [--fail-on RULE] [--partial] [--confidence L] */
int cmd_verify(int argc, char **argv);   /* verify DIR [--pubkey PUB.pem] */
int cmd_seal(int argc, char **argv);     /* seal DIR --partial [--sign KEY] */
int cmd_check(int argc, char **argv);    /* check ROUND.json */
int cmd_help(int argc, char **argv);     /* help [COMMAND] */

/* COMMAND's synopsis, what it does, its options one line each and where
 * the manual says more, on stdout; -1 for a command that does not exist. */
int cmd_help_print(const char *name);
int cmd_bisect(int argc, char **argv);   /* bisect ROUND.json --repo DIR --good REV --bad REV --build CMD */
/* resume DIR of a bisect folder (cmd_run's resume asks bisect_is_folder). */
int cmd_bisect_resume(const char *dir, bool headless, const char *theme);
int cmd_load(int argc, char **argv);     /* load URL [options] */
int cmd_agent(int argc, char **argv);    /* agent --dir DIR (run by ssh) */

/* The helpers the subcommands share live in cmd.c.
 *
 * Usage errors print "benchtui SUB: what is wrong" and the usage line
 * (use) to stderr and return 2. */
int cmd_usage_error(const char *sub, const char *usage, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The one operand after the options (argv[optind]) into *operand: 0, or
 * cmd_usage_error's 2 with none (no operand) or many (more than one: a
 * format given the second operand, then the first) as what is wrong.  */
int cmd_operand(int argc, char **argv, const char *sub, const char *usage,
    const char *none, const char *many, const char **operand);

/* The log of report's or replay's DIR|LOG: DIR/log.jsonl for a folder
 * (is_dir), else the input itself; malloc'd.  */
char *cmd_log_path(const char *input, bool is_dir);

/* --fail-on RULE (report, compare, run, resume) added to f: 0, or
 * cmd_usage_error's 2 naming what is wrong with it. */
int cmd_fail_on(const char *sub, const char *use, const char *rule,
    struct failon *f);

/* Each rule of f against the rounds t[0..nt) read back: its arm one of
 * theirs (any arm when baseline_too, as compare's rows include the
 * baseline; else an arm with a comparison arm) and its metric one of
 * theirs, with the nearest name.  0, or cmd_usage_error's 2. */
struct tally;
int cmd_fail_on_check(const char *sub, const char *use, const struct failon *f,
    const struct tally *const *t, size_t nt, bool baseline_too);

/* f's matches in rep (a report or compare object), on stderr one a line
 * under "benchtui SUB: N verdicts matched fail_on"; how many, or 0 when
 * !apply (an incomplete round: printed, said not applied). */
size_t cmd_fail_on_matches(const char *sub, const struct failon *f,
    const json_t *rep, bool apply);

/* Whether dir holds round.json and environment.json (access mode: F_OK,
 * or R_OK for both readable): a round folder, not a bare log's.  */
bool cmd_round_folder(const char *dir, int mode);

#endif
