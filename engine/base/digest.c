/* SHA-256 through OpenSSL's EVP interface (the low-level SHA256_* calls are
 * deprecated in OpenSSL 3). */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "xalloc.h"

#define DIGEST_CHUNK (64 * 1024)

static void
digest_hex(const unsigned char *md, unsigned int len,
    char hex[DIGEST_HEX_LEN])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned int i = 0; i < len && 2 * i + 1 < DIGEST_HEX_LEN; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[2 * len < DIGEST_HEX_LEN ? 2 * len : DIGEST_HEX_LEN - 1] = '\0';
}

void
digest_buf(const void *buf, size_t len, char hex[DIGEST_HEX_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (!EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL)) {
		hex[0] = '\0';
		return;
	}
	digest_hex(md, mdlen, hex);
}

/* An EVP context that failed (out of memory inside OpenSSL) is marked, so
 * finish reports an empty digest, which matches nothing, instead of a
 * wrong one. */
struct digest_ctx {
	EVP_MD_CTX *ctx;
	bool ok;
};

struct digest_ctx *
digest_create(void)
{
	struct digest_ctx *d = xcalloc(1, sizeof *d);

	d->ctx = EVP_MD_CTX_new();
	if (d->ctx == NULL)
		xalloc_die(sizeof(void *));
	return d;
}

void
digest_start(struct digest_ctx *d)
{
	d->ok = EVP_DigestInit_ex(d->ctx, EVP_sha256(), NULL) == 1;
}

void
digest_update(struct digest_ctx *d, const void *buf, size_t len)
{
	if (d->ok && len > 0)
		d->ok = EVP_DigestUpdate(d->ctx, buf, len) == 1;
}

void
digest_finish(struct digest_ctx *d, char hex[DIGEST_HEX_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	hex[0] = '\0';
	if (d->ok && EVP_DigestFinal_ex(d->ctx, md, &mdlen) == 1)
		digest_hex(md, mdlen, hex);
	d->ok = false;
}

void
digest_destroy(struct digest_ctx *d)
{
	if (d == NULL)
		return;
	EVP_MD_CTX_free(d->ctx);
	free(d);
}

int
digest_file(const char *path, char hex[DIGEST_HEX_LEN])
{
	struct digest_ctx *d;
	unsigned char *chunk;
	int fd, saved = 0;
	ssize_t n;

	hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	chunk = xmalloc(DIGEST_CHUNK);
	d = digest_create();
	digest_start(d);
	for (;;) {
		n = read(fd, chunk, DIGEST_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			saved = n < 0 ? errno : 0;
			break;
		}
		digest_update(d, chunk, (size_t)n);
	}
	if (saved == 0) {
		digest_finish(d, hex);
		if (hex[0] == '\0')
			saved = EIO;
	}
	digest_destroy(d);
	free(chunk);
	close(fd);
	if (saved != 0) {
		errno = saved;
		return -1;
	}
	return 0;
}
