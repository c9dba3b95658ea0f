/* The option tables' machinery (opts.h): getopt_long's arrays, --help,
 * the synopsis and the usage error, all made from one command's rows. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "opts.h"
#include "suggest.h"

/* --help is every command's, so no table lists it. */
enum { OPTS_ID_HELP = -100 };

/* getopt_long's val for the long option of row i: above every short
 * letter, and not 0 (its optopt for an unknown long option). */
#define OPTS_LONG(i) (256 + (i))

static const struct opts_opt opts_help_row = {
	"help", 'h', NULL, 0, OPTS_ID_HELP, "this text",
};

void
opts_init(struct opts_parser *p, const struct opts_cmd *c, int argc,
    char **argv)
{
	size_t n = 0, k = 0;

	memset(p, 0, sizeof *p);
	p->cmd = c;
	p->argc = argc;
	p->argv = argv;
	/* ':' first: a missing value is told apart from an unknown option. */
	p->shorts[k++] = ':';
	for (const struct opts_opt *o = c->opts; o->name != NULL &&
	    n < OPTS_MAX - 1; o++, n++) {
		p->longs[n] = (struct option){ o->name, o->arg == NULL ?
		    no_argument : (o->flags & OPTS_OPTARG) ? optional_argument :
		    required_argument, NULL, OPTS_LONG((int)n) };
		if (o->key != 0) {
			p->shorts[k++] = (char)o->key;
			if (o->arg != NULL)
				p->shorts[k++] = ':';
			if (o->flags & OPTS_OPTARG)
				p->shorts[k++] = ':';
		}
	}
	p->longs[n] = (struct option){ "help", no_argument, NULL,
	    OPTS_LONG((int)n) };
	p->shorts[k++] = 'h';
	p->shorts[k] = '\0';
	/* 0, not 1: glibc starts its scan afresh (an earlier parse's state,
	 * such as a half-read cluster of short options, is dropped). */
	optind = 0;
	opterr = 0;
}

/* The row of short letter key, or NULL. */
static const struct opts_opt *
opts_by_key(const struct opts_cmd *c, int key)
{
	if (key == 'h')
		return &opts_help_row;
	for (const struct opts_opt *o = c->opts; o->name != NULL; o++)
		if (o->key == key)
			return o;
	return NULL;
}

/* The row getopt_long's val c stands for: a long option's (the one
 * past the table is --help), or a short letter's; NULL for none. */
static const struct opts_opt *
opts_row(const struct opts_cmd *c, int val)
{
	int n = 0, i = val - OPTS_LONG(0);

	if (val < OPTS_LONG(0))
		return opts_by_key(c, val);
	for (const struct opts_opt *o = c->opts; o->name != NULL; o++, n++)
		if (n == i)
			return o;
	return &opts_help_row;
}

/* An unknown or ambiguous long option (the text after "--", up to any
 * '='): the usage error, with the nearest name or the names it could
 * abbreviate. */
static int
opts_bad_long(const struct opts_cmd *c, const char *text)
{
	const char *names[OPTS_MAX + 1], *near;
	char want[64], hint[160] = "", words[256] = "";
	size_t n = 0, len = strcspn(text, "="), nprefix = 0;

	snprintf(want, sizeof want, "--%.*s", (int)len, text);
	for (const struct opts_opt *o = c->opts; o->name != NULL &&
	    n < OPTS_MAX; o++) {
		names[n++] = o->name;
		if (len > 0 && strncmp(o->name, text, len) == 0) {
			size_t w = strlen(words);
			snprintf(words + w, sizeof words - w, "%s--%s",
			    nprefix++ > 0 ? ", " : "", o->name);
		}
	}
	names[n++] = "help";
	if (nprefix > 1)
		return opts_error(c, "ambiguous option '%s' (%s)", want, words);
	/* Compared without their dashes, which every name shares. */
	if ((near = suggest_nearest(want + 2, names, n)) != NULL)
		snprintf(hint, sizeof hint, " (did you mean \"--%s\"?)", near);
	return opts_error(c, "unknown option '%s'%s", want, hint);
}

/* What getopt_long could not take: an unknown option, or one whose value
 * is missing.  The usage error's exit status. */
