/* test load_resp_corpus: */
/* The response corpus (tests/data/http/responses.jsonl: raw responses
 * written from RFC 9112's rules, each with what a strict reader makes of
 * it) through the reader benchtui load uses, in every split of its bytes:
 * whole, every split point into two pieces, and pieces of 1 to 7 bytes.
 * Every valid response passes with its body's length and sha256 (and a
 * second time, through the kept copy of the first body), every invalid
 * one is refused with its reason, every incomplete one waits for more;
 * whatever the pieces.  Then the kept body against chunked bodies of
 * other lengths, whose length is known only at their end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpload.h"
#include "load_int.h"

struct corpus_case {
	char name[64];
	char *resp, *body;         /* bytes (a JSON string's code points) */
	size_t len, blen;
	json_t *refuse;            /* reasons, any of which will do */
	bool accept, incomplete;
	struct httpload_opts o;
};

/* A JSON string whose code points are all below 256, as those bytes. */
static char *
corpus_bytes(json_t *s, size_t *len)
{
	const unsigned char *u = (const unsigned char *)json_string_value(s);
	size_t n = json_string_length(s), k = 0;
	char *out = malloc(n + 1);

	for (size_t i = 0; i < n; i++) {
		if (u[i] < 0x80)
			out[k++] = (char)u[i];
		else if ((u[i] == 0xc2 || u[i] == 0xc3) && i + 1 < n)
			out[k++] = (char)(((u[i] & 0x03) << 6) | (u[i + 1] & 0x3f)),
			    i++;
		else
			fail_msg("a code point past 255 in %s", (const char *)u);
	}
	*len = k;
	return out;
}

static void
corpus_parse(json_t *j, struct corpus_case *c)
{
	json_t *opts = json_object_get(j, "opts"), *v;

	memset(c, 0, sizeof *c);
	snprintf(c->name, sizeof c->name, "%s",
	    json_string_value(json_object_get(j, "name")));
	c->resp = corpus_bytes(json_object_get(j, "resp"), &c->len);
	if ((v = json_object_get(j, "body")) != NULL) {
		c->accept = true;
		c->body = corpus_bytes(v, &c->blen);
	}
	c->refuse = json_object_get(j, "refuse");
	c->incomplete = json_is_true(json_object_get(j, "incomplete"));
	assert_true(c->accept + (c->refuse != NULL) + c->incomplete == 1);
	httpload_opts_init(&c->o);
	if (opts == NULL)
		return;
	if ((v = json_object_get(opts, "method")) != NULL)
		c->o.method = json_string_value(v);
	if ((v = json_object_get(opts, "expect_status")) != NULL)
		c->o.expect_status = (int)json_integer_value(v);
	if ((v = json_object_get(opts, "expect_bytes")) != NULL)
		c->o.expect_bytes = json_integer_value(v);
	if ((v = json_object_get(opts, "accept_encoding")) != NULL)
		c->o.accept_encoding = json_string_value(v);
}

/* c's response in the pieces that end at cut[0..ncut) and then at its
 * end, as off a connection the server then closed: 1 passed, 0
 * incomplete, -1 refused (err). */
static int
corpus_feed(struct load_resp *r, const struct corpus_case *c,
    const size_t *cut, size_t ncut, char *err, size_t errlen)
{
	size_t off = 0, used;
	int rc = 0;

	load_resp_start(r, 1, 0);
	for (size_t i = 0; i <= ncut && rc == 0; i++) {
		size_t end = i < ncut ? cut[i] : c->len;

		while (off < end && rc == 0) {
			rc = load_resp_feed(r, c->resp + off, end - off, &used, err,
			    errlen);
			off += used;
		}
	}
	if (rc == 0)
		rc = load_resp_eof(r, err, errlen);
	if (rc == 1 && off < c->len && !r->upgraded)
		rc = load_fail(err, errlen, -1, "request 1: %zu bytes past the end "
		    "of the response", c->len - off);
	return rc;
}

/* One way of cutting c: the outcome checked; a name for messages. */
static void
corpus_check(const struct corpus_case *c, struct load_resp *r,
    const size_t *cut, size_t ncut, const char *how, long *splits)
{
	char err[1024] = "", want[DIGEST_HEX_LEN];
	int rc = corpus_feed(r, c, cut, ncut, err, sizeof err);
	bool named = false;
	size_t i;
	json_t *s;

	(*splits)++;
	if (c->accept) {
		digest_buf(c->body, c->blen, want);
		if (rc != 1 || strcmp(r->hex, want) != 0 ||
		    r->clen != (long long)c->blen)
			fail_msg("%s (%s): rc %d, %lld bytes %s (want %zu %s): %s",
			    c->name, how, rc, r->clen, r->hex, c->blen, want, err);
		return;
	}
	if (c->incomplete) {
		if (rc != 0)
			fail_msg("%s (%s): rc %d, want incomplete: %s", c->name, how,
			    rc, err);
		return;
	}
	json_array_foreach(c->refuse, i, s)
		named |= strstr(err, json_string_value(s)) != NULL;
	if (rc != -1 || !named || strncmp(err, "request 1: ", 11) != 0)
		fail_msg("%s (%s): rc %d, want refused naming request 1 and %s: "
		    "%s", c->name, how, rc, json_string_value(json_array_get(
		    c->refuse, 0)), err);
}

