/* One policy for running out of memory: say so and exit 1.  A front end
 * that holds the terminal (the console) sets a hook that gives it back
 * first, so the message shows and the shell is usable.  Never abort(): it
 * skips the hook and the atexit handlers. */
#ifndef BENCHTUI_XALLOC_H
#define BENCHTUI_XALLOC_H

#include <stddef.h>

/* Called once, before the message, when memory runs out (NULL: none). */
void xalloc_set_fatal_hook(void (*fn)(void));

/* Out of memory for n bytes: the hook, the message, exit 1. */
_Noreturn void xalloc_die(size_t n);

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* p resized to n elements of size bytes; n * size overflowing is out of
 * memory too (array growth never wraps around). */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* A new string printed by fmt (asprintf that cannot fail). */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The capacity to grow an array of cap elements to hold need: doubled
 * (from first when cap is 0) until it does.  Overflow is out of memory. */
size_t xgrow(size_t cap, size_t need, size_t first);

/* A string that grows: p holds len bytes and a NUL after them (p is NULL
 * until the first add).  One helper for every text built piece by piece. */
struct xbuf {
	char *p;
	size_t len, cap;
};

/* Append n bytes of s, keeping the NUL after them. */
void xbuf_add(struct xbuf *b, const char *s, size_t n);
/* Append what fmt prints. */
void xbuf_printf(struct xbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
