/* The agent's client: ssh as a child (spawn.c, the one spawn path: its
 * input a socket this end writes without SIGPIPE, its output a pipe, its
 * stderr a pipe copied into a file up to a limit), the handshake,
 * requests with increasing ids, replies read in order with the far
 * gate's samples (checked, rebuilt) passed on before them.  While a
 * request waits, abort_fd sends "cancel" and release_fd "release" (each
 * answered after it); the replies to those are read and dropped.  The
 * requests on the far side's work are in remote_ops.c. */
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "event.h"
#include "legcmd.h"
#include "remote_conn.h"
#include "remote_int.h"
#include "rfile.h"
#include "spawn.h"
#include "stats.h"
#include "wire.h"
#include "xalloc.h"

extern char **environ;

/* How long ssh may linger once the agent's input is closed: the agent
 * ends its server within 2 s, then exits. */
#define REMOTE_LINGER_S 5.0
/* The far gate's samples: one a second (quiet.c), a few more allowed for
 * the first and the last; more is an agent that floods the log. */
#define REMOTE_EVENTS_PER_S 2.0
#define REMOTE_EVENTS_FREE 8.0

const json_t *remote_hello(const struct remote *rm) { return rm->hello; }
pid_t remote_ssh_pid(const struct remote *rm) { return rm->ssh_pid; }
const char *remote_cmdline(const struct remote *rm) { return rm->cmdline; }

unsigned long
remote_requests_take(struct remote *rm)
{
	unsigned long n = rm->requests - rm->taken;

	rm->taken = rm->requests;
	return n;
}
const char *remote_lost_why(const struct remote *rm) { return rm->why; }

/* What this connection's ssh wrote on stderr: its last lines (at most 3
 * of the last 600 bytes), joined by " / "; "" when it wrote nothing. */
static void
remote_stderr_tail(const struct remote *rm, char *out, size_t len)
{
	char buf[601], *line, *save = NULL;
	const char *last[3] = { NULL, NULL, NULL };
	int fd = open(rm->stderr_path, O_RDONLY | O_CLOEXEC);
	off_t end;
	ssize_t n = 0;
	size_t k = 0;

	out[0] = '\0';
	if (fd < 0)
		return;
	end = lseek(fd, 0, SEEK_END);
	if (end > rm->err_from)
		n = pread(fd, buf, 600, end - 600 > rm->err_from ? end - 600 :
		    rm->err_from);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	/* The far side's bytes reach a terminal: none may steer it. */
	for (ssize_t i = 0; i < n; i++)
		if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n' &&
		    buf[i] != '\r') || buf[i] == 0x7f)
			buf[i] = '?';
	for (line = strtok_r(buf, "\r\n", &save); line != NULL;
	    line = strtok_r(NULL, "\r\n", &save)) {
		last[0] = last[1];
		last[1] = last[2];
		last[2] = line;
	}
	for (int i = 0; i < 3; i++)
		if (last[i] != NULL && k + 4 < len)
			k += (size_t)snprintf(out + k, len - k, "%s%s",
			    k > 0 ? " / " : "", last[i]);
}

static void remote_fail(struct remote *rm, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Copy what ssh wrote on stderr into its log, up to err_max bytes a
 * connection: past that the far side is flooding it, a protocol error
 * that drops the connection. */
static void
remote_drain_err(struct remote *rm)
{
	char buf[65536];

	while (rm->err_rd >= 0) {
		ssize_t n = read(rm->err_rd, buf, sizeof buf);
		size_t room = rm->err_max - rm->err_bytes, k;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				close(rm->err_rd);
				rm->err_rd = -1;
			}
			return;
		}
		k = (size_t)n < room ? (size_t)n : room;
		if (k > 0 && write(rm->err_log, buf, k) < 0)
			(void)0; /* a full disk: the words are lost, not the round */
		rm->err_bytes += k;
		if ((size_t)n > room) {
			close(rm->err_rd);
			rm->err_rd = -1;
			remote_broken(rm, "ssh's stderr passed %zu bytes "
			    "(agent_limits.stderr_bytes, the limit on what the far "
			    "side writes there)", rm->err_max);
			return;
		}
	}
}

