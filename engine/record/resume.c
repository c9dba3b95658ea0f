/* Reading a round folder back, for resume and `seal --partial`.
 *
 * The log is the truth: a leg is done when it has a leg line whose status is
 * not "aborted", whatever happened around it.  A torn last line (a crash in
 * the middle of a write) is cut off the file before anything appends to it,
 * so the next line starts on a line boundary. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "event.h"
#include "logread.h"
#include "resume.h"
#include "procs.h"
#include "seal.h"
#include "rfile.h"
#include "tally.h"
#include "xalloc.h"

/* A process that a killed benchtui may have left behind. */
struct resume_proc {
	pid_t pid;
	double lo, hi;   /* it started between these (epoch seconds), or pid
	                  * was reused; lo 0: unknown */
	char key[160];   /* "cell\x1farm\x1frep" for legs, "cell" for servers */
	bool server;
	bool ledger;     /* from a "ledger" line: any process of the round's
	                  * tree, ended when it started at lo exactly */
};

struct resume_state {
	char *dir;
	json_t *events;     /* every event, in order */
	json_t *round_ev;   /* borrowed from events */
	json_t *env;        /* the env event, or environment.json */
	char *workdir;
	char **done;        /* counted legs' keys, sorted (strcmp) */
	size_t ndone, capdone;
	struct resume_proc *procs;
	size_t nprocs, capprocs;
	size_t torn_bytes;
	bool completed;
	bool sealed;
	json_t *server_starting; /* {cell: ts of its "starting" line} */
	json_t *decided;    /* {cell: rep of the look that decided it} */
	json_t *cgroups;    /* the "cgroup" events' paths: earlier runs' groups */
	json_t *died;       /* {leg key: true}: benchtui died while it ran */
};

