/* load: a verified HTTP/1.1 keep-alive load (engine/load/), usable as a
 * leg's command through ${BENCHTUI}.
 *
 * Exit status: 0 every response passed its checks; 1 a check failed (the
 * message names the request and what differed) or the server could not be
 * reached; 2 bad usage. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "digest.h"
#include "httpload.h"

static const char load_usage[] =
    "usage: benchtui load URL [--requests N | --duration S] [--warmup N]\n"
    "           [--connections C] [--threads T] [--rate R]\n"
    "           [--method M] [--body FILE] [--header K:V]...\n"
    "           [--expect-status S] [--expect-bytes N]\n"
    "           [--expect-sha256 HEX | --expect-file PATH]\n"
    "           [--evidence FILE] [--metrics FILE] [--timeout S] [--quiet]\n"
    "           [--cacert FILE | --insecure] [--tls-resume]\n"
    "           [--new-connection] [--h2 [--streams S]]\n"
    "           [--accept-encoding CODINGS]\n";

/* A whole decimal number in [lo, hi]. */
static int
cmd_load_number(const char *s, long long lo, long long hi, long long *out)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi ||
	    (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	*out = v;
	return 0;
}

/* A number of seconds or requests a second: digits with at most one '.',
 * more than 0 and at most hi (read without the locale: "0.5" is a half
 * wherever benchtui runs). */
static int
cmd_load_decimal(const char *s, double hi, double *out)
{
	double v = 0, scale = 1;
	bool dot = false, digit = false;

	for (const char *p = s; *p != '\0'; p++) {
		if (*p == '.' && !dot) {
			dot = true;
			continue;
		}
		if (*p < '0' || *p > '9')
			return -1;
		digit = true;
		if (dot)
			v += (scale /= 10) * (*p - '0');
		else
			v = v * 10 + (*p - '0');
	}
	if (!digit || !(v > 0) || v > hi)
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
	LOAD_REQUESTS = 1, LOAD_WARMUP, LOAD_CONNECTIONS, LOAD_THREADS,
	LOAD_STATUS, LOAD_BYTES, LOAD_STREAMS, /* whole numbers, cmd_load_nums' */
	LOAD_TIMEOUT, LOAD_DURATION, LOAD_RATE, /* decimals, cmd_load_decs' */
	LOAD_HEADER, LOAD_SHA256, LOAD_FILE, LOAD_EVIDENCE, LOAD_METRICS,
	LOAD_METHOD, LOAD_BODY, LOAD_CACERT, LOAD_ACCEPT_ENC,
	LOAD_QUIET, LOAD_INSECURE, LOAD_RESUME, LOAD_NEWCONN, LOAD_H2,
	LOAD_HELP = 'h',
};

static const struct option cmd_load_options[] = {
	{ "requests", required_argument, NULL, LOAD_REQUESTS },
	{ "warmup", required_argument, NULL, LOAD_WARMUP },
	{ "connections", required_argument, NULL, LOAD_CONNECTIONS },
	{ "threads", required_argument, NULL, LOAD_THREADS },
	{ "expect-status", required_argument, NULL, LOAD_STATUS },
	{ "expect-bytes", required_argument, NULL, LOAD_BYTES },
	{ "timeout", required_argument, NULL, LOAD_TIMEOUT },
	{ "duration", required_argument, NULL, LOAD_DURATION },
	{ "rate", required_argument, NULL, LOAD_RATE },
	{ "header", required_argument, NULL, LOAD_HEADER },
	{ "expect-sha256", required_argument, NULL, LOAD_SHA256 },
	{ "expect-file", required_argument, NULL, LOAD_FILE },
	{ "evidence", required_argument, NULL, LOAD_EVIDENCE },
	{ "metrics", required_argument, NULL, LOAD_METRICS },
	{ "method", required_argument, NULL, LOAD_METHOD },
	{ "body", required_argument, NULL, LOAD_BODY },
	{ "accept-encoding", required_argument, NULL, LOAD_ACCEPT_ENC },
	{ "quiet", no_argument, NULL, LOAD_QUIET },
	{ "streams", required_argument, NULL, LOAD_STREAMS },
	{ "cacert", required_argument, NULL, LOAD_CACERT },
	{ "insecure", no_argument, NULL, LOAD_INSECURE },
	{ "tls-resume", no_argument, NULL, LOAD_RESUME },
	{ "new-connection", no_argument, NULL, LOAD_NEWCONN },
	{ "h2", no_argument, NULL, LOAD_H2 },
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
	{ "--threads", 1, 64 },
	{ "--expect-status", 100, 999 },
	{ "--expect-bytes", 0, (long long)1 << 50 },
	{ "--streams", 1, 1000 },
};

