/* test: est=3 */
/* server: start, readiness, failures and stop, against real processes (the
 * demo workload's serve mode, /bin/false, sleep).  Every test ends by
 * checking that no process of ours is left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "procs.h"
#include "server.h"
#include "spec.h"
#include "testutil.h"

extern char **environ;

static char demo[4096];
static char dir[] = "/tmp/benchtui-test-server-XXXXXX";
static char logpath[4200];

/* No process of ours (child or reparented orphan) is left. */
static void
assert_no_descendants(void)
{
	pid_t pids[16];
	double end = clock_now() + 3;
	size_t n;

	while ((n = procs_descendants(getpid(), pids, 16)) > 0 &&
	    clock_now() < end) {
		procs_reap_orphans(NULL, 0);
		usleep(20000);
	}
	if (n > 0)
		print_error("left behind: pid %d\n", (int)pids[0]);
	assert_int_equal(n, 0);
}

static struct { int tcp_port; double ready_timeout_s; } sserver;

/* The start parameters of cell c1's server (one at a time). */
static const struct server_params *
params(char *const *argv, const unsigned char *cpus, int abort_fd)
{
	static struct server_params p;
	static char *path;

	/* The caller resolves the program (the driver: legcmd), as here. */
	free(path);
	path = spec_resolve_program(argv[0], dir);
	p = (struct server_params){ .cell = "c1", .path = path, .argv = argv,
		.envp = environ, .cwd = dir, .log_path = logpath, .cpus = cpus,
		.ncpus = cpus != NULL ? 1 : 0, .tcp_port = sserver.tcp_port,
		.ready_timeout_s = sserver.ready_timeout_s,
		.abort_fd = abort_fd };
	return &p;
}

static char port[16];	/* sserver.tcp_port in words, for a demo's argv */

/* A free loopback port for the next server, ready within timeout_s. */
static void
next_port(double timeout_s)
{
	sserver.tcp_port = tu_free_port();
	sserver.ready_timeout_s = timeout_s;
	snprintf(port, sizeof port, "%d", sserver.tcp_port);
}

/* Cell c1's server on the port next_port chose. */
static struct server *
start(char *const *argv, const unsigned char *cpus, int abort_fd, char *err,
    size_t errlen)
{
	return server_start(params(argv, cpus, abort_fd), NULL, err, errlen);
}

/* Cell c1's server does not start, and err says every string of want;
 * nothing is left running.  The seconds server_start took. */
static double
start_fails(char *const *argv, double timeout_s, const char *const *want)
{
	char err[512] = "";
	double t0;

	next_port(timeout_s);
	t0 = clock_now();
	assert_null(start(argv, NULL, -1, err, sizeof err));
	t0 = clock_now() - t0;
	print_message("%s\n", err);
	for (; *want != NULL; want++)
		assert_non_null(strstr(err, *want));
	assert_no_descendants();
	return t0;
}

static int
setup(void **state)
{
	const char *b = getenv("BENCHTUI_BUILD_DIR");

	(void)state;
	snprintf(demo, sizeof demo, "%s/assets/benchtui-demo",
	    b != NULL ? b : ".");
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(logpath, sizeof logpath, "%s/servers", dir);
	mkdir(logpath, 0755);
	snprintf(logpath, sizeof logpath, "%s/servers/c1.log", dir);
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	return tu_rmtree(dir);
}

