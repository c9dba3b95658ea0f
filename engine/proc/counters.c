/* Perf counters for one leg.  Both backends live here because they share
 * everything but the open, the read and the close: the event table, the
 * paranoid fallback and the multiplexing arithmetic. */
#include "config.h"

#include "counters.h"

/* The libperf backend where the build has libperf, but in the copy of
 * this file the build compiles a second time with COUNTERS_RAW (the raw
 * backend's tests run beside the others, from the same build). */
#if HAVE_LIBPERF && !defined(COUNTERS_RAW)
#define COUNTERS_LIBPERF 1
#else
#define COUNTERS_LIBPERF 0
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#if COUNTERS_LIBPERF
#include <perf/core.h>
#include <perf/cpumap.h>
#include <perf/evsel.h>
#include <perf/threadmap.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#endif

struct counters_event_def {
	const char *name;
	uint32_t type;
	uint64_t config;
};

#define HW(n, c) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c }
#define SW(n, c) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c }
/* perf(1)'s names, so a round file reads like a perf stat command line. */
static const struct counters_event_def counters_defs[] = {
	HW("cycles", CPU_CYCLES),
	HW("instructions", INSTRUCTIONS),
	HW("branches", BRANCH_INSTRUCTIONS),
	HW("branch-misses", BRANCH_MISSES),
	HW("cache-references", CACHE_REFERENCES),
	HW("cache-misses", CACHE_MISSES),
	HW("ref-cycles", REF_CPU_CYCLES),
	HW("bus-cycles", BUS_CYCLES),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND),
	SW("task-clock", TASK_CLOCK),
	SW("cpu-clock", CPU_CLOCK),
	SW("page-faults", PAGE_FAULTS),
	SW("minor-faults", PAGE_FAULTS_MIN),
	SW("major-faults", PAGE_FAULTS_MAJ),
	SW("context-switches", CONTEXT_SWITCHES),
	SW("cpu-migrations", CPU_MIGRATIONS),
	SW("alignment-faults", ALIGNMENT_FAULTS),
	SW("emulation-faults", EMULATION_FAULTS),
};
#undef HW
#undef SW
#define COUNTERS_NDEFS (sizeof(counters_defs) / sizeof(counters_defs[0]))

/* An opened event: libperf's evsel, or the raw backend's fd. */
#if COUNTERS_LIBPERF
typedef struct perf_evsel *counters_handle;
#define COUNTERS_NONE NULL
#else
typedef int counters_handle;
#define COUNTERS_NONE (-1)
#endif

struct counters_event {
	const struct counters_event_def *def; /* NULL: unknown name */
	char *name;
	int err;          /* errno of the failed open, 0 when opened */
	bool open;
	bool counted;     /* read gave a value */
	bool multiplexed;
	uint64_t value;   /* scaled */
	counters_handle h;    /* this leg's, or COUNTERS_NONE */
	counters_handle kept; /* the last leg's, read, closed at the next
	                       * open */
};

struct counters {
	int n;
	struct counters_event *ev;
	bool user_only;
#if COUNTERS_LIBPERF
	struct perf_thread_map *threads;
#endif
};

const char *
counters_backend(void)
{
#if COUNTERS_LIBPERF
	return "libperf";
#else
	return "perf_event_open";
#endif
}

static const struct counters_event_def *
counters_lookup(const char *name)
{
	if (name == NULL)
		return NULL;
	for (size_t i = 0; i < COUNTERS_NDEFS; i++)
		if (strcmp(counters_defs[i].name, name) == 0)
			return &counters_defs[i];
	return NULL;
}

bool
counters_known(const char *name)
{
	return counters_lookup(name) != NULL;
}

bool
counters_is_hardware(const char *name)
{
	const struct counters_event_def *d = counters_lookup(name);

	return d != NULL && d->type == PERF_TYPE_HARDWARE;
}

const char *const *
counters_names(void)
{
	static const char *names[COUNTERS_NDEFS + 1];

	/* Filled on every call: idempotent, so concurrent callers race only
	 * to store the same pointers. */
	for (size_t i = 0; i < COUNTERS_NDEFS; i++)
		names[i] = counters_defs[i].name;
	names[COUNTERS_NDEFS] = NULL;
	return names;
}

