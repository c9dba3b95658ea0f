/* benchtui verify DIR [--pubkey PUB.pem]
 * benchtui seal DIR --partial [--sign KEY.pem]
 *
 * verify recomputes a round folder's seal; seal --partial seals a round
 * that did not complete (an abort, a crash), on purpose, with a summary
 * that says so. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bisect.h"
#include "cmd.h"
#include "round.h"
#include "seal.h"

enum { OPT_PUBKEY = 1, OPT_PARTIAL, OPT_SIGN };

static const struct opts_opt cmd_verify_rows[] = {
	{ "pubkey", 0, "PUB.pem", 0, OPT_PUBKEY, "also check the signature "
	  "with this key" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

static const struct opts_opt cmd_seal_rows[] = {
	{ "partial", 0, NULL, OPTS_REQUIRED, OPT_PARTIAL, "required: the "
	  "round is not complete" },
	{ "sign", 0, "KEY.pem", 0, OPT_SIGN, "sign SHA256SUMS with this "
	  "Ed25519 key" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_verify_opts = {
	"verify", "DIR",
	"Check a sealed folder against SHA256SUMS; exit 4 names changes.",
	"benchtui-verify(1)", cmd_verify_rows,
};

const struct opts_cmd cmd_seal_opts = {
	"seal", "DIR",
	"Seal a round that stopped early, on purpose, as it is.",
	"benchtui-seal(1)", cmd_seal_rows,
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
cmd_seal_dir(int argc, char **argv, const struct opts_cmd *c,
    const char **dir)
{
	return cmd_operand(argc, argv, c, "no round folder given",
	    "more than one folder given ('%s')", dir);
}

int
cmd_verify(int argc, char **argv)
{
	const char *dir = NULL, *pubkey = NULL;
	char err[1024] = "";
	struct opts_parser p;
	int rc, c;

	opts_init(&p, &cmd_verify_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		if (c == OPTS_STOP)
			return p.status;
		pubkey = p.arg;
	}
	if ((rc = cmd_seal_dir(argc, argv, &cmd_verify_opts, &dir)) != 0)
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
	struct opts_parser p;
	int rc, c;

	opts_init(&p, &cmd_seal_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		if (c == OPTS_STOP)
			return p.status;
		if (c == OPT_PARTIAL)
			partial = true;
		else
			key = p.arg;
	}
	if ((rc = cmd_seal_dir(argc, argv, &cmd_seal_opts, &dir)) != 0)
		return rc;
	if (!partial)
		return opts_error(&cmd_seal_opts, "a complete round is "
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
