/* test: asan-covered est=12 */
/* agent: the far end of a remote server, driven over a socket as ssh
 * would drive it.  hello first, of the same version (another is refused
 * naming both); a bad line named by its number; a log name outside the
 * folder refused; a missing program and a dying server told by their
 * cause; the demo server started, measured over a window and stopped;
 * the gate released and cancelled by the requests that come while it
 * holds, bounded by the round's budget, probing and judging the server's
 * pinned cpus; and when the input closes, the server's tree gone within 2 s. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent.h"
#include "clock.h"
#include "testutil.h"
#include "wire.h"

static char dir[] = "/tmp/benchtui-test-agent-XXXXXX";
static char demo[4096];

struct agent_proc {
	pid_t pid;
	int fd;
	struct wire_in in;
	long long id;
};

static void
agent_up(struct agent_proc *a, const char *sub)
{
	char path[4200];
	int sv[2];

	snprintf(path, sizeof path, "%s/%s", dir, sub);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	a->pid = fork();
	assert_true(a->pid >= 0);
	if (a->pid == 0) {
		close(sv[0]);
		_exit(agent_run(path, sv[1], sv[1]));
	}
	close(sv[1]);
	a->fd = sv[0];
	a->id = 1;
	wire_in_init(&a->in, a->fd);
}

/* Send a line as is; the next line back. */
static json_t *
agent_raw(struct agent_proc *a, const char *line)
{
	char err[512];
	json_t *m = NULL;

	assert_int_equal(write(a->fd, line, strlen(line)), (ssize_t)strlen(line));
	assert_int_equal(wire_read(&a->in, 30000, -1, &m, err, sizeof err),
	    WIRE_MSG);
	return m;
}

/* A request (its reference taken) with the next id; its reply, events
 * skipped. */
static json_t *
agent_call(struct agent_proc *a, json_t *req)
{
	char err[512];
	json_t *m = NULL;

	json_object_set_new(req, "id", json_integer(a->id++));
	assert_int_equal(wire_write(a->fd, req), 0);
	json_decref(req);
	for (;;) {
		assert_int_equal(wire_read(&a->in, 30000, -1, &m, err,
		    sizeof err), WIRE_MSG);
		if (json_object_get(m, "event") == NULL)
			return m;
		json_decref(m);
	}
}