static double
resume_ts(const json_t *ev)
{
	const char *ts = json_string_value(json_object_get(ev, "ts"));
	struct tm tm = { 0 };
	int ms = 0;

	if (ts == NULL || sscanf(ts, "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year,
	    &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec,
	    &ms) < 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (double)timegm(&tm) + ms / 1000.0;
}

/* "cell\x1farm\x1frep": the identity of a leg, into key.  -1 when it does
 * not fit. */
static int
resume_key(char *key, size_t len, const char *cell, const char *arm,
    long long rep)
{
	return snprintf(key, len, "%s\x1f%s\x1f%lld", cell, arm, rep) >=
	    (int)len ? -1 : 0;
}

/* A leg line's key.  -1 when a field is missing or it does not fit. */
static int
resume_leg_key(const json_t *ev, char *key, size_t len)
{
	const char *cell = json_string_value(json_object_get(ev, "cell"));
	const char *arm = json_string_value(json_object_get(ev, "arm"));
	json_t *rep = json_object_get(ev, "rep");

	if (cell == NULL || arm == NULL || !json_is_integer(rep))
		return -1;
	return resume_key(key, len, cell, arm,
	    (long long)json_integer_value(rep));
}

/* Index of key in the sorted done list, or where it would go (*found
 * false).  Lookups are per planned leg, so they must stay cheap on rounds of
 * thousands of legs. */
static size_t
resume_find_done(const struct resume_state *rs, const char *key, bool *found)
{
	size_t lo = 0, hi = rs->ndone;

	*found = false;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(rs->done[mid], key);
		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int
resume_add_done(struct resume_state *rs, const char *key)
{
	bool found;
	size_t at = resume_find_done(rs, key, &found);

	if (found)
		return 0;
	if (rs->ndone == rs->capdone) {
		rs->capdone = xgrow(rs->capdone, rs->ndone + 1, 64);
		rs->done = xreallocarray(rs->done, rs->capdone, sizeof *rs->done);
	}
	memmove(&rs->done[at + 1], &rs->done[at],
	    (rs->ndone - at) * sizeof *rs->done);
	rs->done[at] = xstrdup(key);
	rs->ndone++;
	return 0;
}

static struct resume_proc *
resume_add_proc(struct resume_state *rs)
{
	if (rs->nprocs == rs->capprocs) {
		rs->capprocs = xgrow(rs->capprocs, rs->nprocs + 1, 16);
		rs->procs = xreallocarray(rs->procs, rs->capprocs,
		    sizeof *rs->procs);
	}
	memset(&rs->procs[rs->nprocs], 0, sizeof rs->procs[0]);
	return &rs->procs[rs->nprocs++];
}

/* Drop every entry with this key (its end line arrived).  Only unfinished
 * processes stay in the list, so it stays short however long the log. */
static void
resume_close_procs(struct resume_state *rs, const char *key, bool server)
{
	for (size_t i = rs->nprocs; i-- > 0;)
		if (rs->procs[i].server == server &&
		    strcmp(rs->procs[i].key, key) == 0)
			rs->procs[i] = rs->procs[--rs->nprocs];
}

/* A leg line: its process ended, and the leg is done unless aborted. */
static void
resume_on_leg(struct resume_state *rs, const json_t *ev)
{
	char key[160];

	if (resume_leg_key(ev, key, sizeof key) != 0)
		return;
	resume_close_procs(rs, key, false);
	/* The one status rule: a legacy row is never aborted. */
	if (tally_leg_status(ev) != TALLY_LEG_ABORTED)
		(void)resume_add_done(rs, key);
}

/* The leg key's unfinished starts (not a server's, not the ledger's):
 * benchtui died while that leg ran. */
static void
resume_mark_died(struct resume_state *rs, const char *key)
{
	for (size_t i = 0; i < rs->nprocs; i++)
		if (!rs->procs[i].server && !rs->procs[i].ledger &&
		    (key == NULL || strcmp(rs->procs[i].key, key) == 0))
			json_object_set_new(rs->died, rs->procs[i].key,
			    json_true());
}

/* A leg_start line: its process, which may outlive a killed benchtui. */
static void
resume_on_leg_start(struct resume_state *rs, const json_t *ev)
{
	json_t *pid = json_object_get(ev, "pid");
	struct resume_proc *p;
	char key[160];

	if (resume_leg_key(ev, key, sizeof key) != 0 || !json_is_integer(pid))
		return;
	/* An earlier start of this leg that never ended: benchtui died
	 * while it ran. */
	resume_mark_died(rs, key);
	p = resume_add_proc(rs);
	p->pid = (pid_t)json_integer_value(pid);
	/* The leg forks, its counters open, then the line is logged. */
	p->lo = resume_ts(ev) - 30;
	p->hi = resume_ts(ev) + 2;
	snprintf(p->key, sizeof p->key, "%s", key);
}

/* A server line: its process from "starting" or "ready" until "stopped"
 * or "died". */
static void
resume_on_server(struct resume_state *rs, const json_t *ev)
{
	const char *cell = json_string_value(json_object_get(ev, "cell"));
	const char *state = json_string_value(json_object_get(ev, "state"));
	json_t *pid = json_object_get(ev, "pid"), *since;
	struct resume_proc *p;

	/* A server on another host is its agent's to end (the agent ends
	 * it when its connection closes): its pid is not this machine's. */
	if (cell == NULL || state == NULL || json_object_get(ev, "host") != NULL)
		return;
	if (strcmp(state, "stopped") == 0 || strcmp(state, "died") == 0) {
		resume_close_procs(rs, cell, true);
		return;
	}
	if (strcmp(state, "starting") == 0)
		json_object_set_new(rs->server_starting, cell,
		    json_real(resume_ts(ev)));
	/* The pid comes with "ready" (after the wait for its port) or
	 * already with "starting". */
	if (!json_is_integer(pid))
		return;
	since = json_object_get(rs->server_starting, cell);
	resume_close_procs(rs, cell, true);
	p = resume_add_proc(rs);
	p->pid = (pid_t)json_integer_value(pid);
	p->lo = (since ? json_real_value(since) : resume_ts(ev)) - 2;
	p->hi = resume_ts(ev) + 2;
	snprintf(p->key, sizeof p->key, "%s", cell);
	p->server = true;
}

/* A ledger line: [pid, start] of each process of the round's tree. */
static void
resume_on_ledger(struct resume_state *rs, const json_t *ev)
{
	struct resume_proc *p;
	size_t k;
	json_t *e;

	json_array_foreach(json_object_get(ev, "procs"), k, e) {
		if (!json_is_integer(json_array_get(e, 0)) ||
		    !json_is_number(json_array_get(e, 1)))
			continue;
		p = resume_add_proc(rs);
		p->pid = (pid_t)json_integer_value(json_array_get(e, 0));
		p->lo = p->hi = json_number_value(json_array_get(e, 1));
		p->ledger = true;
	}
}

static int
resume_on_event(json_t *ev, size_t lineno, void *arg)
{
	struct resume_state *rs = arg;
	const char *t = json_string_value(json_object_get(ev, "t"));

	(void)lineno;
	if (json_array_append(rs->events, ev) != 0)
		return -1;
	if (t == NULL)
		return 0;
	if (strcmp(t, "round") == 0) {
		if (rs->round_ev == NULL)
			rs->round_ev = ev;
	} else if (strcmp(t, "env") == 0) {
		if (rs->env == NULL)
			rs->env = json_incref(ev);
	} else if (strcmp(t, "leg") == 0) {
		resume_on_leg(rs, ev);
	} else if (strcmp(t, "look") == 0) {
		const char *cell = json_string_value(json_object_get(ev, "cell"));
		json_t *rep = json_object_get(ev, "rep");

		if (cell != NULL && json_is_integer(rep) &&
		    json_is_true(json_object_get(ev, "decided")))
			json_object_set(rs->decided, cell, rep);
	} else if (strcmp(t, "leg_start") == 0) {
		resume_on_leg_start(rs, ev);
	} else if (strcmp(t, "server") == 0) {
		resume_on_server(rs, ev);
	} else if (strcmp(t, "ledger") == 0) {
		resume_on_ledger(rs, ev);
	} else if (strcmp(t, "cgroup") == 0) {
		json_t *path = json_object_get(ev, "path");

		if (json_is_string(path) && (rs->cgroups != NULL ||
		    (rs->cgroups = json_array()) != NULL))
			json_array_append(rs->cgroups, path);
	} else if (strcmp(t, "done") == 0) {
		rs->completed = true;
	} else if (strcmp(t, "seal") == 0) {
		rs->sealed = true;
	}
	return 0;
}

/* The folder's environment.json, or NULL. */
static json_t *
resume_load_envfile(const char *dir)
{
	char path[4096];

	snprintf(path, sizeof path, "%s/environment.json", dir);
	return json_load_file(path, 0, NULL);
}

/* Cut DIR/log.jsonl back to good bytes and record the cut there at once
 * (a log_cut event of torn bytes), durably.  In one step: a resume killed
 * between the cut and a later event would leave a cut no line records
 * (life-kill saw it under the slower sanitizer build). */
static int
resume_cut(const char *path, long long good, size_t torn, char *err,
    size_t errlen)
{
	int fd = rfile_open(path, O_WRONLY | O_APPEND, 0);
	json_t *ev = event_new("log_cut");
	size_t len = 0;
	char *line;
	ssize_t n = -1;

	json_object_set_new(ev, "bytes", json_integer((json_int_t)torn));
	line = event_line(ev, &len);
	json_decref(ev);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open to cut its torn last line: %s",
		    path, rfile_strerror(errno));
		free(line);
		return -1;
	}
	if (ftruncate(fd, (off_t)good) == 0 && line != NULL) {
		do
			n = write(fd, line, len);
		while (n < 0 && errno == EINTR);
	}
	free(line);
	if (n != (ssize_t)len || fsync(fd) != 0) {
		snprintf(err, errlen, "%s: cannot cut its torn last line: %s",
		    path, n < 0 || n == (ssize_t)len ? strerror(errno) :
		    "a short write");
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* Whether dir looks like a round folder: a folder with a readable
 * round.json.  0, or -1 with err. */
static int
resume_check_folder(const char *dir, char *err, size_t errlen)
{
	char path[4096];
	struct stat st;

	errno = 0;
	snprintf(path, sizeof path, "%s/round.json", dir);
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a round folder: %s", dir,
		    errno ? strerror(errno) : "not a directory");
		return -1;
	}
	if (access(path, R_OK) != 0) {
		snprintf(err, errlen, "%s: not a round folder (round.json: %s)",
		    dir, strerror(errno));
		return -1;
	}
	return 0;
}

