/* load_net: where benchtui load sends (the URL, resolved once), what it
 * sends (one request, built once: method, headers, body) and the
 * connections it opens (non-blocking, each within --timeout). */
#include "load_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "xalloc.h"

/* A request body is held whole (it is sent again and again). */
#define LOAD_MAX_BODY (256LL * 1024 * 1024)

/* http[s]://HOST[:PORT][/PATH]: no userinfo. */
static int
load_net_url(struct load_target *t, const char *url, char *err,
    size_t errlen)
{
	const char *p, *slash, *colon, *hend;
	size_t hlen;

	t->https = strncmp(url, "https://", 8) == 0;
	if (strncmp(url, "http://", 7) != 0 && !t->https)
		return load_fail(err, errlen, 2, "URL %s: only http:// and "
		    "https:// URLs are supported", url);
	p = url + (t->https ? 8 : 7);
	slash = strchr(p, '/');
	hend = slash ? slash : p + strlen(p);
	if (memchr(p, '@', (size_t)(hend - p)) != NULL)
		return load_fail(err, errlen, 2, "URL %s: user names are not "
		    "supported", url);
	if (*p == '[') {
		const char *rb = memchr(p, ']', (size_t)(hend - p));

		if (rb == NULL)
			return load_fail(err, errlen, 2, "URL %s: unclosed '['",
			    url);
		hlen = (size_t)(rb - p - 1);
		if (hlen == 0 || hlen >= sizeof t->host)
			return load_fail(err, errlen, 2, "URL %s: bad host", url);
		memcpy(t->host, p + 1, hlen);
		t->host[hlen] = '\0';
		colon = rb[1] == ':' ? rb + 1 : NULL;
		if (rb + 1 != hend && colon == NULL)
			return load_fail(err, errlen, 2, "URL %s: bad host", url);
	} else {
		colon = memchr(p, ':', (size_t)(hend - p));
		hlen = (size_t)((colon ? colon : hend) - p);
		if (hlen == 0 || hlen >= sizeof t->host)
			return load_fail(err, errlen, 2, "URL %s: no host", url);
		memcpy(t->host, p, hlen);
		t->host[hlen] = '\0';
	}
	if (colon != NULL) {
		size_t plen = (size_t)(hend - colon - 1);
		char *end;
		long port;

		if (plen == 0 || plen >= sizeof t->port)
			return load_fail(err, errlen, 2, "URL %s: bad port", url);
		memcpy(t->port, colon + 1, plen);
		t->port[plen] = '\0';
		port = strtol(t->port, &end, 10);
		if (*end != '\0' || port < 1 || port > 65535)
			return load_fail(err, errlen, 2, "URL %s: bad port '%s'",
			    url, t->port);
	} else {
		strcpy(t->port, t->https ? "443" : "80");
	}
	if (strpbrk(hend, " \t\r\n") != NULL)
		return load_fail(err, errlen, 2, "URL %s: white space in the path "
		    "(write it as %%20)", url);
	snprintf(t->hostport, sizeof t->hostport, "%.*s", (int)(hend - p), p);
	t->path = slash ? slash : "/";
	return 0;
}

/* Whether a --header names name (case-insensitive). */
static bool
load_net_has(const struct httpload_opts *o, const char *name)
{
	size_t n = strlen(name);

	for (int i = 0; i < o->nheaders; i++)
		if (strncasecmp(o->headers[i], name, n) == 0 &&
		    o->headers[i][n] == ':')
			return true;
	return false;
}

