/* The round driver, profile phase: a profile of a cell's server on
 * another host (server.host, or the round's "host").  The agent there
 * attaches the profiler to the server's tree and stops it with the code
 * a local profile runs (agent_prof.c over proftree.c), while the load
 * runs here as it does for a local server; then the files come back into
 * legs/ through descriptors benchtui made (never a name a leg could have
 * replaced), each bounded by agent_limits.profile_bytes.  What the event
 * says of the far side comes from its answers as remote_prof.c checked
 * them.  A refusal (no strace or perf there, a kernel setting) fails the
 * profile with the agent's words; a lost connection stops the round
 * resumably, and the profile is taken again on resume. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "remote.h"
#include "round_int.h"

/* The far side's answer, or NULL: a refusal in pf->why, or the round
 * stopped when the connection was lost (pf->lost). */
static json_t *
round_prof_far_checked(struct prof_far *pf, json_t *got, bool refused,
    const char *what, const char *err)
{
	char during[200];

	if (got != NULL)
		return got;
	if (refused) {
		round_prof_fmt(pf->why, sizeof pf->why, "%s on %s: %s", what,
		    pf->host, err);
		return NULL;
	}
	pf->lost = true;
	round_prof_fmt(pf->why, sizeof pf->why, "%s", err);
	round_prof_fmt(during, sizeof during, "during the %s profile of cell "
	    "%s, arm %s", pf->kind, pf->cell, pf->arm);
	round_remote_lost(pf->u, pf->rm, during);
	return NULL;
}

void
round_prof_far_given(struct prof_far *pf, const json_t *started,
    const char *err)
{
	pf->given = true;
	pf->started = started != NULL ? json_incref((json_t *)started) : NULL;
	if (started == NULL)
		round_prof_fmt(pf->why, sizeof pf->why, "the profiler could not "
		    "attach on %s: %s", pf->host, err != NULL ? err : "no answer");
}

int
round_prof_far_start(struct prof_far *pf, char *const *args, size_t nargs)
{
	char err[768];
	bool refused = false;
	json_t *r, *se;

	/* attached there already, by the load's leg */
	if (pf->given && pf->started == NULL)
		return -1;
	r = pf->given ? pf->started : remote_prof_start(pf->rm, pf->kind, args,
	    nargs, &refused, err, sizeof err);
	if ((pf->started = round_prof_far_checked(pf, r, refused,
	    "the profiler could not attach", err)) == NULL)
		return -1;
	se = round_prof_event(pf->cell, pf->arm, pf->kind, NULL);
	json_object_set_new(se, "host", json_string(pf->host));
	round_emit_new(pf->u, se);
	return 0;
}

int
round_prof_far_stop(struct prof_far *pf)
{
	char err[768];
	bool refused;
	json_t *r = remote_prof_stop(pf->rm, &refused, err, sizeof err);

	pf->stopped = round_prof_far_checked(pf, r, refused, "the profiler "
	    "did not stop", err);
	return pf->stopped != NULL ? 0 : -1;
}

int
round_prof_far_get(struct prof_far *pf, const char *file, int fd,
    const char *rel, json_t *copied)
{
	long long limit = pf->u->r->spec->agent_limits.profile_bytes;
	struct remote_fetch f;
	char err[768];
	bool refused;

	if (remote_prof_get(pf->rm, file, fd, limit, &f, &refused, err,
	    sizeof err) != 0) {
		round_prof_far_checked(pf, NULL, refused, "a profile file could "
		    "not be copied back", err);
		return -1;
	}
	if (fsync(fd) != 0 && pf->why[0] == '\0')
		round_prof_fmt(pf->why, sizeof pf->why, "%s: cannot write", rel);
	if (copied != NULL)
		json_array_append_new(copied, json_pack("{s:s,s:I,s:I,s:b}",
		    "file", rel, "bytes", (json_int_t)f.bytes, "size",
		    (json_int_t)f.size, "cut", f.cut));
	return f.cut ? 1 : 0;
}

int
round_prof_far_report(struct prof_far *pf, const char *const *args, FILE *f)
{
	size_t n = 0;
	char err[768];
	bool refused;
	int rc;

	while (args[n] != NULL)
		n++;
	rewind(f);
	if (ftruncate(fileno(f), 0) != 0)
		return -1;
	rc = remote_prof_report(pf->rm, (char *const *)args, n, &refused, err,
	    sizeof err);
	if (rc == -3) {
		round_prof_far_checked(pf, NULL, refused, "perf report failed",
		    err);
		return pf->lost ? -2 : -1;
	}
	if (rc == 0 && round_prof_far_get(pf, "report", fileno(f), "perf "
	    "report's output", NULL) < 0)
		rc = pf->lost ? -2 : -1;
	rewind(f);
	return rc;
}

void
round_prof_far_finish(struct prof_far *pf)
{
	json_decref(pf->started);
	json_decref(pf->stopped);
	json_decref(pf->copied);
	pf->started = pf->stopped = pf->copied = NULL;
}
