/* SHA-256 through OpenSSL EVP. */
#ifndef BENCHTUI_DIGEST_H
#define BENCHTUI_DIGEST_H

#include <stddef.h>

#define DIGEST_HEX_LEN 65 /* 64 hex digits and a NUL */

/* Hash a buffer into lower-case hex. */
void digest_buf(const void *buf, size_t len, char hex[DIGEST_HEX_LEN]);

/* Hash a file's contents.  0, or -1 with errno set. */
int digest_file(const char *path, char hex[DIGEST_HEX_LEN]);

#endif
