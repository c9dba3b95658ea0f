/* Reading a JSONL log back: for report, replay and resume.
 *
 * Every line must be a JSON object.  A line without "t" that has "cell",
 * "arm" and "rep" is a leg row from an earlier harness: it is handed on with
 * "t": "leg" added.  Objects of unknown type are handed on too (readers skip
 * what they do not know).  A torn last line (no newline, or not valid JSON)
 * is reported in info and skipped; any other bad line is an error
 * "LOG:LINE: what is wrong". */
#ifndef BENCHTUI_LOGREAD_H
#define BENCHTUI_LOGREAD_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct logread_info {
	size_t lines;        /* whole lines read */
	bool torn;           /* the last line was torn and skipped */
	size_t torn_line;    /* its 1-based line number */
	size_t torn_bytes;   /* its length in bytes */
	long long good_bytes;/* offset just past the last whole, valid line */
};

/* Called for each event; the callback does not own ev (json_incref to keep
 * it).  A non-zero return stops reading and is returned by logread_file. */
typedef int (*logread_fn)(json_t *ev, size_t lineno, void *arg);

/* Offered each whole line (its text, without the newline) before it is
 * parsed: true when it took the line, which must then be a valid JSON
 * object (fn is not called for it); false to have it parsed and handed to
 * fn.  For a reader that reads some lines faster than jansson
 * (tally_feed_line). */
typedef bool (*logread_line_fn)(const char *line, size_t len, size_t lineno,
    void *arg);

/* Read PATH, calling fn for every event.  Returns 0, the callback's non-zero
 * value, or -1 with a message in err (unreadable file, bad line). */
int logread_file(const char *path, logread_fn fn, void *arg,
    struct logread_info *info, char *err, size_t errlen);

/* logread_file, offering every whole line to line_fn first. */
int logread_file_lines(const char *path, logread_line_fn line_fn,
    logread_fn fn, void *arg, struct logread_info *info, char *err,
    size_t errlen);

#endif
