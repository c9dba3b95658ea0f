/* A hunt's start: the options checked (every error before anything is
 * built), the folder made and bisect.json begun; or, for resume, the
 * folder read back, the revisions listed again and the steps so far
 * replayed into the marks. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bisect_int.h"
#include "rfile.h"
#include "seal.h"
#include "spec.h"
#include "xalloc.h"

#define BISECT_ROUND "bisect-round.json"

bool
bisect_is_folder(const char *dir)
{
	char *p = xasprintf("%s/bisect.json", dir);
	bool yes = access(p, F_OK) == 0;

	free(p);
	return yes;
}

int
bisect_verify_steps(const char *dir, FILE *out, size_t *rounds, char *err,
    size_t errlen)
{
	char *path = xasprintf("%s/bisect.json", dir);
	json_error_t je;
	json_t *doc = json_load_file(path, 0, &je), *st;
	int rc = 0;
	size_t i;

	*rounds = 0;
	if (doc == NULL) {
		snprintf(err, errlen, "%s: %s", path, je.text);
		free(path);
		return 2;
	}
	free(path);
	json_array_foreach(json_object_get(doc, "steps"), i, st) {
		const char *rel = json_string_value(json_object_get(st, "round"));
		char *sub;
		int one;

		if (rel == NULL)
			continue;
		sub = xasprintf("%s/%s", dir, rel);
		one = seal_verify(sub, NULL, out, err, errlen);
		free(sub);
		if (one == 2) {
			rc = 2;
			break;
		}
		if (one != 0)
			rc = 4;
		(*rounds)++;
	}
	json_decref(doc);
	return rc;
}

int
bisect_save(struct bisect *b, char *err, size_t errlen)
{
	char *path = xasprintf("%s/bisect.json", b->dir);
	char *tmp = xasprintf("%s/.bisect.json.tmp", b->dir);
	char *text = json_dumps(b->doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	const char *stage = "write";
	int rc = -1;

	if (rfile_write_new(tmp, text, strlen(text), 0644, &stage) != 0 ||
	    (stage = "rename", rename(tmp, path) != 0)) {
		snprintf(err, errlen, "%s: %s failed: %s", path, stage,
		    rfile_strerror(errno));
		unlink(tmp);
	} else
		rc = 0;
	free(text);
	free(tmp);
	free(path);
	return rc;
}

/* --repo: a folder git calls a repository, absolute. */
static int
bisect_open_repo(struct bisect *b, const char *repo, char *err,
    size_t errlen)
{
	const char *gitdir[] = { "rev-parse", "--git-dir", NULL };
	char real[PATH_MAX], why[512];

	if (realpath(repo, real) == NULL) {
		snprintf(err, errlen, "--repo %s: %s", repo, strerror(errno));
		return -1;
	}
	if (bisect_git(real, gitdir, NULL, why, sizeof why) != 0) {
		snprintf(err, errlen, "--repo %s: not a git repository (%s)",
		    repo, why);
		return -1;
	}
	b->repo = xstrdup(real);
	return 0;
}

/* --good or --bad (opt) to its full sha in out. */
static int
bisect_open_rev(struct bisect *b, const char *opt, const char *rev,
    char out[41], char *err, size_t errlen)
{
	char *spec = xasprintf("%s^{commit}", rev), *sha = NULL, why[512];
	const char *args[] = { "rev-parse", "--verify", "--quiet", spec,
	    NULL };
	int rc = -1;

	if (rev[0] == '-' || bisect_git(b->repo, args, &sha, why,
	    sizeof why) != 0 || strlen(sha) != 40)
		snprintf(err, errlen, "%s %s: git does not know this revision "
		    "in %s", opt, rev, b->repo);
	else {
		memcpy(out, sha, 41);
		rc = 0;
	}
	free(sha);
	free(spec);
	return rc;
}

