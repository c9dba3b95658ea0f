/* Fuzz target: a log.jsonl (logread_file), fed on as report and replay
 * would: every event into a tally, then tally_report printed in each
 * format, and into the console's model (its reducer reads the same logs in
 * --replay).
 *
 * logread reads only files, so the bytes go into a memfd, opened again
 * through /proc/self/fd: no temporary file, nothing left behind. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"
#include "logread.h"
#include "model.h"
#include "report.h"
#include "tally.h"

struct fuzz_logread_sink {
	struct tally *plain;  /* a bare log: compares with the first arm */
	struct tally *given;  /* --baseline and --aa from the command line */
	struct model model;
};

static int
fuzz_logread_feed(json_t *ev, size_t lineno, void *arg)
{
	struct fuzz_logread_sink *sink = arg;

	(void)lineno;
	tally_feed(sink->plain, ev);
	tally_feed(sink->given, ev);
	model_feed(&sink->model, ev);
	return 0;
}

static void
fuzz_logread_print(const struct tally *t, FILE *out)
{
	static const enum report_format formats[] = {
		REPORT_TEXT, REPORT_JSON, REPORT_CSV, REPORT_MARKDOWN,
	};
	json_t *full = tally_report(t), *brief = tally_report_brief(t);
	size_t i;

	for (i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		report_print(full, formats[i], out);
		report_print(brief, formats[i], out);
	}
	json_decref(full);
	json_decref(brief);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static FILE *devnull;
	static char path[64];
	struct fuzz_logread_sink sink;
	struct logread_info info;
	char err[1024];

	if (fd < 0) {
		if ((fd = memfd_create("fuzz-log.jsonl", 0)) < 0 ||
		    (devnull = fopen("/dev/null", "w")) == NULL) {
			perror("fuzz_logread: memfd_create or /dev/null");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0 ||
	    pwrite(fd, data, size, 0) != (ssize_t)size) {
		perror("fuzz_logread: write to memfd");
		abort();
	}

	sink.plain = tally_create();
	sink.given = tally_create();
	tally_set_name(sink.plain, "fuzz-log");
	tally_set_baseline(sink.given, "base");
	tally_add_aa(sink.given, "aa", "base");
	model_init(&sink.model);
	(void)logread_file(path, fuzz_logread_feed, &sink, &info, err,
	    sizeof err);
	fuzz_logread_print(sink.plain, devnull);
	fuzz_logread_print(sink.given, devnull);
	(void)model_ratios(&sink.model);
	(void)model_eta(&sink.model);
	model_finish(&sink.model);
	tally_destroy(sink.plain);
	tally_destroy(sink.given);
	return 0;
}