static int
opts_bad(struct opts_parser *p, int c)
{
	const struct opts_cmd *cmd = p->cmd;
	const char *last = p->argv[optind - 1];
	const struct opts_opt *o;

	if (c == ':' && (o = opts_row(cmd, optopt)) != NULL)
		return opts_error(cmd, "option '--%s' needs a value (%s)",
		    o->name, o->arg);
	/* "--flag=V" of a flag: getopt_long names the flag in optopt. */
	if (optopt >= OPTS_LONG(0) && (o = opts_row(cmd, optopt)) != NULL)
		return opts_error(cmd, "option '--%s' takes no value", o->name);
	if (optopt == 0 && strncmp(last, "--", 2) == 0)
		return opts_bad_long(cmd, last + 2);
	return opts_error(cmd, "unknown option '-%c'", optopt > 0 &&
	    optopt < 256 ? optopt : '?');
}

int
opts_next(struct opts_parser *p)
{
	const struct opts_opt *o;
	int c;

	p->arg = NULL;
	optopt = 0;
	c = getopt_long(p->argc, p->argv, p->shorts, p->longs, NULL);
	if (c == -1)
		return OPTS_END;
	if (c == '?' || c == ':') {
		p->status = opts_bad(p, c);
		return OPTS_STOP;
	}
	o = opts_row(p->cmd, c);
	if (o == NULL || o->id == OPTS_ID_HELP) {
		opts_help(p->cmd);
		p->status = 0;
		return OPTS_STOP;
	}
	p->arg = optarg;
	return o->id;
}

/* One row as the synopsis writes it: "--out DIR", "--host[=HOST]". */
static int
opts_row_text(const struct opts_opt *o, char *buf, size_t len)
{
	if (o->arg == NULL)
		return snprintf(buf, len, "--%s", o->name);
	return snprintf(buf, len, (o->flags & OPTS_OPTARG) ? "--%s[=%s]" :
	    "--%s %s", o->name, o->arg);
}

/* The synopsis's pieces after the operands, each an option's bracket
 * (with its OPTS_OR rows), into pieces[]; how many. */
static size_t
opts_pieces(const struct opts_cmd *c, char pieces[][160], size_t max)
{
	size_t n = 0;
	bool more = false;

	for (const struct opts_opt *o = c->opts; o->name != NULL; o++) {
		const struct opts_opt *first = o;
		char *b;
		size_t w;

		if (o->flags & (OPTS_ALIAS | OPTS_OR | OPTS_HIDDEN))
			continue;
		if (o->flags & OPTS_MORE) {
			more = true;
			continue;
		}
		if (n == max)
			break;
		b = pieces[n++];
		w = (first->flags & OPTS_REQUIRED) ? 0 :
		    (size_t)snprintf(b, 160, "[");
		w += (size_t)opts_row_text(o, b + w, 160 - w);
		for (const struct opts_opt *q = o + 1; q->name != NULL &&
		    (q->flags & (OPTS_OR | OPTS_ALIAS)) && w < 160; q++) {
			if (q->flags & OPTS_ALIAS)
				continue;
			w += (size_t)snprintf(b + w, 160 - w, " | ");
			w += (size_t)opts_row_text(q, b + w, 160 - w);
		}
		if (!(first->flags & OPTS_REQUIRED) && w < 160)
			w += (size_t)snprintf(b + w, 160 - w, "]");
		if ((first->flags & OPTS_REPEAT) && w < 160)
			snprintf(b + w, 160 - w, "...");
	}
	if (more && n < max)
		snprintf(pieces[n++], 160, "[options]");
	return n;
}

void
opts_synopsis(const struct opts_cmd *c, char *buf, size_t len)
{
	char pieces[OPTS_MAX][160];
	size_t n = opts_pieces(c, pieces, OPTS_MAX), w;

	w = (size_t)snprintf(buf, len, "benchtui %s%s%s", c->name,
	    c->operands[0] != '\0' ? " " : "", c->operands);
	for (size_t i = 0; i < n && w < len; i++)
		w += (size_t)snprintf(buf + w, len - w, " %s", pieces[i]);
}

const char *
opts_usage(const struct opts_cmd *c)
{
	static char buf[4096];
	char pieces[OPTS_MAX][160];
	size_t n = opts_pieces(c, pieces, OPTS_MAX), w, col, indent;

	w = (size_t)snprintf(buf, sizeof buf, "usage: benchtui %s%s%s",
	    c->name, c->operands[0] != '\0' ? " " : "", c->operands);
	col = w;
	indent = strlen("usage: benchtui ") + strlen(c->name) + 1;
	if (indent > 24)
		indent = 24;
	for (size_t i = 0; i < n && w < sizeof buf; i++) {
		size_t plen = strlen(pieces[i]);

		if (col + 1 + plen > 79) {
			w += (size_t)snprintf(buf + w, sizeof buf - w, "\n%*s%s",
			    (int)indent, "", pieces[i]);
			col = indent + plen;
		} else {
			w += (size_t)snprintf(buf + w, sizeof buf - w, " %s",
			    pieces[i]);
			col += 1 + plen;
		}
	}
	if (w < sizeof buf)
		snprintf(buf + w, sizeof buf - w, "\n");
	return buf;
}

