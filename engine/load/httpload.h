/* A verified HTTP load: `benchtui load URL`.
 *
 * Requests to URL over a fixed set of persistent connections, each with one
 * request in flight, on one or more threads: a count of them or for a
 * duration, as fast as the responses come or at a constant rate.  Every
 * response is checked (status, its framing against the body: RFC 9112's
 * Content-Length, chunked or close-delimited bodies after any interim 1xx
 * responses; no content coding unless asked for; the body's size and
 * sha256 when expected; and that the server kept the connection open
 * unless it said it would close, when a new one is opened); the first
 * failed check ends the run.  Bodies
 * are checked as they stream, never held whole; a size the check forbids
 * ends the run before the body is read.  http:// or https:// (TLS), and
 * HTTP/2 with h2 (several requests at once on a connection, streams). */
#ifndef BENCHTUI_HTTPLOAD_H
#define BENCHTUI_HTTPLOAD_H

#include <stdbool.h>
#include <stddef.h>

#include "digest.h"

#define HTTPLOAD_MAX_HEADERS 32

struct httpload_opts {
	const char *url;            /* http[s]://HOST[:PORT]/PATH */
	long requests;              /* counted requests (>= 1), unless duration */
	double duration_s;          /* > 0: send for this long instead */
	long warmup;                /* checked, not counted, before either */
	int connections;            /* persistent connections (>= 1) */
	int threads;                /* 1 .. connections */
	double rate;                /* requests/s over all; 0: closed loop */
	const char *method;         /* NULL: GET, or POST with a body */
	const char *body_file;      /* the request body, or NULL */
	const char *headers[HTTPLOAD_MAX_HEADERS]; /* "K: V" lines */
	int nheaders;
	int expect_status;
	long long expect_bytes;     /* -1: any */
	char expect_sha256[DIGEST_HEX_LEN]; /* "" : any */
	const char *evidence;       /* path or NULL */
	const char *metrics;        /* path or NULL */
	double timeout_s;           /* whole response, from its first byte sent */
	/* Stop (SIGSTOP to itself) once every warm-up response is in and
	 * before the first counted request is sent, so that a profiler can
	 * attach to the server between the two (a round's syscalls and
	 * server_perf profiles: BENCHTUI_LOAD_HOLD=warmup).  Nothing
	 * without a warm-up. */
	bool hold_after_warmup;
	/* Sent as Accept-Encoding (else identity): a body in one of these
	 * codings is then accepted, and checked as sent. */
	const char *accept_encoding;
	/* https:// (load_tls.c): the certificate verified against the
	 * system's store, or cacert's, unless insecure; resumed sessions on
	 * the connections opened after the first (tls_resume). */
	const char *cacert;
	bool insecure, tls_resume;
	/* A new connection (and handshake) for every request. */
	bool new_connection;
	/* HTTP/2 (load_h2.c): ALPN h2 over TLS, else prior knowledge; each
	 * connection carries up to streams requests at once. */
	bool h2;
	int streams;
};

/* The figures of a finished run (the counted requests only). */
struct httpload_result {
	long requests;
	double seconds;
	double rps;
	long long bytes;
	double lat_p50_ms, lat_p90_ms, lat_p99_ms, lat_max_ms;
	long connections;           /* the connections they went out on: a
	                             * server that closes makes it grow */
	long connects;              /* connections opened, warm-up's too */
	bool tls;                   /* the rest: over TLS only */
	long handshakes, resumed;   /* full and resumed TLS handshakes */
	char tls_version[32], tls_cipher[96]; /* the first handshake's */
};

/* Defaults: 1 connection on 1 thread, 1000 requests, GET, status 200,
 * closed loop, 30 s timeout. */
void httpload_opts_init(struct httpload_opts *o);

/* Run the load.  0 with res filled (and the metrics file written); 1 when a
 * check failed or the server could not be reached, err naming the request
 * number and what differed; 2 when the options are wrong (a bad URL or
 * method, an unreadable body, an unwritable evidence file). */
int httpload_run(const struct httpload_opts *o, struct httpload_result *res,
    char *err, size_t errlen);

/* The checks of one response held in buf[0..len) (header and body, as it
 * came off a connection with one request in flight, which the server then
 * closed: a body that ends at close ends at len), fed to the same
 * reader the load uses in pieces of chunk bytes (0: whole), without a
 * network: 0 it passes (o's status, size and digest, none if o is NULL:
 * defaults), 1 a check failed (err says which), 2 it is incomplete. */
int httpload_check_response(const char *buf, size_t len, size_t chunk,
    const struct httpload_opts *o, char *err, size_t errlen);

#endif
