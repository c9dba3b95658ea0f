/* Fuzz target: a SHA256SUMS file (seal_verify) in a small round folder.
 * The folder's other files are fixed; only the sums vary, so the parser of
 * sha256sum's format (escapes, "*" binary marks, unsafe paths) is what is
 * exercised. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_dir.h"
#include "seal.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char err[1024];

	if (devnull == NULL) {
		static const char log[] = "{\"t\":\"done\"}\n";

		if ((devnull = fopen("/dev/null", "w")) == NULL)
			abort();
		fuzz_dir_put("log.jsonl", log, strlen(log));
		fuzz_dir_put("a b.txt", "x\n", 2);
		fuzz_dir_put("back\\slash", "y\n", 2);
	}
	fuzz_dir_put(SEAL_SUMS, data, size);
	(void)seal_verify(fuzz_dir(), NULL, devnull, err, sizeof err);
	return 0;
}