/* The revisions from good (left out) to bad, oldest first. */
static int
bisect_open_range(struct bisect *b, char *err, size_t errlen)
{
	char *span = xasprintf("%s..%s", b->good, b->bad), *text = NULL;
	const char *args[] = { "rev-list", "--reverse", "--topo-order",
	    "--ancestry-path", span, NULL };
	char *save = NULL, *line;
	int rc = -1;

	if (bisect_git(b->repo, args, &text, err, errlen) != 0)
		goto out;
	for (line = strtok_r(text, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		b->r.revs = xreallocarray(b->r.revs, b->r.n + 1,
		    sizeof *b->r.revs);
		b->r.revs[b->r.n++] = xstrdup(line);
	}
	if (b->r.n == 0 || strcmp(b->r.revs[b->r.n - 1], b->bad) != 0) {
		snprintf(err, errlen, "git rev-list %s: the range does not end "
		    "at --bad", span);
		goto out;
	}
	b->r.mark = xreallocarray(NULL, b->r.n, sizeof *b->r.mark);
	memset(b->r.mark, 0, b->r.n * sizeof *b->r.mark);
	rc = 0;
out:
	free(text);
	free(span);
	return rc;
}

/* A step's round made from the round file parses (the builds' folders
 * stand-ins: no program is looked up), so a bad field is named before
 * anything is built. */
static int
bisect_open_parse(struct bisect *b, const char *path, char *err,
    size_t errlen)
{
	json_t *s = bisect_step_spec(b->tmpl, b->workdir, "bisect-check",
	    "/GOOD", "/CANDIDATE", b->metric);
	char *text = json_dumps(s, JSON_COMPACT), why[1024];
	struct spec *sp = NULL;
	int rc;

	rc = spec_parse(text, strlen(text), path, b->workdir, &sp, why,
	    sizeof why);
	if (rc != 0)
		snprintf(err, errlen, "%s (a step's round made from it)", why);
	spec_destroy(sp);
	free(text);
	json_decref(s);
	return rc;
}

/* The round file: JSON that names ${OUT}; its workdir made absolute (the
 * step rounds are written elsewhere). */
static int
bisect_open_round(struct bisect *b, const char *path, char *err,
    size_t errlen)
{
	json_error_t je;
	char real[PATH_MAX], *slash;
	const char *wd;

	if ((b->tmpl = json_load_file(path, 0, &je)) == NULL) {
		snprintf(err, errlen, "%s: line %d: %s", path, je.line, je.text);
		return -1;
	}
	if (!json_is_object(b->tmpl) || !bisect_step_uses_out(b->tmpl)) {
		snprintf(err, errlen, "%s: the round file does not use ${OUT} "
		    "(its bin, command or first arm must point at the build, "
		    "e.g. \"bin\": \"${OUT}/prog\")", path);
		return -1;
	}
	if (realpath(path, real) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	*(slash = strrchr(real, '/')) = '\0';
	wd = json_string_value(json_object_get(b->tmpl, "workdir"));
	if (wd == NULL)
		b->workdir = xstrdup(real[0] ? real : "/");
	else if (wd[0] == '/')
		b->workdir = xstrdup(wd);
	else
		b->workdir = xasprintf("%s/%s", real, wd);
	return bisect_open_parse(b, path, err, errlen);
}

/* mkdir -p of path's folders and path itself (0755). */
static int
bisect_open_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;

	for (char *s = p + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST)
				rc = -1;
			*s = '/';
		}
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		rc = -1;
	free(p);
	return rc;
}

