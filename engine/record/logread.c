/* Reading a JSONL log back (see logread.h).
 *
 * Lines are streamed with getline, so memory stays flat however long the
 * log is; each one is offered to the line callback when there is one
 * (report's leg lines, read without a json_t), else parsed on its own
 * with json_loadb and handed to the callback, which keeps what it wants. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logread.h"

/* A line from an earlier harness: no "t", but cell, arm and rep. */
static void
logread_fix_legacy(json_t *ev)
{
	if (json_object_get(ev, "t") != NULL)
		return;
	if (json_object_get(ev, "cell") && json_object_get(ev, "arm") &&
	    json_object_get(ev, "rep"))
		json_object_set_new(ev, "t", json_string("leg"));
}

/* Whether the stream has nothing after the current position: a bad line
 * followed by nothing is a torn tail, not corruption. */
static bool
logread_at_eof(FILE *f)
{
	int c = getc(f);

	if (c == EOF)
		return true;
	ungetc(c, f);
	return false;
}

int
logread_file(const char *path, logread_fn fn, void *arg,
    struct logread_info *info, char *err, size_t errlen)
{
	return logread_file_lines(path, NULL, fn, arg, info, err, errlen);
}

int
logread_file_lines(const char *path, logread_line_fn line_fn, logread_fn fn,
    void *arg, struct logread_info *info, char *err, size_t errlen)
{
	struct logread_info dummy;
	char *line = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t len;
	long long off = 0;
	int rc = -1;
	FILE *f;

	if (info == NULL)
		info = &dummy;
	memset(info, 0, sizeof *info);
	if ((f = fopen(path, "r")) == NULL) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
		    strerror(errno));
		return -1;
	}
	while ((len = getline(&line, &cap, f)) > 0) {
		bool newline = line[len - 1] == '\n';
		json_error_t jerr;
		json_t *ev;

		lineno++;
		if (newline && line_fn != NULL &&
		    line_fn(line, (size_t)len - 1, lineno, arg)) {
			off += len;
			info->lines = lineno;
			info->good_bytes = off;
			continue;
		}
		ev = json_loadb(line, (size_t)len - (newline ? 1 : 0), 0, &jerr);
		if (!newline || ev == NULL || !json_is_object(ev)) {
			/* A line the writer never finished: the last one,
			 * without its newline or not parseable. */
			if (!newline || (ev == NULL && logread_at_eof(f))) {
				json_decref(ev);
				info->torn = true;
				info->torn_line = lineno;
				info->torn_bytes = (size_t)len;
				break;
			}
			if (ev == NULL)
				snprintf(err, errlen,
				    "%s:%zu: not valid JSON: %s", path, lineno,
				    jerr.text);
			else
				snprintf(err, errlen,
				    "%s:%zu: not a JSON object", path, lineno);
			json_decref(ev);
			rc = -1;
			goto out;
		}
		logread_fix_legacy(ev);
		off += len;
		info->lines = lineno;
		info->good_bytes = off;
		rc = fn ? fn(ev, lineno, arg) : 0;
		json_decref(ev);
		if (rc != 0)
			goto out;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error: %s", path,
		    strerror(errno));
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(f);
	return rc;
}