int
opts_error(const struct opts_cmd *c, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "benchtui %s: ", c->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n%s", opts_usage(c));
	return 2;
}

/* The non-alias row an alias stands for. */
static const struct opts_opt *
opts_alias_of(const struct opts_cmd *c, const struct opts_opt *alias)
{
	for (const struct opts_opt *o = c->opts; o->name != NULL; o++)
		if (o->id == alias->id && !(o->flags & OPTS_ALIAS))
			return o;
	return NULL;
}

static void
opts_help_line(const struct opts_cmd *c, const struct opts_opt *o)
{
	char flag[96], text[64];
	const struct opts_opt *to;

	opts_row_text(o, text, sizeof text);
	if (o->key != 0)
		snprintf(flag, sizeof flag, "-%c, %s", o->key, text);
	else
		snprintf(flag, sizeof flag, "%s", text);
	if ((o->flags & OPTS_ALIAS) && (to = opts_alias_of(c, o)) != NULL) {
		printf("  %-24s the old spelling of --%s (deprecated)\n", flag,
		    to->name);
		return;
	}
	printf("  %-24s %s%s\n", flag, o->help,
	    (o->flags & OPTS_REPEAT) ? " (repeatable)" : "");
}

void
opts_help(const struct opts_cmd *c)
{
	printf("%s\n%s\n", opts_usage(c), c->what);
	printf("\noptions:\n");
	for (const struct opts_opt *o = c->opts; o->name != NULL; o++)
		if (!(o->flags & OPTS_HIDDEN))
			opts_help_line(c, o);
	opts_help_line(c, &opts_help_row);
	printf("\nMore in the manual: %s (man %.*s).\n", c->man,
	    (int)strcspn(c->man, "("), c->man);
}

/* s with each '-' as roff's \-, to f. */
static void
opts_roff_text(const char *s, FILE *f)
{
	for (; *s != '\0'; s++)
		fputs(*s == '-' ? "\\-" : (char[2]){ *s, '\0' }, f);
}

/* One bracket of the synopsis as a roff text line. */
static void
opts_roff_piece(const char *s)
{
	static const char name_chars[] = "-abcdefghijklmnopqrstuvwxyz0123456789";
	bool value = false;             /* just after an option's name */

	if (strcmp(s, "[options]") == 0) {
		puts("[\\fIoptions\\fR]");
		return;
	}
	for (; *s != '\0'; s++) {
		if (s[0] == '-' && s[1] == '-') {
			size_t len = strspn(s, name_chars);
			char name[64];

			snprintf(name, sizeof name, "%.*s", (int)len, s);
			fputs("\\fB", stdout);
			opts_roff_text(name, stdout);
			fputs("\\fR", stdout);
			s += len - 1;
			value = true;
		} else if (value && (*s == ' ' || *s == '=') && s[1] != '|') {
			size_t len = strcspn(s + 1, " ]|");

			printf("%c\\fI%.*s\\fR", *s, (int)len, s + 1);
			s += len;
			value = false;
		} else {
			putchar(*s);
			value = value && *s == '[';
		}
	}
	putchar('\n');
}

void
opts_synopsis_roff(const struct opts_cmd *c)
{
	const char *ops = c->operands;

	printf(".B benchtui ");
	opts_roff_text(c->name, stdout);
	putchar('\n');
	/* The operands in italics, each '|' between them upright. */
	while (*ops != '\0') {
		size_t len = strcspn(ops, " ");
		char word[128];

		snprintf(word, sizeof word, "%.*s", (int)len, ops);
		if (strchr(word, '|') != NULL) {
			printf(".IR");
			for (char *t = strtok(word, "|"), *sep = ""; t != NULL;
			    t = strtok(NULL, "|"), sep = " |")
				printf("%s %s", sep, t);
			putchar('\n');
		} else {
			printf(".I %s\n", word);
		}
		ops += len;
		ops += strspn(ops, " ");
	}
	/* Each option's bracket on a line of its own: bold names, italic
	 * values, the brackets and bars upright. */
	char pieces[OPTS_MAX][160];
	size_t n = opts_pieces(c, pieces, OPTS_MAX);

	for (size_t i = 0; i < n; i++)
		opts_roff_piece(pieces[i]);
	printf(".br\n");
}