static void
test_ready_pinned_stopped(void **state)
{
	char err[512] = "", path[64], line[256];
	char *argv[] = { demo, "serve", "--port", port, NULL };
	unsigned char cpus[1] = { 1 };
	struct server *srv;
	bool pinned = false;
	FILE *fp;
	pid_t pid;

	(void)state;
	if (access(demo, X_OK) != 0)
		skip();
	next_port(10);
	srv = start(argv, cpus, -1, err, sizeof err);
	if (srv == NULL)
		print_error("%s\n", err);
	assert_non_null(srv);
	pid = server_pid(srv);
	assert_true(server_alive(srv));
	assert_int_equal(getpgid(pid), pid);
	/* Pinned to cpu 0 alone. */
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	fp = fopen(path, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL)
		if (strcmp(line, "Cpus_allowed_list:\t0\n") == 0)
			pinned = true;
	fclose(fp);
	assert_true(pinned);
	assert_string_equal(server_stop(srv, 2.0), "stopped");
	assert_true(tu_gone(pid));
	server_destroy(srv);
	/* Its output went to the log. */
	fp = fopen(logpath, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof line, fp));
	fclose(fp);
	assert_non_null(strstr(line, "listening"));
	assert_no_descendants();
}

static void
test_exits_before_ready(void **state)
{
	char *argv[] = { "false", NULL };
	const char *const want[] = { "cell c1",
		"exited with status 1 before it was ready", "servers/c1.log",
		NULL };

	(void)state;
	start_fails(argv, 10, want);
}

static void
test_cannot_exec(void **state)
{
	char *argv[] = { "/nonexistent/benchtui-no-such-server", NULL };
	const char *const want[] = {
		"exec of /nonexistent/benchtui-no-such-server failed", NULL };

	(void)state;
	start_fails(argv, 10, want);
}

static void
test_never_listens(void **state)
{
	char *argv[] = { "sleep", "30", NULL };
	const char *const want[] = { "cell c1", "did not accept on 127.0.0.1:",
		"within 1 s", "servers/c1.log", NULL };
	double took;

	(void)state;
	took = start_fails(argv, 1, want);
	assert_true(took >= 1.0);
	assert_true(took < 5.0);
}

static void
test_abort_while_waiting(void **state)
{
	char err[512] = "";
	char *argv[] = { "sleep", "30", NULL };
	struct server *srv;
	int fds[2];
	double t0 = clock_now();

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "x", 1), 1);
	next_port(20);
	srv = start(argv, NULL, fds[0], err, sizeof err);
	assert_null(srv);
	assert_true(clock_now() - t0 < 3.0);
	assert_non_null(strstr(err, "aborted"));
	close(fds[0]);
	close(fds[1]);
	assert_no_descendants();
}

static void
test_dies_midway(void **state)
{
	char err[512] = "";
	char *argv[] = { demo, "serve", "--port", port, NULL };
	struct server *srv;

	(void)state;
	if (access(demo, X_OK) != 0)
		skip();
	next_port(10);
	srv = start(argv, NULL, -1, err, sizeof err);
	assert_non_null(srv);
	kill(server_pid(srv), SIGKILL);
	while (server_alive(srv))
		usleep(10000);
	assert_string_equal(server_death(srv), "was killed by signal 9 (Killed)");
	assert_string_equal(server_stop(srv, 1.0), "died");
	server_destroy(srv);
	assert_no_descendants();
}

/* A server (and a child of it) that ignore SIGTERM: stop kills them after
 * the grace.  The shell here is the test's server, not benchtui's; the demo
 * under it does stop on SIGTERM, the shell and its sleep do not. */
static void
test_stop_stubborn(void **state)
{
	char script[5000], err[512] = "";
	char *argv[] = { "sh", "-c", script, NULL };
	struct server *srv;
	double t0;

	(void)state;
	if (access(demo, X_OK) != 0)
		skip();
	next_port(10);
	snprintf(script, sizeof script,
	    "trap '' TERM; '%s' serve --port %d & sleep 30 & wait", demo,
	    sserver.tcp_port);
	srv = start(argv, NULL, -1, err, sizeof err);
	assert_non_null(srv);
	t0 = clock_now();
	assert_string_equal(server_stop(srv, 0.5), "stopped");
	assert_true(clock_now() - t0 >= 0.45);
	assert_true(clock_now() - t0 < 4.0);
	assert_true(tu_gone(server_pid(srv)));
	server_destroy(srv);
	assert_no_descendants();
}

