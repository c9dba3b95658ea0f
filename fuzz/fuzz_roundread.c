/* Fuzz target: compare's round reader.  A round folder whose log.jsonl is
 * the input (round.json and environment.json fixed, unsealed: read as
 * --partial reads it) through roundread_open, then compared with itself:
 * compare_build, each round's report facts (warnings, partial) and every
 * format of compare_print, to /dev/null. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "fuzz.h"
#include "fuzz_dir.h"
#include "roundread.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct roundread *r[2] = { NULL, NULL };
	char err[4096];
	json_t *cmp, *notes;

	if (devnull == NULL) {
		static const char round[] = "{\"name\": \"f\", \"reps\": 4, "
		    "\"command\": [\"/bin/true\"], \"baseline\": \"a\", "
		    "\"arms\": [{\"name\": \"a\"}, {\"name\": \"b\"}, "
		    "{\"name\": \"aa\", \"aa_of\": \"a\"}], "
		    "\"cells\": [{\"name\": \"c\"}, {\"name\": \"d\"}]}\n";
		static const char env[] = "{\"hostname\": \"h\", \"kernel\": "
		    "\"k\", \"files\": {}}\n";

		if ((devnull = fopen("/dev/null", "w")) == NULL)
			abort();
		fuzz_dir_put("round.json", round, strlen(round));
		fuzz_dir_put("environment.json", env, strlen(env));
	}
	fuzz_dir_put("log.jsonl", data, size);
	for (int i = 0; i < 2; i++)
		if (roundread_open(fuzz_dir(), true, &r[i], err,
		    sizeof err) != 0)
			goto out;
	cmp = json_object();
	notes = json_array();
	json_object_set_new(cmp, "a", json_string("A"));
	json_object_set_new(cmp, "b", json_string("B"));
	json_object_set_new(cmp, "level", json_real(0.95));
	json_object_set_new(cmp, "margin", json_real(0.01));
	json_object_set_new(cmp, "rounds", json_pack("{s:o,s:o}", "a",
	    compare_round_facts(r[0]->tally), "b",
	    compare_round_facts(r[1]->tally)));
	(void)compare_build(r[0]->tally, r[1]->tally, 0.95, 0.01, cmp, notes);
	for (int f = REPORT_TEXT; f <= REPORT_MARKDOWN; f++)
		(void)compare_print(cmp, notes, (enum report_format)f, devnull);
	json_decref(cmp);
	json_decref(notes);
out:
	roundread_destroy(r[0]);
	roundread_destroy(r[1]);
	return 0;
}
