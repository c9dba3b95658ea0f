/* Fuzz target: a theme file (theme_parse), then every colour it set
 * mapped to each palette size a terminal may have. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "theme.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	static const int palettes[] = { 8, 16, 88, 256 };
	struct theme t;
	char *text;
	int r;
	size_t p;

	if (devnull == NULL && (devnull = fopen("/dev/null", "w")) == NULL)
		abort();
	if ((text = malloc(size + 1)) == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	theme_init(&t, "fuzz");
	(void)theme_parse(&t, text, "fuzz.theme", devnull);
	(void)theme_parse_color(text, &r);
	for (r = 0; r < THEME_NROLES; r++)
		for (p = 0; p < sizeof palettes / sizeof palettes[0]; p++) {
			(void)theme_nearest(t.roles[r].fg, palettes[p]);
			(void)theme_nearest(t.roles[r].bg, palettes[p]);
		}
	free(text);
	return 0;
}
