/* Fuzz target: an HTTP response as benchtui load reads and checks it
 * (status line, header lines, interim responses, the framing: length,
 * chunked with extensions and trailers, or ended by the close; content
 * coding, size and digest), with the default options, with a size and
 * digest expected, with a coding accepted, and for HEAD.
 *
 * Two oracles beside "no crash": the same bytes fed whole and in small
 * pieces give the same verdict and message (the reader is incremental),
 * and a body read a second time through the kept copy of the first
 * (compared, not hashed) gets the same sha256, or, with a byte changed,
 * the sha256 of the changed bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "httpload.h"
#include "load_int.h"

static void
fuzz_httpload_pieces(const uint8_t *data, size_t size,
    const struct httpload_opts *o)
{
	char e0[1024] = "", e1[1024] = "";
	size_t chunk = 1 + size % 13;
	int rc0, rc1;

	rc0 = httpload_check_response((const char *)data, size, 0, o, e0,
	    sizeof e0);
	rc1 = httpload_check_response((const char *)data, size, chunk, o, e1,
	    sizeof e1);
	if (rc0 != rc1 || (rc0 == 1 && strcmp(e0, e1) != 0))
		abort();
}

/* One response through r from data[0..n) in pieces of chunk (0: whole);
 * *off the bytes it took. */
static int
fuzz_httpload_feed(struct load_resp *r, const char *data, size_t n,
    size_t chunk, size_t *off)
{
	char err[1024];
	size_t used;
	int rc = 0;

	*off = 0;
	load_resp_start(r, 1, 0);
	while (*off < n && rc == 0) {
		size_t step = chunk == 0 || chunk > n - *off ? n - *off : chunk;

		rc = load_resp_feed(r, data + *off, step, &used, err, sizeof err);
		*off += used;
	}
	return rc;
}

static void
fuzz_httpload_kept(const uint8_t *data, size_t size)
{
	struct load_check k = { .expect_status = 200, .expect_bytes = -1,
	    .expect_sha256 = "", .digest = true };
	struct load_ref ref;
	struct load_resp r;
	char hex[DIGEST_HEX_LEN], want[DIGEST_HEX_LEN], *copy = NULL;
	size_t off, off2;
	long long clen;

	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	if (fuzz_httpload_feed(&r, (const char *)data, size, 0, &off) != 1)
		goto out;
	memcpy(hex, r.hex, sizeof hex);
	clen = r.clen;
	if (fuzz_httpload_feed(&r, (const char *)data, off, 3, &off2) != 1 ||
	    off2 != off || strcmp(r.hex, hex) != 0)
		abort();
	/* The body is the response's last bytes only when it has a length. */
	if (clen == 0 || r.frame != LOAD_FRAME_LENGTH)
		goto out;
	copy = malloc(off);
	if (copy == NULL)
		goto out;
	memcpy(copy, data, off);
	copy[off - 1] ^= 0x5a;
	digest_buf(copy + off - (size_t)clen, (size_t)clen, want);
	if (fuzz_httpload_feed(&r, copy, off, 5, &off2) != 1 ||
	    strcmp(r.hex, want) != 0)
		abort();
out:
	free(copy);
	load_resp_finish(&r);
	load_ref_finish(&ref);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httpload_opts o;

	fuzz_httpload_pieces(data, size, NULL);
	httpload_opts_init(&o);
	o.expect_bytes = 5;
	strcpy(o.expect_sha256,
	    "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
	fuzz_httpload_pieces(data, size, &o);
	httpload_opts_init(&o);
	o.accept_encoding = "gzip, br";
	fuzz_httpload_pieces(data, size, &o);
	o.method = "HEAD";
	fuzz_httpload_pieces(data, size, &o);
	o.method = NULL;
	o.expect_status = 101;
	fuzz_httpload_pieces(data, size, &o);
	fuzz_httpload_kept(data, size);
	return 0;
}
