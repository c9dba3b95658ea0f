/* SHA-256 through OpenSSL's EVP interface (the low-level SHA256_* calls are
 * deprecated in OpenSSL 3). */
#include "digest.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
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

int
digest_file(const char *path, char hex[DIGEST_HEX_LEN])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	unsigned char *chunk = NULL;
	EVP_MD_CTX *ctx = NULL;
	int fd, rc = -1, saved = 0;
	ssize_t n;

	hex[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	chunk = xmalloc(DIGEST_CHUNK);
	ctx = EVP_MD_CTX_new();
	if (ctx == NULL) {
		saved = ENOMEM;
		goto out;
	}
	if (!EVP_DigestInit_ex(ctx, EVP_sha256(), NULL)) {
		saved = EIO;
		goto out;
	}
	for (;;) {
		n = read(fd, chunk, DIGEST_CHUNK);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			goto out;
		}
		if (n == 0)
			break;
		if (!EVP_DigestUpdate(ctx, chunk, (size_t)n)) {
			saved = EIO;
			goto out;
		}
	}
	if (!EVP_DigestFinal_ex(ctx, md, &mdlen)) {
		saved = EIO;
		goto out;
	}
	digest_hex(md, mdlen, hex);
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	free(chunk);
	close(fd);
	if (rc != 0)
		errno = saved;
	return rc;
}