/* The method: a token, and one that asks for a response to measure. */
static int
load_net_method(const struct httpload_opts *o, const char **method,
    char *err, size_t errlen)
{
	const char *m = o->method;

	if (m == NULL) {
		*method = o->body_file != NULL ? "POST" : "GET";
		return 0;
	}
	if (*m == '\0' || strlen(m) > 32 ||
	    strspn(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789!#$%&'*+-.^_`|~") != strlen(m))
		return load_fail(err, errlen, 2, "--method '%s': not an HTTP "
		    "method (letters, digits and !#$%%&'*+-.^_`|~)", m);
	if (strcmp(m, "CONNECT") == 0)
		return load_fail(err, errlen, 2, "--method CONNECT opens a "
		    "tunnel; benchtui load measures requests");
	if (strcmp(m, "HEAD") == 0 && o->expect_sha256[0] != '\0')
		return load_fail(err, errlen, 2, "--method HEAD: a response to "
		    "HEAD has no body, so --expect-sha256 (or --expect-file) "
		    "cannot be checked");
	*method = m;
	return 0;
}

/* The --body file, whole: 0, or 2 with err. */
static int
load_net_body(const char *path, char **body, size_t *len, char *err,
    size_t errlen)
{
	struct stat st;
	size_t off = 0;
	ssize_t n;
	int fd;

	*body = NULL;
	*len = 0;
	if (path == NULL)
		return 0;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = fd < 0 ? errno : (errno ? errno : EINVAL);

		if (fd >= 0)
			close(fd);
		return load_fail(err, errlen, 2, "--body %s: %s", path,
		    fd >= 0 && !S_ISREG(st.st_mode) ? "not a regular file" :
		    strerror(e));
	}
	if (st.st_size > LOAD_MAX_BODY) {
		close(fd);
		return load_fail(err, errlen, 2, "--body %s: %lld bytes, more "
		    "than the %lld a request body may have", path,
		    (long long)st.st_size, LOAD_MAX_BODY);
	}
	*body = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size) {
		n = read(fd, *body + off, (size_t)st.st_size - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			free(*body);
			*body = NULL;
			return load_fail(err, errlen, 2, "--body %s: %s", path,
			    strerror(e));
		}
		if (n == 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	*len = off;
	return 0;
}

/* The request, built once and sent as it is on every connection. */
static int
load_net_request(struct load_target *t, const struct httpload_opts *o,
    char *err, size_t errlen)
{
	struct xbuf b = { 0 };
	const char *method = "GET";
	char *body;
	size_t blen;
	int rc;

	if ((rc = load_net_method(o, &method, err, errlen)) != 0)
		return rc;
	if (load_net_has(o, "Content-Length") ||
	    load_net_has(o, "Transfer-Encoding"))
		return load_fail(err, errlen, 2, "--header: Content-Length and "
		    "Transfer-Encoding are benchtui load's own (from --body)");
	if (o->accept_encoding != NULL && (load_net_has(o, "Accept-Encoding") ||
	    strpbrk(o->accept_encoding, "\r\n") != NULL))
		return load_fail(err, errlen, 2, "--accept-encoding '%s': one line, "
		    "and not beside --header Accept-Encoding",
		    o->accept_encoding);
	if ((rc = load_net_body(o->body_file, &body, &blen, err, errlen)) != 0)
		return rc;
	xbuf_printf(&b, "%s %s HTTP/1.1\r\n", method, t->path);
	if (!load_net_has(o, "Host"))
		xbuf_printf(&b, "Host: %s\r\n", t->hostport);
	if (!load_net_has(o, "User-Agent"))
		xbuf_add(&b, "User-Agent: benchtui-load\r\n", 27);
	if (!load_net_has(o, "Accept-Encoding"))
		xbuf_printf(&b, "Accept-Encoding: %s\r\n",
		    o->accept_encoding != NULL ? o->accept_encoding : "identity");
	for (int i = 0; i < o->nheaders; i++) {
		xbuf_add(&b, o->headers[i], strlen(o->headers[i]));
		xbuf_add(&b, "\r\n", 2);
	}
	if (o->body_file != NULL)
		xbuf_printf(&b, "Content-Length: %zu\r\n", blen);
	xbuf_add(&b, "\r\n", 2);
	if (blen > 0)
		xbuf_add(&b, body, blen);
	free(body);
	t->request = b.p;
	t->request_len = b.len;
	t->body_len = blen;
	return 0;
}

int
load_target_init(struct load_target *t, const struct httpload_opts *o,
    char *err, size_t errlen)
{
	struct addrinfo hints;
	int rc, gai;

	memset(t, 0, sizeof *t);
	if ((rc = load_net_url(t, o->url, err, errlen)) != 0 ||
	    (rc = load_net_request(t, o, err, errlen)) != 0)
		return rc;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	gai = getaddrinfo(t->host, t->port, &hints, &t->ai);
	if (gai != 0)
		return load_fail(err, errlen, 1, "cannot resolve %s: %s", t->host,
		    gai_strerror(gai));
	return 0;
}

void
load_target_finish(struct load_target *t)
{
	if (t->ai != NULL)
		freeaddrinfo(t->ai);
	free(t->request);
	memset(t, 0, sizeof *t);
}

/* One address within the deadline: the fd, or -1 with errno. */
static int
load_net_try(const struct addrinfo *a, double deadline)
{
	int fd, e = 0;
	socklen_t el = sizeof e;
	struct pollfd p;

	fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    a->ai_protocol);
	if (fd < 0)
		return -1;
	if (connect(fd, a->ai_addr, a->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS)
		goto fail;
	p.fd = fd;
	p.events = POLLOUT;
	for (;;) {
		double left = deadline - clock_now();
		int r;

		if (left <= 0) {
			errno = ETIMEDOUT;
			goto fail;
		}
		r = poll(&p, 1, (int)(left * 1000) + 1);
		if (r > 0)
			break;
		if (r < 0 && errno != EINTR)
			goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0)
		goto fail;
	if (e == 0)
		return fd;
	errno = e;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
load_connect(const struct load_target *t, int id, double timeout_s,
    int *local_port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	double deadline = clock_now() + timeout_s;
	int fd = -1, one = 1, saved = 0;

	for (const struct addrinfo *a = t->ai; a != NULL && fd < 0;
	    a = a->ai_next)
		if ((fd = load_net_try(a, deadline)) < 0)
			saved = errno;
	if (fd < 0)
		return load_fail(err, errlen, -1, "connection %d: cannot connect to "
		    "%s: %s", id, t->hostport, strerror(saved));
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	*local_port = 0;
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET)
			*local_port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
		else if (ss.ss_family == AF_INET6)
			*local_port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	}
	return fd;
}
