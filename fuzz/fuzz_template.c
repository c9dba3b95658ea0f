/* Fuzz target: a template string (template_expand, template_check) over a
 * small fixed round whose vars refer to each other, so expansion recurses
 * and the depth limit is reached. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "spec.h"
#include "template.h"

static const char fuzz_template_round[] =
    "{\"name\": \"fuzz\", \"reps\": 1, \"baseline\": \"a\", \"bin\": \"/bin/true\", \"command\": [\"${BIN}\"],"
    " \"arms\": [{\"name\": \"a\"}, {\"name\": \"b\"}],"
    " \"cells\": [{\"name\": \"one\", \"vars\": {\"X\": \"cell-${Y}\","
    "   \"DEEP\": \"${DEEP2}${DEEP2}\"}},"
    "  {\"name\": \"two\"}],"
    " \"vars\": {\"X\": \"round\", \"Y\": \"${Z}$$\", \"Z\": \"${CELL}-${REP}\","
    "   \"DEEP2\": \"${DEEP3}${DEEP3}\", \"DEEP3\": \"${ARM}${BIN}\","
    "   \"DEEP\": \"\"}}";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct spec *s;
	char err[1024], *str;
	size_t c;

	if (s == NULL && spec_parse(fuzz_template_round,
	    strlen(fuzz_template_round), "/tmp/fuzz-round.json", NULL, &s,
	    err, sizeof err) != 0) {
		fprintf(stderr, "fuzz_template: the fixed round: %s\n", err);
		abort();
	}
	/* A C string: the bytes up to the first NUL, as a JSON string
	 * holding \u0000 is refused before it reaches a template. */
	if ((str = malloc(size + 1)) == NULL)
		return 0;
	memcpy(str, data, size);
	str[size] = '\0';
	for (c = 0; c <= s->ncells; c++) {
		const struct spec_cell *cell = c < s->ncells ? &s->cells[c] : NULL;
		struct template_ctx ctx = {
			.spec = s, .cell = cell, .arm = "a", .rep = 3,
			.bin = "/bin/true", .scratch = "/tmp/scratch",
			.round_dir = "/tmp/round",
		};

		free(template_expand(str, &ctx, err, sizeof err));
		(void)template_check(str, s, cell, err, sizeof err);
	}
	(void)template_name_valid(str, strlen(str));
	(void)template_is_builtin(str);
	free(str);
	return 0;
}
