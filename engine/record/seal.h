/* The seal: SHA256SUMS over every other file of a round folder, in the
 * format `sha256sum -c` reads, optionally signed with Ed25519, and the files
 * made read-only. */
#ifndef BENCHTUI_SEAL_H
#define BENCHTUI_SEAL_H

#include <stddef.h>
#include <stdio.h>

#define SEAL_SUMS "SHA256SUMS"
#define SEAL_SIG "SHA256SUMS.sig"

/* Write DIR/SHA256SUMS (and DIR/SHA256SUMS.sig when sign_key names an
 * Ed25519 private key PEM), then make every file read-only.  sums_sha256
 * gets the sha256 of SHA256SUMS for the "seal" event.  0, or -1 with err
 * and errno (ENOSPC: the disk is full). */
int seal_write(const char *dir, const char *sign_key, char sums_sha256[65],
    char *err, size_t errlen);

/* Whether sign_key is a readable, unencrypted Ed25519 private key PEM, so
 * that run/resume can refuse a bad --sign before the round runs rather than
 * at the seal.  0, or -1 with err naming the file. */
int seal_check_key(const char *sign_key, char *err, size_t errlen);

/* Recompute the seal of DIR and print to out one line per changed, missing
 * or added file.  With pubkey, also check SHA256SUMS.sig.  Returns 0 when
 * intact, 4 on any mismatch, 2 when DIR has no seal or a file cannot be
 * read (err says which). */
int seal_verify(const char *dir, const char *pubkey, FILE *out,
    char *err, size_t errlen);

#endif