/* Close its input; its exit status. */
static int
agent_down(struct agent_proc *a)
{
	int st;

	close(a->fd);
	wire_in_free(&a->in);
	assert_int_equal(waitpid(a->pid, &st, 0), a->pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static bool
ok(const json_t *r)
{
	return json_is_true(json_object_get(r, "ok"));
}

static const char *
field(const json_t *r, const char *k)
{
	return json_string_value(json_object_get(r, k));
}

/* hello with the round's gate settings: budget_s 600, the server's
 * cpus at most 0.1 busy, with or without the probe. */
static json_t *
hello_probe(double max_foreign, double timeout_s, bool probe)
{
	return json_pack("{s:s,s:s,s:i,s:[s],s:{s:f,s:i,s:f,s:f,s:f,s:b,s:f}}",
	    "op", "hello", "version", wire_version(), "protocol",
	    WIRE_PROTOCOL, "counters", "task-clock", "quiet",
	    "max_foreign_cores", max_foreign, "window_ms", 100, "timeout_s",
	    timeout_s, "budget_s", 600.0, "max_server_busy", 0.1, "probe",
	    probe, "probe_margin", 0.01);
}

static json_t *
hello(double max_foreign, double timeout_s)
{
	return hello_probe(max_foreign, timeout_s, false);
}

/* An open with the gate: what is left of the round's budget, whether
 * the round was released, whether the leg probes. */
static json_t *
open_req(double left, bool all, bool probe)
{
	return json_pack("{s:s,s:b,s:f,s:b,s:b}", "op", "open", "gate", 1,
	    "budget_left_s", left, "release_all", all, "probe", probe);
}

static void
test_handshake(void **state)
{
	struct agent_proc a;
	json_t *r;

	(void)state;
	agent_up(&a, "h1");
	r = agent_raw(&a, "{\"op\":\"ping\",\"id\":1}\n");
	assert_false(ok(r));
	assert_non_null(strstr(field(r, "error"), "before hello"));
	json_decref(r);
	r = agent_raw(&a, "garbage\n");
	assert_false(ok(r));
	assert_string_equal(field(r, "cause"), "malformed");
	assert_non_null(strstr(field(r, "error"), "line 2: not JSON"));
	json_decref(r);
	r = agent_raw(&a, "{\"op\":\"hello\",\"id\":3,\"version\":\"0.0.0-x\"}\n");
	assert_false(ok(r));
	assert_string_equal(field(r, "cause"), "version");
	assert_non_null(strstr(field(r, "error"), "benchtui 0.0.0-x"));
	assert_non_null(strstr(field(r, "error"), wire_version()));
	json_decref(r);
	/* Refused: it exits 2 without waiting for its input to close. */
	assert_int_equal(agent_down(&a), 2);

	/* The same version of another protocol (one without a number is
	 * protocol 1) is refused too, naming both protocols. */
	agent_up(&a, "h0");
	r = agent_call(&a, json_pack("{s:s,s:s}", "op", "hello", "version",
	    wire_version()));
	assert_false(ok(r));
	assert_string_equal(field(r, "cause"), "version");
	assert_non_null(strstr(field(r, "error"), "(protocol 1)"));
	assert_non_null(strstr(field(r, "error"), "(protocol 2)"));
	json_decref(r);
	assert_int_equal(agent_down(&a), 2);

	agent_up(&a, "h2");
	r = agent_call(&a, hello(8, 5));
	assert_true(ok(r));
	assert_string_equal(field(r, "version"), wire_version());
	assert_int_equal(json_integer_value(json_object_get(r, "protocol")),
	    WIRE_PROTOCOL);
	/* The settings its gate runs with, the round's budget among them. */
	assert_true(json_number_value(json_object_get(json_object_get(r,
	    "quiet"), "budget_s")) == 600.0);
	assert_true(json_number_value(json_object_get(json_object_get(r,
	    "quiet"), "max_server_busy")) == 0.1);
	assert_non_null(json_object_get(json_object_get(r, "host"), "kernel"));
	assert_non_null(strstr(field(r, "dir"), "/h2"));
	json_decref(r);
	r = agent_call(&a, json_pack("{s:s,s:[s,s]}", "op", "bins", "programs",
	    "sh", "no-such-program-here"));
	assert_true(ok(r));
	assert_true(json_is_null(json_object_get(json_object_get(r, "bins"),
	    "no-such-program-here")));
	json_decref(r);
	assert_int_equal(agent_down(&a), 0);
}

static json_t *
start_req(const char *prog, const char *arg, int port, const char *log)
{
	return json_pack("{s:s,s:s,s:[s,s],s:i,s:f,s:s}", "op", "start",
	    "cell", "c", "argv", prog, arg, "tcp_port", port,
	    "ready_timeout_s", 5.0, "log", log);
}

static void
test_start_refused(void **state)
{
	char outside[4200];
	struct agent_proc a;
	struct stat st;
	json_t *r;

	(void)state;
	agent_up(&a, "s1");
	json_decref(agent_call(&a, hello(8, 5)));
	r = agent_call(&a, start_req("sh", "-c", 40000, "../outside.log"));
	assert_false(ok(r));
	assert_string_equal(field(r, "cause"), "malformed");
	json_decref(r);
	snprintf(outside, sizeof outside, "%s/outside.log", dir);
	assert_int_not_equal(stat(outside, &st), 0);
	r = agent_call(&a, start_req("no-such-server", "x", 40000, "c.log"));
	assert_string_equal(field(r, "cause"), "failed");
	assert_non_null(strstr(field(r, "error"), "no program"));
	json_decref(r);
	r = agent_call(&a, start_req("sh", "-c", 40000, "c.log"));
	assert_false(ok(r));
	assert_string_equal(field(r, "cause"), "died");
	json_decref(r);
	r = agent_call(&a, json_pack("{s:s}", "op", "open"));
	assert_non_null(strstr(field(r, "error"), "no server"));
	json_decref(r);
	assert_int_equal(agent_down(&a), 0);
}

/* The demo server started there, pinned to cpus (NULL: not): its pid. */
static pid_t
start_demo_on(struct agent_proc *a, int port, const char *cpus)
{
	char p[16];
	json_t *r;
	pid_t pid;

	snprintf(p, sizeof p, "%d", port);
	r = agent_call(a, json_pack("{s:s,s:s,s:[s,s,s,s],s:{s:s},s:i,s:f,s:s,"
	    "s:s?}", "op", "start", "cell", "net", "argv", demo, "serve",
	    "--port", p, "env", "DEMO_CHUNK", "512", "tcp_port", port,
	    "ready_timeout_s", 10.0, "log", "t-net.log", "cpus", cpus));
	assert_true(ok(r));
	assert_int_equal(strlen(field(r, "sha256")), 64);
	pid = (pid_t)json_integer_value(json_object_get(r, "pid"));
	json_decref(r);
	assert_true(pid > 0);
	return pid;
}

static pid_t
start_demo(struct agent_proc *a, int port)
{
	return start_demo_on(a, port, NULL);
}

static void
test_server_window(void **state)
{
	struct agent_proc a;
	json_t *r;
	pid_t pid;
	double t0;

	(void)state;
	if (demo[0] == '\0')
		skip();
	agent_up(&a, "w1");
	json_decref(agent_call(&a, hello(8, 5)));
	pid = start_demo(&a, tu_free_port());
	/* A gate without the budget's rest is malformed. */
	r = agent_call(&a, json_pack("{s:s,s:b}", "op", "open", "gate", 1));
	assert_false(ok(r));
	assert_non_null(strstr(field(r, "error"), "budget_left_s"));
	json_decref(r);
	r = agent_call(&a, open_req(600, false, false));
	assert_true(ok(r));
	assert_string_equal(field(r, "gate"), "quiet");
	/* Not pinned, not probed: null. */
	assert_true(json_is_null(json_object_get(r, "server_busy")));
	assert_true(json_is_null(json_object_get(r, "probe")));
	assert_true(json_is_number(json_object_get(r, "wait_s")));
	assert_true(json_is_true(json_object_get(r, "alive")));
	json_decref(r);
	r = agent_call(&a, json_pack("{s:s}", "op", "close"));
	assert_true(ok(r));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r,
	    "server"), "pid")), pid);
	json_decref(r);
	r = agent_call(&a, json_pack("{s:s}", "op", "stop"));
	assert_string_equal(field(r, "state"), "stopped");
	json_decref(r);
	assert_true(tu_gone(pid));
	/* Another, left running: the input's close ends it. */
	pid = start_demo(&a, tu_free_port());
	t0 = clock_now();
	assert_int_equal(agent_down(&a), 0);
	assert_true(clock_now() - t0 < 2.0);
	assert_true(tu_gone(pid));
}

