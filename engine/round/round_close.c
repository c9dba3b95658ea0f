/* The round driver, the closing: the abort event of a round that stopped
 * early, or done, the summaries and the seal of one that completed (and
 * the summaries and seal of seal --partial, round_partial.c). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "event.h"
#include "report.h"
#include "keepfiles.h"
#include "round_int.h"
#include "seal.h"

int
round_close_stopped(struct run *u, bool failed)
{
	struct round *r = u->r;
	const char *reason = atomic_load(&r->abort_reason);
	json_t *ev = event_new("abort");

	if (r->fatal)
		snprintf(u->err, sizeof u->err, "%s; the round stopped, "
		    "resume continues it once this is fixed", r->fatal_err);
	else if (u->err[0] == '\0')
		snprintf(u->err, sizeof u->err, "aborted (%s); resume "
		    "continues the round", reason != NULL ? reason : "abort");
	json_object_set_new(ev, "reason", json_string(failed || r->fatal ||
	    u->stop_logged_err ?
	    u->err : reason != NULL ? reason : "abort"));
	round_emit_new(u, ev);
	return failed ? ROUND_EXIT_FAIL : ROUND_EXIT_ABORTED;
}

/* round.json still has the sha256 the round event recorded.  -1 with
 * u->err when it does not (or cannot be read). */
static int
round_close_spec_intact(struct run *u)
{
	char path[PATH_MAX], hex[DIGEST_HEX_LEN];

	snprintf(path, sizeof path, "%s/round.json", u->r->dir);
	if (digest_file(path, hex) != 0) {
		snprintf(u->err, sizeof u->err, "%.600s: cannot read: %s; not "
		    "sealed", path, strerror(errno));
		return -1;
	}
	if (strcmp(hex, u->r->spec->sha256) != 0) {
		snprintf(u->err, sizeof u->err, "%.600s: changed during the round "
		    "(sha256 %s, the log recorded %s); not sealed: the seal "
		    "would vouch for a round file that did not run", path, hex,
		    u->r->spec->sha256);
		return -1;
	}
	return 0;
}

/* A complete round whose legs did not all succeed exits 5, saying how
 * many, where, and which file holds the first failing leg's output. */
static int
round_close_failed_legs(struct run *u)
{
	struct tally_failure first;
	char where[512], out[PATH_MAX], tail[480];
	size_t n = tally_failed_legs(u->r->tally, &first, where, sizeof where);

	if (n == 0)
		return ROUND_EXIT_OK;
	snprintf(out, sizeof out, "%s/legs/%s-%s-r%d.out", u->r->dir,
	    first.cell, first.arm, first.rep);
	/* A leg's file is made at its first byte (and never with keep:
	 * none): named only when it is there. */
	if (access(out, F_OK) == 0)
		snprintf(tail, sizeof tail, "the first failing leg's output: "
		    "%.400s", out);
	else
		snprintf(tail, sizeof tail, "the first failing leg (%.60s %.60s "
		    "r%d) left no output file", first.cell, first.arm,
		    first.rep);
	snprintf(u->err, sizeof u->err, "the round is complete and sealed, "
	    "but %zu leg%s failed or timed out (%.400s; left out of the "
	    "ratios); %.460s", n, n == 1 ? "" : "s", where, tail);
	return ROUND_EXIT_LEGS_FAILED;
}

/* A complete round with a verdict that matches a fail_on rule in rep
 * (its report, as sealed) exits 6, naming each match with its interval
 * (after what rc already says, when legs failed too); else rc. */
static int
round_close_fail_on(struct run *u, const json_t *rep, int rc)
{
	json_t *msgs;
	size_t n, len;

	if (u->r->fail_on.n == 0)
		return rc;
	msgs = json_array();
	if ((n = failon_match(&u->r->fail_on, rep, msgs)) > 0) {
		len = rc == ROUND_EXIT_OK ? 0 : strlen(u->err);
		len += (size_t)snprintf(u->err + len, sizeof u->err - len,
		    "%s%zu verdict%s matched fail_on: ", len ? "; and " : "",
		    n, n == 1 ? "" : "s");
		if (len < sizeof u->err)
			failon_join(msgs, u->err + len, sizeof u->err - len);
		rc = ROUND_EXIT_FAIL_ON;
	}
	json_decref(msgs);
	return rc;
}

static json_t *
round_close_seal_event(const char *sums)
{
	json_t *ev = event_new("seal");

	json_object_set_new(ev, "sha256", json_string(sums));
	return ev;
}

json_t *
round_seal_event(const char *dir, json_t *ts)
{
	char path[PATH_MAX], hex[DIGEST_HEX_LEN];
	json_t *ev;

	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	if (access(path, F_OK) != 0)
		return NULL;
	ev = digest_file(path, hex) == 0 ? round_close_seal_event(hex) :
	    event_new("seal");
	json_object_set(ev, "ts", ts != NULL ? ts : json_null());
	json_object_set_new(ev, "from_sha256sums", json_true());
	return ev;
}