struct counters *
counters_create(const char *const *names, int n)
{
	struct counters *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	if (n < 0)
		n = 0;
	c->n = n;
	c->ev = calloc(n > 0 ? (size_t)n : 1, sizeof(*c->ev));
	if (c->ev == NULL)
		goto fail;
	for (int i = 0; i < n; i++) {
		struct counters_event *e = &c->ev[i];

		e->h = e->kept = COUNTERS_NONE;
		e->name = strdup(names[i] != NULL ? names[i] : "");
		if (e->name == NULL)
			goto fail;
		e->def = counters_lookup(names[i]);
		/* An unknown name is the caller's bug (spec validates names);
		 * keep it as an event that never opens rather than failing. */
		if (e->def == NULL)
			e->err = EINVAL;
	}
	return c;
fail:
	counters_destroy(c);
	return NULL;
}

static void
counters_attr_def(struct perf_event_attr *attr,
    const struct counters_event_def *d, bool user_only, bool on_exec)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = d->type;
	attr->config = d->config;
	if (on_exec) {
		attr->disabled = 1;
		attr->enable_on_exec = 1; /* nothing of the harness before exec */
	}
	attr->inherit = 1;        /* the leg's children count too */
	attr->exclude_hv = 1;
	attr->exclude_kernel = user_only ? 1 : 0;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
	    PERF_FORMAT_TOTAL_TIME_RUNNING;
}

bool
counters_attr(struct perf_event_attr *attr, const char *name, bool user_only,
    bool on_exec)
{
	const struct counters_event_def *d = counters_lookup(name);

	if (d == NULL)
		return false;
	counters_attr_def(attr, d, user_only, on_exec);
	return true;
}

bool
counters_scale(uint64_t val, uint64_t ena, uint64_t run, uint64_t *value)
{
	if (run == 0) {
		*value = 0;
		return false;
	}
	if (run < ena)
		*value = (uint64_t)((double)val * ((double)ena / (double)run));
	else
		*value = val;
	return true;
}

/* An event's value from its read: scaled, and whether it was multiplexed.
 * false when it never ran although enabled: no honest value exists. */
static bool
counters_scale_event(struct counters_event *e, uint64_t val, uint64_t ena,
    uint64_t run)
{
	e->multiplexed = run < ena;
	/* run == 0 with ena == 0: the leg ended before exec enabled it (the
	 * exec failed): its program never ran, so there is no count (null),
	 * not a count of 0. */
	return counters_scale(val, ena, run, &e->value);
}

#if COUNTERS_LIBPERF

static int
counters_libperf_print(enum libperf_print_level level, const char *fmt,
    va_list ap)
{
	/* libperf's debug output would land on the console; the errno of
	 * each open is what the caller reports. */
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

static pthread_once_t counters_libperf_once = PTHREAD_ONCE_INIT;

static void
counters_libperf_init(void)
{
	libperf_init(counters_libperf_print);
}

/* Whether fd is a perf event fd. */
static bool
counters_is_perf_fd(int fd)
{
	char path[64], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, "anon_inode:[perf_event]") == 0;
}

/* The slow path: mark every perf fd of ours close-on-exec. */
static void
counters_cloexec_perf_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		int fd, flags;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		fd = atoi(de->d_name);
		if (fd == dirfd(d))
			continue;
		flags = fcntl(fd, F_GETFD);
		if (flags < 0 || (flags & FD_CLOEXEC))
			continue;
		if (counters_is_perf_fd(fd))
			fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
	}
	closedir(d);
}

/* libperf opens without PERF_FLAG_FD_CLOEXEC and does not hand out its fds,
 * yet no counter fd may reach a child.  The kernel gives the lowest free
 * number, so note it before the open and mark that fd after; if another
 * thread took the number meanwhile, *rescan asks for the full /proc scan
 * (some 50 us, too slow for every leg). */