/* An open with the gate, its reply not awaited. */
static void
send_open(struct agent_proc *a, int id)
{
	json_t *m = open_req(600, false, false);

	json_object_set_new(m, "id", json_integer(id));
	assert_int_equal(wire_write(a->fd, m), 0);
	json_decref(m);
}

static void
test_gate_release(void **state)
{
	struct agent_proc a;
	json_t *r;

	(void)state;
	if (demo[0] == '\0')
		skip();
	agent_up(&a, "g1");
	/* No machine is ever under 0 foreign cores: the gate holds. */
	json_decref(agent_call(&a, hello(0, 60)));
	(void)start_demo(&a, tu_free_port());
	send_open(&a, 50);
	tu_nap_ms(300);
	r = agent_call(&a, json_pack("{s:s}", "op", "release"));
	/* The open answers first, released; then the release itself. */
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 50);
	assert_string_equal(field(r, "gate"), "released");
	json_decref(r);
	r = agent_raw(&a, "");
	assert_true(ok(r));
	json_decref(r);
	json_decref(agent_call(&a, json_pack("{s:s}", "op", "close")));
	send_open(&a, 60);
	tu_nap_ms(300);
	r = agent_call(&a, json_pack("{s:s}", "op", "cancel"));
	assert_int_equal(json_integer_value(json_object_get(r, "id")), 60);
	assert_string_equal(field(r, "cause"), "aborted");
	json_decref(r);
	json_decref(agent_raw(&a, ""));
	assert_int_equal(agent_down(&a), 0);
}

