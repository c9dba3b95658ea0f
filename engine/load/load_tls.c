/* load_tls: what a connection of benchtui load reads and writes through,
 * the socket itself or TLS over it (OpenSSL's libssl, the OpenSSL the seal
 * links).  The handshake is not a step of its own: the first write (or
 * read) of a connection drives it, so it runs in the threads' epoll loops
 * like any other wait on the socket, and a connection opened per request
 * (--new-connection) pays for its handshake in that request's latency.
 *
 * The certificate is verified (the system's store, or --cacert) and the
 * URL's host checked against it, unless --insecure.  With --tls-resume a
 * session the server gave (the newest unused) is offered on every
 * connection opened after it (the TLS 1.3 ticket arrives after the
 * handshake, so the connections opened together at the start are full
 * handshakes). */
#include "load_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "xalloc.h"

/* The largest plaintext a TLS record carries: a read stops once less room
 * than this is left, and says there may be more (io->more): records
 * OpenSSL read ahead are not in the socket, so epoll would not say so. */
#define LOAD_TLS_RECORD 16384
/* --tls-resume: sessions kept to be resumed, newest last.  OpenSSL's
 * client offers a TLS 1.3 ticket once (RFC 8446 C.4), so connections
 * opened at once each need one of their own; the server gives two a
 * connection. */
#define LOAD_TLS_SESSIONS 64
/* What OpenSSL reads from the socket at once, per connection. */
#define LOAD_TLS_READ_AHEAD (64 * 1024)

struct load_tls {
	SSL_CTX *ctx;
	char host[256];
	bool ip;                       /* the host is an address literal */
	bool verify, resume, h2;
	pthread_mutex_t mu;            /* the sessions, the first handshake's */
	SSL_SESSION *sessions[LOAD_TLS_SESSIONS]; /* the server's, unused yet */
	int nsessions;
	char version[32], cipher[96];  /* of the first handshake done */
	atomic_long handshakes, resumed;
};

/* --tls-resume: keep the server's session (the callback owns it once it
 * returns 1), the oldest making room when the pool is full. */
static int
load_tls_new_session(SSL *ssl, SSL_SESSION *sess)
{
	struct load_tls *tls = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));

	pthread_mutex_lock(&tls->mu);
	if (tls->nsessions == LOAD_TLS_SESSIONS) {
		SSL_SESSION_free(tls->sessions[0]);
		memmove(tls->sessions, tls->sessions + 1,
		    (LOAD_TLS_SESSIONS - 1) * sizeof tls->sessions[0]);
		tls->nsessions--;
	}
	tls->sessions[tls->nsessions++] = sess;
	pthread_mutex_unlock(&tls->mu);
	return 1;
}

