/* What the files of benchtui load share, bottom to top: the latency
 * histogram (load_hist.c), one response read and checked as it streams
 * (load_resp.c), the URL, the request and the connections (load_net.c);
 * httpload.c runs them on threads. */
#ifndef BENCHTUI_LOAD_INT_H
#define BENCHTUI_LOAD_INT_H

#include <netdb.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "digest.h"
#include "httpload.h"

/* A response header may be this long, the blank line included, however it
 * arrives (one read or many). */
#define LOAD_MAX_HEADER (64 * 1024)
/* A body up to this size is kept once per thread after it passed, so a
 * later body is compared with it byte for byte instead of hashed again. */
#define LOAD_REF_MAX (1024 * 1024)
/* A chunk's size line (extensions included) may be this long. */
#define LOAD_CHUNK_LINE 4096

/* --- load_hist.c: latencies in ns, log-linear (HDR-style, 128 sub-buckets
 * per power of two: a percentile within 0.8% of the true value), so
 * memory does not grow with the requests. */
#define LOAD_HIST_SUB_BITS 7
#define LOAD_HIST_SUB (1u << LOAD_HIST_SUB_BITS)
#define LOAD_HIST_MAX_SHIFT 34      /* 2^41 ns: ~37 minutes */
#define LOAD_HIST_BUCKETS (LOAD_HIST_SUB * (LOAD_HIST_MAX_SHIFT + 2))

struct load_hist {
	uint64_t count[LOAD_HIST_BUCKETS];
	uint64_t n, max;
};

void load_hist_add(struct load_hist *h, double seconds);
void load_hist_merge(struct load_hist *into, const struct load_hist *h);
/* The value (ns) at rank ceil(p * n), never above the largest seen. */
double load_hist_quantile(const struct load_hist *h, double p);

/* --- load_resp.c: what every response must be (read-only, shared by the
 * threads). */
struct load_check {
	int expect_status;
	long long expect_bytes;        /* -1: any */
	const char *expect_sha256;     /* "": any */
	bool head;                     /* HEAD: the response has no body */
	bool digest;                   /* hash every body (expected, or evidence) */
	const char *accept_encoding;   /* the codings a body may have, or NULL */
};

void load_check_init(struct load_check *k, const struct httpload_opts *o);

/* A body that passed, kept (LOAD_REF_MAX at most) so an identical later
 * one need not be hashed: one per thread. */
struct load_ref {
	unsigned char *body;
	size_t len, cap;
	bool set;
	char hex[DIGEST_HEX_LEN];
	long long good_len;            /* a body with the expected sha256 had
	                                * this length; -1 none yet */
};

enum load_resp_state { LOAD_RESP_HEADER, LOAD_RESP_BODY, LOAD_RESP_DONE };

/* How the body ends (RFC 9112 6.3): it has none, after Content-Length
 * bytes, after its last chunk, or when the server closes. */
enum load_frame {
	LOAD_FRAME_NONE, LOAD_FRAME_LENGTH, LOAD_FRAME_CHUNKED, LOAD_FRAME_CLOSE
};

/* Where a chunked body is: in a size line, in a chunk's data, at the CR
 * and LF after it, or in the trailer section. */
enum load_chunk_state {
	LOAD_CHUNK_SIZE, LOAD_CHUNK_DATA, LOAD_CHUNK_CR, LOAD_CHUNK_LF,
	LOAD_CHUNK_TRAILER
};

/* One response of a connection, read as it arrives: the header gathered
 * (only while it is incomplete) and checked, then the body hashed or
 * compared piece by piece and never held. */
