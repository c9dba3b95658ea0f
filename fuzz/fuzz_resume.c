/* Fuzz target: a round folder's log read back for resume (resume_load),
 * then replayed into a tally and the console's model as `resume` does.
 * resume_end_stale is never called: it SIGKILLs pids named by the log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_dir.h"
#include "model.h"
#include "resume.h"
#include "tally.h"

struct fuzz_resume_sink {
	struct tally *tally;
	struct model model;
};

static void
fuzz_resume_feed(const json_t *ev, void *arg)
{
	struct fuzz_resume_sink *sink = arg;

	tally_feed(sink->tally, ev);
	model_feed(&sink->model, ev);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct fuzz_resume_sink sink;
	struct resume_state *rs;
	char err[1024];

	if (!ready) {
		static const char env[] =
		    "{\"host\": {\"cpus\": 2}, \"workdir\": \"/tmp\"}\n";

		/* resume_load wants round.json to exist; it reads the
		 * round from the log. */
		static const char round[] = "{\"name\": \"fuzz\"}\n";

		fuzz_dir_put("round.json", round, strlen(round));
		fuzz_dir_put("environment.json", env, strlen(env));
		ready = 1;
	}
	fuzz_dir_put("log.jsonl", data, size);
	if (resume_load(fuzz_dir(), &rs, err, sizeof err) != 0)
		return 0;
	(void)resume_spec_sha256(rs);
	(void)resume_workdir(rs);
	(void)resume_recorded_env(rs);
	(void)resume_leg_done(rs, "c", "a", 1);
	(void)resume_legs_done(rs);
	(void)resume_torn_bytes(rs);
	(void)resume_completed(rs);
	(void)resume_sealed(rs);
	sink.tally = tally_create();
	model_init(&sink.model);
	resume_replay(rs, fuzz_resume_feed, &sink);
	{
		json_t *rep = tally_report(sink.tally);

		json_decref(rep);
	}
	(void)model_ratios(&sink.model);
	model_finish(&sink.model);
	tally_destroy(sink.tally);
	resume_destroy(rs);
	return 0;
}