/* The env event names the file of the round's host facts and binaries'
 * sha256 (environment.json): one deleted since is evidence lost, so the
 * round is not carried on (nor sealed) without it.  true with err. */
static bool
resume_env_missing(const struct resume_state *rs, char *err, size_t errlen)
{
	const char *file = json_string_value(json_object_get(rs->env, "file"));
	char path[4096];

	if (file == NULL || strchr(file, '/') != NULL)
		return false;
	snprintf(path, sizeof path, "%s/%s", rs->dir, file);
	if (access(path, F_OK) == 0 || errno != ENOENT)
		return false;
	snprintf(err, errlen, "%s: missing, though the round's env event "
	    "names it: the round's host facts and binaries' sha256 are part "
	    "of its evidence, so it is neither carried on nor sealed without "
	    "them; put the file back", path);
	return true;
}

/* A torn last line cut off the log at path (good bytes stay), unless the
 * round is sealed: a sealed log is evidence, never cut (a torn tail there
 * is tampering, and verify reports it).  0, or -1 with err. */
static int
resume_cut_torn(struct resume_state *rs, const char *path,
    const struct logread_info *info, char *err, size_t errlen)
{
	char sums[4096];
	struct stat st;

	snprintf(sums, sizeof sums, "%s/%s", rs->dir, SEAL_SUMS);
	if (access(sums, F_OK) == 0)
		rs->sealed = true;
	if (!info->torn || rs->sealed)
		return 0;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	rs->torn_bytes = (size_t)(st.st_size - info->good_bytes);
	if (resume_cut(path, info->good_bytes, rs->torn_bytes, err,
	    errlen) != 0)
		return -1;
	return 0;
}