static int
counters_open_one(struct counters *c, struct counters_event *e, pid_t pid,
    bool *rescan)
{
	struct perf_event_attr attr;
	int rc, lowest, flags;

	(void)pid;
	counters_attr_def(&attr, e->def, c->user_only, true);
	e->h = perf_evsel__new(&attr);
	if (e->h == NULL)
		return ENOMEM;
	lowest = fcntl(0, F_DUPFD_CLOEXEC, 0);
	if (lowest >= 0)
		close(lowest);
	else
		lowest = 0; /* fd 0 itself is free */
	rc = perf_evsel__open(e->h, NULL, c->threads);
	if (rc < 0) {
		perf_evsel__delete(e->h);
		e->h = NULL;
		return -rc;
	}
	/* The number libperf took, unless another thread took it first:
	 * then it has its flag already (benchtui opens its files
	 * close-on-exec) and the scan finds the perf fd.  No readlink of
	 * /proc/self/fd to make sure (three of those a leg cost more than
	 * the rest of the open): at worst a perf fd stays open across an
	 * exec, and the one spawn path closes every fd above 2 before its
	 * exec anyway (spawn_child.c). */
	flags = fcntl(lowest, F_GETFD);
	if (flags >= 0 && !(flags & FD_CLOEXEC))
		fcntl(lowest, F_SETFD, flags | FD_CLOEXEC);
	else
		*rescan = true;
	return 0;
}

static void
counters_close_handle(counters_handle *h)
{
	if (*h == NULL)
		return;
	perf_evsel__close(*h);
	perf_evsel__delete(*h);
	*h = NULL;
}

static bool
counters_read_one(struct counters_event *e)
{
	struct perf_counts_values v;

	if (e->h == NULL)
		return false;
	memset(&v, 0, sizeof(v));
	if (perf_evsel__read(e->h, 0, 0, &v) < 0)
		return false;
	return counters_scale_event(e, v.val, v.ena, v.run);
}

#else /* raw perf_event_open(2) */

