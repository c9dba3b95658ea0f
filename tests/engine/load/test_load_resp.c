/* test: */
/* load_resp: a response read as benchtui load reads it, in every size of
 * piece from one byte to whole.  Each row is a response and what the
 * reader must say of it (passes, fails naming what, incomplete), the same
 * whatever the pieces; then the kept body (compared, not hashed again) and
 * its fallback to hashing when a later body differs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpload.h"
#include "load_int.h"

#define HELLO_SHA \
	"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"

struct row {
	const char *name;
	const char *resp;
	long long expect_bytes;     /* -1 any */
	int rc;                     /* 0 pass, 1 fail, 2 incomplete */
	const char *msg;            /* a piece of the message when rc is 1 */
};

static const struct row rows[] = {
	{ "crlf", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", 5, 0, NULL },
	{ "lf only", "HTTP/1.1 200 OK\nContent-Length: 5\n\nhello", 5, 0, NULL },
	{ "lf and crlf mixed", "HTTP/1.1 200 OK\r\nContent-Length: 5\n"
	  "Server: x\r\n\nhello", 5, 0, NULL },
	{ "no reason phrase", "HTTP/1.1 200\r\nContent-Length: 5\r\n\r\nhello",
	  -1, 0, NULL },
	{ "equal repeats", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
	  "content-length:5\r\n\r\nhello", -1, 0, NULL },
	{ "equal list", "HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\nhello",
	  -1, 0, NULL },
	{ "conflicting", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
	  "Content-Length: 6\r\n\r\nhello!", -1, 1,
	  "two Content-Length values that differ (5 and 6)" },
	{ "conflicting list", "HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n"
	  "hello", -1, 1, "differ (5 and 6)" },
	{ "signed", "HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\nhello", -1, 1,
	  "bad Content-Length '+5' (digits only)" },
	{ "negative", "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", -1, 1,
	  "bad Content-Length '-1'" },
	{ "empty", "HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n", -1, 1,
	  "bad Content-Length ''" },
	{ "huge", "HTTP/1.1 200 OK\r\nContent-Length: 1234567890123456789\r\n"
	  "\r\n", -1, 1, "is too large" },
	{ "no length: ends at close", "HTTP/1.1 200 OK\r\n\r\nhello", -1, 0,
	  NULL },
	{ "chunked, no chunk yet", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	  "chunked\r\n\r\n", -1, 2, NULL },
	{ "chunked", "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "3\r\nhel\r\n2;x=1\r\nlo\r\n0\r\nX: y\r\n\r\n", 5, 0, NULL },
	{ "chunked, past expect-bytes", "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
	  "chunked\r\n\r\n3\r\nhel\r\n40000000\r\n", 5, 1,
	  "chunk 2 (1073741824 bytes after 3) takes the body past 5 bytes" },
	{ "gzip", "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n"
	  "Content-Length: 5\r\n\r\nhello", -1, 1, "Content-Encoding: gzip" },
	{ "folded", "HTTP/1.1 200 OK\r\nX: a\r\n b\r\nContent-Length: 5\r\n\r\n"
	  "hello", -1, 1, "header line 3 is folded" },
	{ "nameless", "HTTP/1.1 200 OK\r\n: x\r\nContent-Length: 5\r\n\r\nhello",
	  -1, 1, "header line 2 is not NAME: VALUE" },
	{ "space before colon", "HTTP/1.1 200 OK\r\nContent-Length : 5\r\n\r\n"
	  "hello", -1, 1, "is not NAME: VALUE" },
	{ "bare cr", "HTTP/1.1 200 OK\r\nX: a\rb\r\nContent-Length: 5\r\n\r\n"
	  "hello", -1, 1, "a stray CR or NUL byte in header line 2" },
	{ "close", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 5"
	  "\r\n\r\nhello", -1, 0, NULL },
	{ "http/1.0", "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\nhello", -1, 0,
	  NULL },
	{ "http/1.0 keep-alive", "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n"
	  "Content-Length: 5\r\n\r\nhello", -1, 0, NULL },
	{ "404", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", -1, 1,
	  "status 404, expected 200" },
	{ "not http", "SSH-2.0-OpenSSH_9.2\r\n", -1, 1,
	  "not an HTTP/1.x response: 'SSH-2.0-OpenSSH_9.2'" },
	{ "http/2", "HTTP/2 200\r\n\r\n", -1, 1, "not an HTTP/1.x response" },
	{ "bad status", "HTTP/1.1 2x0 OK\r\nContent-Length: 0\r\n\r\n", -1, 1,
	  "bad status line" },
	{ "escape shown safely", "HTTP/1.1 200 OK\r\nContent-Length: \033]0;x"
	  "\r\n\r\n", -1, 1, "bad Content-Length '?]0;x'" },
	{ "expect-bytes before the body", "HTTP/1.1 200 OK\r\nContent-Length: "
	  "1073741824\r\n\r\n", 1088, 1, "body is 1073741824 bytes, expected 1088" },
	{ "past the end", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello!",
	  -1, 1, "1 bytes past the end of the response" },
	{ "short body", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel", -1, 2,
	  NULL },
	{ "header not ended", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", -1, 2,
	  NULL },
	{ "wrong digest", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhellO", -1,
	  1, "body sha256 is" },
};

static void
test_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		const struct row *w = &rows[i];
		struct httpload_opts o;
		size_t len = strlen(w->resp);
		char err[1024];

		httpload_opts_init(&o);
		o.expect_bytes = w->expect_bytes;
		if (strcmp(w->name, "wrong digest") == 0)
			strcpy(o.expect_sha256, HELLO_SHA);
		for (size_t chunk = 0; chunk <= len; chunk++) {
			int rc;

			err[0] = '\0';
			rc = httpload_check_response(w->resp, len, chunk, &o, err,
			    sizeof err);
			if (rc != w->rc || (w->msg != NULL &&
			    strstr(err, w->msg) == NULL))
				fail_msg("%s, pieces of %zu: rc %d (want %d): %s",
				    w->name, chunk, rc, w->rc, err);
		}
	}
}

