/* load: a verified HTTP/1.1 keep-alive load (engine/load/), usable as a
 * leg's command through ${BENCHTUI}.
 *
 * Exit status: 0 every response passed its checks; 1 a check failed (the
 * message names the request and what differed) or the server could not be
 * reached; 2 bad usage. */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "digest.h"
#include "httpload.h"

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
};

static const struct opts_opt cmd_load_rows[] = {
	{ "requests", 0, "N", 0, LOAD_REQUESTS, "counted requests (default "
	  "1000)" },
	{ "duration", 0, "S", OPTS_OR, LOAD_DURATION, "send for S seconds "
	  "instead of a count" },
	{ "warmup", 0, "N", OPTS_MORE, LOAD_WARMUP, "requests first, checked, "
	  "not measured" },
	{ "connections", 0, "C", 0, LOAD_CONNECTIONS, "C persistent "
	  "connections, a request in flight on each" },
	{ "threads", 0, "T", 0, LOAD_THREADS, "threads driving them (default "
	  "1, at most C)" },
	{ "rate", 0, "R", 0, LOAD_RATE, "R requests/s; latency counted from "
	  "each one's due time" },
	{ "method", 0, "M", OPTS_MORE, LOAD_METHOD, "the method (default GET; "
	  "POST with --body)" },
	{ "body", 0, "FILE", OPTS_MORE, LOAD_BODY, "send FILE as every "
	  "request's body" },
	{ "header", 0, "K:V", OPTS_MORE | OPTS_REPEAT, LOAD_HEADER, "a request "
	  "header" },
	{ "expect-status", 0, "S", OPTS_MORE, LOAD_STATUS, "the status every "
	  "response must have (default 200)" },
	{ "expect-bytes", 0, "N", OPTS_MORE, LOAD_BYTES, "the body length "
	  "every response must have" },
	{ "expect-sha256", 0, "HEX", OPTS_MORE, LOAD_SHA256, "the body's "
	  "sha256" },
	{ "expect-file", 0, "PATH", 0, LOAD_FILE, "the body is this file's "
	  "bytes (its size and sha256)" },
	{ "accept-encoding", 0, "CODINGS", OPTS_MORE, LOAD_ACCEPT_ENC, "send "
	  "Accept-Encoding: CODINGS; bodies checked as sent" },
	{ "evidence", 0, "FILE", OPTS_MORE, LOAD_EVIDENCE, "one JSON line per "
	  "request" },
	{ "metrics", 0, "FILE", OPTS_MORE, LOAD_METRICS, "requests, rps, bytes "
	  "and latency percentiles as JSON" },
	{ "timeout", 0, "S", OPTS_MORE, LOAD_TIMEOUT, "each response whole "
	  "within S s of sending (default 30)" },
	{ "no-summary", 0, NULL, OPTS_MORE, LOAD_QUIET, "no summary line" },
	/* Renamed: "quiet" is the quiet gate's word everywhere else. */
	{ "quiet", 0, NULL, OPTS_ALIAS, LOAD_QUIET, NULL },
	{ "cacert", 0, "FILE", OPTS_MORE, LOAD_CACERT, "https://: verify the "
	  "server against FILE's certificates" },
	{ "insecure", 0, NULL, OPTS_MORE, LOAD_INSECURE, "https://: take any "
	  "certificate (test ones)" },
	{ "tls-resume", 0, NULL, OPTS_MORE, LOAD_RESUME, "resume the TLS "
	  "session on new connections" },
	{ "new-connection", 0, NULL, OPTS_MORE, LOAD_NEWCONN, "a new "
	  "connection (and handshake) per request" },
	{ "h2", 0, NULL, OPTS_MORE, LOAD_H2, "HTTP/2: ALPN h2 over TLS, prior "
	  "knowledge on http://" },
	{ "streams", 0, "S", OPTS_MORE, LOAD_STREAMS, "--h2: S requests in "
	  "flight per connection (default 1)" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_load_opts = {
	"load", "URL",
	"A verified HTTP/1.1 keep-alive load, as a leg (${BENCHTUI} load).",
	"benchtui-load(1)", cmd_load_rows,
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
	bool quiet, requests, bytes;  /* --no-summary; --requests, --expect-bytes given */
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
			return opts_error(&cmd_load_opts, "%s '%s': "
			    "expected a number more than 0 and at most %g "
			    "(digits and one '.')", cmd_load_decs[k].name, arg,
			    cmd_load_decs[k].hi);
		*(opt == LOAD_TIMEOUT ? &o->timeout_s : opt == LOAD_DURATION ?
		    &o->duration_s : &o->rate) = d;
		return 0;
	}
	if (cmd_load_number(arg, cmd_load_nums[k].lo, cmd_load_nums[k].hi,
	    &v) != 0)
		return opts_error(&cmd_load_opts, "%s '%s': expected "
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
			return opts_error(&cmd_load_opts, "--header "
			    "'%s': expected NAME:VALUE on one line", arg);
		if (o->nheaders == HTTPLOAD_MAX_HEADERS)
			return opts_error(&cmd_load_opts, "more than "
			    "%d --header options", HTTPLOAD_MAX_HEADERS);
		o->headers[o->nheaders++] = arg;
		return 0;
	case LOAD_SHA256:
		if (cmd_load_hex(arg) != 0)
			return opts_error(&cmd_load_opts,
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
		return opts_error(&cmd_load_opts, "--cacert and "
		    "--insecure both given: verify against FILE, or not at all");
	if (!https && (o->cacert != NULL || o->insecure || o->tls_resume))
		return opts_error(&cmd_load_opts, "%s needs an "
		    "https:// URL", o->cacert != NULL ? "--cacert" :
		    o->insecure ? "--insecure" : "--tls-resume");
	if (o->streams > 0 && !o->h2)
		return opts_error(&cmd_load_opts, "--streams needs "
		    "--h2 (an HTTP/1.1 connection carries one request at a "
		    "time)");
	if (o->h2 && o->new_connection && !https)
		return opts_error(&cmd_load_opts, "--h2 and "
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
		return opts_error(&cmd_load_opts,
		    "--expect-sha256 and --expect-file both given");
	if (a->requests && o->duration_s > 0)
		return opts_error(&cmd_load_opts, "--requests and "
		    "--duration both given: the run is a count or a time");
	return cmd_load_transport(o);
}

/* The options into o: -1 to go on, or the exit status (0 after --help, 2
 * for bad usage). */
static int
cmd_load_parse(int argc, char **argv, struct httpload_opts *o,
    struct cmd_load_args *a)
{
	struct opts_parser p;
	int c, rc;

	opts_init(&p, &cmd_load_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		rc = 0;
		if (c == OPTS_STOP)
			return p.status;
		else if (c == LOAD_QUIET)
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
			rc = cmd_load_set_number(o, c, p.arg, a);
		else
			rc = cmd_load_set_other(o, c, p.arg, a);
		if (rc != 0)
			return rc;
	}
	if ((rc = cmd_operand(argc, argv, &cmd_load_opts, "no URL given",
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
