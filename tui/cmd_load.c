/* load: a verified HTTP/1.1 keep-alive load (engine/httpload.c), usable as a
 * leg's command through ${BENCHTUI}.
 *
 * Exit status: 0 every response passed its checks; 1 a check failed (the
 * message names the request and what differed) or the server could not be
 * reached; 2 bad usage. */
#include <errno.h>
#include <getopt.h>
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

enum {
	LOAD_REQUESTS = 1, LOAD_WARMUP, LOAD_CONNECTIONS, LOAD_STATUS,
	LOAD_BYTES, LOAD_TIMEOUT,   /* the numbers, in cmd_load_nums' order */
	LOAD_HEADER, LOAD_SHA256, LOAD_FILE, LOAD_EVIDENCE, LOAD_METRICS,
	LOAD_QUIET, LOAD_HELP = 'h',
};

static const struct option cmd_load_options[] = {
	{ "requests", required_argument, NULL, LOAD_REQUESTS },
	{ "warmup", required_argument, NULL, LOAD_WARMUP },
	{ "connections", required_argument, NULL, LOAD_CONNECTIONS },
	{ "expect-status", required_argument, NULL, LOAD_STATUS },
	{ "expect-bytes", required_argument, NULL, LOAD_BYTES },
	{ "timeout", required_argument, NULL, LOAD_TIMEOUT },
	{ "header", required_argument, NULL, LOAD_HEADER },
	{ "expect-sha256", required_argument, NULL, LOAD_SHA256 },
	{ "expect-file", required_argument, NULL, LOAD_FILE },
	{ "evidence", required_argument, NULL, LOAD_EVIDENCE },
	{ "metrics", required_argument, NULL, LOAD_METRICS },
	{ "quiet", no_argument, NULL, LOAD_QUIET },
	{ "help", no_argument, NULL, LOAD_HELP },
	{ NULL, 0, NULL, 0 },
};

/* The whole-number options' ranges, from LOAD_REQUESTS on. */
static const struct {
	const char *name;
	long long lo, hi;
} cmd_load_nums[] = {
	{ "--requests", 1, 1000000000LL },
	{ "--warmup", 0, 1000000000LL },
	{ "--connections", 1, 1024 },
	{ "--expect-status", 100, 999 },
	{ "--expect-bytes", 0, (long long)1 << 50 },
	{ "--timeout", 1, 86400 },
};

/* A whole-number option into its field of o: 0, or a usage error's exit
 * status. */
static int
cmd_load_set_number(struct httpload_opts *o, int opt, const char *arg)
{
	size_t k = (size_t)(opt - LOAD_REQUESTS);
	long long v;

	if (cmd_load_number(arg, cmd_load_nums[k].lo, cmd_load_nums[k].hi,
	    &v) != 0)
		return cmd_usage_error("load", load_usage, "%s '%s': expected "
		    "a whole number from %lld to %lld", cmd_load_nums[k].name,
		    arg, cmd_load_nums[k].lo, cmd_load_nums[k].hi);
	switch (opt) {
	case LOAD_REQUESTS: o->requests = (long)v; break;
	case LOAD_WARMUP: o->warmup = (long)v; break;
	case LOAD_CONNECTIONS: o->connections = (int)v; break;
	case LOAD_STATUS: o->expect_status = (int)v; break;
	case LOAD_BYTES: o->expect_bytes = v; break;
	default: o->timeout_s = (double)v; break;
	}
	return 0;
}

/* One option that is not a number: 0, or a usage error's exit status. */
static int
cmd_load_set_other(struct httpload_opts *o, int opt, const char *arg,
    const char **file)
{
	const char *colon;

	switch (opt) {
	case LOAD_HEADER:
		colon = strchr(arg, ':');
		if (colon == NULL || colon == arg || strpbrk(arg, "\r\n"))
			return cmd_usage_error("load", load_usage, "--header "
			    "'%s': expected NAME:VALUE on one line", arg);
		if (o->nheaders == HTTPLOAD_MAX_HEADERS)
			return cmd_usage_error("load", load_usage, "more than "
			    "%d --header options", HTTPLOAD_MAX_HEADERS);
		o->headers[o->nheaders++] = arg;
		return 0;
	case LOAD_SHA256:
		if (cmd_load_hex(arg) != 0)
			return cmd_usage_error("load", load_usage,
			    "--expect-sha256 '%s': expected 64 hex digits", arg);
		snprintf(o->expect_sha256, sizeof o->expect_sha256, "%s", arg);
		return 0;
	case LOAD_FILE:
		*file = arg;
		return 0;
	case LOAD_EVIDENCE:
		o->evidence = arg;
		return 0;
	default:
		o->metrics = arg;
		return 0;
	}
}

/* The options into o (and --expect-file's path into file): -1 to go on,
 * or the exit status (0 after --help, 2 for bad usage). */
static int
cmd_load_parse(int argc, char **argv, struct httpload_opts *o,
    const char **file, bool *quiet)
{
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "h", cmd_load_options, NULL)) !=
	    -1) {
		rc = 0;
		if (c == LOAD_HELP) {
			fputs(load_usage, stdout);
			return 0;
		} else if (c == LOAD_QUIET)
			*quiet = true;
		else if (c >= LOAD_REQUESTS && c <= LOAD_TIMEOUT)
			rc = cmd_load_set_number(o, c, optarg);
		else if (c >= LOAD_HEADER && c <= LOAD_METRICS)
			rc = cmd_load_set_other(o, c, optarg, file);
		else
			return cmd_usage_error("load", load_usage, "unknown or "
			    "incomplete option '%s'", argv[optind - 1]);
		if (rc != 0)
			return rc;
	}
	if ((rc = cmd_operand(argc, argv, "load", load_usage, "no URL given",
	    "more than one URL given ('%s')", &o->url)) != 0)
		return rc;
	if (*file != NULL && o->expect_sha256[0] != '\0')
		return cmd_usage_error("load", load_usage,
		    "--expect-sha256 and --expect-file both given");
	return -1;
}

int
cmd_load(int argc, char **argv)
{
	struct httpload_opts o;
	struct httpload_result r;
	const char *file = NULL;
	char err[1024];
	bool quiet = false;
	int rc;

	httpload_opts_init(&o);
	/* A round's syscalls and server_perf profiles set it on their load
	 * leg, to attach between the warm-up and the counted requests. */
	o.hold_after_warmup = getenv("BENCHTUI_LOAD_HOLD") != NULL &&
	    strcmp(getenv("BENCHTUI_LOAD_HOLD"), "warmup") == 0;
	if ((rc = cmd_load_parse(argc, argv, &o, &file, &quiet)) >= 0)
		return rc;
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