/* Wait up to s seconds for ssh to exit and reap it; then end it by pid. */
static void
remote_reap(struct remote *rm, double s)
{
	double deadline = clock_now() + s;

	while (!rm->reaped) {
		pid_t w;

		remote_drain_err(rm);
		w = waitpid(rm->ssh_pid, &rm->status, WNOHANG);

		if (w == rm->ssh_pid || (w < 0 && errno == ECHILD)) {
			rm->reaped = true;
			break;
		}
		if (clock_now() >= deadline) {
			kill(rm->ssh_pid, SIGTERM);
			if (!clock_nap(-1, 200) &&
			    waitpid(rm->ssh_pid, &rm->status, WNOHANG) == 0) {
				kill(rm->ssh_pid, SIGKILL);
				(void)waitpid(rm->ssh_pid, &rm->status, 0);
			}
			rm->reaped = true;
			break;
		}
		clock_nap(-1, 10);
	}
}

/* How ssh ended, for a message. */
static void
remote_status(const struct remote *rm, char *out, size_t len)
{
	if (WIFEXITED(rm->status))
		snprintf(out, len, "ssh exited %d", WEXITSTATUS(rm->status));
	else if (WIFSIGNALED(rm->status))
		snprintf(out, len, "ssh (pid %d) was killed by signal %d (%s)",
		    (int)rm->ssh_pid, WTERMSIG(rm->status),
		    strsignal(WTERMSIG(rm->status)));
	else
		snprintf(out, len, "ssh ended (wait status %d)", rm->status);
}

/* The connection is lost for good: why (after "HOST: "), then ssh's own
 * words and how it ended; ssh is ended and reaped. */
static void
remote_fail(struct remote *rm, const char *fmt, ...)
{
	char what[768], tail[640], st[160];
	va_list ap;

	if (rm->lost)
		return;
	rm->lost = true;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	if (rm->to >= 0)
		close(rm->to);
	rm->to = -1;
	remote_reap(rm, 1.0);
	remote_stderr_tail(rm, tail, sizeof tail);
	remote_status(rm, st, sizeof st);
	snprintf(rm->why, sizeof rm->why, "%.200s: %.600s; %.150s%s%.500s",
	    rm->name, what, st, tail[0] ? "; it said: " : "", tail);
}

/* The far side broke the protocol (what it sent, or how much): the
 * connection is lost, said as a protocol error. */
void
remote_broken(struct remote *rm, const char *fmt, ...)
{
	char what[640];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	rm->broke = true;
	remote_fail(rm, "a protocol error: %s", what);
}

bool
remote_lost(struct remote *rm, bool look)
{
	struct pollfd p = { .fd = rm->from.fd, .events = POLLIN };
	char err[512];
	json_t *m = NULL;

	if (rm->lost || !look)
		return rm->lost;
	remote_drain_err(rm);
	if (rm->lost)
		return true;
	if (!wire_pending(&rm->from) && poll(&p, 1, 0) <= 0)
		return false;
	switch (wire_read(&rm->from, 0, -1, &m, err, sizeof err)) {
	case WIRE_TIMEOUT:
		break;
	case WIRE_EOF:
	case WIRE_IO:
		remote_fail(rm, "the connection to the agent was lost");
		break;
	default:
		remote_broken(rm, "the agent said something out of turn on "
		    "its %s", m != NULL ? "output" : err);
	}
	json_decref(m);
	return rm->lost;
}

json_t *
remote_rtt(const struct remote *rm)
{
	int n = rm->nrtt;

	if (n == 0)
		return json_pack("{s:n,s:n,s:i}", "min", "median", "n", 0);
	return json_pack("{s:f,s:f,s:i}", "min", stats_min(rm->rtt, n),
	    "median", stats_median(rm->rtt, n), "n", n);
}


/* Send {"op": op, "id": N} with no more fields (cancel, release). */
static void
remote_send_bare(struct remote *rm, const char *op)
{
	json_t *m = json_pack("{s:s,s:I}", "op", op, "id",
	    (json_int_t)rm->next_id++);

	rm->requests++;
	if (wire_write(rm->to, m) != 0)
		remote_fail(rm, "the connection to the agent was lost (a write to "
		    "ssh: %s)", strerror(errno));
	json_decref(m);
}

