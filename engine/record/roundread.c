/* A round folder read back whole (see roundread.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "roundread.h"
#include "seal.h"
#include "xalloc.h"

/* The log readers' one argument. */
struct roundread_feed {
	struct tally *t;
	struct roundread_log log;
};

static int
roundread_feed(json_t *ev, size_t lineno, void *arg)
{
	struct roundread_feed *f = arg;
	struct roundread_log *out = &f->log;
	const char *t = json_string_value(json_object_get(ev, "t")), *sha;

	(void)lineno;
	t = t ? t : "";
	if (out->spec_sha256[0] == '\0' && strcmp(t, "round") == 0 &&
	    (sha = json_string_value(json_object_get(ev, "spec_sha256"))) != NULL)
		snprintf(out->spec_sha256, sizeof out->spec_sha256, "%s", sha);
	if (strcmp(t, "leg") == 0)
		out->legs++;
	tally_feed(f->t, ev);
	return 0;
}

/* A leg line the tally reads straight from its text. */
static bool
roundread_line(const char *line, size_t len, size_t lineno, void *arg)
{
	struct roundread_feed *f = arg;

	(void)lineno;
	if (tally_feed_line(f->t, line, len) != TALLY_LINE_LEG)
		return false;
	f->log.legs++;
	return true;
}

int
roundread_log(const char *path, struct tally *t, struct roundread_log *out,
    char *err, size_t errlen)
{
	struct roundread_feed feed = { .t = t };
	int rc;

	rc = logread_file_lines(path, roundread_line, roundread_feed, &feed,
	    &feed.log.info, err, errlen);
	*out = feed.log;
	return rc == 0 ? 0 : -1;
}

/* "no round.json, no log.jsonl" for what DIR lacks of a round folder, or
 * "" when it has it all. */
static void
roundread_missing(const char *dir, char *buf, size_t len)
{
	static const char *const need[] = { "round.json", "environment.json",
	    "log.jsonl" };
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, need[i]);
		if (access(path, R_OK) != 0 && n < len)
			n += (size_t)snprintf(buf + n, len - n, "%sno %s",
			    n ? ", " : "", need[i]);
	}
}

/* The seal of DIR: 0 intact (or absent and partial), else the exit
 * status with err. */
static int
roundread_seal(struct roundread *r, bool partial, char *err, size_t errlen)
{
	char path[4096], verr[1024] = "", *lines = NULL;
	size_t len = 0;
	FILE *mem;
	int rc;

	snprintf(path, sizeof path, "%s/%s", r->dir, SEAL_SUMS);
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		if (partial)
			return 0;
		snprintf(err, errlen, "%s: not sealed (no %s): a round that is "
		    "still running, stopped, or not sealed yet; compare it as "
		    "it is with --unsealed", r->dir, SEAL_SUMS);
		return 2;
	}
	if ((mem = open_memstream(&lines, &len)) == NULL)
		xalloc_die(4096);
	rc = seal_verify(r->dir, NULL, mem, verr, sizeof verr);
	fclose(mem);
	/* One line per file: "changed: log.jsonl" and the like. */
	for (char *p = lines; p != NULL && (p = strchr(p, '\n')) != NULL; )
		*p = p[1] != '\0' ? ';' : '\0';
	if (rc == 4)
		snprintf(err, errlen, "%s: the seal does not verify (%s); its "
		    "numbers are not the round's, refusing to compare them",
		    r->dir, lines ? lines : "");
	else if (rc != 0)
		snprintf(err, errlen, "%s: cannot check its seal: %s", r->dir,
		    verr);
	free(lines);
	r->sealed = rc == 0;
	return rc == 0 ? 0 : rc == 4 ? 4 : 2;
}

/* round.json, environment.json and the log, read.  0, or 2 with err. */
static int
roundread_parts(struct roundread *r, char *err, size_t errlen)
{
	char path[4096], lerr[1024];
	json_error_t je;

	snprintf(path, sizeof path, "%s/round.json", r->dir);
	if (spec_load(path, r->dir, &r->spec, lerr, sizeof lerr) != 0) {
		snprintf(err, errlen, "%s", lerr);
		return 2;
	}
	snprintf(path, sizeof path, "%s/environment.json", r->dir);
	if ((r->env = json_load_file(path, 0, &je)) == NULL ||
	    !json_is_object(r->env)) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, r->env ?
		    "not a JSON object" : je.text);
		return 2;
	}
	tally_set_spec(r->tally, r->spec);
	snprintf(path, sizeof path, "%s/log.jsonl", r->dir);
	if (roundread_log(path, r->tally, &r->log, err, errlen) != 0)
		return 2;
	if (r->log.legs == 0) {
		snprintf(err, errlen, "%s: no legs: nothing to compare", path);
		return 2;
	}
	if (r->log.spec_sha256[0] != '\0' &&
	    strcmp(r->log.spec_sha256, r->spec->sha256) != 0) {
		snprintf(err, errlen, "%s/round.json: changed since the round "
		    "started (sha256 %s, the log recorded %s)", r->dir,
		    r->spec->sha256, r->log.spec_sha256);
		return 2;
	}
	return 0;
}

int
roundread_open(const char *dir, bool partial, struct roundread **out,
    char *err, size_t errlen)
{
	struct roundread *r;
	char missing[256];
	struct stat st;
	int rc;

	*out = NULL;
	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return 2;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a folder (compare takes two "
		    "round folders)", dir);
		return 2;
	}
	roundread_missing(dir, missing, sizeof missing);
	if (missing[0] != '\0') {
		snprintf(err, errlen, "%s: not a round folder: %s", dir, missing);
		return 2;
	}
	r = xcalloc(1, sizeof *r);
	r->dir = xstrdup(dir);
	r->tally = tally_create();
	if ((rc = roundread_seal(r, partial, err, errlen)) != 0 ||
	    (rc = roundread_parts(r, err, errlen)) != 0) {
		roundread_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}

void
roundread_destroy(struct roundread *r)
{
	if (r == NULL)
		return;
	spec_destroy(r->spec);
	tally_destroy(r->tally);
	json_decref(r->env);
	free(r->dir);
	free(r);
}
