/* Fuzz target: an HTTP response as benchtui load checks it (status line,
 * headers, Content-Length against the body, content coding, keep-alive,
 * size and digest), with the default options and with a size and digest
 * expected. */
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "httpload.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httpload_opts o;
	char err[1024];

	(void)httpload_check_response((const char *)data, size, NULL, err,
	    sizeof err);
	httpload_opts_init(&o);
	o.expect_bytes = 5;
	strcpy(o.expect_sha256,
	    "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
	(void)httpload_check_response((const char *)data, size, &o, err,
	    sizeof err);
	return 0;
}
