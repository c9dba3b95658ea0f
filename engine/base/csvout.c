/* csv fields (see csvout.h). */
#include "csvout.h"

#include <string.h>

void
csvout_str(FILE *out, const char *s, bool comma)
{
	if (comma)
		fputc(',', out);
	if (s == NULL)
		return;
	if (strpbrk(s, ",\"\n\r") == NULL) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

void
csvout_num(FILE *out, const json_t *x)
{
	fputc(',', out);
	if (json_is_integer(x))
		fprintf(out, "%lld", (long long)json_integer_value(x));
	else if (json_is_number(x))
		fprintf(out, "%.17g", json_number_value(x));
}
