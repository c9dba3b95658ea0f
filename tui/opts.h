/* One option table per command (as git's parse-options): each option is
 * one row, and the parser (getopt_long's arrays), COMMAND --help, the
 * usage line of a usage error with its "did you mean", and the synopsis
 * are all made from the rows, so they cannot drift apart. */
#ifndef BENCHTUI_OPTS_H
#define BENCHTUI_OPTS_H

#include <getopt.h>
#include <stddef.h>

enum opts_flag {
	OPTS_REPEAT = 1 << 0,   /* may be given again: "[--x V]..." */
	OPTS_REQUIRED = 1 << 1, /* must be given: no brackets in the synopsis */
	OPTS_OR = 1 << 2,       /* one bracket with the row before: "[--a | --b]" */
	OPTS_ALIAS = 1 << 3,    /* an old spelling: parsed, not in the synopsis */
	OPTS_MORE = 1 << 4,     /* left out of the synopsis ("[options]") */
	OPTS_OPTARG = 1 << 5,   /* the value is optional: --x or --x=V */
	OPTS_HIDDEN = 1 << 6,   /* parsed only, to refuse it in words of its own */
};

/* One option.  An alias row shares its id with the row it stands for;
 * its help line names that row. */
struct opts_opt {
	const char *name;       /* the long name, without "--" */
	int key;                /* a short letter, or 0 */
	const char *arg;        /* the value's name ("DIR"), NULL for a flag */
	unsigned flags;         /* enum opts_flag */
	int id;                 /* what opts_next returns for it (> 0) */
	const char *help;       /* one line for --help */
};

/* One command: its operands, what it does, and its options up to a row
 * whose name is NULL. */
struct opts_cmd {
	const char *name;       /* "run" */
	const char *operands;   /* after the name ("ROUND.json"), or "" */
	const char *what;       /* what it does, one line */
	const char *man;        /* where the manual says more: "PAGE(N) ..." */
	const struct opts_opt *opts;
};

/* Rows a table may hold (load's, the longest, has 26). */
#define OPTS_MAX 40

/* The parse of one argv against one command's rows (getopt_long's state
 * is global: one parse at a time). */
struct opts_parser {
	const struct opts_cmd *cmd;
	int argc;
	char **argv;
	const char *arg;        /* the value of the option opts_next returned */
	int status;             /* after OPTS_STOP: the exit status */
	struct option longs[OPTS_MAX + 1];
	char shorts[3 * OPTS_MAX + 2];
};

enum { OPTS_END = -1, OPTS_STOP = -2 };

/* Ready p to read argv[1..argc) (argv[0] is the command's name) against
 * c's rows; optind starts at 1. */
void opts_init(struct opts_parser *p, const struct opts_cmd *c, int argc,
    char **argv);

/* The next option's id, with its value in p->arg (NULL for a flag, or an
 * optional value not given); OPTS_END after the last (argv[optind..] are
 * the operands); OPTS_STOP with p->status the exit status after printing
 * the usage error (an unknown option, with the nearest name, or a value
 * missing: 2) or the help (--help, -h: 0). */
int opts_next(struct opts_parser *p);

/* The synopsis on one line: "benchtui NAME OPERANDS [--x V]...". */
void opts_synopsis(const struct opts_cmd *c, char *buf, size_t len);

/* "usage: " and the synopsis, wrapped at 80 columns between options,
 * ending in a newline: the text usage errors print.  Kept in a buffer of
 * the module's (one command runs per process). */
const char *opts_usage(const struct opts_cmd *c);

/* "benchtui NAME: " and the message, then the usage, on stderr: 2, the
 * exit status of bad usage. */
int opts_error(const struct opts_cmd *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* COMMAND --help: the usage, what it does, each option one line and
 * where the manual says more, on stdout. */
void opts_help(const struct opts_cmd *c);

/* The synopsis as roff for a man page's SYNOPSIS (.B, .RB, .IR lines,
 * ending in .br), on stdout. */
void opts_synopsis_roff(const struct opts_cmd *c);

#endif
