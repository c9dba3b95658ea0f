/* Text from outside benchtui (a log, a round folder's names, a leg's
 * output, a profile's symbols) shown on a terminal: the one rule.
 *
 * Valid UTF-8 is kept; every control byte (C0, DEL), every C1 control
 * (U+0080..U+009F: U+009B is a CSI to some terminals) and every byte that
 * is not UTF-8 is shown as \xNN, a carriage return as \r, so an ESC or a
 * BEL in a crafted log can neither retitle nor clear the terminal, nor a
 * CR write one line over another.  The console's panes, verify's names,
 * the reports and the headless printer all show text through it. */
#ifndef BENCHTUI_ESCAPE_H
#define BENCHTUI_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum {
	/* Newline and tab pass as they are: a report's own layout. */
	ESCAPE_KEEP_LINES = 1 << 0,
	/* A tab becomes a space (a pane's columns); else \t. */
	ESCAPE_TAB_SPACE = 1 << 1,
	/* A backslash is doubled and a newline shown as \n: names the way
	 * sha256sum prints them. */
	ESCAPE_BACKSLASH = 1 << 2,
	/* An incomplete UTF-8 sequence at the very end is left unread (for
	 * a stream, whose next write may complete it). */
	ESCAPE_PARTIAL = 1 << 3,
};

/* Escape in[0..n) into out, NUL-terminated and cut at a whole character
 * or escape to fit outlen (>= 1).  Returns the length written; *used (may
 * be NULL) the bytes of in read. */
size_t escape_text(const char *in, size_t n, char *out, size_t outlen,
    unsigned flags, size_t *used);

/* A stream whose bytes reach `to` escaped (ESCAPE_KEEP_LINES), a write
 * of it flushing `to`: printf into it what may hold outside text.
 * Unbuffered when `to` is stderr, line-buffered on a terminal.  Closing
 * it flushes `to` and leaves it open.  NULL when it cannot be made. */
FILE *escape_stream(FILE *to);

#endif
