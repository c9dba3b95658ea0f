/* benchtui prof-repeat: a leg repeated under one perf record (see
 * profrepeat.h). */
#include "profrepeat.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <jansson.h>

#include "clock.h"
#include "procs.h"
#include "spawn.h"
#include "xalloc.h"

/* perf takes fewer samples than CPU time x rate: a run's first tick comes
 * a period after its start, and what the kernel does for the run's exec
 * and exit is partly outside perf's events.  Measured here at 999 Hz, the
 * loss per run was 0.7 to 0.8 (prof-hot, 2 to 25 ms runs) and 1.1 to 1.5
 * (zstd on 512 KiB, 4 to 17 ms runs).  The estimate takes off 1.5 per run
 * (but keeps at least 40% of CPU time x rate, for runs shorter than a
 * period) and aims this much above min_samples. */
#define PROFREPEAT_PER_RUN 1.5
#define PROFREPEAT_MARGIN 1.1

/* The run under way (its own session and group), for the signal that
 * ends the runner: a recording stopped (an abort, a timeout) ends the
 * run with it, never leaves it running alone. */
static volatile sig_atomic_t profrepeat_child;

static void
profrepeat_on_signal(int sig)
{
	pid_t run = (pid_t)profrepeat_child;

	if (run > 0) {
		kill(-run, SIGKILL);
		kill(run, SIGKILL);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

/* One arm of the plan: what it runs, and what its runs did so far. */
struct profrepeat_arm {
	const char *path, *cwd;
	char **argv, **envp;
	bool fixed;                 /* runs with the runner's fixed layout */
	long runs;
	double cpu_s;
};

struct profrepeat {
	double min_samples, max_s, rate, timeout_s;
	long min_runs;
	const char *result, *plan;
	json_t *pj;                 /* the plan as read */
	struct profrepeat_arm *arms;
	size_t narms;
	json_t *list;               /* [{"arm", "pid", "cpu_s"}] in order */
	int persona;                /* the personality, randomized layout */
	/* how the last run ended */
	long runs;
	int rc, sig, failed_arm;
	bool timed_out;
	const char *stopped;
};

static int
profrepeat_usage(const char *why)
{
	fprintf(stderr, "benchtui prof-repeat: %s (it is run by a round's "
	    "perf profile, not by hand)\n", why);
	return 2;
}

/* A NULL-terminated copy of an array of strings (borrowed from j), or
 * NULL when it is not one. */
static char **
profrepeat_strv(const json_t *j)
{
	size_t n = json_array_size(j), i;
	char **v;
	const json_t *x;

	if (!json_is_array(j))
		return NULL;
	v = xcalloc(n + 1, sizeof *v);
	json_array_foreach(j, i, x)
		if ((v[i] = (char *)json_string_value(x)) == NULL) {
			free(v);
			return NULL;
		}
	return v;
}

static int
profrepeat_plan(struct profrepeat *p)
{
	json_t *a;
	size_t i;

	if ((p->pj = json_load_file(p->plan, 0, NULL)) == NULL)
		return profrepeat_usage("the plan cannot be read");
	p->min_samples = json_number_value(json_object_get(p->pj,
	    "min_samples"));
	p->min_runs = (long)json_integer_value(json_object_get(p->pj,
	    "min_runs"));
	p->max_s = json_number_value(json_object_get(p->pj, "max_s"));
	p->rate = json_number_value(json_object_get(p->pj, "rate"));
	p->timeout_s = json_number_value(json_object_get(p->pj, "timeout"));
	p->narms = json_array_size(json_object_get(p->pj, "arms"));
	if (p->narms == 0 || p->rate <= 0 || p->max_s <= 0)
		return profrepeat_usage("the plan has no arms, rate or max_s");
	p->arms = xcalloc(p->narms, sizeof *p->arms);
	json_array_foreach(json_object_get(p->pj, "arms"), i, a) {
		struct profrepeat_arm *m = &p->arms[i];

		m->path = json_string_value(json_object_get(a, "path"));
		m->cwd = json_string_value(json_object_get(a, "cwd"));
		m->argv = profrepeat_strv(json_object_get(a, "argv"));
		m->envp = profrepeat_strv(json_object_get(a, "env"));
		m->fixed = json_is_true(json_object_get(a, "fixed_layout"));
		if (m->path == NULL || m->argv == NULL || m->argv[0] == NULL ||
		    m->envp == NULL)
			return profrepeat_usage("an arm of the plan lacks its "
			    "path, argv or env");
	}
	return 0;
}

static int
profrepeat_args(struct profrepeat *p, int argc, char **argv)
{
	for (int i = 1; i < argc; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			return profrepeat_usage("an option without its value");
		if (strcmp(k, "--plan") == 0)
			p->plan = v;
		else if (strcmp(k, "--result") == 0)
			p->result = v;
		else
			return profrepeat_usage("an unknown option");
	}
	if (p->result == NULL || p->plan == NULL)
		return profrepeat_usage("missing --plan or --result");
	return profrepeat_plan(p);
}

/* Wait for pid (its pidfd, or -1) until its end or the deadline (0:
 * none): its status, with *ru; the whole group killed after it. */
static int
profrepeat_wait(pid_t pid, int pidfd, double deadline, struct rusage *ru,
    bool *timed_out)
{
	int st = 0;

	*timed_out = false;
	for (;;) {
		struct pollfd pf = { .fd = pidfd, .events = POLLIN };
		double left = deadline > 0 ? deadline - clock_now() : 1;
		pid_t w = wait4(pid, &st, WNOHANG, ru);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (deadline > 0 && left <= 0) {
			*timed_out = true;
			procs_kill_group(pid);
			while (wait4(pid, &st, 0, ru) < 0 && errno == EINTR)
				;
			break;
		}
		/* a pidfd wakes at the exit; without one, look every ms */
		(void)poll(pidfd >= 0 ? &pf : NULL, pidfd >= 0 ? 1 : 0,
		    pidfd >= 0 ? (int)(left * 1000) + 1 : 1);
	}
	procs_kill_group(pid);
	return st;
}

/* One run of arm k; false when it did not exit 0 (p says how).  Its pid
 * goes on the list: every sample of its process tree is this run's (the
 * runs follow each other, so a run's processes have the pids from its
 * own up to the next run's). */
static bool
profrepeat_run(struct profrepeat *p, size_t k)
{
	struct profrepeat_arm *m = &p->arms[k];
	struct spawn_req rq = { .path = m->path, .argv = m->argv,
	    .envp = m->envp, .cwd = m->cwd, .out_fd = 1 };
	struct rusage ru = { 0 };
	char err[256];
	int pidfd = -1, st;
	pid_t pid;
	double cpu;

	/* perf keeps a process's maps from before its exec, and perf 6.1's
	 * unwinder takes a library's base as the lowest of its maps: a run
	 * whose libc lies above this runner's unwinds nothing through libc
	 * (memcpy's callers lost, in about half the runs).  The runner was
	 * started with the fixed layout, its libraries at the top, and each
	 * run gets its own randomized layout below them again; a run of
	 * benchtui itself keeps the fixed layout, where its maps are the
	 * runner's. */
	(void)personality((unsigned long)(m->fixed ? p->persona |
	    ADDR_NO_RANDOMIZE : p->persona));
	pid = spawn_run(&rq, &pidfd, err, sizeof err);
	profrepeat_child = pid > 0 ? pid : 0;
	(void)personality((unsigned long)p->persona);
	p->failed_arm = (int)k;
	if (pid < 0) {
		fprintf(stderr, "benchtui prof-repeat: %s\n", err);
		p->rc = 127;
		return false;
	}
	st = profrepeat_wait(pid, pidfd, p->timeout_s > 0 ? clock_now() +
	    p->timeout_s : 0, &ru, &p->timed_out);
	profrepeat_child = 0;
	if (pidfd >= 0)
		close(pidfd);
	cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	p->runs++;
	m->runs++;
	m->cpu_s += cpu;
	json_array_append_new(p->list, json_pack("{s:i,s:i,s:f}", "arm",
	    (int)k, "pid", (int)pid, "cpu_s", cpu));
	if (st < 0 || p->timed_out) {
		p->rc = -1;
		return false;
	}
	p->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	p->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return p->rc == 0;
}

/* The samples perf has taken of an arm so far, as its runs' CPU time
 * tells. */
static double
profrepeat_estimate(const struct profrepeat *p, const struct profrepeat_arm *m)
{
	double full = m->cpu_s * p->rate,
	    est = full - PROFREPEAT_PER_RUN * (double)m->runs;

	return est > 0.4 * full ? est : 0.4 * full;
}

/* Whether every arm has its samples and its runs. */
static bool
profrepeat_enough(const struct profrepeat *p)
{
	for (size_t k = 0; k < p->narms; k++)
		if (p->arms[k].runs < p->min_runs || profrepeat_estimate(p,
		    &p->arms[k]) < p->min_samples * PROFREPEAT_MARGIN)
			return false;
	return true;
}

/* Passes over the arms in mirror order (A B, B A, A B, ...), so that
 * drift lands on every arm alike, until every arm has enough, or max_s
 * have passed (at the end of a pass). */
static void
profrepeat_loop(struct profrepeat *p)
{
	double t0 = clock_now();

	for (long pass = 0;; pass++) {
		for (size_t i = 0; i < p->narms; i++) {
			size_t k = pass % 2 == 0 ? i : p->narms - 1 - i;

			if (!profrepeat_run(p, k)) {
				p->stopped = "failed";
				return;
			}
		}
		if (profrepeat_enough(p)) {
			p->stopped = "samples";
			return;
		}
		if (clock_now() - t0 >= p->max_s) {
			p->stopped = "max_s";
			return;
		}
	}
}

int
profrepeat_main(int argc, char **argv)
{
	struct profrepeat p = { .list = json_array() };
	json_t *res, *arms = json_array();
	double t0;
	int fd, rc = 0;

	if (profrepeat_args(&p, argc, argv) != 0)
		rc = 2;
	p.persona = personality(0xffffffff);
	p.persona = p.persona >= 0 ? p.persona & ~ADDR_NO_RANDOMIZE : 0;
	signal(SIGTERM, profrepeat_on_signal);
	signal(SIGINT, profrepeat_on_signal);
	signal(SIGHUP, profrepeat_on_signal);
	/* the runs are this process's children: perf record follows them */
	t0 = clock_now();
	if (rc == 0)
		profrepeat_loop(&p);
	for (size_t k = 0; rc == 0 && k < p.narms; k++)
		json_array_append_new(arms, json_pack("{s:i,s:f}", "runs",
		    (int)p.arms[k].runs, "cpu_s", p.arms[k].cpu_s));
	res = json_pack("{s:i,s:i,s:f,s:s,s:i,s:i,s:b,s:i,s:o,s:o}", "self",
	    (int)getpid(), "runs",
	    (int)p.runs, "wall_s", clock_now() - t0, "stopped",
	    p.stopped != NULL ? p.stopped : "usage", "rc", p.rc, "signal",
	    p.sig, "timed_out", p.timed_out, "failed_arm", p.failed_arm,
	    "arms", arms, "list", p.list);
	if (rc == 0 && ((fd = open(p.result, O_WRONLY | O_TRUNC | O_CLOEXEC)) <
	    0 || json_dumpfd(res, fd, JSON_COMPACT) != 0 || close(fd) != 0)) {
		fprintf(stderr, "benchtui prof-repeat: %s: %s\n", p.result,
		    strerror(errno));
		rc = 1;
	}
	json_decref(res);
	for (size_t k = 0; k < p.narms; k++) {
		free(p.arms[k].argv);
		free(p.arms[k].envp);
	}
	free(p.arms);
	json_decref(p.pj);
	return rc;
}

char **
profrepeat_perf_argv(const char *perf, char *const *args, const char *data,
    const char *self, const char *plan, const char *result)
{
	size_t n = 0, k = 0;
	char **argv;

	while (args != NULL && args[n] != NULL)
		n++;
	argv = xcalloc(n + 16, sizeof *argv);
	argv[k++] = (char *)perf;
	argv[k++] = "record";
	for (size_t i = 0; i < n; i++)
		argv[k++] = args[i];
	argv[k++] = "-o";
	argv[k++] = (char *)data;
	argv[k++] = "--";
	argv[k++] = (char *)self;
	argv[k++] = PROFREPEAT_CMD;
	argv[k++] = "--plan";
	argv[k++] = (char *)plan;
	argv[k++] = "--result";
	argv[k++] = (char *)result;
	return argv;
}

void
profrepeat_layout_fix(int *saved)
{
	*saved = personality(0xffffffff);
	if (*saved >= 0)
		(void)personality((unsigned long)*saved | ADDR_NO_RANDOMIZE);
}

void
profrepeat_layout_restore(int saved)
{
	if (saved >= 0)
		(void)personality((unsigned long)saved);
}
