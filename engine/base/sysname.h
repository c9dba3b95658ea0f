/* Names and words for errno values and signals, safe in a child between
 * clone and exec (no locale, no allocation), on any C library: glibc's
 * strerrordesc_np, strerrorname_np and sigabbrev_np where the build found
 * them (glibc 2.32 and later, and not hidden by -Dglibc_np=false), else
 * tables of the kernel's values that say the same. */
#ifndef BENCHTUI_SYSNAME_H
#define BENCHTUI_SYSNAME_H

/* "No space left on device" for ENOSPC; NULL for a value it does not
 * know. */
const char *sysname_errdesc(int e);

/* "ENOSPC"; NULL for 0 and a value it does not know. */
const char *sysname_errname(int e);

/* "INT" for SIGINT; NULL for a real-time signal and one it does not
 * know. */
const char *sysname_sigabbrev(int sig);

/* The tables alone, whatever the build chose: the unit test holds them
 * against the C library's. */
const char *sysname_table_errdesc(int e);
const char *sysname_table_errname(int e);
const char *sysname_table_sigabbrev(int sig);

#endif
