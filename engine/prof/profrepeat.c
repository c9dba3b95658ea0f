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
#include <sys/resource.h>
#include <sys/wait.h>

#include "clock.h"
#include "procs.h"
#include "spawn.h"

extern char **environ;

/* perf takes fewer samples than CPU time x rate: a run's first tick comes
 * a period after its start, and what the kernel does for the run's exec
 * and exit is partly outside perf's events.  Measured here at 999 Hz, the
 * loss per run was 0.7 to 0.8 (prof-hot, 2 to 25 ms runs) and 1.1 to 1.5
 * (zstd on 512 KiB, 4 to 17 ms runs).  The estimate takes off 1.5 per run
 * (but keeps at least 40% of CPU time x rate, for runs shorter than a
 * period) and aims this much above min_samples. */
#define PROFREPEAT_PER_RUN 1.5
#define PROFREPEAT_MARGIN 1.1

struct profrepeat {
	double min_samples, max_s, rate, timeout_s;
	const char *result, *path;
	char **argv;
	/* what the runs did */
	long runs;
	double cpu_s, wall_s;
	int rc, sig;
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

static int
profrepeat_args(struct profrepeat *p, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i += 2) {
		const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (v == NULL)
			return profrepeat_usage("an option without its value");
		if (strcmp(k, "--min-samples") == 0)
			p->min_samples = atof(v);
		else if (strcmp(k, "--max-s") == 0)
			p->max_s = atof(v);
		else if (strcmp(k, "--rate") == 0)
			p->rate = atof(v);
		else if (strcmp(k, "--timeout") == 0)
			p->timeout_s = atof(v);
		else if (strcmp(k, "--result") == 0)
			p->result = v;
		else if (strcmp(k, "--path") == 0)
			p->path = v;
		else
			return profrepeat_usage("an unknown option");
	}
	if (i >= argc - 1 || p->result == NULL || p->path == NULL ||
	    p->rate <= 0 || p->max_s <= 0)
		return profrepeat_usage("missing --result, --path, --rate, "
		    "--max-s or the command after --");
	p->argv = argv + i + 1;
	return 0;
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

/* One run; false when it did not exit 0 (p says how). */
static bool
profrepeat_run(struct profrepeat *p)
{
	struct spawn_req rq = { .path = p->path, .argv = p->argv,
	    .envp = environ, .out_fd = 1 };
	struct rusage ru = { 0 };
	char err[256];
	int pidfd = -1, st;
	pid_t pid = spawn_run(&rq, &pidfd, err, sizeof err);

	if (pid < 0) {
		fprintf(stderr, "benchtui prof-repeat: %s\n", err);
		p->rc = 127;
		return false;
	}
	st = profrepeat_wait(pid, pidfd, p->timeout_s > 0 ? clock_now() +
	    p->timeout_s : 0, &ru, &p->timed_out);
	if (pidfd >= 0)
		close(pidfd);
	p->runs++;
	p->cpu_s += (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
	if (st < 0 || p->timed_out) {
		p->rc = -1;
		return false;
	}
	p->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	p->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	return p->rc == 0;
}

/* The samples perf has taken so far, as the runs' CPU time tells. */
static double
profrepeat_estimate(const struct profrepeat *p)
{
	double full = p->cpu_s * p->rate,
	    est = full - PROFREPEAT_PER_RUN * (double)p->runs;

	return est > 0.4 * full ? est : 0.4 * full;
}

int
profrepeat_main(int argc, char **argv)
{
	struct profrepeat p = { .min_samples = 2000, .max_s = 60,
	    .rate = 4000 };
	double t0;
	FILE *f;
	int fd;

	if (profrepeat_args(&p, argc, argv) != 0)
		return 2;
	/* the runs are this process's children: perf record follows them */
	t0 = clock_now();
	for (;;) {
		if (!profrepeat_run(&p)) {
			p.stopped = "failed";
			break;
		}
		if (profrepeat_estimate(&p) >= p.min_samples *
		    PROFREPEAT_MARGIN) {
			p.stopped = "samples";
			break;
		}
		if (clock_now() - t0 >= p.max_s) {
			p.stopped = "max_s";
			break;
		}
	}
	p.wall_s = clock_now() - t0;
	if ((fd = open(p.result, O_WRONLY | O_TRUNC | O_CLOEXEC)) < 0 ||
	    (f = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "benchtui prof-repeat: %s: %s\n", p.result,
		    strerror(errno));
		return 1;
	}
	fprintf(f, "{\"runs\": %ld, \"cpu_s\": %.6f, \"wall_s\": %.6f, "
	    "\"stopped\": \"%s\", \"rc\": %d, \"signal\": %d, "
	    "\"timed_out\": %s}\n", p.runs, p.cpu_s, p.wall_s, p.stopped, p.rc,
	    p.sig, p.timed_out ? "true" : "false");
	return fclose(f) == 0 ? 0 : 1;
}