/* The recorded environment (the env event may be only a pointer to
 * environment.json) and the workdir: the round event's, else the
 * environment's. */
static void
resume_env_workdir(struct resume_state *rs)
{
	const char *wd;

	if (rs->env == NULL || json_object_get(rs->env, "host") == NULL) {
		json_t *file = resume_load_envfile(rs->dir);

		if (file != NULL) {
			json_decref(rs->env);
			rs->env = file;
		}
	}
	wd = json_string_value(json_object_get(rs->round_ev, "workdir"));
	if (wd == NULL && rs->env != NULL) {
		wd = json_string_value(json_object_get(rs->env, "workdir"));
		if (wd == NULL)
			wd = json_string_value(json_object_get(json_object_get(
			    rs->env, "settings"), "workdir"));
	}
	if (wd != NULL)
		rs->workdir = xstrdup(wd);
}

int
resume_load(const char *dir, struct resume_state **out, char *err,
    size_t errlen)
{
	struct resume_state *rs;
	struct logread_info info = { 0 };
	char path[4096];
	int rc;

	*out = NULL;
	err[0] = '\0';
	if (resume_check_folder(dir, err, errlen) != 0)
		return -1;
	rs = xcalloc(1, sizeof *rs);
	rs->dir = xstrdup(dir);
	if ((rs->events = json_array()) == NULL ||
	    (rs->server_starting = json_object()) == NULL ||
	    (rs->decided = json_object()) == NULL ||
	    (rs->died = json_object()) == NULL) {
		snprintf(err, errlen, "%s: out of memory", dir);
		goto fail;
	}
	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	rc = logread_file(path, resume_on_event, rs, &info, err, errlen);
	if (rc != 0) {
		if (rc > 0 || err[0] == '\0')
			snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	if (rs->round_ev == NULL) {
		snprintf(err, errlen, "%s: no \"round\" event; %s", path,
		    info.lines == 0 ? "the round never started (killed before "
		    "its first event): nothing to resume; run it again with "
		    "--out on this folder" : "not a benchtui round log");
		goto fail;
	}
	if (resume_cut_torn(rs, path, &info, err, errlen) != 0)
		goto fail;
	if (resume_env_missing(rs, err, errlen))
		goto fail;
	resume_mark_died(rs, NULL);
	resume_env_workdir(rs);
	*out = rs;
	return 0;
fail:
	resume_destroy(rs);
	return -1;
}

bool
resume_leg_died(const struct resume_state *rs, const char *cell,
    const char *arm, int rep)
{
	char key[160];

	if (resume_key(key, sizeof key, cell, arm, rep) != 0)
		return false;
	return json_object_get(rs->died, key) != NULL;
}

const char *
resume_spec_sha256(const struct resume_state *rs)
{
	return json_string_value(json_object_get(rs->round_ev, "spec_sha256"));
}

const char *
resume_workdir(const struct resume_state *rs)
{
	return rs->workdir;
}

int
resume_recorded_order(const struct resume_state *rs, enum spec_order *order,
    uint64_t *seed)
{
	const json_t *o = json_object_get(rs->round_ev, "order");
	const json_t *sd = json_object_get(rs->round_ev, "shuffle_seed");
	const char *name = json_string_value(o);

	*seed = 0;
	if (o == NULL) {
		*order = SPEC_ORDER_SEED;
		return 0;
	}
	if (name == NULL)
		return -1;
	if (strcmp(name, "mirror") == 0)
		*order = SPEC_ORDER_MIRROR;
	else if (strcmp(name, "seed") == 0)
		*order = SPEC_ORDER_SEED;
	else if (strcmp(name, "shuffle") == 0) {
		if (!json_is_integer(sd) || json_integer_value(sd) < 0)
			return -1;
		*order = SPEC_ORDER_SHUFFLE;
		*seed = (uint64_t)json_integer_value(sd);
	} else
		return -1;
	return 0;
}

const json_t *
resume_recorded_hosts(const struct resume_state *rs)
{
	const json_t *h = json_object_get(rs->round_ev, "hosts");

	if (!json_is_true(json_object_get(rs->round_ev, "hosts_given")) ||
	    !json_is_array(h))
		return NULL;
	return h;
}

int
resume_cell_stopped(const struct resume_state *rs, const char *cell)
{
	const json_t *rep = json_object_get(rs->decided, cell);

	return json_is_integer(rep) ? (int)json_integer_value(rep) : 0;
}

const json_t *
resume_recorded_env(const struct resume_state *rs)
{
	return rs->env;
}

bool
resume_leg_done(const struct resume_state *rs, const char *cell,
    const char *arm, int rep)
{
	char key[160];
	bool found;

	/* A key that does not fit was never recorded (resume_leg_key). */
	if (resume_key(key, sizeof key, cell, arm, rep) != 0)
		return false;
	resume_find_done(rs, key, &found);
	return found;
}

size_t
resume_legs_done(const struct resume_state *rs)
{
	return rs->ndone;
}

size_t
resume_torn_bytes(const struct resume_state *rs)
{
	return rs->torn_bytes;
}

bool
resume_completed(const struct resume_state *rs)
{
	return rs->completed;
}

bool
resume_sealed(const struct resume_state *rs)
{
	return rs->sealed;
}

double
resume_proc_started(pid_t pid)
{
	struct procs_stat st;

	if (procs_stat(pid, &st) != 0 || st.state == 'Z')
		return -1;
	return st.started;
}

static bool
resume_zombie_or_gone(pid_t pid)
{
	struct procs_stat st;

	return procs_stat(pid, &st) != 0 || st.state == 'Z' || st.state == 'X';
}

struct resume_group_look {
	pid_t pgid;
	double lo;
};

static bool
resume_group_member_after(const struct procs_stat *st, void *arg)
{
	const struct resume_group_look *g = arg;

	return st->pid > 1 && st->pgrp == g->pgid && st->state != 'Z' &&
	    st->state != 'X' && st->started >= g->lo;
}

/* Whether a live process of group pgid started at or after lo: the group a
 * logged leader made, whose leader died with benchtui (PR_SET_PDEATHSIG)
 * while what it forked, which has no PDEATHSIG of its own, runs on.  A walk
 * of all of /proc, once per dead leader the log names. */
static bool
resume_group_started_after(pid_t pgid, double lo)
{
	struct resume_group_look g = { .pgid = pgid, .lo = lo };

	return procs_each(resume_group_member_after, &g);
}

/* End everything left in an earlier run's cgroup (a kill -9 of benchtui
 * leaves it populated: servers' and legs' descendants that escaped every
 * process group, setsid'd ones included), then remove it.  Only a group
 * benchtui made (named benchtui-*) and that does not hold this process
 * (cgroup_attach refuses that).  How many processes it held. */
static int
resume_end_cgroup(const char *path)
{
	const char *base = strrchr(path, '/');
	struct cgroup *cg;
	size_t n;

	if (path[0] != '/' || base == NULL || strncmp(base, "/benchtui-", 10) != 0 ||
	    strstr(path, "/../") != NULL || (cg = cgroup_attach(path)) == NULL)
		return 0; /* gone already, not a cgroup, or ours */
	/* Wait (a second at most) until it is empty; destroy removes it,
	 * children first. */
	n = cgroup_kill(cg, 1.0);
	cgroup_destroy(cg);
	return (int)n;
}

int
resume_end_stale(const struct resume_state *rs)
{
	int ended = 0;
	size_t i;
	json_t *path;

	json_array_foreach(rs->cgroups, i, path)
		ended += resume_end_cgroup(json_string_value(path));

	for (i = 0; i < rs->nprocs; i++) {
		const struct resume_proc *p = &rs->procs[i];
		double started;
		bool leader;

		if (p->pid <= 1 || p->pid == getpid())
			continue;
		if (p->ledger) {
			/* The same process: the same start, to the tick. */
			started = resume_proc_started(p->pid);
			if (started < 0 || started < p->lo - 0.005 ||
			    started > p->lo + 0.005)
				continue;
			leader = getpgid(p->pid) == p->pid;
			if (kill(leader ? -p->pid : p->pid, SIGKILL) == 0)
				ended++;
			for (int k = 0; k < 100 && !resume_zombie_or_gone(p->pid);
			    k++)
				usleep(10000);
			continue;
		}
		if (resume_zombie_or_gone(p->pid)) {
			/* The leader is gone but its group may not be: end
			 * what it left (a member started since shortly before
			 * the logged line, so the group id was not reused). */
			if (p->lo > 0 && resume_group_started_after(p->pid,
			    p->lo) && kill(-p->pid, SIGKILL) == 0)
				ended++;
			continue;
		}
		/* Pid reuse: the process must have started around the moment its
		 * line was logged (it forks just before; btime has 1 s steps). */
		started = resume_proc_started(p->pid);
		if (started < 0 || (p->lo > 0 && (started < p->lo ||
		    started > p->hi)))
			continue;
		leader = getpgid(p->pid) == p->pid;
		if (!leader && !p->server)
			continue; /* legs lead their group; this is someone else */
		if (kill(leader ? -p->pid : p->pid, SIGKILL) != 0)
			continue;
		ended++;
		/* Not our child: wait (briefly) until it is gone or a zombie of
		 * its new parent, so a restarted server finds its port free. */
		for (int k = 0; k < 100 && !resume_zombie_or_gone(p->pid); k++)
			usleep(10000);
	}
	return ended;
}

void
resume_replay(const struct resume_state *rs,
    void (*fn)(const json_t *ev, void *arg), void *arg)
{
	size_t i;
	json_t *ev;

	json_array_foreach(rs->events, i, ev)
		fn(ev, arg);
}

void
resume_destroy(struct resume_state *rs)
{
	if (rs == NULL)
		return;
	for (size_t i = 0; i < rs->ndone; i++)
		free(rs->done[i]);
	free(rs->done);
	free(rs->procs);
	json_decref(rs->cgroups);
	free(rs->workdir);
	json_decref(rs->env);
	json_decref(rs->events);
	json_decref(rs->server_starting);
	json_decref(rs->decided);
	json_decref(rs->died);
	free(rs->dir);
	free(rs);
}