struct load_resp {
	const struct load_check *chk;
	struct load_ref *ref;
	enum load_resp_state state;
	long req;                      /* for messages */
	int conn;
	long served;                   /* responses before this one on conn */
	char *hbuf;                    /* the header so far, when split; a
	                                * chunk's size line, the trailer */
	size_t hlen, hcap;
	size_t received;               /* bytes of this response so far */
	int status;
	int interim;                   /* 1xx responses skipped before it */
	enum load_frame frame;
	bool closes;                   /* the connection ends after it */
	bool upgraded;                 /* 101: it no longer speaks HTTP */
	long long clen;                /* the body's length (once known) */
	long long got;                 /* body bytes so far */
	long long limit;               /* the most body bytes the checks
	                                * allow; -1 any */
	enum load_chunk_state cstate;
	long long chunk_left;          /* of the chunk being read */
	long chunks;                   /* chunks begun */
	bool matching, hashing, capture;
	struct digest_ctx *dctx;
	char hex[DIGEST_HEX_LEN];      /* the finished body's, "" unhashed */
};

void load_resp_init(struct load_resp *r, const struct load_check *chk,
    struct load_ref *ref, int conn);
/* Expect the response to request req. */
void load_resp_start(struct load_resp *r, long req, long served);
/* Feed data[0..n): *used bytes taken.  0 more is to come, 1 the response
 * is complete (and passed; data past *used is not part of it), -1 a check
 * failed (err says which). */
int load_resp_feed(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen);
/* The header alone, from data[0..n): as load_resp_feed, 1 once the
 * header is whole and passed (at once when it already was), no body byte
 * taken. */
int load_resp_header(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen);
/* Body bytes still to come, once the header is in, when the body has a
 * length and the connection carries another request after it; -1
 * otherwise. */
long long load_resp_left(const struct load_resp *r);
/* The server closed the connection: 1 when that ended the response (a
 * body that ends at close: passed), -1 a check failed, 0 it did not end
 * it (it is cut short). */
int load_resp_eof(struct load_resp *r, char *err, size_t errlen);
/* How the response's body was framed, for messages and evidence. */
const char *load_resp_frame_name(const struct load_resp *r);
void load_resp_finish(struct load_resp *r);
void load_ref_init(struct load_ref *ref);
void load_ref_finish(struct load_ref *ref);

/* Shared by the header (load_resp.c) and the trailer (load_chunk.c). */
/* Body bytes d[0..n), hashed, compared or kept. */
void load_resp_data(struct load_resp *r, const char *d, size_t n);
/* The body ended: its size and digest checked; 1 passed, -1 failed. */
int load_resp_end(struct load_resp *r, char *err, size_t errlen);
/* The offset just past the blank line ending the field lines in
 * b[0..len), looking for newlines from from on; 0 when there is none
 * yet. */
size_t load_resp_fields_end(const char *b, size_t len, size_t from);
/* A field line l[0..n) (its line end gone): the name's length with *v,
 * *vl its value (white space trimmed); 0 when it is not NAME: VALUE, -1
 * when it is folded (starts with white space), -2 when it holds a CR or
 * NUL byte. */
int load_resp_field_split(const char *l, size_t n, const char **v,
    size_t *vl);
/* Whether c may be in a token (RFC 9110 5.6.2): inline, as every byte of
 * every header name goes through it. */
static inline bool
load_resp_tchar(char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	switch (c) {
	case '!': case '#': case '$': case '%': case '&': case '\'': case '*':
	case '+': case '-': case '.': case '^': case '_': case '`': case '|':
	case '~':
		return true;
	default:
		return false;
	}
}
/* Server text for a message: at most 60 bytes, anything but printable
 * ASCII shown as '?' (a hostile server cannot write to the terminal). */
const char *load_resp_show(const char *s, size_t n, char out[72]);

/* --- load_chunk.c: a chunked body (RFC 9112 7.1), as it streams. */
/* Feed chunked body bytes data[0..n): *used taken; 0 more is to come, 1
 * the last chunk and the trailer are in (the body passed), -1 refused. */
int load_chunk_feed(struct load_resp *r, const char *data, size_t n,
    size_t *used, char *err, size_t errlen);

/* --- load_net.c */
struct load_target {
	char host[256], port[16], hostport[300];
	bool https;
	const char *path;
	struct addrinfo *ai;           /* resolved once */
	char *request;                 /* the whole request, body included */
	size_t request_len;
	size_t body_len;               /* the body: request's last bytes */
};