/* Every way of cutting c this test knows. */
static void
corpus_case_run(struct corpus_case *c, long *splits)
{
	struct load_check k;
	struct load_ref ref;
	struct load_resp r;
	size_t *cut = malloc((c->len + 1) * sizeof *cut);
	char how[64];

	load_check_init(&k, &c->o);
	k.digest = true;
	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	/* Whole twice: the second through the kept body. */
	corpus_check(c, &r, NULL, 0, "whole", splits);
	corpus_check(c, &r, NULL, 0, "whole, kept body", splits);
	for (size_t at = 1; at < c->len; at++) {
		cut[0] = at;
		snprintf(how, sizeof how, "split at %zu", at);
		corpus_check(c, &r, cut, 1, how, splits);
	}
	for (size_t step = 1; step <= 7; step++) {
		size_t n = 0;

		for (size_t at = step; at < c->len; at += step)
			cut[n++] = at;
		snprintf(how, sizeof how, "pieces of %zu", step);
		corpus_check(c, &r, cut, n, how, splits);
	}
	load_resp_finish(&r);
	load_ref_finish(&ref);
	free(cut);
}

static void
test_corpus(void **state)
{
	char path[4096], line[65536];
	long cases = 0, splits = 0, accepted = 0;
	FILE *f;

	(void)state;
	snprintf(path, sizeof path, "%s/tests/data/http/responses.jsonl",
	    getenv("BENCHTUI_SOURCE_DIR") ? getenv("BENCHTUI_SOURCE_DIR") : ".");
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof line, f) != NULL) {
		json_error_t e;
		json_t *j = json_loads(line, JSON_ALLOW_NUL, &e);
		struct corpus_case c;

		if (j == NULL)
			fail_msg("%s:%d: %s", path, e.line, e.text);
		corpus_parse(j, &c);
		corpus_case_run(&c, &splits);
		cases++;
		accepted += c.accept;
		free(c.resp);
		free(c.body);
		json_decref(j);
	}
	fclose(f);
	printf("corpus: %ld responses (%ld valid), %ld ways of cutting them\n",
	    cases, accepted, splits);
	assert_true(cases >= 60);
}

/* One chunked response through r; its body's sha256 in r->hex. */
static void
chunked_feed(struct load_resp *r, const char *s, size_t step)
{
	size_t off = 0, len = strlen(s), used;
	char err[1024];
	int rc = 0;

	load_resp_start(r, 1, 0);
	while (off < len && rc == 0) {
		rc = load_resp_feed(r, s + off, step < len - off ? step : len - off,
		    &used, err, sizeof err);
		off += used;
	}
	assert_int_equal(rc, 1);
}

/* A kept chunked body, then ones shorter, longer and different: each
 * gets its own digest, though its length was known only at its end. */
static void
test_kept_chunked(void **state)
{
	static const char *const bodies[] = { "hello", "hell", "hello!",
	    "hellO", "hello" };
	struct load_check k = { .expect_status = 200, .expect_bytes = -1,
	    .expect_sha256 = "", .digest = true };
	struct load_ref ref;
	struct load_resp r;
	char resp[256], want[DIGEST_HEX_LEN];

	(void)state;
	load_ref_init(&ref);
	load_resp_init(&r, &k, &ref, 1);
	for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
		size_t n = strlen(bodies[i]);

		snprintf(resp, sizeof resp, "HTTP/1.1 200 OK\r\nTransfer-Encoding: "
		    "chunked\r\n\r\n2\r\n%.2s\r\n%zx\r\n%s\r\n0\r\n\r\n", bodies[i],
		    n - 2, bodies[i] + 2);
		for (size_t step = 1; step < 4; step++) {
			chunked_feed(&r, resp, step);
			digest_buf(bodies[i], n, want);
			assert_string_equal(r.hex, want);
			assert_int_equal(r.clen, (long long)n);
		}
	}
	assert_true(ref.set && ref.len == 5);
	load_resp_finish(&r);
	load_ref_finish(&ref);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_corpus),
		cmocka_unit_test(test_kept_chunked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
