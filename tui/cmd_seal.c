/* benchtui verify DIR [--pubkey PUB.pem]
 * benchtui seal DIR --partial [--sign KEY.pem]
 *
 * verify recomputes a round folder's seal; seal --partial seals a round
 * that did not complete (an abort, a crash), on purpose, with a summary
 * that says so. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include "cmd.h"
#include "digest.h"
#include "event.h"
#include "logw.h"
#include "report.h"
#include "resume.h"
#include "seal.h"
#include "spec.h"
#include "tally.h"

static const char verify_usage[] = "usage: benchtui verify DIR [--pubkey PUB.pem]\n";
static const char seal_usage[] = "usage: benchtui seal DIR --partial [--sign KEY.pem]\n";

/* Lines of DIR/SHA256SUMS: the number of files the seal covers. */
static size_t
cmd_seal_count(const char *dir)
{
	char path[4096];
	size_t n = 0;
	FILE *f;
	int c;

	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int
cmd_verify(int argc, char **argv)
{
	const char *dir = NULL, *pubkey = NULL;
	char err[1024] = "";
	int rc;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pubkey") == 0) {
			if (++i >= argc)
				return cmd_usage_error("verify", verify_usage,
				    "--pubkey needs a PEM public key file");
			pubkey = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return cmd_usage_error("verify", verify_usage,
			    "unknown option '%s'", argv[i]);
		} else if (dir == NULL) {
			dir = argv[i];
		} else {
			return cmd_usage_error("verify", verify_usage,
			    "more than one folder given ('%s')", argv[i]);
		}
	}
	if (dir == NULL)
		return cmd_usage_error("verify", verify_usage, "no round folder given");
	rc = seal_verify(dir, pubkey, stdout, err, sizeof err);
	if (rc == 2) {
		fprintf(stderr, "benchtui verify: %s\n", err);
		return 2;
	}
	if (rc == 4) {
		fprintf(stderr, "benchtui verify: %s: the seal does not match\n", dir);
		return 4;
	}
	printf("OK: %zu files%s\n", cmd_seal_count(dir),
	    pubkey ? ", signature good" : "");
	return 0;
}

static void
cmd_seal_feed(const json_t *ev, void *arg)
{
	tally_feed(arg, ev);
}

/* Take the round's lock, as round.c does: an exclusive flock on
 * DIR/log.jsonl, held until we exit.  A partial seal under a live round
 * would seal a moving folder (and resume_load may cut its log).  The fd, or
 * -1 after printing why. */
