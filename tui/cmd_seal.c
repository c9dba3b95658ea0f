/* benchtui verify DIR [--pubkey PUB.pem]
 * benchtui seal DIR --partial [--sign KEY.pem]
 *
 * verify recomputes a round folder's seal; seal --partial seals a round
 * that did not complete (an abort, a crash), on purpose, with a summary
 * that says so. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bisect.h"
#include "cmd.h"
#include "round.h"
#include "seal.h"

static const char verify_usage[] = "usage: benchtui verify DIR [--pubkey PUB.pem]\n";
static const char seal_usage[] = "usage: benchtui seal DIR --partial [--sign KEY.pem]\n";

enum { OPT_PUBKEY = 1, OPT_PARTIAL, OPT_SIGN };

static const struct option verify_options[] = {
	{ "pubkey", required_argument, NULL, OPT_PUBKEY },
	{ NULL, 0, NULL, 0 },
};

static const struct option seal_options[] = {
	{ "partial", no_argument, NULL, OPT_PARTIAL },
	{ "sign", required_argument, NULL, OPT_SIGN },
	{ NULL, 0, NULL, 0 },
};

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

/* The one round folder after the options: 0 and *dir, or the usage
 * error's exit status. */
static int
cmd_seal_dir(int argc, char **argv, const char *sub, const char *use,
    const char **dir)
{
	return cmd_operand(argc, argv, sub, use, "no round folder given",
	    "more than one folder given ('%s')", dir);
}

int
cmd_verify(int argc, char **argv)
{
	const char *dir = NULL, *pubkey = NULL;
	char err[1024] = "";
	int rc, c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", verify_options, NULL)) != -1) {
		if (c == OPT_PUBKEY)
			pubkey = optarg;
		else if (c == ':')
			return cmd_usage_error("verify", verify_usage,
			    "--pubkey needs a PEM public key file");
		else
			return cmd_usage_error("verify", verify_usage,
			    "unknown option '%s'", argv[optind - 1]);
	}
	if ((rc = cmd_seal_dir(argc, argv, "verify", verify_usage, &dir)) != 0)
		return rc;
	rc = seal_verify(dir, pubkey, stdout, err, sizeof err);
	if (rc == 2) {
		fprintf(stderr, "benchtui verify: %s\n", err);
		return 2;
	}
	if (rc == 4) {
		fprintf(stderr, "benchtui verify: %s: the seal does not match\n", dir);
		return 4;
	}
	if (bisect_is_folder(dir)) {
		size_t rounds;

		rc = bisect_verify_steps(dir, stdout, &rounds, err, sizeof err);
		if (rc != 0) {
			fprintf(stderr, "benchtui verify: %s\n", rc == 2 ? err :
			    "a step's round does not match its own seal");
			return rc;
		}
		printf("OK: %zu files%s, %zu step rounds\n", cmd_seal_count(dir),
		    pubkey ? ", signature good" : "", rounds);
		return 0;
	}
	printf("OK: %zu files%s\n", cmd_seal_count(dir),
	    pubkey ? ", signature good" : "");
	return 0;
}

int
cmd_seal(int argc, char **argv)
{
	const char *dir = NULL, *key = NULL;
	bool partial = false;
	char err[1024] = "";
	struct round_partial done;
	int rc, c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", seal_options, NULL)) != -1) {
		if (c == OPT_PARTIAL)
			partial = true;
		else if (c == OPT_SIGN)
			key = optarg;
		else if (c == ':')
			return cmd_usage_error("seal", seal_usage,
			    "--sign needs an Ed25519 private key PEM file");
		else
			return cmd_usage_error("seal", seal_usage,
			    "unknown option '%s'", argv[optind - 1]);
	}
	if ((rc = cmd_seal_dir(argc, argv, "seal", seal_usage, &dir)) != 0)
		return rc;
	if (!partial)
		return cmd_usage_error("seal", seal_usage, "a complete round is "
		    "sealed when it completes; --partial seals an unfinished one "
		    "on purpose and must be given");
	rc = round_seal_partial(dir, key, &done, err, sizeof err);
	if (done.torn_bytes > 0)
		fprintf(stderr, "benchtui seal: %s/log.jsonl: cut a torn last line "
		    "(%zu bytes)\n", dir, done.torn_bytes);
	if (done.ended > 0)
		fprintf(stderr, "benchtui seal: ended %d leftover process "
		    "group(s) of the round\n", done.ended);
	if (rc != ROUND_EXIT_OK) {
		fprintf(stderr, "benchtui seal: %s\n", err);
		return rc;
	}
	printf("sealed %s (partial): %zu legs counted, %zu files, %s sha256 %s%s\n",
	    dir, done.legs_done, cmd_seal_count(dir), SEAL_SUMS, done.sha256,
	    key ? ", signed" : "");
	return 0;
}
