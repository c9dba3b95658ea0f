/* Allocation that cannot fail: out of memory ends the program, the same
 * way everywhere (xalloc.h). */
#include "xalloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void (*xalloc_hook)(void);

void
xalloc_set_fatal_hook(void (*fn)(void))
{
	xalloc_hook = fn;
}

_Noreturn void
xalloc_die(size_t n)
{
	void (*hook)(void) = xalloc_hook;

	xalloc_hook = NULL;
	if (hook != NULL)
		hook();
	fprintf(stderr, "benchtui: out of memory (%zu bytes wanted)\n", n);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		xalloc_die(n);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		xalloc_die(n * size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		xalloc_die(n);
	return q;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		xalloc_die(SIZE_MAX);
	return xrealloc(p, n * size);
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;

	return memcpy(xmalloc(n), s, n);
}

/* vasprintf that cannot fail; the length into *len (may be NULL). */
static char *
xalloc_vasprintf(size_t *len, const char *fmt, va_list ap)
{
	char *s;
	int n = vasprintf(&s, fmt, ap);

	if (n < 0)
		xalloc_die(strlen(fmt));
	if (len != NULL)
		*len = (size_t)n;
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xalloc_vasprintf(NULL, fmt, ap);
	va_end(ap);
	return s;
}

size_t
xgrow(size_t cap, size_t need, size_t first)
{
	if (cap == 0)
		cap = first ? first : 1;
	while (cap < need) {
		if (cap > SIZE_MAX / 2)
			xalloc_die(SIZE_MAX);
		cap *= 2;
	}
	return cap;
}

void
xbuf_add(struct xbuf *b, const char *s, size_t n)
{
	if (n > SIZE_MAX - 1 - b->len)
		xalloc_die(SIZE_MAX);
	if (b->len + n + 1 > b->cap) {
		b->cap = xgrow(b->cap, b->len + n + 1, 64);
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
xbuf_printf(struct xbuf *b, const char *fmt, ...)
{
	va_list ap;
	size_t n;
	char *s;

	va_start(ap, fmt);
	s = xalloc_vasprintf(&n, fmt, ap);
	va_end(ap);
	xbuf_add(b, s, n);
	free(s);
}
