/* Profiles: the tools (perf, strace), the kernel settings that can block
 * them, and the readers of perf report's and strace -c's text. */
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "clock.h"
#include "digest.h"
#include "leg.h"
#include "procs.h"
#include "spawn.h"
#include "xalloc.h"

extern char **environ;

#define PROFILE_PARANOID "/proc/sys/kernel/perf_event_paranoid"
#define PROFILE_PTRACE "/proc/sys/kernel/yama/ptrace_scope"

char *
profile_slurp(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd >= 0 ? profile_slurp_fd(fd, max) : NULL;
}

char *
profile_slurp_fd(int fd, size_t max)
{
	FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
	char *buf;
	size_t n;

	if (f == NULL) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	buf = xmalloc(max + 1);
	n = fread(buf, 1, max, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* A kernel setting as an integer, or -1000 when it is not there. */
static int
profile_setting(const char *path)
{
	char *s = profile_slurp(path, 32);
	int v = -1000;

	if (s != NULL && s[0] != '\0')
		v = atoi(s);
	free(s);
	return v;
}

int
profile_exec(char *const *argv, const char *cwd, const char *out_path,
    int abort_fd, double timeout_s)
{
	struct leg_spec ls = {
		.path = argv[0], .argv = argv, .envp = environ, .cwd = cwd,
		.out_path = out_path,
		.timeout_s = timeout_s, .abort_fd = abort_fd,
	};
	struct leg_result res;
	char err[256];

	if (leg_run(&ls, &res, NULL, NULL, err, sizeof err) != 0)
		return -1;
	if (res.aborted)
		return -2;
	if (res.signal != 0)
		return 128 + res.signal;
	return res.exec_errno != 0 ? -1 : res.rc;
}

int
profile_exec_fd(char *const *argv, char *const *envp, const char *cwd,
    int out_fd, int abort_fd, double timeout_s)
{
	struct spawn_req rq = { .path = argv[0], .argv = argv,
	    .envp = envp != NULL ? envp : environ, .cwd = cwd,
	    .out_fd = out_fd };
	double deadline = timeout_s > 0 ? clock_now() + timeout_s : 0;
	char err[256];
	pid_t pid = spawn_run(&rq, NULL, err, sizeof err);
	int st, ret;

	if (pid < 0)
		return -1;
	/* A report of a few seconds: a look every 10 ms costs nothing. */
	for (;;) {
		struct pollfd pf = { .fd = abort_fd, .events = POLLIN };
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if ((abort_fd >= 0 && poll(&pf, 1, 10) > 0) ||
		    (deadline > 0 && clock_now() > deadline)) {
			procs_kill_group(pid);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
				;
			return abort_fd >= 0 && poll(&pf, 1, 0) > 0 ? -2 : 124;
		}
		if (abort_fd < 0)
			(void)poll(NULL, 0, 10);
	}
	procs_kill_group(pid);
	ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return ret;
}

double
profile_perf_rate(char *const *args, size_t n)
{
	double rate = 4000, max;
	char *s;

	/* perf record's own default is 4000 Hz, capped by the kernel */
	for (size_t i = 0; i < n; i++) {
		const char *a = args[i], *v = NULL;

		if ((strcmp(a, "-F") == 0 || strcmp(a, "--freq") == 0 ||
		    strcmp(a, "-c") == 0 || strcmp(a, "--count") == 0) &&
		    i + 1 < n)
			v = args[i + 1];
		else if (strncmp(a, "--freq=", 7) == 0 ||
		    strncmp(a, "--count=", 8) == 0)
			v = strchr(a, '=') + 1;
		else if (strncmp(a, "-F", 2) == 0 || strncmp(a, "-c", 2) == 0)
			v = a + 2;
		if (v == NULL || *v == '\0')
			continue;
		if (a[1] == 'c' || strncmp(a, "--count", 7) == 0) {
			/* a period: nanoseconds of a clock event; cycles at
			 * about 1 GHz read the same */
			double period = atof(v);

			if (period > 0)
				rate = 1e9 / period;
		} else if (strcmp(v, "max") == 0) {
			rate = 1e9;
		} else if (atof(v) > 0) {
			rate = atof(v);
		}
	}
	if ((s = profile_slurp("/proc/sys/kernel/perf_event_max_sample_rate",
	    32)) != NULL && (max = atof(s)) > 0 && rate > max)
		rate = max;
	free(s);
	return rate;
}

/* {"path", "version", "sha256"} of a tool, or null when it is missing. */
static json_t *
profile_tool(const char *name, const char *version_flag)
{
	char *path = spec_resolve_program(name, "/"), hex[DIGEST_HEX_LEN];
	char tmp[] = "/tmp/benchtui-version-XXXXXX", *text = NULL, *nl;
	char *argv[] = { path, (char *)version_flag, NULL };
	json_t *o;
	int fd;

	if (path == NULL)
		return json_null();
	o = json_object();
	json_object_set_new(o, "path", json_string(path));
	if ((fd = mkstemp(tmp)) >= 0) {
		close(fd);
		if (profile_exec(argv, "/", tmp, -1, 10.0) == 0)
			text = profile_slurp(tmp, 4096);
		unlink(tmp);
	}
	if (text != NULL && (nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	json_object_set_new(o, "version", text != NULL ? json_string(text) :
	    json_null());
	json_object_set_new(o, "sha256", digest_file(path, hex) == 0 ?
	    json_string(hex) : json_null());
	free(text);
	free(path);
	return o;
}

static json_t *
profile_setting_json(const char *path)
{
	int v = profile_setting(path);

	return v == -1000 ? json_null() : json_integer(v);
}

json_t *
profile_tools(void)
{
	json_t *o = json_object();

	json_object_set_new(o, "perf", profile_tool("perf", "--version"));
	json_object_set_new(o, "strace", profile_tool("strace", "-V"));
	json_object_set_new(o, "perf_event_paranoid",
	    profile_setting_json(PROFILE_PARANOID));
	json_object_set_new(o, "ptrace_scope",
	    profile_setting_json(PROFILE_PTRACE));
	return o;
}

const char *
profile_blocked_by(const char *kind, int paranoid, int ptrace_scope,
    bool root, char *buf, size_t len)
{
	/* strace attaches (ptrace); every other kind is perf's. */
	if (strcmp(kind, "syscalls") != 0) {
		/* 3 and above (a Debian patch) refuse perf_event_open to
		 * every user but root. */
		if (!root && paranoid >= 3) {
			snprintf(buf, len, "kernel.perf_event_paranoid is %d: "
			    "perf record is refused to users other than root "
			    "(it needs 2 or less)", paranoid);
			return buf;
		}
		return NULL;
	}
	if (ptrace_scope >= 3 || (ptrace_scope >= 1 && !root)) {
		snprintf(buf, len, "kernel.yama.ptrace_scope is %d: strace may "
		    "not attach to the cell's server (%s)", ptrace_scope,
		    ptrace_scope >= 3 ? "no process may be traced until reboot" :
		    ptrace_scope == 2 ? "only root may attach" : "only to its own "
		    "descendants, and the server is not one; it needs 0, or root");
		return buf;
	}
	return NULL;
}

const char *
profile_blocked(const char *kind, char *buf, size_t len)
{
	return profile_blocked_by(kind, profile_setting(PROFILE_PARANOID),
	    profile_setting(PROFILE_PTRACE), geteuid() == 0, buf, len);
}

static char *profile_line(char **p);

int
profile_perf_dwarf(void)
{
	char *path = spec_resolve_program("perf", "/");
	char tmp[] = "/tmp/benchtui-perfopts-XXXXXX", *text = NULL, *line, *p;
	char *argv[] = { path, "version", "--build-options", NULL };
	int fd, on = -1;

	if (path == NULL)
		return -1;
	if ((fd = mkstemp(tmp)) >= 0) {
		close(fd);
		if (profile_exec(argv, "/", tmp, -1, 10.0) == 0)
			text = profile_slurp(tmp, 1 << 16);
		unlink(tmp);
	}
	/* "libdw-dwarf-unwind: [ on  ]", "libunwind: [ OFF ]": either
	 * library unwinds; a perf that lists neither says nothing */
	for (p = text; p != NULL && (line = profile_line(&p)) != NULL;) {
		if (strstr(line, "unwind") == NULL || strchr(line, '[') == NULL)
			continue;
		if (on < 0)
			on = 0;
		if (strstr(strchr(line, '['), "on") != NULL)
			on = 1;
	}
	free(text);
	free(path);
	return on;
}

char **
profile_perf_args(char *const *args, size_t n, bool dwarf,
    const char **unwind)
{
	char **v = xcalloc(n + 3, sizeof *v);
	size_t bad, k = 0;
	const char *m = spec_perf_unwind(args, n, &bad);

	for (size_t i = 0; i < n; i++)
		v[k++] = args[i];
	if (m != NULL) {
		*unwind = m;
		return v;
	}
	v[k++] = "--call-graph";
	v[k++] = dwarf ? "dwarf," PROFILE_DWARF_STACK : "fp";
	*unwind = dwarf ? "dwarf" : "fp";
	return v;
}

json_t *
profile_warnings(const struct spec *s)
{
	json_t *w = json_array();
	char buf[256];
	const char *why;
	size_t bad;
	/* legs on another host: their perf profile is taken there, on what
	 * that host's perf and kernel allow (the profile event says) */
	bool perf_here = s->host == NULL && s->nhosts == 0;

	if (s->profile == NULL)
		return w;
	if (((s->profile->perf && perf_here && spec_perf_unwind(
	    s->profile->perf_args, s->profile->nperf_args, &bad) == NULL) ||
	    (s->profile->server_perf && spec_perf_unwind(
	    s->profile->srv_perf_args, s->profile->nsrv_perf_args, &bad) ==
	    NULL)) && profile_perf_dwarf() == 0)
		json_array_append_new(w, json_string("profile.perf: "
		    PROFILE_NO_DWARF));
	if (s->profile->perf && perf_here && (why = profile_blocked("perf",
	    buf, sizeof buf)) != NULL)
		json_array_append_new(w, json_pack("s+", "profile.perf: ", why));
	if (s->profile->server_perf && (why = profile_blocked("perf", buf,
	    sizeof buf)) != NULL)
		json_array_append_new(w, json_pack("s+", "profile.server_perf: ",
		    why));
	if (s->profile->syscalls && (why = profile_blocked("syscalls", buf,
	    sizeof buf)) != NULL)
		json_array_append_new(w, json_pack("s+", "profile.syscalls: ",
		    why));
	for (size_t i = 0; i < s->ncommand; i++)
		if (strstr(s->command[i], "${REP}") != NULL) {
			json_array_append_new(w, json_sprintf("command[%zu]: "
			    "${REP} is 0 in the profile legs, which run outside "
			    "the counted reps (as warm-up legs do)", i));
			break;
		}
	return w;
}

bool
profile_event_is_clock(const char *event)
{
	return strncmp(event, "cpu-clock", 9) == 0 ||
	    strncmp(event, "task-clock", 10) == 0;
}

/* One line of text, or NULL at the end; advances *p. */
static char *
profile_line(char **p)
{
	char *s = *p, *nl;

	if (*s == '\0')
		return NULL;
	if ((nl = strchr(s, '\n')) != NULL) {
		*nl = '\0';
		*p = nl + 1;
	} else {
		*p = s + strlen(s);
	}
	return s;
}

int
profile_strace_table(const char *text, json_t **rows, json_t **total,
    char *err, size_t errlen)
{
	char *copy = xstrdup(text), *p = copy, *line;
	long long sum = 0, sum_err = 0;
	bool other = false;

	*rows = json_array();
	*total = NULL;
	/* "% time  seconds  usecs/call  calls  errors syscall", the errors
	 * column blank when there were none. */
	while ((line = profile_line(&p)) != NULL) {
		char *f[8], *save = NULL, *tok;
		int nf = 0;
		long long calls, errors = 0;
		double secs;

		/* strace prints nothing at all when no traced call was made */
		if (line[strspn(line, " \t")] != '\0' && line[0] != '%' &&
		    line[0] != '-')
			other = true;
		for (tok = strtok_r(line, " \t", &save); tok != NULL && nf < 8;
		    tok = strtok_r(NULL, " \t", &save))
			f[nf++] = tok;
		if ((nf != 5 && nf != 6) || !isdigit((unsigned char)f[0][0]))
			continue;
		secs = strtod(f[1], NULL);
		calls = strtoll(f[3], NULL, 10);
		if (nf == 6)
			errors = strtoll(f[4], NULL, 10);
		if (strcmp(f[nf - 1], "total") == 0) {
			*total = json_pack("{s:I,s:I,s:f}", "calls",
			    (json_int_t)calls, "errors", (json_int_t)errors,
			    "seconds", secs);
			break;
		}
		sum += calls;
		sum_err += errors;
		json_array_append_new(*rows, json_pack("{s:s,s:I,s:I,s:f}",
		    "syscall", f[nf - 1], "calls", (json_int_t)calls, "errors",
		    (json_int_t)errors, "seconds", secs));
	}
	if (*total == NULL && !other) {
		/* an empty summary: the server made none of the traced
		 * calls, which is a finding, not a failure */
		*total = json_pack("{s:i,s:i,s:f}", "calls", 0, "errors", 0,
		    "seconds", 0.0);
		free(copy);
		return 0;
	}
	if (*total == NULL) {
		snprintf(err, errlen, "the strace summary has no total row");
		goto fail;
	}
	if (json_integer_value(json_object_get(*total, "calls")) != sum ||
	    json_integer_value(json_object_get(*total, "errors")) != sum_err) {
		snprintf(err, errlen, "the strace summary's rows add up to %lld "
		    "calls and %lld errors, its total row says %lld and %lld",
		    sum, sum_err,
		    (long long)json_integer_value(json_object_get(*total,
		    "calls")), (long long)json_integer_value(
		    json_object_get(*total, "errors")));
		goto fail;
	}
	free(copy);
	return 0;
fail:
	free(copy);
	return -1;
}
