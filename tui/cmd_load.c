/* load: a verified HTTP/1.1 keep-alive load (engine/httpload.c), usable as a
 * leg's command through ${BENCHTUI}.
 *
 * Exit status: 0 every response passed its checks; 1 a check failed (the
 * message names the request and what differed) or the server could not be
 * reached; 2 bad usage. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "digest.h"
#include "httpload.h"

static const char load_usage[] =
    "usage: benchtui load URL [--requests N] [--warmup N] [--connections C]\n"
    "           [--header K:V]... [--expect-status S] [--expect-bytes N]\n"
    "           [--expect-sha256 HEX | --expect-file PATH]\n"
    "           [--evidence FILE] [--metrics FILE] [--timeout S] [--quiet]\n";

/* A whole decimal number in [lo, hi]. */
static int
cmd_load_number(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

static int
cmd_load_hex(const char *s)
{
	if (strlen(s) != DIGEST_HEX_LEN - 1)
		return -1;
	for (; *s != '\0'; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f') ||
		    (*s >= 'A' && *s <= 'F')))
			return -1;
	return 0;
}

int
cmd_load(int argc, char **argv)
{
	static const struct {
		const char *name;
		long long lo, hi;
	} nums[] = {
		{ "--requests", 1, 1000000000LL },
		{ "--warmup", 0, 1000000000LL },
		{ "--connections", 1, 1024 },
		{ "--expect-status", 100, 999 },
		{ "--expect-bytes", 0, (long long)1 << 50 },
		{ "--timeout", 1, 86400 },
	};
	struct httpload_opts o;
	struct httpload_result r;
	const char *file = NULL;
	char err[1024];
	bool quiet = false;
	int rc;

	httpload_opts_init(&o);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		size_t k;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(load_usage, stdout);
			return 0;
		}
		if (strcmp(a, "--quiet") == 0) {
			quiet = true;
			continue;
		}
		if (a[0] != '-') {
			if (o.url != NULL)
				return cmd_usage_error("load", load_usage,
				    "more than one URL given ('%s')", a);
			o.url = a;
			continue;
		}
		if (i + 1 >= argc)
			return cmd_usage_error("load", load_usage,
			    "%s needs a value", a);
		for (k = 0; k < sizeof nums / sizeof nums[0]; k++)
			if (strcmp(a, nums[k].name) == 0)
				break;
		if (k < sizeof nums / sizeof nums[0]) {
			long long v;

			if (cmd_load_number(argv[++i], nums[k].lo, nums[k].hi,
			    &v) != 0)
				return cmd_usage_error("load", load_usage,
				    "%s '%s': expected a whole number from "
				    "%lld to %lld", a, argv[i], nums[k].lo,
				    nums[k].hi);
			switch (k) {
			case 0: o.requests = (long)v; break;
			case 1: o.warmup = (long)v; break;
			case 2: o.connections = (int)v; break;
			case 3: o.expect_status = (int)v; break;
			case 4: o.expect_bytes = v; break;
			default: o.timeout_s = (double)v; break;
			}
		} else if (strcmp(a, "--header") == 0) {
			const char *h = argv[++i], *colon = strchr(h, ':');

			if (colon == NULL || colon == h || strpbrk(h, "\r\n"))
				return cmd_usage_error("load", load_usage,
				    "--header '%s': expected NAME:VALUE on "
				    "one line", h);
			if (o.nheaders == HTTPLOAD_MAX_HEADERS)
				return cmd_usage_error("load", load_usage,
				    "more than %d --header options",
				    HTTPLOAD_MAX_HEADERS);
			o.headers[o.nheaders++] = h;
		} else if (strcmp(a, "--expect-sha256") == 0) {
			if (cmd_load_hex(argv[++i]) != 0)
				return cmd_usage_error("load", load_usage,
				    "--expect-sha256 '%s': expected 64 hex "
				    "digits", argv[i]);
			snprintf(o.expect_sha256, sizeof o.expect_sha256,
			    "%s", argv[i]);
		} else if (strcmp(a, "--expect-file") == 0) {
			file = argv[++i];
		} else if (strcmp(a, "--evidence") == 0) {
			o.evidence = argv[++i];
		} else if (strcmp(a, "--metrics") == 0) {
			o.metrics = argv[++i];
		} else {
			return cmd_usage_error("load", load_usage,
			    "unknown option '%s'", a);
		}
	}
	if (o.url == NULL)
		return cmd_usage_error("load", load_usage, "no URL given");
	if (file != NULL && o.expect_sha256[0] != '\0')
		return cmd_usage_error("load", load_usage,
		    "--expect-sha256 and --expect-file both given");
	if (file != NULL && digest_file(file, o.expect_sha256) != 0) {
		fprintf(stderr, "benchtui load: --expect-file %s: %s\n", file,
		    strerror(errno));
		return 2;
	}
	rc = httpload_run(&o, &r, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "benchtui load: %s\n", err);
		return rc;
	}
	if (!quiet)
		printf("benchtui load: %ld requests in %.3f s over %d "
		    "connection%s: %.1f requests/s, %lld body bytes; latency "
		    "p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms\n",
		    r.requests, r.seconds, o.connections,
		    o.connections == 1 ? "" : "s", r.rps, r.bytes,
		    r.lat_p50_ms, r.lat_p90_ms, r.lat_p99_ms, r.lat_max_ms);
	return 0;
}