/* What a leg left in legs/ that the seal cannot cover (a symlink, a fifo,
 * a socket: it covers regular files only) is removed with a warning
 * naming it, rather than failing a complete round at its seal. */
static void
round_seal_strays(struct run *u)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct dirent *de;
	struct stat st;
	int fd;
	DIR *d;

	snprintf(path, sizeof path, "%s/legs", u->r->dir);
	if ((fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) < 0)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		ssize_t n;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
			continue;
		n = S_ISLNK(st.st_mode) ? readlinkat(fd, de->d_name, target,
		    sizeof target - 1) : -1;
		target[n > 0 ? n : 0] = '\0';
		if (unlinkat(fd, de->d_name, 0) == 0)
			round_warn(u, "legs/%s: %s%s%s a leg left there; removed "
			    "before the seal, which covers regular files only",
			    de->d_name, S_ISLNK(st.st_mode) ? "a symlink" :
			    "not a regular file", n > 0 ? " to " : "", target);
	}
	closedir(d);
}

int
round_seal(struct run *u, bool partial, char sums[65], json_t **report)
{
	struct round *r = u->r;
	json_t *rep;
	int rc, e;

	/* round.json is read-only from the start, but its owner can still
	 * change it: a seal over another round file than the one run would
	 * vouch for a round that never ran. */
	if (round_close_spec_intact(u) != 0)
		return -1;
	/* Every line of the log on the disk before anything vouches for
	 * it: this sync's error, or one a background sync met. */
	if (logw_sync(r->log) != 0) {
		int e = errno;

		snprintf(u->err, sizeof u->err, "%s/log.jsonl: cannot sync it to "
		    "the disk (%s): lines of the log may not have reached it; not "
		    "sealed", r->dir, strerror(e));
		errno = e;
		return -1;
	}
	round_seal_strays(u);
	rep = tally_report(r->tally);
	rc = report_write_summary(r->dir, rep, partial, u->err, sizeof u->err);
	if (rc == 0)
		rc = seal_write(r->dir, r->sign_key, sums, u->err,
		    sizeof u->err);
	e = errno;
	if (rc == 0 && report != NULL)
		*report = rep;
	else
		json_decref(rep);
	errno = e;
	return rc != 0 ? -1 : 0;
}

/* done, the summaries, the seal.  The log is complete at "done"; the seal
 * event goes to the front end only, since appending it would change a
 * file SHA256SUMS covers. */
/* The kept files hashed again before the seal vouches for files/: a
 * change stops the round resumably (naming each file and both sha256),
 * unless accepted (a warning then).  0, or -1 with u->err. */
static int
round_close_files(struct run *u)
{
	struct round *r = u->r;
	json_t *changed;
	char what[768];
	int rc = 0;

	if (r->spec->nfiles == 0 || r->files_ref == NULL)
		return 0;
	changed = json_array();
	if (keepfiles_verify(r->spec, r->files_ref, changed) > 0) {
		keepfiles_describe(changed, what, sizeof what);
		if (r->accept_changed_files) {
			round_warn(u, "%s (accepted: --accept-changed-files)",
			    what);
			keepfiles_ref_update(r->files_ref, changed);
		} else {
			snprintf(u->err, sizeof u->err, "%.768s; not sealed: the "
			    "copy in files/ is not what the file holds now (put "
			    "it back and resume, or resume with "
			    "--accept-changed-files)", what);
			rc = -1;
		}
	}
	json_decref(changed);
	return rc;
}

int
round_close_done(struct run *u, bool log_done)
{
	struct round *r = u->r;
	char sums[65];
	json_t *ev, *rep;
	int rc;

	if (round_close_files(u) != 0)
		return ROUND_EXIT_ABORTED;

	if (log_done) {
		ev = event_new("done");
		json_object_set_new(ev, "legs", json_integer((json_int_t)u->legs_total));
		round_emit_new(u, ev);
		if (r->fatal) {
			snprintf(u->err, sizeof u->err, "%s", r->fatal_err);
			return ROUND_EXIT_ABORTED;
		}
	}
	if (round_seal(u, false, sums, &rep) != 0) {
		/* The round is complete: a disk that filled before the seal
		 * was written is no reason to lose it, and resume seals it
		 * (nothing runs again). */
		if (errno == ENOSPC || errno == EDQUOT) {
			size_t n = strlen(u->err);

			snprintf(u->err + n, sizeof u->err - n, "; the round is "
			    "complete but not sealed: resume seals it once the "
			    "disk has room");
			return ROUND_EXIT_ABORTED;
		}
		return ROUND_EXIT_FAIL;
	}
	ev = round_close_seal_event(sums);
	if (r->on_event != NULL)
		r->on_event(ev, r->arg);
	json_decref(ev);
	rc = round_close_fail_on(u, rep, round_close_failed_legs(u));
	json_decref(rep);
	return rc;
}
