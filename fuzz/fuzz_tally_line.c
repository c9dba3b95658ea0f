/* Fuzz target: the leg-line scanner (tally_line_scan, tally_line.c) against
 * jansson, one line of the input at a time.
 *
 * Each line is scanned from a buffer of exactly its length, so ASan sees a
 * read one byte past it.  When the scanner takes a line, jansson must read
 * it as a leg line too (an object with "t": "leg", or a legacy row: no "t"
 * but cell, arm and rep), counted or not alike (a warm-up), and the record
 * made from its json_t must be the scanner's: tally_rec_diff, the same
 * comparison tests/engine/tally/test_tally_line.c makes.  Any disagreement
 * aborts, naming the field and the line. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "tally_int.h"

static void
fuzz_tally_line_fail(const char *what, const char *line, size_t len)
{
	fprintf(stderr, "fuzz_tally_line: %s: %.*s\n", what, (int)len, line);
	abort();
}

/* Whether jansson's json_t is a leg line, as logread and tally_feed read
 * it (logread tags a legacy row "t": "leg"). */
static bool
fuzz_tally_line_is_leg(const json_t *ev)
{
	const json_t *t = json_object_get(ev, "t");

	if (t == NULL)
		return json_object_get(ev, "cell") != NULL &&
		    json_object_get(ev, "arm") != NULL &&
		    json_object_get(ev, "rep") != NULL;
	return json_is_string(t) && strcmp(json_string_value(t), "leg") == 0;
}

/* The line the scanner took, read again by jansson. */
static void
fuzz_tally_line_check(const struct tally *t, const char *line, size_t len,
    const struct tally_legrec *r, bool fed, struct tally_legrec *jr)
{
	json_error_t jerr;
	json_t *ev = json_loadb(line, len, 0, &jerr);
	const char *field;

	if (ev == NULL || !json_is_object(ev))
		fuzz_tally_line_fail("taken, jansson refuses it", line, len);
	if (!fuzz_tally_line_is_leg(ev))
		fuzz_tally_line_fail("taken, not a leg line", line, len);
	if (fed != (json_object_get(ev, "warmup") == NULL))
		fuzz_tally_line_fail("warm-up or not", line, len);
	tally_rec_from_json(t, jr, ev);
	if ((field = tally_rec_diff(r, jr)) != NULL) {
		fprintf(stderr, "fuzz_tally_line: field %s differs\n", field);
		fuzz_tally_line_fail("not jansson's record", line, len);
	}
	json_decref(ev);
}

static void
fuzz_tally_line_free(struct tally_legrec *r)
{
	free(r->ctr.v);
	free(r->server_ctr.v);
	free(r->mets.v);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Only for its fixed metrics' names (tally_rec_from_json). */
	static struct tally *names;
	struct tally_legrec r, jr;
	const char *p = (const char *)data, *end = p + size;
	char *scratch = NULL;
	size_t scap = 0;

	if (names == NULL)
		names = tally_create();
	memset(&r, 0, sizeof r);
	memset(&jr, 0, sizeof jr);
	for (;;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = (size_t)((nl ? nl : end) - p);
		char *line = malloc(len ? len : 1);
		bool fed;

		if (line == NULL)
			abort();
		memcpy(line, p, len);
		if (tally_line_scan(line, len, &r, &scratch, &scap, &fed))
			fuzz_tally_line_check(names, line, len, &r, fed, &jr);
		free(line);
		if (nl == NULL)
			break;
		p = nl + 1;
	}
	free(scratch);
	fuzz_tally_line_free(&r);
	fuzz_tally_line_free(&jr);
	return 0;
}
