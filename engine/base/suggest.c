/* "did you mean" (see suggest.h). */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "suggest.h"

/* Longer words are no slip of a key or an event name. */
#define SUGGEST_MAX_LEN 64

/* The optimal string alignment distance of a and b (each at most
 * SUGGEST_MAX_LEN), ignoring case: three rows of the table (i - 2, i - 1,
 * i), rolling. */
static size_t
suggest_distance(const char *a, const char *b)
{
	size_t row[3][SUGGEST_MAX_LEN + 1];
	size_t la = strlen(a), lb = strlen(b);

	for (size_t j = 0; j <= lb; j++)
		row[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *cur = row[i % 3], *up = row[(i - 1) % 3];
		size_t *up2 = row[(i + 1) % 3];
		int ca = tolower((unsigned char)a[i - 1]);

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int cb = tolower((unsigned char)b[j - 1]);
			size_t v = up[j - 1] + (ca != cb);

			if (up[j] + 1 < v)
				v = up[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)
			    b[j - 2]) && tolower((unsigned char)a[i - 2]) == cb &&
			    up2[j - 2] + 1 < v)
				v = up2[j - 2] + 1;
			cur[j] = v;
		}
	}
	return row[la % 3][lb];
}

const char *
suggest_nearest(const char *word, const char *const *names, size_t n)
{
	size_t len = word ? strlen(word) : 0, best = SIZE_MAX, at = 0;
	size_t most = len <= 4 ? 1 : len <= 8 ? 2 : 3;

	if (len == 0 || len > SUGGEST_MAX_LEN)
		return NULL;
	for (size_t i = 0; i < n && names[i] != NULL; i++) {
		size_t d;

		if (strlen(names[i]) > SUGGEST_MAX_LEN ||
		    strcmp(names[i], word) == 0)
			continue;
		d = suggest_distance(word, names[i]);
		if (d < best) {
			best = d;
			at = i;
		}
	}
	return best <= most ? names[at] : NULL;
}

const char *
suggest_hint(char *buf, size_t len, const char *word,
    const char *const *names, size_t n)
{
	const char *near = suggest_nearest(word, names, n);

	if (near != NULL)
		snprintf(buf, len, " (did you mean \"%s\"?)", near);
	else if (len > 0)
		buf[0] = '\0';
	return buf;
}