static int
cmd_seal_lock(const char *dir)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		fprintf(stderr, "benchtui seal: %s: %s\n", path, errno == ENOENT ?
		    "no such file; not a round folder" : strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		fprintf(stderr, "benchtui seal: %s: another benchtui is running "
		    "this round (it holds the log's lock); abort it first\n", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Record a torn-line cut in the log, as resume does. */
static int
cmd_seal_log_cut(const char *dir, size_t bytes, char *err, size_t errlen)
{
	char path[4096];
	struct logw *lw;
	json_t *ev;
	int rc;

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	if ((lw = logw_open(path, err, errlen)) == NULL)
		return -1;
	ev = event_new("log_cut");
	json_object_set_new(ev, "bytes", json_integer((json_int_t)bytes));
	rc = logw_append(lw, ev, err, errlen);
	json_decref(ev);
	logw_destroy(lw);
	return rc;
}

int
cmd_seal(int argc, char **argv)
{
	const char *dir = NULL, *key = NULL;
	char *real = NULL;
	bool partial = false;
	char err[1024] = "", path[4096], hex[DIGEST_HEX_LEN], sums[65];
	struct resume_state *rs = NULL;
	struct spec *spec = NULL;
	struct tally *t = NULL;
	json_t *rep = NULL;
	int rc = 2, ended, lock;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--partial") == 0) {
			partial = true;
		} else if (strcmp(argv[i], "--sign") == 0) {
			if (++i >= argc)
				return cmd_usage_error("seal", seal_usage,
				    "--sign needs an Ed25519 private key PEM file");
			key = argv[i];
		} else if (argv[i][0] == '-' && argv[i][1] != '\0') {
			return cmd_usage_error("seal", seal_usage,
			    "unknown option '%s'", argv[i]);
		} else if (dir == NULL) {
			dir = argv[i];
		} else {
			return cmd_usage_error("seal", seal_usage,
			    "more than one folder given ('%s')", argv[i]);
		}
	}
	if (dir == NULL)
		return cmd_usage_error("seal", seal_usage, "no round folder given");
	if (!partial)
		return cmd_usage_error("seal", seal_usage, "a complete round is "
		    "sealed when it completes; --partial seals an unfinished one "
		    "on purpose and must be given");
	if (key != NULL && seal_check_key(key, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui seal: %s\n", err);
		return 2;
	}
	if ((lock = cmd_seal_lock(dir)) < 0)
		return 2;
	if (resume_load(dir, &rs, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui seal: %s\n", err);
		close(lock);
		return 2;
	}
	if (resume_sealed(rs)) {
		fprintf(stderr, "benchtui seal: %s: already sealed (%s exists); "
		    "check it with `benchtui verify %s`\n", dir, SEAL_SUMS, dir);
		goto out;
	}
	if (resume_completed(rs)) {
		fprintf(stderr, "benchtui seal: %s: the round completed (its log "
		    "ends with \"done\"), so it is not partial; `benchtui resume "
		    "%s` finishes its seal\n", dir, dir);
		goto out;
	}
	snprintf(path, sizeof path, "%s/round.json", dir);
	if (digest_file(path, hex) != 0) {
		fprintf(stderr, "benchtui seal: %s: %s\n", path, strerror(errno));
		goto out;
	}
	if (resume_spec_sha256(rs) == NULL ||
	    strcmp(hex, resume_spec_sha256(rs)) != 0) {
		fprintf(stderr, "benchtui seal: %s: changed since the round started "
		    "(sha256 %s, the log recorded %s); refusing to seal it\n", path,
		    hex, resume_spec_sha256(rs) ? resume_spec_sha256(rs) : "none");
		goto out;
	}
	if (spec_load(path, resume_workdir(rs), &spec, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui seal: %s\n", err);
		goto out;
	}
	if (resume_torn_bytes(rs) > 0) {
		fprintf(stderr, "benchtui seal: %s/log.jsonl: cut a torn last line "
		    "(%zu bytes)\n", dir, resume_torn_bytes(rs));
		if (cmd_seal_log_cut(dir, resume_torn_bytes(rs), err,
		    sizeof err) != 0) {
			fprintf(stderr, "benchtui seal: %s\n", err);
			rc = 1;
			goto out;
		}
	}
	/* Legs a killed benchtui left running would write into the folder
	 * after it is sealed. */
	if ((ended = resume_end_stale(rs)) > 0)
		fprintf(stderr, "benchtui seal: ended %d leftover process "
		    "group(s) of the round\n", ended);

	rc = 1;
	t = tally_create();
	tally_set_spec(t, spec);
	resume_replay(rs, cmd_seal_feed, t);
	rep = tally_report(t);
	/* Canonical, so the files written into it can refuse every symlink
	 * (rfile.h) without refusing a folder reached through one. */
	if ((real = realpath(dir, NULL)) == NULL)
		snprintf(err, sizeof err, "%s: %s", dir, strerror(errno));
	if (real == NULL ||
	    report_write_summary(real, rep, true, err, sizeof err) != 0 ||
	    seal_write(real, key, sums, err, sizeof err) != 0) {
		fprintf(stderr, "benchtui seal: %s\n", err);
		goto out;
	}
	printf("sealed %s (partial): %zu legs counted, %zu files, %s sha256 %s%s\n",
	    dir, resume_legs_done(rs), cmd_seal_count(dir), SEAL_SUMS, sums,
	    key ? ", signed" : "");
	rc = 0;
out:
	free(real);
	json_decref(rep);
	tally_destroy(t);
	spec_destroy(spec);
	resume_destroy(rs);
	close(lock);
	return rc;
}
