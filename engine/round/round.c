/* The round driver, the round object: a new round's folder and its files
 * (run) or an existing folder read back (resume), and its teardown.  The
 * running is in round_run.c and the files round_int.h lists. */
#include "round.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>

#include "clock.h"
#include "digest.h"
#include "event.h"
#include "keepfiles.h"
#include "procs.h"
#include "provenance.h"
#include "round_int.h"
#include "scratch.h"
#include "seal.h"
#include "rfile.h"
#include "xalloc.h"

void
round_set_event_fn(struct round *r, round_event_fn fn, void *arg)
{
	r->on_event = fn;
	r->arg = arg;
}

const char *
round_dir(const struct round *r)
{
	return r->dir;
}

const struct spec *
round_spec(const struct round *r)
{
	return r->spec;
}

/* mkdir -p, 0755. */
static int
round_mkdirs(const char *path)
{
	char buf[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof buf) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (char *p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

int
round_dir_has_entries(int dfd)
{
	return scratch_dir_has_entries(dfd);
}

/* 1 when path exists and holds anything, 0 when missing or empty, -1 when
 * it is not a folder or cannot be read. */
static int
round_dir_nonempty(const char *path)
{
	struct stat st;
	int fd, found;

	if (stat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return 1;
	}
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	found = round_dir_has_entries(fd);
	close(fd);
	return found;
}

static int
round_write_file(const char *path, const char *buf, size_t len, mode_t mode,
    char *err, size_t errlen)
{
	const char *stage;

	if (rfile_write_new(path, buf, len, mode, &stage) == 0)
		return 0;
	snprintf(err, errlen, "%s: cannot %s: %s", path, stage, errno != 0 ?
	    strerror(errno) : "disk full");
	return -1;
}

/* The default folder ./rounds/NAME-YYYYmmdd-HHMMSS, made unique with a
 * -2, -3 ... suffix.  Created here (mkdir is the uniqueness test). */
static char *
round_default_dir(const char *name, char *err, size_t errlen)
{
	char stamp[32], *path = NULL;
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	if (round_mkdirs("rounds") < 0) {
		snprintf(err, errlen, "rounds: cannot create: %s", strerror(errno));
		return NULL;
	}
	for (int i = 1; i < 1000; i++) {
		free(path);
		path = i == 1 ? xasprintf("rounds/%s-%s", name, stamp) :
		    xasprintf("rounds/%s-%s-%d", name, stamp, i);
		if (mkdir(path, 0755) == 0)
			return path;
		if (errno != EEXIST) {
			snprintf(err, errlen, "%s: cannot create: %s", path,
			    strerror(errno));
			break;
		}
	}
	free(path);
	return NULL;
}

/* What run made of a new round's folder. */
enum {
	ROUND_MADE_DIR = 1, ROUND_MADE_LOG = 2, ROUND_MADE_LEGS = 4,
	ROUND_MADE_SERVERS = 8, ROUND_MADE_SPEC = 16, ROUND_MADE_ENV = 32,
	ROUND_MADE_FILES = 64,
};

void
round_unmake(struct round *r)
{
	static const struct {
		unsigned bit;
		const char *name;
		int flags;
	} parts[] = {
		{ ROUND_MADE_ENV, "environment.json", 0 },
		{ ROUND_MADE_SPEC, "round.json", 0 },
		{ ROUND_MADE_SERVERS, "servers", AT_REMOVEDIR },
		{ ROUND_MADE_LEGS, "legs", AT_REMOVEDIR },
		{ ROUND_MADE_LOG, "log.jsonl", 0 },
	};
	int dfd;

	if (r->dir == NULL || r->made == 0 ||
	    (dfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (r->made & ROUND_MADE_FILES)
		keepfiles_unmake(r->spec, r->dir);
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		if (r->made & parts[i].bit)
			(void)unlinkat(dfd, parts[i].name, parts[i].flags);
	close(dfd);
	if (r->made & ROUND_MADE_DIR)
		(void)rmdir(r->dir);
	r->made = 0;
}

/* The log's flock.  Held by a live benchtui: refused at once.  Held
 * though the benchtui that took it is gone: asked again for up to
 * ROUND_LOCK_WAIT_MS, since a benchtui killed a moment ago may have left a
 * leg's child held between clone and execve with a copy of the log's
 * descriptor, until its parent-death signal ends it (a resume right after
 * a kill -9 was refused, on a busy machine). */
#define ROUND_LOCK_WAIT_MS 2000
#define ROUND_LOCK_NAP_MS 20

static bool
round_lock_take(int fd)
{
	for (int waited = 0;; waited += ROUND_LOCK_NAP_MS) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return true;
		if (errno != EWOULDBLOCK || waited >= ROUND_LOCK_WAIT_MS ||
		    procs_alive(procs_flock_owner(fd)))
			return false;
		(void)clock_nap(-1, ROUND_LOCK_NAP_MS);
	}
}

/* Hold an exclusive flock on DIR/log.jsonl for as long as the round lives
 * (a new round creates it, and only it: a log already there means another
 * run took the folder).  -2 with err when another benchtui has it, -1 on
 * any other error. */
static int
round_lock(struct round *r, bool create, char *err, size_t errlen)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/log.jsonl", r->dir);
	r->lock_fd = rfile_open(path, O_RDONLY | (create ? O_CREAT | O_EXCL :
	    0), 0644);
	if (r->lock_fd < 0) {
		if (create && errno == EEXIST) {
			snprintf(err, errlen, "%s: another run took this folder "
			    "first (its log is there); a round never overwrites "
			    "evidence (choose another --out)", r->dir);
			return -2;
		}
		snprintf(err, errlen, "%s: cannot open: %s", path,
		    rfile_strerror(errno));
		return -1;
	}
	if (create)
		r->made |= ROUND_MADE_LOG;
	if (!round_lock_take(r->lock_fd)) {
		snprintf(err, errlen, "%s: another benchtui is running this round "
		    "(it holds the log's lock); abort it first", path);
		return -2;
	}
	return 0;
}

/* The rules a completed round is held to: its round file's fail_on,
 * then --fail-on's, each naming an arm of this round.  0, or -1 with
 * err. */
static int
round_fail_on(struct round *r, const struct round_opts *opts, char *err,
    size_t errlen)
{
	const struct failon *f = &r->spec->fail_on;
	char e[2048];

	for (size_t i = 0; i < f->n; i++)
		failon_add(&r->fail_on, f->r[i].text, e, sizeof e);
	for (size_t i = 0; i < opts->nfail_on; i++) {
		size_t n0 = r->fail_on.n;
		if (failon_add(&r->fail_on, opts->fail_on[i], e, sizeof e) != 0) {
			snprintf(err, errlen, "--fail-on %s", e);
			return -1;
		}
		for (size_t k = n0; k < r->fail_on.n; k++)
			if (failon_check_spec(&r->fail_on.r[k], r->spec, e,
			    sizeof e) != 0) {
				snprintf(err, errlen, "--fail-on %s", e);
				return -1;
			}
	}
	return 0;
}

static struct round *
round_alloc(const struct round_opts *opts)
{
	struct round *r = xcalloc(1, sizeof *r);

	r->abort_pipe[0] = r->abort_pipe[1] = -1;
	r->ctl_pipe[0] = r->ctl_pipe[1] = -1;
	r->gate_pipe[0] = r->gate_pipe[1] = -1;
	r->lock_fd = r->reuse_fd = -1;
	r->on_event = opts->on_event;
	r->arg = opts->arg;
	if (opts->sign_key != NULL)
		r->sign_key = xstrdup(opts->sign_key);
	r->tally = tally_create();
	if (pipe2(r->abort_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(r->ctl_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    pipe2(r->gate_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		round_destroy(r);
		return NULL;
	}
	return r;
}

/* Whether dirfd/name is an empty folder (legs/) or, with any, a folder
 * of plain files only (servers/, files/). */
static bool
round_unstarted_sub(int dirfd, const char *name, bool any)
{
	int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	struct dirent *de;
	bool ok = true;
	DIR *d;

	if (fd < 0 || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (ok && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			ok = any && de->d_type == DT_REG;
	closedir(d);
	return ok;
}

/* Whether the folder holds only what run makes before the round event
 * (round.json, environment.json, an empty log, an empty legs/, servers/
 * with a host's ssh log, files/ with the kept copies):
 * a run killed before its first event left it, and nothing in it is
 * evidence of a leg. */
static bool
round_dir_unstarted(const char *path)
{
	static const char *const own[] = { "round.json", "environment.json",
	    "log.jsonl", "legs", "servers", "files" };
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = fd >= 0, log = false;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (!ok || (d = fdopendir(fd)) == NULL) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	while (ok && (de = readdir(d)) != NULL) {
		size_t i;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		for (i = 0; i < 6 && strcmp(de->d_name, own[i]) != 0; i++)
			;
		if (i == 6 || fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0)
			ok = false;
		else if (i < 3)
			/* The log empty: not even the round event. */
			ok = S_ISREG(st.st_mode) && (i != 2 || st.st_size == 0);
		else
			/* servers/ may hold a host's ssh log, files/ the
			 * kept copies; legs/ nothing. */
			ok = round_unstarted_sub(fd, de->d_name, i >= 4);
		log = log || i == 2;
	}
	closedir(d);
	return ok && log;
}

/* The unstarted folder's log lock, taken and held (round_lock): a live
 * run holds it while its files are still being made, so they are not a
 * killed one's (two runs racing on one --out: the second must not clear
 * the first's folder under it).  Held by r for its life: a run that had
 * just created that log and not yet locked it then finds it taken and
 * stops (round_lock), instead of going on in a cleared folder.  false
 * when another holds it. */
static bool
round_dir_hold(struct round *r, const char *path)
{
	char p[PATH_MAX];
	int fd;

	snprintf(p, sizeof p, "%s/log.jsonl", path);
	if ((fd = rfile_open(p, O_RDONLY, 0)) < 0)
		return false;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return false;
	}
	r->reuse_fd = fd;
	return true;
}

/* Take back an unstarted folder's files (round_dir_unstarted): run starts
 * afresh in it.  0, or -1 with errno. */
static int
round_dir_clear_unstarted(const char *path)
{
	static const char *const files[] = { "round.json", "environment.json",
	    "log.jsonl" };
	static const char *const dirs[] = { "legs", "servers", "files" };
	char p[PATH_MAX];

	for (size_t i = 0; i < 3; i++) {
		snprintf(p, sizeof p, "%s/%s", path, files[i]);
		if (unlink(p) != 0 && errno != ENOENT)
			return -1;
	}
	for (size_t i = 0; i < 3; i++) {
		int fd;
		DIR *d;
		struct dirent *de;
		snprintf(p, sizeof p, "%s/%s", path, dirs[i]);
		if ((fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) >= 0 && (d = fdopendir(fd)) != NULL) {
			while ((de = readdir(d)) != NULL)
				if (de->d_name[0] != '.')
					(void)unlinkat(fd, de->d_name, 0);
			closedir(d);
		} else if (fd >= 0)
			close(fd);
		if (rmdir(p) != 0 && errno != ENOENT)
			return -1;
	}
	return 0;
}

/* The new round's folder: --out (which must be missing or empty) or the
 * default one; r->dir its absolute path. */
static int
round_make_dir(struct round *r, const struct round_opts *opts,
    int *exit_code, char *err, size_t errlen)
{
	char *dir = NULL;
	int nonempty;

	if (opts->out_dir != NULL) {
		nonempty = round_dir_nonempty(opts->out_dir);
		/* A run killed before its round event left only its own
		 * unstarted files: nothing to resume, so it starts again. */
		if (nonempty > 0 && round_dir_unstarted(opts->out_dir) &&
		    round_dir_hold(r, opts->out_dir) &&
		    round_dir_clear_unstarted(opts->out_dir) == 0)
			nonempty = round_dir_nonempty(opts->out_dir);
		if (nonempty != 0) {
			*exit_code = ROUND_EXIT_USAGE;
			if (nonempty > 0)
				snprintf(err, errlen, "%s: exists and is not an empty "
				    "folder; a round never overwrites evidence (choose "
				    "another --out)", opts->out_dir);
			else
				snprintf(err, errlen, "%s: cannot read: %s",
				    opts->out_dir, strerror(errno));
			return -1;
		}
		struct stat st;

		if (stat(opts->out_dir, &st) != 0)
			r->made |= ROUND_MADE_DIR;
		if (round_mkdirs(opts->out_dir) < 0) {
			snprintf(err, errlen, "%s: cannot create: %s", opts->out_dir,
			    strerror(errno));
			return -1;
		}
		dir = xstrdup(opts->out_dir);
	} else {
		dir = round_default_dir(r->spec->name, err, errlen);
		r->made |= ROUND_MADE_DIR;
	}
	if (dir == NULL)
		return -1;
	r->dir = realpath(dir, NULL);
	free(dir);
	if (r->dir == NULL) {
		snprintf(err, errlen, "round folder: %s", strerror(errno));
		return -1;
	}
	return 0;
}

int
round_env_write(struct round *r, const json_t *env, bool replace, char *err,
    size_t errlen)
{
	char path[PATH_MAX], tmp[PATH_MAX], *text = NULL;
	size_t n;

	text = env != NULL ? json_dumps(env, JSON_INDENT(2) |
	    JSON_PRESERVE_ORDER) : NULL;
	if (text == NULL) {
		snprintf(err, errlen, "%s/environment.json: cannot collect the "
		    "host facts", r->dir);
		return -1;
	}
	snprintf(path, sizeof path, "%s/environment.json", r->dir);
	snprintf(tmp, sizeof tmp, "%s/environment.json.new", r->dir);
	n = strlen(text);
	text = xrealloc(text, n + 2);
	text[n] = '\n';
	text[n + 1] = '\0';
	/* A replacement is written whole beside it, then renamed over it:
	 * a reader (or a crash) sees the old document or the new one. */
	if (replace)
		(void)unlink(tmp);
	if (round_write_file(replace ? tmp : path, text, n + 1, 0644, err,
	    errlen) != 0) {
		free(text);
		return -1;
	}
	free(text);
	if (replace && rename(tmp, path) != 0) {
		snprintf(err, errlen, "%s: cannot replace: %s", path,
		    strerror(errno));
		(void)unlink(tmp);
		return -1;
	}
	return 0;
}

/* environment.json: the host facts, and the files the round keeps,
 * copied into files/ first (before the first leg), one newline-ended
 * JSON document. */
static int
round_write_env(struct round *r, char *err, size_t errlen)
{
	json_t *env, *files = keepfiles_keep(r->spec, r->dir, err, errlen);
	int rc;

	if (r->spec->nfiles > 0)
		r->made |= ROUND_MADE_FILES;
	if (files == NULL)
		return -1;
	r->files_ref = json_deep_copy(files);
	env = provenance_collect(r->spec, r->dir);
	if (env != NULL && json_object_size(files) > 0)
		json_object_set(env, "files", files);
	json_decref(files);
	rc = round_env_write(r, env, false, err, errlen);
	json_decref(env);
	return rc;
}

/* A new round: the round file loaded and checked against this host, the
 * folder with legs/, servers/, round.json and environment.json, then the
 * log, locked. */
static int
round_create_run(struct round *r, const struct round_opts *opts,
    int *exit_code, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc;

	/* A missing program or an offline cpu would only show mid-round:
	 * refuse before the folder exists. */
	if (spec_load(opts->spec_path, NULL, &r->spec, err, errlen) != 0 ||
	    spec_use_hosts(r->spec, opts->hosts, opts->nhosts, "--host", err,
	    errlen) != 0 ||
	    spec_check_commands(r->spec, err, errlen) != 0 ||
	    spec_check_host(r->spec, err, errlen) != 0 ||
	    round_fail_on(r, opts, err, errlen) != 0) {
		*exit_code = ROUND_EXIT_USAGE;
		return -1;
	}
	/* A shuffle without a seed gets one here, recorded in the round
	 * event so that resume and a reader can replay the same order.  53
	 * bits, so that every JSON reader (jq, JavaScript: doubles) reads it
	 * back exactly. */
	r->hosts_given = opts->nhosts > 0;
	if (r->spec->order == SPEC_ORDER_SHUFFLE && !r->spec->has_shuffle_seed) {
		uint64_t seed = 0;
		if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
			seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
		r->spec->shuffle_seed = seed & ((UINT64_C(1) << 53) - 1);
		r->spec->has_shuffle_seed = true;
	}
	if (round_make_dir(r, opts, exit_code, err, errlen) != 0)
		goto fail;
	/* The lock first: of two runs racing on one --out, the one that
	 * does not get it leaves everything to the other (exit 2). */
	if ((rc = round_lock(r, true, err, errlen)) != 0) {
		/* What this run made is the other's now: it may have taken
		 * the log this run created before its lock and begun afresh
		 * in the folder (round_dir_hold), so removing the log or the
		 * folder here would pull them from under it (seen: the
		 * winner's mkdir of legs/ failed with ENOENT). */
		if (rc == -2) {
			*exit_code = ROUND_EXIT_USAGE;
			r->made = 0;
		}
		goto fail;
	}
	snprintf(path, sizeof path, "%s/legs", r->dir);
	if (mkdir(path, 0755) < 0)
		goto syserr;
	r->made |= ROUND_MADE_LEGS;
	snprintf(path, sizeof path, "%s/servers", r->dir);
	if (mkdir(path, 0755) < 0)
		goto syserr;
	r->made |= ROUND_MADE_SERVERS;
	snprintf(path, sizeof path, "%s/round.json", r->dir);
	/* Read-only from the start: the round is what this file says, and
	 * the seal checks it still is (its sha256 is in the round event). */
	if (round_write_file(path, r->spec->raw, r->spec->rawlen, 0444, err,
	    errlen) != 0)
		goto fail;
	r->made |= ROUND_MADE_SPEC;
	if (round_write_env(r, err, errlen) != 0)
		goto fail;
	r->made |= ROUND_MADE_ENV;
	snprintf(path, sizeof path, "%s/log.jsonl", r->dir);
	if ((r->log = logw_open(path, err, errlen)) == NULL)
		goto fail;
	/* The new names themselves must survive a crash, not only the
	 * files' contents. */
	{
		int dfd = open(r->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	return 0;
syserr:
	snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
fail:
	round_unmake(r);
	return -1;
}

/* A folder read back is sealed or complete: what resume (or seal
 * --partial) says of it.  -1 with err when it refuses, else 0. */
static int
round_refuse_done(struct round *r, bool partial, char *err, size_t errlen)
{
	bool sealed = resume_sealed(r->rs), done = resume_completed(r->rs);

	if (partial && sealed)
		snprintf(err, errlen, "%s: already sealed (%s exists); check it "
		    "with `benchtui verify %s`", r->dir, SEAL_SUMS, r->dir);
	else if (partial && done)
		snprintf(err, errlen, "%s: the round completed (its log ends "
		    "with \"done\"), so it is not partial; `benchtui resume %s` "
		    "finishes its seal", r->dir, r->dir);
	else if (sealed && done)
		snprintf(err, errlen, "%s: the round is complete and sealed; "
		    "nothing to resume", r->dir);
	else if (sealed)
		snprintf(err, errlen, "%s: the round was sealed unfinished (seal "
		    "--partial); a sealed round cannot be resumed", r->dir);
	else
		return 0;
	return -1;
}

/* The hosts run --host gave the round, recorded in its round event:
 * resume deals the reps to the same ones. */
static int
round_resume_hosts(struct round *r, char *err, size_t errlen)
{
	const json_t *rec = resume_recorded_hosts(r->rs);
	size_t n = json_array_size(rec), i;
	const char **hosts;
	json_t *h;
	int rc;

	if (n == 0)
		return 0;
	hosts = xcalloc(n, sizeof *hosts);
	json_array_foreach(rec, i, h)
		if ((hosts[i] = json_string_value(h)) == NULL)
			hosts[i] = "";
	rc = spec_use_hosts(r->spec, hosts, n, "the recorded --host", err,
	    errlen);
	free(hosts);
	r->hosts_given = rc == 0;
	return rc;
}

/* An existing round folder, for resume or (partial) seal --partial: the
 * lock, the log read back, round.json checked against the sha256 the log
 * recorded, what a killed benchtui left running ended, the log opened for
 * appending.  A partial seal does not check the host: sealing needs none
 * of the round's programs. */
static int
round_create_resume(struct round *r, const char *dir, bool partial,
    int *exit_code, char *err, size_t errlen)
{
	char path[PATH_MAX], sha[DIGEST_HEX_LEN];
	const char *recorded;

	*exit_code = ROUND_EXIT_USAGE;
	if ((r->dir = realpath(dir, NULL)) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/log.jsonl", r->dir);
	if (access(path, F_OK) != 0) {
		snprintf(err, errlen, "%s: not a round folder (no log.jsonl)",
		    r->dir);
		return -1;
	}
	/* Before resume_load, which may cut a torn line: never under a live
	 * round. */
	if (round_lock(r, false, err, errlen) != 0)
		return -1;
	if (resume_load(r->dir, &r->rs, err, errlen) != 0 ||
	    round_refuse_done(r, partial, err, errlen) != 0)
		return -1;
	snprintf(path, sizeof path, "%s/round.json", r->dir);
	if (digest_file(path, sha) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path, strerror(errno));
		return -1;
	}
	recorded = resume_spec_sha256(r->rs);
	if (recorded == NULL || strcmp(recorded, sha) != 0) {
		snprintf(err, errlen, "%s: changed since the round started "
		    "(sha256 %s, the log recorded %s); %s", path, sha,
		    recorded != NULL ? recorded : "none",
		    partial ? "refusing to seal it" : "resume refuses");
		return -1;
	}
	if (spec_load(path, resume_workdir(r->rs), &r->spec, err, errlen) != 0 ||
	    round_resume_hosts(r, err, errlen) != 0 ||
	    (!partial && (spec_check_commands(r->spec, err, errlen) != 0 ||
	    spec_check_host(r->spec, err, errlen) != 0)))
		return -1;
	/* The plan the log was written under, whatever the round file says
	 * by default today: each planned leg then ends exactly once. */
	if (resume_recorded_order(r->rs, &r->spec->order,
	    &r->spec->shuffle_seed) != 0) {
		snprintf(err, errlen, "%s/log.jsonl: the round event records "
		    "an order this benchtui does not know; resume refuses",
		    r->dir);
		return -1;
	}
	r->spec->has_shuffle_seed = r->spec->order == SPEC_ORDER_SHUFFLE;
	*exit_code = ROUND_EXIT_FAIL;
	/* Legs a killed benchtui left running would write into the folder
	 * after it is sealed, or beside the resumed legs. */
	r->stale_ended = resume_end_stale(r->rs);
	snprintf(path, sizeof path, "%s/log.jsonl", r->dir);
	if ((r->log = logw_open(path, err, errlen)) == NULL)
		return -1;
	return 0;
}

/* round_alloc, once the signing key proved usable: a key that cannot be
 * used would only show after the whole round, at the seal (unreadable,
 * encrypted, not Ed25519). */
static struct round *
round_new(const struct round_opts *opts, int *exit_code, char *err,
    size_t errlen)
{
	struct round *r;

	*exit_code = ROUND_EXIT_USAGE;
	if (opts->sign_key != NULL &&
	    seal_check_key(opts->sign_key, err, errlen) != 0)
		return NULL;
	*exit_code = ROUND_EXIT_FAIL;
	if ((r = round_alloc(opts)) == NULL)
		snprintf(err, errlen, "round: cannot make its pipes: %s",
		    strerror(errno));
	return r;
}

struct round *
round_open_partial(const char *dir, const char *sign_key, int *exit_code,
    char *err, size_t errlen)
{
	struct round_opts opts = { .resume_dir = dir, .sign_key = sign_key };
	struct round *r = round_new(&opts, exit_code, err, errlen);

	if (r == NULL)
		return NULL;
	if (round_create_resume(r, dir, true, exit_code, err, errlen) != 0) {
		round_destroy(r);
		return NULL;
	}
	tally_set_spec(r->tally, r->spec);
	*exit_code = ROUND_EXIT_OK;
	return r;
}

/* On resume: the kept files hashed again against environment.json's
 * record.  A change refuses (exit 3, naming each file and both sha256)
 * unless accepted, when the new content becomes the seal's reference and
 * the resume event lists it.  0, or -1 with err. */
static int
round_files_resume(struct round *r, int *exit_code, char *err,
    size_t errlen)
{
	const json_t *rec = json_object_get(resume_recorded_env(r->rs),
	    "files");
	json_t *changed = json_array();
	size_t n;

	if (r->spec->nfiles == 0) {
		json_decref(changed);
		return 0;
	}
	r->files_ref = json_is_object(rec) ? json_deep_copy(rec) :
	    json_object();
	if (keepfiles_verify(r->spec, r->files_ref, changed) == 0) {
		json_decref(changed);
		return 0;
	}
	if (r->accept_changed_files) {
		keepfiles_ref_update(r->files_ref, changed);
		r->files_changed = changed;
		return 0;
	}
	keepfiles_describe(changed, err, errlen);
	n = strlen(err);
	snprintf(err + n, errlen - n, "; the legs left would not run what "
	    "files/ holds: resume refuses (put the file back, or resume "
	    "with --accept-changed-files to go on with the new content, "
	    "recorded in the resume event)");
	json_decref(changed);
	*exit_code = ROUND_EXIT_ABORTED;
	return -1;
}

struct round *
round_create(const struct round_opts *opts, int *exit_code, char *err,
    size_t errlen)
{
	struct round *r;
	int rc;

	if ((opts->spec_path == NULL) == (opts->resume_dir == NULL)) {
		snprintf(err, errlen, "round: give either a round file or a "
		    "folder to resume");
		*exit_code = ROUND_EXIT_USAGE;
		return NULL;
	}
	if ((r = round_new(opts, exit_code, err, errlen)) == NULL)
		return NULL;
	r->accept_changed_files = opts->accept_changed_files;
	rc = opts->resume_dir != NULL ?
	    round_create_resume(r, opts->resume_dir, false, exit_code, err,
	    errlen) :
	    round_create_run(r, opts, exit_code, err, errlen);
	if (rc == 0 && opts->resume_dir != NULL &&
	    round_fail_on(r, opts, err, errlen) != 0) {
		*exit_code = ROUND_EXIT_USAGE;
		rc = -1;
	}
	if (rc == 0 && opts->resume_dir != NULL)
		rc = round_files_resume(r, exit_code, err, errlen);
	if (rc != 0 || plan_init(&r->plan, r->spec) != 0) {
		if (rc == 0)
			snprintf(err, errlen, "round: the plan does not fit in "
			    "memory");
		round_destroy(r);
		return NULL;
	}
	tally_set_spec(r->tally, r->spec);
	*exit_code = ROUND_EXIT_OK;
	return r;
}

void
round_destroy(struct round *r)
{
	if (r == NULL)
		return;
	for (int i = 0; i < 2; i++) {
		if (r->abort_pipe[i] >= 0)
			close(r->abort_pipe[i]);
		if (r->ctl_pipe[i] >= 0)
			close(r->ctl_pipe[i]);
		if (r->gate_pipe[i] >= 0)
			close(r->gate_pipe[i]);
	}
	logw_destroy(r->log);
	if (r->lock_fd >= 0)
		close(r->lock_fd);
	if (r->reuse_fd >= 0)
		close(r->reuse_fd);
	if (r->spec != NULL)
		plan_finish(&r->plan);
	tally_destroy(r->tally);
	resume_destroy(r->rs);
	spec_destroy(r->spec);
	failon_finish(&r->fail_on);
	json_decref(r->files_ref);
	json_decref(r->files_changed);
	free(r->sign_key);
	free(r->dir);
	free(r);
}