int
load_tls_create(struct load_tls **out, const struct httpload_opts *o,
    const char *host, char *err, size_t errlen)
{
	struct load_tls *tls = xcalloc(1, sizeof *tls);
	unsigned char a[16];
	unsigned long e;

	*out = NULL;
	snprintf(tls->host, sizeof tls->host, "%s", host);
	tls->ip = inet_pton(AF_INET, host, a) == 1 ||
	    inet_pton(AF_INET6, host, a) == 1;
	tls->verify = !o->insecure;
	tls->resume = o->tls_resume;
	tls->h2 = o->h2;
	pthread_mutex_init(&tls->mu, NULL);
	atomic_init(&tls->handshakes, 0);
	atomic_init(&tls->resumed, 0);
	ERR_clear_error();
	tls->ctx = SSL_CTX_new(TLS_client_method());
	if (tls->ctx == NULL)
		goto ssl_fail;
	SSL_CTX_set_app_data(tls->ctx, tls);
	SSL_CTX_set_min_proto_version(tls->ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(tls->ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* A server that closes without close_notify ends the stream as a
	 * plain close would: the framing says whether a body was cut. */
	SSL_CTX_set_options(tls->ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* Several records a read(2) (a 64 KiB body is four): what is left
	 * decrypted past a full buffer is read on (io->more), never left
	 * waiting for the socket. */
	SSL_CTX_set_read_ahead(tls->ctx, 1);
	SSL_CTX_set_default_read_buffer_len(tls->ctx, LOAD_TLS_READ_AHEAD);
	if (tls->verify) {
		SSL_CTX_set_verify(tls->ctx, SSL_VERIFY_PEER, NULL);
		if (o->cacert != NULL ?
		    SSL_CTX_load_verify_locations(tls->ctx, o->cacert, NULL) != 1 :
		    SSL_CTX_set_default_verify_paths(tls->ctx) != 1) {
			e = ERR_peek_last_error();
			load_tls_destroy(tls);
			return load_fail(err, errlen, 2, "--cacert %s: %s",
			    o->cacert ? o->cacert : "(the system's store)",
			    e ? ERR_reason_error_string(e) : "unreadable");
		}
	}
	if (tls->resume) {
		SSL_CTX_set_session_cache_mode(tls->ctx, SSL_SESS_CACHE_CLIENT |
		    SSL_SESS_CACHE_NO_INTERNAL_STORE);
		SSL_CTX_sess_set_new_cb(tls->ctx, load_tls_new_session);
	} else {
		SSL_CTX_set_session_cache_mode(tls->ctx, SSL_SESS_CACHE_OFF);
	}
	if (SSL_CTX_set_alpn_protos(tls->ctx, (const unsigned char *)
	    (tls->h2 ? "\x02h2" : "\x08http/1.1"), tls->h2 ? 3 : 9) != 0)
		goto ssl_fail;
	*out = tls;
	return 0;
ssl_fail:
	e = ERR_peek_last_error();
	load_tls_destroy(tls);
	return load_fail(err, errlen, 1, "TLS: %s", e ?
	    ERR_reason_error_string(e) : "cannot set up OpenSSL");
}

void
load_tls_destroy(struct load_tls *tls)
{
	if (tls == NULL)
		return;
	for (int i = 0; i < tls->nsessions; i++)
		SSL_SESSION_free(tls->sessions[i]);
	SSL_CTX_free(tls->ctx);
	pthread_mutex_destroy(&tls->mu);
	free(tls);
}

void
load_tls_summary(struct load_tls *tls, struct httpload_result *res)
{
	if (tls == NULL)
		return;
	res->tls = true;
	res->handshakes = atomic_load(&tls->handshakes);
	res->resumed = atomic_load(&tls->resumed);
	pthread_mutex_lock(&tls->mu);
	snprintf(res->tls_version, sizeof res->tls_version, "%s",
	    tls->version);
	snprintf(res->tls_cipher, sizeof res->tls_cipher, "%s", tls->cipher);
	pthread_mutex_unlock(&tls->mu);
}

int
load_io_open(struct load_io *io, struct load_tls *tls, int fd)
{
	SSL *ssl;

	memset(io, 0, sizeof *io);
	io->fd = fd;
	io->tls = tls;
	if (tls == NULL)
		return 0;
	ERR_clear_error();
	ssl = SSL_new(tls->ctx);
	if (ssl == NULL || SSL_set_fd(ssl, fd) != 1) {
		SSL_free(ssl);
		snprintf(io->why, sizeof io->why, "TLS: cannot start: %s",
		    ERR_reason_error_string(ERR_peek_last_error()));
		return -1;
	}
	if (tls->verify) {
		if (tls->ip)
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
			    tls->host);
		else
			SSL_set1_host(ssl, tls->host);
	}
	if (!tls->ip)
		SSL_set_tlsext_host_name(ssl, tls->host);
	if (tls->resume) {
		SSL_SESSION *sess = NULL;

		pthread_mutex_lock(&tls->mu);
		if (tls->nsessions > 0)
			sess = tls->sessions[--tls->nsessions];
		pthread_mutex_unlock(&tls->mu);
		if (sess != NULL) {
			SSL_set_session(ssl, sess);   /* its own reference */
			SSL_SESSION_free(sess);
		}
	}
	SSL_set_connect_state(ssl);
	io->ssl = ssl;
	return 0;
}

int
load_tls_evidence(char *buf, size_t len, const struct load_io *io)
{
	return snprintf(buf, len, ",\"tls\":\"%s\",\"cipher\":\"%s\","
	    "\"resumed\":%s",
	    SSL_get_version(io->ssl), SSL_get_cipher_name(io->ssl),
	    io->resumed ? "true" : "false");
}

void
load_io_close(struct load_io *io)
{
	/* close_notify (once, without waiting for the server's): a session
	 * ended without it may not be resumed. */
	if (io->ssl != NULL && io->shaken)
		(void)SSL_shutdown(io->ssl);
	if (io->ssl != NULL)
		SSL_free(io->ssl);
	io->ssl = NULL;
}

/* The handshake just ended: count it, keep what it agreed, and refuse a
 * server that would not speak HTTP/2 when --h2 asked for it. */
static int
load_io_shaken(struct load_io *io)
{
	struct load_tls *tls = io->tls;
	const unsigned char *alpn = NULL;
	unsigned int alen = 0;

	io->shaken = true;
	io->resumed = SSL_session_reused(io->ssl) == 1;
	atomic_fetch_add(&tls->handshakes, 1);
	if (io->resumed)
		atomic_fetch_add(&tls->resumed, 1);
	pthread_mutex_lock(&tls->mu);
	if (tls->version[0] == '\0') {
		snprintf(tls->version, sizeof tls->version, "%s",
		    SSL_get_version(io->ssl));
		snprintf(tls->cipher, sizeof tls->cipher, "%s",
		    SSL_get_cipher_name(io->ssl));
	}
	pthread_mutex_unlock(&tls->mu);
	SSL_get0_alpn_selected(io->ssl, &alpn, &alen);
	if (tls->h2 && (alen != 2 || memcmp(alpn, "h2", 2) != 0)) {
		snprintf(io->why, sizeof io->why, "TLS: the server did not "
		    "agree to HTTP/2 (ALPN h2 offered, %.*s chosen)",
		    alen ? (int)alen : 4, alen ? (const char *)alpn : "none");
		return -1;
	}
	return 0;
}

/* What a failed TLS call returned, as LOAD_IO_AGAIN, 0 (the server closed)
 * or -1 with io->why. */
static ssize_t
load_io_ssl_error(struct load_io *io, int r)
{
	int e = SSL_get_error(io->ssl, r), saved = errno;
	unsigned long code;
	long v;

	switch (e) {
	case SSL_ERROR_WANT_READ:
		io->want_write = false;
		return LOAD_IO_AGAIN;
	case SSL_ERROR_WANT_WRITE:
		io->want_write = true;
		return LOAD_IO_AGAIN;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		if (ERR_peek_error() == 0) {
			if (saved == 0)
				return 0;
			snprintf(io->why, sizeof io->why, "%s", strerror(saved));
			errno = saved;
			return -1;
		}
		break;
	default:
		break;
	}
	code = ERR_peek_last_error();
	v = SSL_get_verify_result(io->ssl);
	if (!io->shaken && v != X509_V_OK)
		snprintf(io->why, sizeof io->why, "TLS handshake: %s: %s",
		    code ? ERR_reason_error_string(code) : "failed",
		    X509_verify_cert_error_string(v));
	else
		snprintf(io->why, sizeof io->why, "TLS%s: %s",
		    io->shaken ? "" : " handshake", code ?
		    ERR_reason_error_string(code) : "protocol error");
	errno = EPROTO;
	return -1;
}

ssize_t
load_io_send(struct load_io *io, const void *buf, size_t n)
{
	ssize_t r;
	int w;

	if (io->ssl == NULL) {
		do
			r = send(io->fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		while (r < 0 && errno == EINTR);
		if (r > 0)
			return r;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			io->want_write = true;
			return LOAD_IO_AGAIN;
		}
		snprintf(io->why, sizeof io->why, "%s", r < 0 ?
		    strerror(errno) : "nothing sent");
		return -1;
	}
	ERR_clear_error();
	errno = 0;
	w = SSL_write(io->ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
	if (w > 0 && !io->shaken && load_io_shaken(io) != 0)
		return -1;
	if (w > 0)
		return w;
	r = load_io_ssl_error(io, w);
	if (r == 0) {
		snprintf(io->why, sizeof io->why, "the server ended TLS");
		return -1;
	}
	return r;
}

ssize_t
load_io_recv(struct load_io *io, void *buf, size_t n)
{
	size_t got = 0;
	ssize_t r;
	int k;

	io->more = false;
	if (io->ssl == NULL) {
		do
			r = recv(io->fd, buf, n, MSG_DONTWAIT);
		while (r < 0 && errno == EINTR);
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return LOAD_IO_AGAIN;
		if (r < 0)
			snprintf(io->why, sizeof io->why, "%s", strerror(errno));
		io->more = r > 0 && (size_t)r == n;
		return r;
	}
	for (;;) {
		ERR_clear_error();
		errno = 0;
		k = SSL_read(io->ssl, (char *)buf + got, n - got > INT32_MAX ?
		    INT32_MAX : (int)(n - got));
		if (!io->shaken && SSL_is_init_finished(io->ssl) &&
		    load_io_shaken(io) != 0)
			return -1;
		if (k <= 0)
			break;
		got += (size_t)k;
		if (n - got < LOAD_TLS_RECORD) {
			io->more = true;
			return (ssize_t)got;
		}
	}
	r = load_io_ssl_error(io, k);
	/* What came before the stop is delivered first; a close or an error
	 * shows again on the next read. */
	return got > 0 ? (ssize_t)got : r;
}
