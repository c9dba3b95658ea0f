/* test: */
/* xalloc: out of memory is one policy -- the front end's hook, a message,
 * exit 1 (never abort) -- and array growth never wraps around. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xalloc.h"

static void
hook(void)
{
	/* The hook runs before the message: a marker first on stderr. */
	fputs("hook\n", stderr);
}

/* Run fn in a child with stderr to a pipe; its status and what it said. */
static int
in_child(void (*fn)(void), char *out, size_t outlen)
{
	int fds[2], st;
	pid_t pid;
	ssize_t n;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		xalloc_set_fatal_hook(hook);
		fn();
		_exit(0);
	}
	close(fds[1]);
	/* To EOF: closing early would kill the child with SIGPIPE. */
	for (size_t got = 0;; got += (size_t)n) {
		n = read(fds[0], out + got, outlen - 1 - got);
		if (n <= 0) {
			out[got] = '\0';
			break;
		}
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return st;
}

static void
overflow(void)
{
	(void)xreallocarray(NULL, SIZE_MAX / 2 + 2, 2);
}

static void
grow_overflow(void)
{
	(void)xgrow(SIZE_MAX / 2 + 1, SIZE_MAX, 8);
}

static void
test_overflow_exits_1_after_hook(void **state)
{
	char out[256];
	int st;

	(void)state;
	st = in_child(overflow, out, sizeof out);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
	assert_non_null(strstr(out, "hook\nbenchtui: out of memory"));
	st = in_child(grow_overflow, out, sizeof out);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 1);
}

static void
test_grow(void **state)
{
	(void)state;
	assert_int_equal(xgrow(0, 1, 64), 64);
	assert_int_equal(xgrow(64, 65, 64), 128);
	assert_int_equal(xgrow(64, 64, 64), 64);
	assert_int_equal(xgrow(0, 1000, 64), 1024);
	char *s = xstrdup("abc");
	assert_string_equal(s, "abc");
	free(s);
	s = xasprintf("%s/%d", "legs", 42);
	assert_string_equal(s, "legs/42");
	free(s);
}

/* The one growing string: NUL-terminated after every add, empty adds
 * included, across many regrowths. */
static void
test_xbuf(void **state)
{
	struct xbuf b = { 0 };

	(void)state;
	xbuf_add(&b, "", 0);
	assert_non_null(b.p);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.p, "");
	for (int i = 0; i < 1000; i++)
		xbuf_add(&b, "ab", 2);
	xbuf_add(&b, "c\0d", 1);
	assert_int_equal(b.len, 2001);
	assert_int_equal(strlen(b.p), 2001);
	assert_memory_equal(b.p + 1996, "ababc", 6);
	assert_true(b.cap > b.len);
	free(b.p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overflow_exits_1_after_hook),
		cmocka_unit_test(test_grow),
		cmocka_unit_test(test_xbuf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