/* A line from the agent that is not the reply awaited: its gate's
 * sample, while a gate holds a leg there (rebuilt here from its checked
 * values, then passed on), or the end of the conversation.  0 to go on
 * reading. */
static int
remote_event(struct remote *rm, json_t *m, struct remote_wait *w)
{
	json_t *ev = json_object_get(m, "event"), *clean, *out;
	double took = clock_now() - w->t0;
	char why[320];

	if (!json_is_object(ev)) {
		remote_broken(rm, "the agent's line %lu is not a reply or an "
		    "event", rm->from.line);
		return -1;
	}
	if (w->fn == NULL) {
		remote_broken(rm, "the agent's line %lu is an event while no "
		    "gate of its held a leg", rm->from.line);
		return -1;
	}
	if (++w->events > REMOTE_EVENTS_FREE + REMOTE_EVENTS_PER_S * took) {
		remote_broken(rm, "the agent sent %d events in %.1f s (the "
		    "limit: %g, and %g a second, as its gate makes them)",
		    w->events, took, REMOTE_EVENTS_FREE, REMOTE_EVENTS_PER_S);
		return -1;
	}
	if ((clean = remote_check_event(ev, took + 1.0, why, sizeof why)) ==
	    NULL) {
		remote_broken(rm, "the agent's line %lu: %s", rm->from.line, why);
		return -1;
	}
	out = event_new("quiet");
	json_object_update(out, clean);
	json_decref(clean);
	json_object_set_new(out, "host", json_string(rm->host));
	w->fn(out, w->arg);
	json_decref(out);
	return 0;
}

/* Wait for poll-worthy input: the agent's output, and the abort and
 * release fds until each has been acted on.  0 when the output is
 * readable, 1 to look again, -1 when the time ran out. */
static int
remote_poll(struct remote *rm, struct remote_wait *w)
{
	struct pollfd p[4] = { { .fd = rm->from.fd, .events = POLLIN },
		{ .fd = w->abort_fd, .events = POLLIN },
		{ .fd = w->release_fd, .events = POLLIN },
		{ .fd = rm->err_rd, .events = POLLIN } };
	double left = w->deadline - clock_now();

	if (wire_pending(&rm->from))
		return 0;
	if (left <= 0)
		return -1;
	if (poll(p, 4, (int)(left * 1000.0) + 1) <= 0)
		return 1;
	if (p[3].revents != 0) {
		remote_drain_err(rm);
		return 1;
	}
	if (w->abort_fd >= 0 && p[1].revents != 0 && w->give_up) {
		remote_fail(rm, "the connection was given up (the round was "
		    "aborted)");
		return 1;
	}
	if (w->abort_fd >= 0 && p[1].revents != 0) {
		remote_send_bare(rm, "cancel");
		rm->cancelled = true;
		w->extra++;
		w->abort_fd = -1;
	}
	if (w->release_fd >= 0 && p[2].revents != 0) {
		remote_send_bare(rm, "release");
		w->extra++;
		w->release_fd = -1;
	}
	return p[0].revents != 0 ? 0 : 1;
}

/* Read up to the reply to id (events passed on on the way).  The reply,
 * or NULL when the connection was lost (its why set). */
static json_t *
remote_await(struct remote *rm, long long id, const char *op,
    struct remote_wait *w)
{
	char err[640];

