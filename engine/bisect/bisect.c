/* The hunt: the ends compared first (is the bad end worse at all, and
 * which way), then a step per revision narrowing chooses, each a round of
 * the good end's build against the candidate's run by the round driver,
 * until one commit is left; that one is confirmed against its parent.
 * bisect.json is written after every step, so a stop (or a crash) loses
 * at most the step in flight, which resume finishes as a round. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bisect_int.h"
#include "clock.h"
#include "round.h"
#include "seal.h"
#include "xalloc.h"

/* How a step's round ended. */
enum bisect_ran {
	BISECT_RAN_OK = 0,      /* v holds the verdict */
	BISECT_RAN_STOP,        /* stopped, resumable */
	BISECT_RAN_FAIL,        /* err says why */
};

static void
bisect_say(const struct bisect *b, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	if (b->o->say == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	b->o->say(line, b->o->arg);
}

static size_t
bisect_nsteps(const struct bisect *b)
{
	return json_array_size(json_object_get(b->doc, "steps"));
}

/* A step's round folder, open it (new or resumed) and run it. */
static enum bisect_ran
bisect_round(struct bisect *b, const char *rel, const char *spec_path,
    const struct bisect_hunt *h, char *err, size_t errlen)
{
	char *dir = xasprintf("%s/%s", b->dir, rel);
	char *sums = xasprintf("%s/%s", dir, SEAL_SUMS);
	char *rj = xasprintf("%s/round.json", dir);
	struct round_opts ro = { 0 };
	enum bisect_ran ran = BISECT_RAN_FAIL;
	struct round *r;
	int code = 0;

	if (access(sums, F_OK) == 0) {
		/* Sealed before a crash took bisect.json's line. */
		ran = BISECT_RAN_OK;
		goto out;
	}
	if (access(rj, F_OK) == 0)
		ro.resume_dir = dir;
	else {
		rmdir(dir);
		ro.spec_path = spec_path;
		ro.out_dir = dir;
	}
	if ((r = round_create(&ro, &code, err, errlen)) == NULL)
		goto out;
	code = b->o->run_round(r, h, b->o->arg);
	round_destroy(r);
	if (code == ROUND_EXIT_ABORTED)
		ran = BISECT_RAN_STOP;
	else if (code == ROUND_EXIT_OK || code == ROUND_EXIT_LEGS_FAILED ||
	    code == ROUND_EXIT_FAIL_ON)
		ran = BISECT_RAN_OK;
	else
		snprintf(err, errlen, "%s: the step's round failed (exit %d)",
		    dir, code);
out:
	free(dir);
	free(sums);
	free(rj);
	return ran;
}

/* The step's round file, written to work/ (the round folder keeps its own
 * copy). */
static int
bisect_spec_write(struct bisect *b, const char *name, const char *good,
    const char *cand, char **path, char *err, size_t errlen)
{
	char *gout = bisect_tree_out(b->dir, good);
	char *cout = bisect_tree_out(b->dir, cand);
	json_t *s = bisect_step_spec(b->tmpl, b->workdir, name, gout, cout,
	    b->metric);
	int rc = 0;

	*path = xasprintf("%s/work/%s.json", b->dir, name);
	if (json_dump_file(s, *path, JSON_INDENT(2)) != 0) {
		snprintf(err, errlen, "%s: cannot write", *path);
		rc = -1;
	}
	json_decref(s);
	free(gout);
	free(cout);
	return rc;
}

/* The mark a verdict gives the candidate. */
static const char *
bisect_mark_of(const struct bisect *b, const char *verdict)
{
	if (strcmp(verdict, b->worse) == 0)
		return "bad";
	if (strcmp(verdict, "same") == 0 || strcmp(verdict, "above") == 0 ||
	    strcmp(verdict, "below") == 0)
		return "good";
	return "skip";
}

/* A built step's round written, run and read back into v: -1, or an
 * exit status. */
static int
bisect_step_round(struct bisect *b, const char *name, const char *rel,
    const char *base, const struct bisect_hunt *h, struct bisect_verdict *v,
    char *err, size_t errlen)
{
	enum bisect_ran ran;
	char *spec = NULL, *dir;
	int rc;

	if (bisect_spec_write(b, name, base, h->rev, &spec, err, errlen) != 0) {
		free(spec);
		return 1;
	}
	ran = bisect_round(b, rel, spec, h, err, errlen);
	free(spec);
	if (ran != BISECT_RAN_OK)
		return ran == BISECT_RAN_STOP ? ROUND_EXIT_ABORTED : 1;
	dir = xasprintf("%s/%s", b->dir, rel);
	rc = bisect_step_read(dir, b->metric, b->worse[0] ? b->worse : NULL, v,
	    err, errlen);
	free(dir);
	return rc == 0 ? -1 : 1;
}

/* A step's line in bisect.json (st, completed here), the candidate's
 * mark, and the line said.  -1, or 1 when bisect.json cannot be
 * written. */
static int
bisect_step_note(struct bisect *b, json_t *st, long idx, const char *mark,
    const struct bisect_verdict *v, double t0, char *err, size_t errlen)
{
	const char *kind = json_string_value(json_object_get(st, "kind"));
	struct bisect_next nx;
	char est[96] = "";

	json_object_set_new(st, "verdict", json_string(v->verdict));
	json_object_set_new(st, "estimate", v->estimate > 0 ?
	    json_real(v->estimate) : json_null());
	json_object_set_new(st, "ci", v->lo > 0 ? json_pack("[ff]", v->lo,
	    v->hi) : json_null());
	json_object_set_new(st, "reps", json_integer(v->reps));
	json_object_set_new(st, "wall_s", json_real(clock_now() - t0));
	if (mark != NULL)
		json_object_set_new(st, "mark", json_string(mark));
	json_array_append_new(json_object_get(b->doc, "steps"), st);
	if (strcmp(kind, "ends") == 0 && (strcmp(v->verdict, "above") == 0 ||
	    strcmp(v->verdict, "below") == 0))
		b->r.mark[idx] = BISECT_BAD;
	if (strcmp(kind, "step") == 0)
		b->r.mark[idx] = strcmp(mark, "bad") == 0 ? BISECT_BAD :
		    strcmp(mark, "good") == 0 ? BISECT_GOOD : BISECT_SKIP;
	bisect_narrow(&b->r, &nx);
	if (v->estimate > 0)
		snprintf(est, sizeof est, " %.4f", v->estimate);
	if (v->lo > 0)
		snprintf(est + strlen(est), sizeof est - strlen(est),
		    " [%.4f, %.4f]", v->lo, v->hi);
	bisect_say(b, "step %zu %s %.12s: %s%s%s%s, %ld reps, %.1fs, %zu left",
	    bisect_nsteps(b), kind, b->r.revs[idx], v->verdict, est,
	    mark != NULL ? " -> " : "", mark != NULL ? mark : "", v->reps,
	    clock_now() - t0, nx.left);
	return bisect_save(b, err, errlen) == 0 ? -1 : 1;
}

/* One step: kind "ends", "step" or "confirm"; the candidate revs[idx]
 * against base (the good end, or for confirm the culprit's parent), a
 * candidate that does not build marked mark_if_fail.  Its line added to
 * bisect.json, a step's mark set, and said.  An exit status, or -1 to go
 * on. */
static int
bisect_step(struct bisect *b, const char *kind, long idx, const char *base,
    const char *mark_if_fail, struct bisect_verdict *v, char *err,
    size_t errlen)
{
	size_t k = bisect_nsteps(b) + 1;
	const char *cand = b->r.revs[idx], *mark = mark_if_fail;
	char name[64], rel[96];
	double t0 = clock_now();
	struct bisect_next nx;
	struct bisect_hunt h = { .dir = b->dir, .step = k, .rev = cand,
	    .kind = kind, .steps = json_object_get(b->doc, "steps") };
	json_t *st;
	int built, rc;

	bisect_narrow(&b->r, &nx);
	h.left = nx.left;
	h.range = (size_t)(nx.hi - nx.lo);
	snprintf(name, sizeof name, "bisect-%02zu-%.7s", k, cand);
	snprintf(rel, sizeof rel, "steps/%02zu-%.7s", k, cand);
	memset(v, 0, sizeof *v);
	if (b->o->stop != NULL && *b->o->stop)
		return ROUND_EXIT_ABORTED;
	/* The base is built already in this run, but not after a resume. */
	if ((built = bisect_tree_build(b->dir, b->repo, b->build, base, err,
	    errlen)) != 0) {
		if (built == 1)
			snprintf(err, errlen, "%.12s, built before, does not "
			    "build now (see %s/builds/%s.log)", base, b->dir,
			    base);
		return 1;
	}
	if ((built = bisect_tree_build(b->dir, b->repo, b->build, cand, err,
	    errlen)) < 0)
		return 1;
	/* A stop that came during the builds: before the round, not after. */
	if (b->o->stop != NULL && *b->o->stop)
		return ROUND_EXIT_ABORTED;
	if (built == 1)
		snprintf(v->verdict, sizeof v->verdict, "build-failed");
	else if ((rc = bisect_step_round(b, name, rel, base, &h, v, err,
	    errlen)) >= 0)
		return rc;
	else
		mark = strcmp(kind, "ends") == 0 ? NULL :
		    bisect_mark_of(b, v->verdict);
	st = json_pack("{ss ss ss so}", "kind", kind, "revision", cand,
	    "base", base, "round", built == 1 ? json_null() : json_string(rel));
	return bisect_step_note(b, st, idx, mark, v, t0, err, errlen);
}

/* The ends: is the bad end worse than the good one at all, and which way
 * is worse.  -1 to go on, else the exit status. */
static int
bisect_ends(struct bisect *b, char *err, size_t errlen)
{
	struct bisect_verdict v;
	json_t *last;
	int rc;

	if (b->worse[0] != '\0')
		return -1;
	/* Read back: the ends were compared, and found no regression. */
	if (bisect_nsteps(b) > 0)
		return BISECT_EXIT_NONE;
	if ((rc = bisect_tree_build(b->dir, b->repo, b->build, b->good, err,
	    errlen)) != 0) {
		if (rc == 1)
			snprintf(err, errlen, "--good %.12s does not build (see "
			    "%s/builds/%s.log)", b->good, b->dir, b->good);
		return 1;
	}
	if ((rc = bisect_step(b, "ends", (long)b->r.n - 1, b->good, NULL, &v,
	    err, errlen)) >= 0)
		return rc;
	if (strcmp(v.verdict, "build-failed") == 0) {
		snprintf(err, errlen, "--bad %.12s does not build (see "
		    "%s/builds/%s.log)", b->bad, b->dir, b->bad);
		return 1;
	}
	last = json_array_get(json_object_get(b->doc, "steps"),
	    bisect_nsteps(b) - 1);
	if (strcmp(v.verdict, "above") != 0 && strcmp(v.verdict, "below") != 0)
		return BISECT_EXIT_NONE;
	snprintf(b->worse, sizeof b->worse, "%s", v.verdict);
	json_object_set_new(last, "worse", json_string(b->worse));
	b->r.mark[b->r.n - 1] = BISECT_BAD;
	return bisect_save(b, err, errlen) == 0 ? -1 : 1;
}

/* Steps until narrowing has nothing left to test.  -1 to go on, else the
 * exit status. */
static int
bisect_narrowing(struct bisect *b, char *err, size_t errlen)
{
	struct bisect_verdict v;
	struct bisect_next nx;
	int rc;

	for (bisect_narrow(&b->r, &nx); nx.pick >= 0;
	    bisect_narrow(&b->r, &nx)) {
		if ((rc = bisect_step(b, "step", nx.pick, b->good, "skip", &v,
		    err, errlen)) >= 0)
			return rc;
	}
	return -1;
}

/* The culprit against its parent, and the end in bisect.json. */
static int
bisect_confirm(struct bisect *b, long lo, long hi, char *err, size_t errlen)
{
	const char *culprit = b->r.revs[hi];
	const char *parent = lo >= 0 ? b->r.revs[lo] : b->good;
	struct bisect_verdict v;
	bool yes;
	int rc;

	if ((rc = bisect_step(b, "confirm", hi, parent, NULL, &v, err,
	    errlen)) >= 0)
		return rc;
	yes = strcmp(v.verdict, b->worse) == 0;
	json_object_set_new(b->doc, "culprit", json_pack("{ss ss so so sb}",
	    "revision", culprit, "parent", parent, "estimate",
	    v.estimate > 0 ? json_real(v.estimate) : json_null(), "ci",
	    v.lo > 0 ? json_pack("[ff]", v.lo, v.hi) : json_null(),
	    "confirmed", yes));
	bisect_say(b, "culprit: %s, %s against its parent %.12s: %.4f "
	    "[%.4f, %.4f]%s", culprit, v.verdict, parent, v.estimate, v.lo,
	    v.hi, yes ? "" : " (the confirmation did not find it worse)");
	return ROUND_EXIT_OK;
}

/* Only skipped revisions hide the first bad one: name them. */
static int
bisect_undecided(struct bisect *b, long lo, long hi, char *err,
    size_t errlen)
{
	json_t *range = json_array();

	for (long i = lo + 1; i <= hi; i++)
		json_array_append_new(range, json_string(b->r.revs[i]));
	json_object_set_new(b->doc, "undecided", range);
	bisect_say(b, "the first bad commit is one of %ld (skipped ones hide "
	    "it): %.12s .. %.12s", hi - lo, b->r.revs[lo + 1], b->r.revs[hi]);
	snprintf(err, errlen, "skipped revisions leave %ld commits undecided "
	    "(bisect.json's \"undecided\")", hi - lo);
	return ROUND_EXIT_FAIL;
}

/* The hunt over: the work folder gone, bisect.json's end, the seal. */
static int
bisect_finish(struct bisect *b, int code, char *err, size_t errlen)
{
	char sha[65], why[512];

	bisect_tree_clean(b->dir, b->repo);
	json_object_set_new(b->doc, "exit", json_integer(code));
	if (bisect_save(b, why, sizeof why) != 0 ||
	    seal_write(b->dir, NULL, sha, why, sizeof why) != 0) {
		snprintf(err, errlen, "%s", why);
		return ROUND_EXIT_FAIL;
	}
	bisect_say(b, "sealed: %s/%s %.16s", b->dir, SEAL_SUMS, sha);
	return code;
}

int
bisect_run(const struct bisect_opts *o, char *err, size_t errlen)
{
	struct bisect b;
	struct bisect_next nx;
	int rc;

	if ((rc = bisect_open(&b, o, err, errlen)) != 0) {
		bisect_close(&b);
		return rc;
	}
	bisect_say(&b, "bisect folder: %s", b.dir);
	/* A run killed before its end left its worktrees: begin afresh. */
	bisect_tree_clean(b.dir, b.repo);
	{
		char *work = xasprintf("%s/work", b.dir);

		mkdir(work, 0755);
		free(work);
	}
	bisect_say(&b, "%zu revisions from %.12s (good) to %.12s (bad)",
	    b.r.n, b.good, b.bad);
	/* A hunt that ended but was not sealed (a crash in between). */
	if (json_is_integer(json_object_get(b.doc, "exit")))
		rc = (int)json_integer_value(json_object_get(b.doc, "exit"));
	else if ((rc = bisect_ends(&b, err, errlen)) < 0 &&
	    (rc = bisect_narrowing(&b, err, errlen)) < 0) {
		bisect_narrow(&b.r, &nx);
		if (nx.hi == nx.lo + 1)
			rc = bisect_confirm(&b, nx.lo, nx.hi, err, errlen);
		else
			rc = bisect_undecided(&b, nx.lo, nx.hi, err, errlen);
	}
	if (rc == BISECT_EXIT_NONE) {
		snprintf(err, errlen, "the bad end %.12s is not worse than the "
		    "good end %.12s on %s", b.bad, b.good, b.metric);
		bisect_say(&b, "no regression: %s", err);
	}
	if (rc == ROUND_EXIT_OK || rc == BISECT_EXIT_NONE ||
	    (rc == ROUND_EXIT_FAIL && json_object_get(b.doc, "undecided")))
		rc = bisect_finish(&b, rc, err, errlen);
	else
		bisect_tree_clean(b.dir, b.repo);
	if (rc == ROUND_EXIT_ABORTED)
		bisect_say(&b, "stopped; resume with: benchtui resume %s", b.dir);
	bisect_close(&b);
	return rc;
}