/* The new folder: --out (empty or new) or ./bisects/bisect-DATE. */
static int
bisect_open_dir(struct bisect *b, const char *out, char *err, size_t errlen)
{
	char stamp[32], real[PATH_MAX], *dir;
	time_t now = time(NULL);
	struct tm tm;
	int rc = -1;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	dir = out != NULL ? xstrdup(out) : xasprintf("bisects/bisect-%s",
	    stamp);
	if (bisect_open_mkdirs(dir) != 0 || rmdir(dir) != 0 ||
	    mkdir(dir, 0755) != 0) {
		snprintf(err, errlen, "%s %s: %s", out != NULL ? "--out" :
		    "folder", dir, errno == ENOTEMPTY || errno == EEXIST ?
		    "not empty" : strerror(errno));
		goto out;
	}
	if (realpath(dir, real) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		goto out;
	}
	b->dir = xstrdup(real);
	rc = 0;
out:
	free(dir);
	return rc;
}

/* The folder's parts and the first bisect.json. */
static int
bisect_open_write(struct bisect *b, char *err, size_t errlen)
{
	const char *sub[] = { "steps", "builds", "work" };
	char *path;
	int rc;

	for (size_t i = 0; i < sizeof sub / sizeof sub[0]; i++) {
		path = xasprintf("%s/%s", b->dir, sub[i]);
		rc = mkdir(path, 0755);
		free(path);
		if (rc != 0) {
			snprintf(err, errlen, "%s/%s: %s", b->dir, sub[i],
			    strerror(errno));
			return -1;
		}
	}
	path = xasprintf("%s/%s", b->dir, BISECT_ROUND);
	rc = json_dump_file(b->tmpl, path, JSON_INDENT(2));
	free(path);
	if (rc != 0) {
		snprintf(err, errlen, "%s/%s: cannot write", b->dir,
		    BISECT_ROUND);
		return -1;
	}
	b->doc = json_pack("{ss ss ss ss ss ss sn s[]}", "good", b->good,
	    "bad", b->bad, "metric", b->metric, "repo", b->repo, "build",
	    b->build, "workdir", b->workdir, "culprit", "steps");
	return bisect_save(b, err, errlen);
}

/* bisect ROUND.json --repo ... : the input checked in the order a user
 * fixes it, nothing built. */
static int
bisect_open_new(struct bisect *b, const struct bisect_opts *o, char *err,
    size_t errlen)
{
	const char *anc[] = { "merge-base", "--is-ancestor", b->good, b->bad,
	    NULL };
	char why[512];

	b->metric = xstrdup(o->metric != NULL ? o->metric : "cpu");
	if (bisect_open_round(b, o->round_path, err, errlen) != 0 ||
	    bisect_open_repo(b, o->repo, err, errlen) != 0 ||
	    bisect_open_rev(b, "--good", o->good, b->good, err, errlen) != 0 ||
	    bisect_open_rev(b, "--bad", o->bad, b->bad, err, errlen) != 0)
		return 2;
	if (strcmp(b->good, b->bad) == 0) {
		snprintf(err, errlen, "--good %s and --bad %s are the same "
		    "commit", o->good, o->bad);
		return 2;
	}
	if (bisect_git(b->repo, anc, NULL, why, sizeof why) != 0) {
		snprintf(err, errlen, "--good %s is not an ancestor of --bad %s",
		    o->good, o->bad);
		return 2;
	}
	if (o->build[strspn(o->build, " ")] == '\0') {
		snprintf(err, errlen, "--build: an empty command");
		return 2;
	}
	b->build = xstrdup(o->build);
	if (bisect_open_range(b, err, errlen) != 0)
		return 1;
	if (bisect_open_dir(b, o->out_dir, err, errlen) != 0)
		return 2;
	return bisect_open_write(b, err, errlen) == 0 ? 0 : 1;
}

/* A string field of bisect.json, copied; NULL when missing. */
static char *
bisect_open_field(const json_t *doc, const char *key)
{
	const char *s = json_string_value(json_object_get(doc, key));

	return s != NULL ? xstrdup(s) : NULL;
}