	while (!rm->lost) {
		json_t *m = NULL, *rid;
		int r = remote_poll(rm, w);

		if (r < 0) {
			rm->timed_out = true;
			remote_fail(rm, "no reply to %s from the agent in time",
			    op);
			break;
		}
		if (r > 0 || rm->lost)
			continue;
		switch (wire_read(&rm->from, 0, -1, &m, err, sizeof err)) {
		case WIRE_MSG:
			break;
		case WIRE_TIMEOUT:
			continue;
		case WIRE_BAD:
			remote_broken(rm, "the agent's %s", err);
			continue;
		default:
			remote_fail(rm, "the connection to the agent was lost "
			    "while it answered %s", op);
			continue;
		}
		rid = json_object_get(m, "id");
		if (rid == NULL) {
			(void)remote_event(rm, m, w);
			json_decref(m);
			continue;
		}
		if (json_is_integer(rid) && json_integer_value(rid) == id)
			return m;
		remote_broken(rm, "the agent's line %lu answers request %s "
		    "while %s (request %lld) waited", rm->from.line,
		    json_is_integer(rid) ? "another" : "none", op, id);
		json_decref(m);
	}
	return NULL;
}

/* Send req (its reference taken) with the next id and wait for its
 * reply; then drop the replies to a cancel or release sent meanwhile.
 * The reply, or NULL with the connection lost. */
json_t *
remote_call(struct remote *rm, json_t *req, struct remote_wait *w)
{
	long long id = rm->next_id++;
	const char *op = json_string_value(json_object_get(req, "op"));
	char opname[32];
	json_t *reply;

	snprintf(opname, sizeof opname, "%s", op != NULL ? op : "?");
	json_object_set_new(req, "id", json_integer((json_int_t)id));
	rm->requests++;
	rm->cancelled = false;
	w->t0 = clock_now();
	if (!rm->lost && wire_write(rm->to, req) != 0)
		remote_fail(rm, "the connection to the agent was lost (a write to "
		    "ssh: %s)", strerror(errno));
	json_decref(req);
	if (rm->lost)
		return NULL;
	reply = remote_await(rm, id, opname, w);
	for (long long k = 1; reply != NULL && w->extra > 0; k++, w->extra--) {
		json_t *x = remote_await(rm, id + k, opname, w);

		if (x == NULL) {
			json_decref(reply);
			return NULL;
		}
		json_decref(x);
	}
	return reply;
}

/* A call that does not wait on the server or the gate. */
json_t *
remote_call_plain(struct remote *rm, json_t *req, double timeout_s)
{
	struct remote_wait w = { .deadline = clock_now() + timeout_s,
		.abort_fd = -1, .release_fd = -1 };

	return remote_call(rm, req, &w);
}

/* A reply that says no: "HOST: the agent's message" (made printable,
 * cut) into err. */
bool
remote_refused(const struct remote *rm, const json_t *reply, char *err,
    size_t errlen)
{
	json_t *e = remote_text(json_object_get(reply, "error"), 600);

	if (json_is_true(json_object_get(reply, "ok"))) {
		json_decref(e);
		return false;
	}
	snprintf(err, errlen, "%s: %s", rm->name, e != NULL ?
	    json_string_value(e) : "the agent refused without saying why");
	json_decref(e);
	return true;
}

/* ssh PREFIX HOST 'AGENT --dir DIR' started, its input and output ours.
 * 0, or -1 with err. */