/* An open's gate word and wait. */
static double
open_gate(struct agent_proc *a, json_t *req, const char *want)
{
	json_t *r = agent_call(a, req);
	double w;

	assert_true(ok(r));
	assert_string_equal(field(r, "gate"), want);
	w = json_number_value(json_object_get(r, "wait_s"));
	json_decref(r);
	return w;
}

/* The far gate spends the round's one budget: it waits no longer than
 * what the client says is left of it (not its own timeout_s) and then
 * answers "budget"; with nothing left it does not wait; a round
 * released (G) goes at once.  Its server's pinned cpus are judged
 * (server_busy over the leg); decided on a gate that can never open
 * (max_foreign_cores 0), whatever the load. */
static void
test_gate_budget(void **state)
{
	struct agent_proc a;
	json_t *r;
	double w;

	(void)state;
	if (demo[0] == '\0')
		skip();
	agent_up(&a, "b1");
	json_decref(agent_call(&a, hello(0, 60)));
	(void)start_demo_on(&a, tu_free_port(), "0");
	w = open_gate(&a, open_req(0.6, false, false), "budget");
	assert_true(w >= 0.55 && w < 10);
	r = agent_call(&a, json_pack("{s:s}", "op", "close"));
	assert_true(json_is_number(json_object_get(r, "server_busy")));
	json_decref(r);
	w = open_gate(&a, open_req(0, false, false), "budget");
	assert_true(w < 0.5);
	json_decref(agent_call(&a, json_pack("{s:s}", "op", "close")));
	w = open_gate(&a, open_req(600, true, false), "released");
	assert_true(w < 0.5);
	json_decref(agent_call(&a, json_pack("{s:s}", "op", "close")));
	assert_int_equal(agent_down(&a), 0);
}

/* The probe runs there when the leg is probed: its slowdown and time in
 * the open's reply; not when the leg is not. */
static void
test_gate_probe(void **state)
{
	struct agent_proc a;
	json_t *r;

	(void)state;
	if (demo[0] == '\0')
		skip();
	agent_up(&a, "p1");
	r = agent_call(&a, hello_probe(8, 5, true));
	if (!json_is_true(json_object_get(json_object_get(r, "quiet"),
	    "probe"))) {
		/* This machine's clock cannot time a probe: said so. */
		assert_non_null(field(json_object_get(r, "quiet"), "probe_off"));
		json_decref(r);
		agent_down(&a);
		skip();
	}
	json_decref(r);
	(void)start_demo_on(&a, tu_free_port(), "0");
	r = agent_call(&a, open_req(600, false, true));
	assert_true(ok(r));
	assert_true(json_number_value(json_object_get(r, "probe")) > 0);
	assert_true(json_number_value(json_object_get(r, "probe_us")) > 0);
	json_decref(r);
	json_decref(agent_call(&a, json_pack("{s:s}", "op", "close")));
	r = agent_call(&a, open_req(600, false, false));
	assert_true(json_is_null(json_object_get(r, "probe")));
	json_decref(r);
	json_decref(agent_call(&a, json_pack("{s:s}", "op", "close")));
	assert_int_equal(agent_down(&a), 0);
}

static int
setup(void **state)
{
	const char *b = getenv("BENCHTUI_BUILD_DIR");

	(void)state;
	assert_non_null(mkdtemp(dir));
	if (b != NULL) {
		snprintf(demo, sizeof demo, "%s/assets/benchtui-demo", b);
		if (access(demo, X_OK) != 0)
			demo[0] = '\0';
	}
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_handshake),
		cmocka_unit_test(test_start_refused),
		cmocka_unit_test(test_server_window),
		cmocka_unit_test(test_gate_release),
		cmocka_unit_test(test_gate_budget),
		cmocka_unit_test(test_gate_probe),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
