/* SHA-256 through OpenSSL EVP. */
#ifndef BENCHTUI_DIGEST_H
#define BENCHTUI_DIGEST_H

#include <stddef.h>

#define DIGEST_HEX_LEN 65 /* 64 hex digits and a NUL */

/* Hash a buffer into lower-case hex. */
void digest_buf(const void *buf, size_t len, char hex[DIGEST_HEX_LEN]);

/* Hash a file's contents.  0, or -1 with errno set. */
int digest_file(const char *path, char hex[DIGEST_HEX_LEN]);

/* A hash fed piece by piece (a body as it streams, never held whole):
 * create once, then start, update as the pieces come, finish into hex;
 * start again for the next.  destroy(NULL) does nothing. */
struct digest_ctx;
struct digest_ctx *digest_create(void);
void digest_start(struct digest_ctx *d);
void digest_update(struct digest_ctx *d, const void *buf, size_t len);
void digest_finish(struct digest_ctx *d, char hex[DIGEST_HEX_LEN]);
void digest_destroy(struct digest_ctx *d);

#endif
