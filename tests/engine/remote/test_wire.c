/* test: */
/* wire: the agent protocol's lines -- whole lines however they arrive,
 * counted; a line that is not one object named by its number; a line past
 * WIRE_LINE_MAX named and skipped; the end, a cut-short last line, a
 * timeout and a wake; a write to a peer that has gone fails, never
 * killing the writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire.h"

static void
put(int fd, const char *s)
{
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

static enum wire_got
get(struct wire_in *in, json_t **m, char *err, size_t len)
{
	return wire_read(in, 2000, -1, m, err, len);
}

static void
test_lines_counted(void **state)
{
	struct wire_in in;
	char err[512];
	json_t *m;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	wire_in_init(&in, p[0]);
	/* Two lines in one write, one split across two. */
	put(p[1], "{\"op\":\"ping\",\"id\":1}\n{\"id\":2}\n{\"i");
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_MSG);
	assert_string_equal(json_string_value(json_object_get(m, "op")), "ping");
	json_decref(m);
	assert_true(wire_pending(&in));
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_MSG);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 2);
	json_decref(m);
	assert_false(wire_pending(&in));
	put(p[1], "d\":3}\nnot json\n[1,2]\n");
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_MSG);
	json_decref(m);
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_BAD);
	assert_non_null(strstr(err, "line 4: not JSON"));
	assert_non_null(strstr(err, "'not json'"));
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_BAD);
	assert_non_null(strstr(err, "line 5: not a JSON object"));
	/* Nothing more: a timeout; then a line cut short by the end. */
	assert_int_equal(wire_read(&in, 50, -1, &m, err, sizeof err),
	    WIRE_TIMEOUT);
	put(p[1], "{\"id\":");
	close(p[1]);
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_BAD);
	assert_non_null(strstr(err, "line 6: cut short"));
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_EOF);
	wire_in_free(&in);
	close(p[0]);
}

static void
test_too_long(void **state)
{
	size_t n = WIRE_LINE_MAX + 100;
	char *big = malloc(n + 1), err[512];
	struct wire_in in;
	json_t *m;
	int sv[2];

	(void)state;
	assert_non_null(big);
	memset(big, 'x', n);
	big[n] = '\0';
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	wire_in_init(&in, sv[0]);
	if (fork() == 0) {
		put(sv[1], big);
		put(sv[1], "\n{\"id\":7}\n");
		_exit(0);
	}
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_BAD);
	assert_non_null(strstr(err, "line 1: longer than"));
	/* The rest of that line is dropped; the next one is read. */
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_MSG);
	assert_int_equal(json_integer_value(json_object_get(m, "id")), 7);
	assert_int_equal(in.line, 2);
	json_decref(m);
	wire_in_free(&in);
	close(sv[0]);
	close(sv[1]);
	free(big);
}

static void
test_wake_and_write(void **state)
{
	struct wire_in in;
	char err[512];
	json_t *m, *msg = json_pack("{s:s}", "op", "ping");
	int p[2], w[2], sv[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(w), 0);
	wire_in_init(&in, p[0]);
	put(w[1], "x");
	assert_int_equal(wire_read(&in, -1, w[0], &m, err, sizeof err),
	    WIRE_WOKEN);
	/* A written message is one line the reader reads back. */
	assert_int_equal(wire_write(p[1], msg), 0);
	assert_int_equal(get(&in, &m, err, sizeof err), WIRE_MSG);
	assert_true(json_equal(m, msg));
	json_decref(m);
	/* A socket whose peer has gone: an error, and SIGPIPE's default
	 * (death) never comes. */
	signal(SIGPIPE, SIG_DFL);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	assert_int_equal(wire_write(sv[0], msg), -1);
	assert_int_equal(errno, EPIPE);
	close(sv[0]);
	json_decref(msg);
	wire_in_free(&in);
	close(p[0]);
	close(p[1]);
	close(w[0]);
	close(w[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_counted),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_wake_and_write),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
