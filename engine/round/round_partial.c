/* The round driver, seal --partial: an unfinished round (an abort, a crash)
 * sealed on purpose, by the same steps as a completed one, under the same
 * lock, with summaries that say it is partial. */
#include <stdio.h>
#include <string.h>

#include "round_int.h"

int
round_seal_partial(const char *dir, const char *sign_key,
    struct round_partial *out, char *err, size_t errlen)
{
	struct round *r;
	struct run u = { 0 };
	int code;

	memset(out, 0, sizeof *out);
	if ((r = round_open_partial(dir, sign_key, &code, err, errlen)) == NULL)
		return code;
	u.r = r;
	out->torn_bytes = resume_torn_bytes(r->rs);
	out->ended = r->stale_ended;
	out->legs_done = resume_legs_done(r->rs);
	round_log_cut(&u);
	round_replay(r);
	if (r->fatal) {
		snprintf(err, errlen, "%s", r->fatal_err);
		code = ROUND_EXIT_FAIL;
	} else if (round_seal(&u, true, out->sha256, NULL) != 0) {
		snprintf(err, errlen, "%s", u.err);
		code = ROUND_EXIT_FAIL;
	} else {
		code = ROUND_EXIT_OK;
	}
	round_destroy(r);
	return code;
}