/* A header of exactly the limit passes; one byte more fails, whether it
 * comes in one piece or many. */
static void
test_header_limit(void **state)
{
	const char *start = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: ";
	size_t fixed = strlen(start) + 4, len = LOAD_MAX_HEADER + 1;
	char *buf = malloc(len + 1), err[1024];

	(void)state;
	for (int extra = 0; extra <= 1; extra++) {
		size_t n = LOAD_MAX_HEADER + (size_t)extra;

		memset(buf, 'p', n);
		memcpy(buf, start, strlen(start));
		memcpy(buf + n - 4, "\r\n\r\n", 4);
		assert_true(n >= fixed);
		for (size_t chunk = 0; chunk < 3; chunk++) {
			int rc = httpload_check_response(buf, n,
			    chunk == 2 ? 4096 : chunk, NULL, err, sizeof err);

			assert_int_equal(rc, extra);
			if (extra)
				assert_non_null(strstr(err, "response header longer "
				    "than 65536 bytes"));
		}
	}
	free(buf);
}

/* Feed one response whole through r. */
static int
feed(struct load_resp *r, const char *s, size_t chunk)
{
	size_t off = 0, len = strlen(s), used;
	char err[1024];
	int rc = 0;

	load_resp_start(r, 1, 0);
	while (off < len && rc == 0) {
		size_t step = chunk == 0 || chunk > len - off ? len - off : chunk;

		rc = load_resp_feed(r, s + off, step, &used, err, sizeof err);
		off += used;
	}
	return rc;
}

/* The first body is hashed and kept; an equal one is compared, not hashed;
 * one that differs late is hashed after all and gets its own digest. */
static void
test_kept_body(void **state)
{
	struct load_check k = { .expect_status = 200, .expect_bytes = -1,
	    .expect_sha256 = "", .digest = true };
	struct load_ref ref;
	struct load_resp r;
	char want[DIGEST_HEX_LEN];

	(void)state;
	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	    "hello", 0), 1);
	assert_string_equal(r.hex, HELLO_SHA);
	assert_true(ref.set);
	assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	    "hello", 2), 1);
	assert_true(r.matching);
	assert_string_equal(r.hex, HELLO_SHA);
	assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	    "hellp", 2), 1);
	assert_false(r.matching);
	digest_buf("hellp", 5, want);
	assert_string_equal(r.hex, want);
	load_resp_finish(&r);
	load_ref_finish(&ref);
}

/* With a sha256 expected, a body of another length than one that had it
 * fails before it is read. */
static void
test_known_length(void **state)
{
	struct load_check k = { .expect_status = 200, .expect_bytes = -1,
	    .expect_sha256 = HELLO_SHA, .digest = true };
	struct load_ref ref;
	struct load_resp r;
	const char *big = "HTTP/1.1 200 OK\r\nContent-Length: 999999\r\n\r\n";
	size_t used;
	char err[1024];

	(void)state;
	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
	    "hello", 0), 1);
	load_resp_start(&r, 2, 1);
	assert_int_equal(load_resp_feed(&r, big, strlen(big), &used, err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "request 2: body is 999999 bytes, but a "
	    "body of 5 bytes had the expected sha256"));
	load_resp_finish(&r);
	load_ref_finish(&ref);
}

/* HEAD: the header's Content-Length describes a body that never comes. */
static void
test_head(void **state)
{
	struct httpload_opts o;
	const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
	char err[1024];

	(void)state;
	httpload_opts_init(&o);
	o.method = "HEAD";
	o.expect_bytes = 5;
	assert_int_equal(httpload_check_response(resp, strlen(resp), 0, &o, err,
	    sizeof err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_header_limit),
		cmocka_unit_test(test_kept_body),
		cmocka_unit_test(test_known_length),
		cmocka_unit_test(test_head),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
