/* What the unit tests share: temporary folders and the files in them, a
 * round file parsed or the test failed, warnings looked up, and the waits
 * and spins of the tests on real processes.  The helpers fail the running
 * cmocka test (its asserts) where a set-up step fails. */
#ifndef BENCHTUI_TESTUTIL_H
#define BENCHTUI_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

struct spec;

/* Write text to DIR/REL (rel alone when dir is NULL), or fail the test. */
void tu_put(const char *dir, const char *rel, const char *text);

/* DIR/REL's text (rel alone when dir is NULL) in a static buffer (the
 * first 64 KiB), its length in *len when len is not NULL; NULL when the
 * file cannot be opened. */
char *tu_slurp(const char *dir, const char *rel, size_t *len);

/* Remove the folder and everything below it, following no link; 0, or -1
 * when something could not be removed. */
int tu_rmtree(const char *dir);

/* The round file text parsed as if it stood at path, or the test failed
 * with the parser's message. */
struct spec *tu_spec(const char *text, const char *path);

/* Every event of the log at path (as logread hands them on), new
 * references, *n of them; or the test failed with logread's message.
 * tu_events_free lets them go. */
json_t **tu_log_events(const char *path, size_t *n);
void tu_events_free(json_t **ev, size_t n);

/* Whether a string of the array holds a, and b too when b is not NULL. */
bool tu_has_string(const json_t *arr, const char *a, const char *b);

/* Sleep ms milliseconds, whatever signal arrives meanwhile. */
void tu_nap_ms(long ms);

/* Burn CPU for s seconds of wall time. */
void tu_spin_for(double s);

/* Whether the pid names no process at all any more (reaped or never). */
bool tu_gone(pid_t pid);

/* A loopback port nobody listens on right now (the kernel's pick). */
int tu_free_port(void);

#endif