/* The steps so far into the marks (and the direction). */
static void
bisect_open_replay(struct bisect *b)
{
	const json_t *st;
	size_t i;

	json_array_foreach(json_object_get(b->doc, "steps"), i, st) {
		const char *kind = json_string_value(json_object_get(st, "kind"));
		const char *rev = json_string_value(json_object_get(st,
		    "revision"));
		const char *mark = json_string_value(json_object_get(st, "mark"));

		if (kind != NULL && strcmp(kind, "ends") == 0 &&
		    json_is_string(json_object_get(st, "worse")))
			snprintf(b->worse, sizeof b->worse, "%s",
			    json_string_value(json_object_get(st, "worse")));
		if (kind == NULL || strcmp(kind, "step") != 0 || rev == NULL ||
		    mark == NULL)
			continue;
		for (size_t k = 0; k < b->r.n; k++)
			if (strcmp(b->r.revs[k], rev) == 0)
				b->r.mark[k] = strcmp(mark, "bad") == 0 ?
				    BISECT_BAD : strcmp(mark, "good") == 0 ?
				    BISECT_GOOD : BISECT_SKIP;
	}
}

/* resume DIR: the folder read back. */
static int
bisect_open_resume(struct bisect *b, const char *dir, char *err,
    size_t errlen)
{
	char real[PATH_MAX], *path;
	json_error_t je;
	const char *g, *d;

	if (realpath(dir, real) == NULL) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return 2;
	}
	b->dir = xstrdup(real);
	path = xasprintf("%s/%s", b->dir, SEAL_SUMS);
	if (access(path, F_OK) == 0) {
		snprintf(err, errlen, "%s: the bisect is over and sealed; "
		    "nothing to resume", dir);
		free(path);
		return 2;
	}
	free(path);
	path = xasprintf("%s/bisect.json", b->dir);
	b->doc = json_load_file(path, 0, &je);
	free(path);
	if (b->doc == NULL) {
		snprintf(err, errlen, "%s/bisect.json: %s", dir, je.text);
		return 2;
	}
	g = json_string_value(json_object_get(b->doc, "good"));
	d = json_string_value(json_object_get(b->doc, "bad"));
	b->repo = bisect_open_field(b->doc, "repo");
	b->build = bisect_open_field(b->doc, "build");
	b->metric = bisect_open_field(b->doc, "metric");
	b->workdir = bisect_open_field(b->doc, "workdir");
	if (g == NULL || d == NULL || strlen(g) != 40 || strlen(d) != 40 ||
	    b->repo == NULL || b->build == NULL || b->metric == NULL ||
	    b->workdir == NULL) {
		snprintf(err, errlen, "%s/bisect.json: not a bisect's (good, "
		    "bad, repo, build, metric or workdir missing)", dir);
		return 2;
	}
	memcpy(b->good, g, 41);
	memcpy(b->bad, d, 41);
	path = xasprintf("%s/%s", b->dir, BISECT_ROUND);
	b->tmpl = json_load_file(path, 0, &je);
	free(path);
	if (b->tmpl == NULL) {
		snprintf(err, errlen, "%s/%s: %s", dir, BISECT_ROUND, je.text);
		return 2;
	}
	if (bisect_open_range(b, err, errlen) != 0)
		return 1;
	bisect_open_replay(b);
	path = xasprintf("%s/work", b->dir);
	mkdir(path, 0755);
	free(path);
	return 0;
}

int
bisect_open(struct bisect *b, const struct bisect_opts *o, char *err,
    size_t errlen)
{
	memset(b, 0, sizeof *b);
	b->o = o;
	if (o->resume_dir != NULL)
		return bisect_open_resume(b, o->resume_dir, err, errlen);
	return bisect_open_new(b, o, err, errlen);
}

void
bisect_close(struct bisect *b)
{
	for (size_t i = 0; i < b->r.n; i++)
		free(b->r.revs[i]);
	free(b->r.revs);
	free(b->r.mark);
	json_decref(b->tmpl);
	json_decref(b->doc);
	free(b->dir);
	free(b->repo);
	free(b->build);
	free(b->metric);
	free(b->workdir);
}