/* 0, or 2 with err naming what is wrong with the URL, the method or the
 * body file; 1 when the host does not resolve. */
int load_target_init(struct load_target *t, const struct httpload_opts *o,
    char *err, size_t errlen);
void load_target_finish(struct load_target *t);
/* A non-blocking connected socket within timeout_s, or -1 with err;
 * *local_port its port. */
int load_connect(const struct load_target *t, int id, double timeout_s,
    int *local_port, char *err, size_t errlen);

/* --- load_tls.c: a connection's transport, the socket or TLS over it. */
struct load_tls;                   /* the run's: context, session, counts */
struct ssl_st;

/* A read or write that must wait for the socket (want_write says for
 * which way). */
#define LOAD_IO_AGAIN (-2)

struct load_io {
	int fd;
	struct ssl_st *ssl;            /* NULL: the socket itself */
	struct load_tls *tls;
	bool shaken;                   /* the TLS handshake is done */
	bool resumed;                  /* ... and resumed a session */
	bool want_write;               /* the last AGAIN waits for POLLOUT */
	bool more;                     /* a read filled the buffer: read on */
	char why[256];                 /* the last failure, as a reason */
};

/* The TLS of a run to host: 0, 2 with err (--cacert unreadable), 1. */
int load_tls_create(struct load_tls **out, const struct httpload_opts *o,
    const char *host, char *err, size_t errlen);
void load_tls_destroy(struct load_tls *tls);
/* The handshakes so far and what the first agreed, into res. */
void load_tls_summary(struct load_tls *tls, struct httpload_result *res);
/* fd's transport (TLS when tls is not NULL): 0, or -1 with io->why. */
int load_io_open(struct load_io *io, struct load_tls *tls, int fd);
void load_io_close(struct load_io *io);
/* The evidence line's TLS fields into buf (a leading comma, no brace):
 * snprintf's count (the line has room: the names are short). */
int load_tls_evidence(char *buf, size_t len, const struct load_io *io);
/* Bytes written (> 0), LOAD_IO_AGAIN, or -1 with io->why. */
ssize_t load_io_send(struct load_io *io, const void *buf, size_t n);
/* Bytes read (> 0; io->more when more may be waiting), 0 the server
 * closed, LOAD_IO_AGAIN, or -1 with io->why (and errno). */
ssize_t load_io_recv(struct load_io *io, void *buf, size_t n);

/* --- load_h2.c: one HTTP/2 connection, --streams requests at once. */
struct load_h2;
/* A stream's response passed: slot (the caller's) is free again; 0, or -1
 * when the run stops. */
typedef int (*load_h2_done_fn)(void *slot, double now);

/* Over io (connected; TLS or not), for conn's messages. */
struct load_h2 *load_h2_create(const struct load_target *t,
    const struct httpload_opts *o, struct load_io *io, int conn,
    load_h2_done_fn done);
void load_h2_destroy(struct load_h2 *h);
/* Request req on stream slot idx (0 .. --streams - 1), its response into
 * resp: sent at once, or after the read under way.  0, or -1 (why). */
int load_h2_submit(struct load_h2 *h, int idx, void *slot,
    struct load_resp *resp, long req);
/* Write what is owed, as much as the socket takes: 0, or -1 (why). */
int load_h2_flush(struct load_h2 *h);
/* Read what came (into buf), handle it, flush: 0, or -1 (why). */
int load_h2_read(struct load_h2 *h, char *buf, size_t size,
    double (*now)(void));
/* Whether the unsent bytes wait for POLLOUT, or for a read (TLS). */
bool load_h2_wants_write(const struct load_h2 *h);
bool load_h2_waits_read(const struct load_h2 *h);
const char *load_h2_why(const struct load_h2 *h);
/* The stream slot idx's request went on (its last). */
int32_t load_h2_stream(const struct load_h2 *h, int idx);

/* snprintf into err (messages share this). */
int load_fail(char *err, size_t errlen, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