/* The decimal options' largest values, from LOAD_TIMEOUT on. */
static const struct {
	const char *name;
	double hi;
} cmd_load_decs[] = {
	{ "--timeout", 86400 },
	{ "--duration", 31536000 },
	{ "--rate", 10000000 },
};

/* What the command line said beyond the options' fields. */
struct cmd_load_args {
	const char *file;           /* --expect-file */
	bool quiet, requests, bytes;  /* --quiet; --requests, --expect-bytes given */
};

/* A number option into its field of o: 0, or a usage error's exit
 * status. */
static int
cmd_load_set_number(struct httpload_opts *o, int opt, const char *arg,
    struct cmd_load_args *a)
{
	size_t k = (size_t)(opt - LOAD_REQUESTS);
	long long v;
	double d;

	if (opt >= LOAD_TIMEOUT) {
		k = (size_t)(opt - LOAD_TIMEOUT);
		if (cmd_load_decimal(arg, cmd_load_decs[k].hi, &d) != 0)
			return cmd_usage_error("load", load_usage, "%s '%s': "
			    "expected a number more than 0 and at most %g "
			    "(digits and one '.')", cmd_load_decs[k].name, arg,
			    cmd_load_decs[k].hi);
		*(opt == LOAD_TIMEOUT ? &o->timeout_s : opt == LOAD_DURATION ?
		    &o->duration_s : &o->rate) = d;
		return 0;
	}
	if (cmd_load_number(arg, cmd_load_nums[k].lo, cmd_load_nums[k].hi,
	    &v) != 0)
		return cmd_usage_error("load", load_usage, "%s '%s': expected "
		    "a whole number from %lld to %lld", cmd_load_nums[k].name,
		    arg, cmd_load_nums[k].lo, cmd_load_nums[k].hi);
	switch (opt) {
	case LOAD_REQUESTS: o->requests = (long)v; a->requests = true; break;
	case LOAD_WARMUP: o->warmup = (long)v; break;
	case LOAD_CONNECTIONS: o->connections = (int)v; break;
	case LOAD_THREADS: o->threads = (int)v; break;
	case LOAD_STATUS: o->expect_status = (int)v; break;
	case LOAD_STREAMS: o->streams = (int)v; break;
	default: o->expect_bytes = v; a->bytes = true; break;
	}
	return 0;
}

/* One option that is not a number: 0, or a usage error's exit status. */
static int
cmd_load_set_other(struct httpload_opts *o, int opt, const char *arg,
    struct cmd_load_args *a)
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
		a->file = arg;
		return 0;
	case LOAD_EVIDENCE:
		o->evidence = arg;
		return 0;
	case LOAD_METHOD:
		o->method = arg;
		return 0;
	case LOAD_BODY:
		o->body_file = arg;
		return 0;
	case LOAD_CACERT:
		o->cacert = arg;
		return 0;
	case LOAD_ACCEPT_ENC:
		o->accept_encoding = arg;
		return 0;
	default:
		o->metrics = arg;
		return 0;
	}
}

/* TLS and HTTP/2 options that do not go together, or with the URL. */
static int
cmd_load_transport(struct httpload_opts *o)
{
	bool https = strncmp(o->url, "https://", 8) == 0;

	if (o->cacert != NULL && o->insecure)
		return cmd_usage_error("load", load_usage, "--cacert and "
		    "--insecure both given: verify against FILE, or not at all");
	if (!https && (o->cacert != NULL || o->insecure || o->tls_resume))
		return cmd_usage_error("load", load_usage, "%s needs an "
		    "https:// URL", o->cacert != NULL ? "--cacert" :
		    o->insecure ? "--insecure" : "--tls-resume");
	if (o->streams > 0 && !o->h2)
		return cmd_usage_error("load", load_usage, "--streams needs "
		    "--h2 (an HTTP/1.1 connection carries one request at a "
		    "time)");
	if (o->h2 && o->new_connection && !https)
		return cmd_usage_error("load", load_usage, "--h2 and "
		    "--new-connection on an http:// URL: HTTP/2 without TLS is "
		    "spoken by prior knowledge on a connection kept open");
	if (o->streams == 0)
		o->streams = 1;
	return 0;
}

/* The rules between options: 0, or a usage error's exit status. */
static int
cmd_load_combined(struct httpload_opts *o, const struct cmd_load_args *a)
{
	if (a->file != NULL && o->expect_sha256[0] != '\0')
		return cmd_usage_error("load", load_usage,
		    "--expect-sha256 and --expect-file both given");
	if (a->requests && o->duration_s > 0)
		return cmd_usage_error("load", load_usage, "--requests and "
		    "--duration both given: the run is a count or a time");
	return cmd_load_transport(o);
}