static int
counters_open_one(struct counters *c, struct counters_event *e, pid_t pid,
    bool *rescan)
{
	struct perf_event_attr attr;
	long fd;

	(void)rescan; /* PERF_FLAG_FD_CLOEXEC: nothing to mend */
	counters_attr_def(&attr, e->def, c->user_only, true);
	fd = syscall(SYS_perf_event_open, &attr, pid, -1, -1,
	    PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	e->h = (int)fd;
	return 0;
}

static void
counters_close_handle(counters_handle *h)
{
	if (*h >= 0)
		close(*h);
	*h = -1;
}

static bool
counters_read_one(struct counters_event *e)
{
	uint64_t buf[3]; /* value, time_enabled, time_running */
	ssize_t n;

	if (e->h < 0)
		return false;
	do
		n = read(e->h, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(buf))
		return false;
	return counters_scale_event(e, buf[0], buf[1], buf[2]);
}

#endif

static void
counters_close_one(struct counters_event *e)
{
	counters_close_handle(&e->h);
}

static void
counters_close_kept_one(struct counters_event *e)
{
	counters_close_handle(&e->kept);
}

/* The event, read, kept open until the next leg's has opened. */
static void
counters_keep_one(struct counters_event *e)
{
	counters_close_kept_one(e);
	e->kept = e->h;
	e->h = COUNTERS_NONE;
}

static void
counters_close_all(struct counters *c)
{
	for (int i = 0; i < c->n; i++) {
		counters_close_one(&c->ev[i]);
		c->ev[i].open = false;
	}
}

/* The last leg's events, kept open while the next leg's opened. */
static void
counters_close_kept(struct counters *c)
{
	for (int i = 0; i < c->n; i++)
		counters_close_kept_one(&c->ev[i]);
}

/* The machine lacks the event: no later leg will open it either, so a
 * reused set does not ask again (two wasted syscalls per leg on a VM). */
static bool
counters_absent(int err)
{
	return err == ENOENT || err == EOPNOTSUPP || err == ENODEV;
}

void
counters_open(struct counters *c, pid_t pid)
{
	bool rescan = false;

	if (c == NULL)
		return;
#if COUNTERS_LIBPERF
	pthread_once(&counters_libperf_once, counters_libperf_init);
	if (c->threads == NULL)
		c->threads = perf_thread_map__new_array(1, &pid);
	else
		perf_thread_map__set_pid(c->threads, 0, pid);
	if (c->threads == NULL) {
		for (int i = 0; i < c->n; i++)
			if (c->ev[i].def != NULL)
				c->ev[i].err = ENOMEM;
		return;
	}
#endif
	/* A set may be reused leg after leg: forget the last leg's values. */
	for (int i = 0; i < c->n; i++) {
		c->ev[i].counted = false;
		c->ev[i].multiplexed = false;
		c->ev[i].value = 0;
	}
again:
	for (int i = 0; i < c->n; i++) {
		struct counters_event *e = &c->ev[i];
		int err;

		if (e->def == NULL || e->open || counters_absent(e->err))
			continue;
		err = counters_open_one(c, e, pid, &rescan);
		if (err == EACCES && !c->user_only) {
			/* perf_event_paranoid may forbid kernel counting to a
			 * non-root user.  If user space alone opens, count
			 * every event that way so that they stay comparable;
			 * if not, the EACCES has another cause (ptrace
			 * access to pid) and stands. */
			c->user_only = true;
			if (counters_open_one(c, e, pid, &rescan) == 0) {
				counters_close_one(e);
				counters_close_all(c);
				goto again;
			}
			c->user_only = false;
		}
		e->err = err;
		e->open = err == 0;
	}
#if COUNTERS_LIBPERF
	if (rescan)
		counters_cloexec_perf_fds();
#endif
	/* Only now: this leg's events hold the kernel's switches on. */
	counters_close_kept(c);
}

void
counters_read(struct counters *c)
{
	if (c == NULL)
		return;
	for (int i = 0; i < c->n; i++) {
		struct counters_event *e = &c->ev[i];

		/* Never read an event that did not open: libperf would
		 * dereference its missing fd array. */
		if (e->open)
			e->counted = counters_read_one(e);
		counters_keep_one(e);
		e->open = false;
	}
}

void
counters_read_close(struct counters *c)
{
	if (c == NULL)
		return;
	counters_read(c);
	counters_close_kept(c);
}

int
counters_count(const struct counters *c)
{
	return c != NULL ? c->n : 0;
}

const char *
counters_name(const struct counters *c, int i)
{
	if (c == NULL || i < 0 || i >= c->n)
		return NULL;
	return c->ev[i].name;
}

bool
counters_value(const struct counters *c, int i, uint64_t *value)
{
	if (c == NULL || i < 0 || i >= c->n || !c->ev[i].counted)
		return false;
	if (value != NULL)
		*value = c->ev[i].value;
	return true;
}

int
counters_errno(const struct counters *c, int i)
{
	if (c == NULL || i < 0 || i >= c->n)
		return EINVAL;
	return c->ev[i].err;
}

bool
counters_multiplexed(const struct counters *c, int i)
{
	if (c == NULL || i < 0 || i >= c->n)
		return false;
	return c->ev[i].multiplexed;
}

bool
counters_user_only(const struct counters *c)
{
	return c != NULL && c->user_only;
}

void
counters_destroy(struct counters *c)
{
	if (c == NULL)
		return;
	if (c->ev != NULL) {
		counters_close_all(c);
		counters_close_kept(c);
		for (int i = 0; i < c->n; i++)
			free(c->ev[i].name);
		free(c->ev);
	}
#if COUNTERS_LIBPERF
	if (c->threads != NULL)
		perf_thread_map__put(c->threads);
#endif
	free(c);
}

/* The probe of counters_default: opened on ourselves, disabled and never
 * enabled, as the provenance's probe does. */
static const char *const *counters_default_list;

static void
counters_default_probe(void)
{
	static const char *const hw[] = { "cycles", "instructions", NULL };
	static const char *const sw[] = { "task-clock", "page-faults",
	    "context-switches", NULL };
	struct counters *c = counters_create(hw, 2);
	bool ok = c != NULL;

	if (c != NULL) {
		counters_open(c, getpid());
		for (int i = 0; i < counters_count(c); i++)
			ok = ok && counters_errno(c, i) == 0;
		counters_read_close(c);
		counters_destroy(c);
	}
	counters_default_list = ok ? hw : sw;
}

const char *const *
counters_default(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, counters_default_probe);
	return counters_default_list;
}