static int
remote_spawn(struct remote *rm, const struct remote_params *p, char *err,
    size_t errlen)
{
	size_t ns = 0, na = 0, k = 0;
	char **argv, **far, serr[512];
	int in[2], out[2], errp[2], efd;

	while (p->ssh[ns] != NULL)
		ns++;
	while (p->agent[na] != NULL)
		na++;
	far = xcalloc(na + 3, sizeof *far);
	memcpy(far, p->agent, na * sizeof *far);
	far[na] = "--dir";
	far[na + 1] = (char *)p->dir;
	argv = xcalloc(ns + 3, sizeof *argv);
	memcpy(argv, p->ssh, ns * sizeof *argv);
	k = ns;
	argv[k++] = (char *)p->host;
	/* The one line the far user's shell reads: each word quoted. */
	argv[k++] = legcmd_argv_line(far);
	rm->cmdline = legcmd_argv_line(argv);
	argv[ns] = rm->name;
	rm->cmdname = legcmd_argv_line(argv);
	argv[ns] = (char *)p->host;
	free(far);
	if ((efd = rfile_open(p->stderr_path, O_WRONLY | O_CREAT | O_APPEND,
	    0644)) < 0) {
		snprintf(err, errlen, "%s: cannot open %s: %s", rm->name,
		    p->stderr_path, rfile_strerror(errno));
		free(argv[ns + 1]);
		free(argv);
		return -1;
	}
	rm->err_from = lseek(efd, 0, SEEK_END);
	/* ssh's stderr (the far side's too) comes through a pipe this end
	 * reads, so what reaches the log is bounded here. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0 ||
	    pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0)
		xalloc_die(0);
	(void)fcntl(errp[0], F_SETFL, O_NONBLOCK);
	{
		struct spawn_req rq = { .path = p->ssh_path, .argv = argv,
			.envp = environ, .in_fd = in[1], .out_fd = out[1],
			.err_fd = errp[1], .cgroup_procs_fd = -1 };

		rm->ssh_pid = spawn_run(&rq, NULL, serr, sizeof serr);
	}
	close(in[1]);
	close(out[1]);
	close(errp[1]);
	rm->err_rd = errp[0];
	rm->err_log = efd;
	free(argv[ns + 1]);
	free(argv);
	rm->to = in[0];
	wire_in_init(&rm->from, out[0]);
	rm->from.max = p->line_max;
	rm->from.strict = true;
	if (rm->ssh_pid < 0) {
		snprintf(err, errlen, "%s: cannot start %s: %s", rm->name,
		    p->ssh_path, serr);
		rm->reaped = true;
		return -1;
	}
	return 0;
}

/* The handshake failed at ssh or the far shell: say which, in ssh's and
 * the shell's own words, with the command line. */
static void
remote_connect_failed(struct remote *rm, char *err, size_t errlen)
{
	char tail[640], st[160];
	int code = WIFEXITED(rm->status) ? WEXITSTATUS(rm->status) : -1;

	remote_stderr_tail(rm, tail, sizeof tail);
	remote_status(rm, st, sizeof st);
	if (code == 127 || code == 126)
		snprintf(err, errlen, "%s: benchtui is %s on that host (the far "
		    "shell said: %s): install benchtui %s there (make install, "
		    "or copy the benchtui binary into a folder on the PATH a "
		    "non-interactive ssh command gets), or set the round's "
		    "\"agent\" to its path there, e.g. [\"/usr/local/bin/"
		    "benchtui\", \"agent\"] (%s; the command: %s)", rm->name,
		    code == 127 ? "not installed, or not on the PATH," :
		    "not executable", tail[0] ? tail : "nothing", wire_version(),
		    st, rm->cmdname);
	else
		snprintf(err, errlen, "%s: %s (%s; the command: %s)", rm->name,
		    tail[0] ? tail : "the agent ended before it answered", st,
		    rm->cmdname);
}

/* hello: the version and protocol, the window's counters, the gate's
 * settings. */
static json_t *
remote_hello_req(const struct remote_params *p)
{
	json_t *req = json_pack("{s:s,s:s,s:i}", "op", "hello", "version",
	    wire_version(), "protocol", WIRE_PROTOCOL);

	json_object_set_new(req, "counters", legcmd_argv_json(p->counters));
	json_object_set_new(req, "quiet", p->quiet == NULL ? json_false() :
	    wire_quiet_json(p->quiet));
	return req;
}

/* An agent that accepted the hello but is another version, or speaks
 * another protocol (one before protocol numbers has none: 1), would
 * misread every open: said as the agent says a refusal, naming both.
 * true when so. */
static bool
remote_version_differs(const struct remote *rm, const json_t *reply,
    char *err, size_t errlen)
{
	long long n = wire_protocol_of(reply);
	json_t *v = remote_text(json_object_get(reply, "version"), 64);
	bool same = v != NULL && strcmp(json_string_value(v),
	    wire_version()) == 0;

	if (n == WIRE_PROTOCOL && same) {
		json_decref(v);
		return false;
	}
	snprintf(err, errlen, "%s: the agent there is benchtui %s (protocol "
	    "%lld), this is benchtui %s (protocol %d): the protocol is only "
	    "spoken between equal versions; install this benchtui on %s",
	    rm->name, v != NULL ? json_string_value(v) : "(no version)", n,
	    wire_version(), WIRE_PROTOCOL, rm->name);
	json_decref(v);
	return true;
}

/* hello's answer, checked: the one kept (rm->hello), or NULL with err. */
static json_t *
remote_hello_checked(struct remote *rm, json_t *reply, char *err,
    size_t errlen)
{
	char why[320];
	json_t *h;

	if (remote_refused(rm, reply, err, errlen) ||
	    remote_version_differs(rm, reply, err, errlen)) {
		json_decref(reply);
		return NULL;
	}
	h = remote_check_hello(reply, why, sizeof why);
	json_decref(reply);
	if (h == NULL)
		snprintf(err, errlen, "%s: a protocol error in the agent's "
		    "answer to hello: %s", rm->name, why);
	return h;
}

static char **
remote_strv_copy(char *const *v)
{
	size_t n = 0;
	char **out;

	while (v != NULL && v[n] != NULL)
		n++;
	out = xcalloc(n + 1, sizeof *out);
	for (size_t i = 0; i < n; i++)
		out[i] = xstrdup(v[i]);
	return out;
}

struct remote *
remote_connect(const struct remote_params *p, char *err, size_t errlen)
{
	struct remote *rm = xcalloc(1, sizeof *rm);
	struct remote_wait w = { .deadline = clock_now() + p->timeout_s,
		.abort_fd = p->abort_fd, .release_fd = -1, .give_up = true };
	json_t *reply;

	rm->host = xstrdup(p->host);
	(void)remote_name(p->host, rm->name);
	rm->stderr_path = xstrdup(p->stderr_path);
	rm->to = -1;
	rm->err_rd = rm->err_log = -1;
	rm->err_max = p->stderr_max;
	rm->next_id = 1;
	rm->counters = remote_strv_copy(p->counters);
	if (remote_spawn(rm, p, err, errlen) != 0)
		goto fail;
	reply = remote_call(rm, remote_hello_req(p), &w);
	if (reply == NULL && p->abort_fd >= 0 && clock_nap(p->abort_fd, 0)) {
		snprintf(err, errlen, "%s: the connection was given up (the "
		    "round was aborted)", rm->name);
		goto fail;
	}
	if (reply == NULL && rm->timed_out) {
		snprintf(err, errlen, "%s: the agent did not answer hello within "
		    "%g s (agent_limits.hello_s; the command: %s)", rm->name,
		    p->timeout_s, rm->cmdname);
		goto fail;
	}
	if (reply == NULL && rm->broke) {
		snprintf(err, errlen, "%s", rm->why);
		goto fail;
	}
	if (reply == NULL) {
		remote_connect_failed(rm, err, errlen);
		goto fail;
	}
	if ((rm->hello = remote_hello_checked(rm, reply, err, errlen)) == NULL)
		goto fail;
	for (int i = 0; i < REMOTE_PINGS; i++) {
		double t0 = clock_now();

		json_decref(remote_call_plain(rm, json_pack("{s:s}", "op",
		    "ping"), REMOTE_CALL_S));
		if (rm->lost) {
			snprintf(err, errlen, "%s", rm->why);
			goto fail;
		}
		rm->rtt[rm->nrtt++] = (clock_now() - t0) * 1e3;
	}
	return rm;
fail:
	remote_disconnect(rm);
	return NULL;
}

void
remote_disconnect(struct remote *rm)
{
	if (rm == NULL)
		return;
	if (rm->to >= 0)
		close(rm->to);
	if (rm->ssh_pid > 0)
		remote_reap(rm, REMOTE_LINGER_S);
	wire_in_free(&rm->from);
	if (rm->from.fd > 0)
		close(rm->from.fd);
	if (rm->err_rd >= 0)
		close(rm->err_rd);
	if (rm->err_log >= 0)
		close(rm->err_log);
	for (size_t i = 0; rm->counters != NULL && rm->counters[i] != NULL;
	    i++)
		free(rm->counters[i]);
	free(rm->counters);
	json_decref(rm->hello);
	free(rm->host);
	free(rm->cmdline);
	free(rm->cmdname);
	free(rm->stderr_path);
	free(rm);
}