/* The options into o: -1 to go on, or the exit status (0 after --help, 2
 * for bad usage). */
static int
cmd_load_parse(int argc, char **argv, struct httpload_opts *o,
    struct cmd_load_args *a)
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
			a->quiet = true;
		else if (c == LOAD_INSECURE)
			o->insecure = true;
		else if (c == LOAD_RESUME)
			o->tls_resume = true;
		else if (c == LOAD_NEWCONN)
			o->new_connection = true;
		else if (c == LOAD_H2)
			o->h2 = true;
		else if (c >= LOAD_REQUESTS && c <= LOAD_RATE)
			rc = cmd_load_set_number(o, c, optarg, a);
		else if (c >= LOAD_HEADER && c <= LOAD_ACCEPT_ENC)
			rc = cmd_load_set_other(o, c, optarg, a);
		else
			return cmd_usage_error("load", load_usage, "unknown or "
			    "incomplete option '%s'", argv[optind - 1]);
		if (rc != 0)
			return rc;
	}
	if ((rc = cmd_operand(argc, argv, "load", load_usage, "no URL given",
	    "more than one URL given ('%s')", &o->url)) != 0)
		return rc;
	if ((rc = cmd_load_combined(o, a)) != 0)
		return rc;
	return -1;
}

/* --expect-file: its sha256, and its size as the expected one (a body of
 * another size fails before it is read).  0, or 2 with the message. */
static int
cmd_load_file(struct httpload_opts *o, const struct cmd_load_args *a)
{
	struct stat st;

	if (stat(a->file, &st) != 0 || digest_file(a->file,
	    o->expect_sha256) != 0) {
		fprintf(stderr, "benchtui load: --expect-file %s: %s\n", a->file,
		    strerror(errno));
		return 2;
	}
	if (a->bytes && o->expect_bytes != (long long)st.st_size) {
		fprintf(stderr, "benchtui load: --expect-bytes %lld, but "
		    "--expect-file %s has %lld bytes\n", o->expect_bytes,
		    a->file, (long long)st.st_size);
		return 2;
	}
	o->expect_bytes = (long long)st.st_size;
	return 0;
}

/* The summary line's end: the protocols, and the connections opened. */
static void
cmd_load_transport_line(const struct httpload_opts *o,
    const struct httpload_result *r)
{
	if (o->h2)
		printf("; HTTP/2, %d stream%s per connection", o->streams,
		    o->streams == 1 ? "" : "s");
	if (r->tls)
		printf("; %s %s, %ld TLS handshake%s (%ld resumed)",
		    r->tls_version, r->tls_cipher, r->handshakes,
		    r->handshakes == 1 ? "" : "s", r->resumed);
	if (o->new_connection)
		printf("; %ld connections opened", r->connects);
	putchar('\n');
}

int
cmd_load(int argc, char **argv)
{
	struct httpload_opts o;
	struct httpload_result r;
	struct cmd_load_args a = { 0 };
	char err[1024];
	int rc;

	httpload_opts_init(&o);
	/* A round's syscalls and server_perf profiles set it on their load
	 * leg, to attach between the warm-up and the counted requests. */
	o.hold_after_warmup = getenv("BENCHTUI_LOAD_HOLD") != NULL &&
	    strcmp(getenv("BENCHTUI_LOAD_HOLD"), "warmup") == 0;
	if ((rc = cmd_load_parse(argc, argv, &o, &a)) >= 0)
		return rc;
	if (a.file != NULL && (rc = cmd_load_file(&o, &a)) != 0)
		return rc;
	/* OpenSSL writes to its sockets with write(2): a server that reset
	 * a TLS connection must end the run with a message, not SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	rc = httpload_run(&o, &r, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "benchtui load: %s\n", err);
		return rc;
	}
	if (!a.quiet)
		printf("benchtui load: %ld requests in %.3f s over %d "
		    "connection%s on %d thread%s: %.1f requests/s%s, %lld body "
		    "bytes; latency%s p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, "
		    "max %.3f ms", r.requests, r.seconds, o.connections,
		    o.connections == 1 ? "" : "s", o.threads,
		    o.threads == 1 ? "" : "s", r.rps,
		    o.rate > 0 && r.rps < 0.95 * o.rate ? " (below --rate: the "
		    "server fell behind and a queue built up)" : "", r.bytes,
		    o.rate > 0 ? " (from each request's due time)" : "",
		    r.lat_p50_ms, r.lat_p90_ms, r.lat_p99_ms, r.lat_max_ms);
	if (!a.quiet)
		cmd_load_transport_line(&o, &r);
	return 0;
}