/* The server inherits none of our descriptors: only 0, 1 and 2 are open
 * in it, though the test holds one without O_CLOEXEC. */
static void
test_no_inherited_fds(void **state)
{
	char script[5000], err[512] = "", line[256];
	char *argv[] = { "sh", "-c", script, NULL };
	struct server *srv;
	int leak = open("/dev/null", O_RDONLY), n = 0;
	FILE *fp;

	(void)state;
	if (access(demo, X_OK) != 0)
		skip();
	assert_true(leak >= 3);
	unlink(logpath);
	next_port(10);
	snprintf(script, sizeof script, "ls /proc/$$/fd; exec '%s' serve "
	    "--port %d", demo, sserver.tcp_port);
	srv = start(argv, NULL, -1, err, sizeof err);
	assert_non_null(srv);
	assert_string_equal(server_stop(srv, 2.0), "stopped");
	server_destroy(srv);
	close(leak);
	fp = fopen(logpath, "r");
	assert_non_null(fp);
	while (fgets(line, sizeof line, fp) != NULL) {
		if (line[0] < '0' || line[0] > '9')
			continue;
		n++;
		if (atoi(line) > 2)
			print_error("fd %s", line);
		assert_true(atoi(line) <= 2);
	}
	fclose(fp);
	assert_int_equal(n, 3);
	assert_no_descendants();
}

/* A port someone else already listens on would look ready at once: the
 * start is refused before anything is run. */
static void
test_port_already_taken(void **state)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof sa;
	char err[512] = "", want[160];
	char *argv[] = { "sleep", "30", NULL };
	struct server *srv;
	int fd;

	(void)state;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(fd, 4), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	sserver.tcp_port = ntohs(sa.sin_port);
	sserver.ready_timeout_s = 5;
	srv = start(argv, NULL, -1, err, sizeof err);
	close(fd);
	assert_null(srv);
	print_message("%s\n", err);
	snprintf(want, sizeof want, "cell c1: port %d already has a listener "
	    "before the server was started: it is held by pid %d (",
	    sserver.tcp_port, (int)getpid());
	assert_non_null(strstr(err, want));
	assert_no_descendants();
}

/* Another process takes the port while the server (which never listens)
 * starts: not ready, an error naming that process, nothing left running. */
static void
test_port_taken_while_waiting(void **state)
{
	char err[512] = "", want[160];
	char *argv[] = { "sleep", "30", NULL };
	struct server *srv;
	int go[2];
	pid_t thief;

	(void)state;
	next_port(10);
	assert_int_equal(pipe(go), 0);
	thief = fork();
	if (thief == 0) {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		int fd = socket(AF_INET, SOCK_STREAM, 0);
		char c;

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa.sin_port = htons((uint16_t)sserver.tcp_port);
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(1);
		usleep(200000);
		if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 ||
		    listen(fd, 4) != 0)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[0]);
	assert_int_equal(write(go[1], "x", 1), 1);
	srv = start(argv, NULL, -1, err, sizeof err);
	kill(thief, SIGKILL);
	waitpid(thief, NULL, 0);
	close(go[1]);
	assert_null(srv);
	print_message("%s\n", err);
	snprintf(want, sizeof want, "cell c1: port %d was taken while the "
	    "server started, by pid %d (", sserver.tcp_port, (int)thief);
	assert_non_null(strstr(err, want));
	assert_no_descendants();
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ready_pinned_stopped),
		cmocka_unit_test(test_exits_before_ready),
		cmocka_unit_test(test_cannot_exec),
		cmocka_unit_test(test_never_listens),
		cmocka_unit_test(test_abort_while_waiting),
		cmocka_unit_test(test_dies_midway),
		cmocka_unit_test(test_stop_stubborn),
		cmocka_unit_test(test_no_inherited_fds),
		cmocka_unit_test(test_port_already_taken),
		cmocka_unit_test(test_port_taken_while_waiting),
	};

	procs_become_subreaper();
	return cmocka_run_group_tests(tests, setup, teardown);
}
