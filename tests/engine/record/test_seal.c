/* test: est=5 */
/* seal_write and seal_verify on a temporary round-like folder: the
 * SHA256SUMS format, read-only files, tamper detection (changed, missing,
 * added), Ed25519 signing and its refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "digest.h"
#include "seal.h"
#include "testutil.h"

static char dir[256];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/test-seal-XXXXXX");
	assert_non_null(mkdtemp(dir));
	char path[512];
	snprintf(path, sizeof path, "%s/legs", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof path, "%s/servers", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	tu_put(dir, "round.json", "{\"name\": \"x\"}\n");
	tu_put(dir, "log.jsonl", "{\"t\":\"round\"}\n{\"t\":\"done\"}\n");
	tu_put(dir, "legs/c-a-r1.out", "hello\n");
	tu_put(dir, "legs/c-b-r1.out", "");
	tu_put(dir, "servers/c.log", "listening\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	tu_rmtree(dir);
	return 0;
}

/* Run verify into a string. */
static int
verify(const char *pub, char *out, size_t outlen)
{
	char err[512] = "";
	FILE *f;
	int rc;

	memset(out, 0, outlen);
	f = fmemopen(out, outlen - 1, "w");

	assert_non_null(f);
	rc = seal_verify(dir, pub, f, err, sizeof err);
	fclose(f);
	if (rc == 2)
		snprintf(out, outlen, "ERR %s", err);
	return rc;
}

static void
test_write_format(void **state)
{
	char err[512] = "", sums[65], hex[DIGEST_HEX_LEN], path[512];
	size_t len;
	char *text;
	struct stat st;

	(void)state;
	assert_int_equal(seal_write(dir, NULL, sums, err, sizeof err), 0);
	text = tu_slurp(dir, SEAL_SUMS, &len);
	assert_non_null(text);
	/* Sorted, relative, two spaces, every file but the seal itself. */
	char expect[4096] = "";
	const char *files[] = { "legs/c-a-r1.out", "legs/c-b-r1.out",
		"log.jsonl", "round.json", "servers/c.log" };
	for (size_t i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i]);
		assert_int_equal(digest_file(path, hex), 0);
		strcat(expect, hex);
		strcat(expect, "  ");
		strcat(expect, files[i]);
		strcat(expect, "\n");
	}
	assert_string_equal(text, expect);
	digest_buf(text, len, hex);
	assert_string_equal(sums, hex);
	/* Files read-only, folders not. */
	snprintf(path, sizeof path, "%s/legs/c-a-r1.out", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0222, 0);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0222, 0);
	snprintf(path, sizeof path, "%s/legs", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_not_equal(st.st_mode & 0200, 0);
	/* No temp file left behind; a second seal is refused. */
	assert_null(tu_slurp(dir, ".SHA256SUMS.tmp", NULL));
	assert_int_equal(seal_write(dir, NULL, sums, err, sizeof err), -1);
	assert_non_null(strstr(err, "already sealed"));
	/* sha256sum -c agrees. */
	char cmd[600];
	snprintf(cmd, sizeof cmd, "cd %s && sha256sum --quiet -c SHA256SUMS", dir);
	assert_int_equal(system(cmd), 0);
}

static void
test_verify_tamper(void **state)
{
	char err[512] = "", out[4096], path[512];

	(void)state;
	assert_int_equal(verify(NULL, out, sizeof out), 2);
	assert_non_null(strstr(out, "not sealed"));
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(verify(NULL, out, sizeof out), 0);
	assert_string_equal(out, "");
	/* A SHA256SUMS made by hand with "./" paths reads the same. */
	char cmd[700];
	snprintf(cmd, sizeof cmd, "cd %s && chmod u+w SHA256SUMS && "
	    "sed -i 's|  |  ./|' SHA256SUMS", dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(verify(NULL, out, sizeof out), 0);

	snprintf(path, sizeof path, "%s/log.jsonl", dir);
	chmod(path, 0644);
	tu_put(dir, "log.jsonl", "{\"t\":\"round\"}\n{\"t\":\"dona\"}\n");
	snprintf(path, sizeof path, "%s/legs/c-b-r1.out", dir);
	assert_int_equal(unlink(path), 0);
	tu_put(dir, "legs/zz-new.out", "x");
	tu_put(dir, ".SHA256SUMS.tmp", "x"); /* seal_write's temp name hides nothing */
	assert_int_equal(verify(NULL, out, sizeof out), 4);
	assert_string_equal(out,
	    "added: .SHA256SUMS.tmp\n"
	    "missing: legs/c-b-r1.out\n"
	    "added: legs/zz-new.out\n"
	    "changed: log.jsonl\n");
}

static void
test_verify_bad_sums(void **state)
{
	char out[4096];
	const char *bad[] = {
		"nothex  round.json\n",
		"0000000000000000000000000000000000000000000000000000000000000000  ../etc/passwd\n",
		"0000000000000000000000000000000000000000000000000000000000000000  /etc/passwd\n",
		"0000000000000000000000000000000000000000000000000000000000000000  round.json",
	};

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char path[512];
		snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
		unlink(path);
		tu_put(dir, SEAL_SUMS, bad[i]);
		assert_int_equal(verify(NULL, out, sizeof out), 2);
		assert_non_null(strstr(out, "SHA256SUMS:1:"));
	}
}

static void
test_symlink_refused(void **state)
{
	char err[512] = "", path[512];

	(void)state;
	snprintf(path, sizeof path, "%s/legs/link", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "legs/link: not a regular file"));
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	assert_int_equal(access(path, F_OK), -1);
}

static void
test_odd_names(void **state)
{
	char err[512] = "", out[4096];

	(void)state;
	tu_put(dir, "legs/with space.out", "x");
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), 0);
	assert_int_equal(verify(NULL, out, sizeof out), 0);
	/* An added name with a newline is reported on one line, escaped. */
	tu_put(dir, "legs/new\nline", "x");
	assert_int_equal(verify(NULL, out, sizeof out), 4);
	assert_string_equal(out, "added: legs/new\\nline\n");
	/* ... and a folder holding one cannot be sealed. */
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "newline"));
}

/* SHA256SUMS is outside input: random and mangled ones give 0, 2 or 4,
 * never a crash (run under ASan in the asan build). */
static void
test_sums_garbage(void **state)
{
	char err[512] = "", out[4096], path[512], good[4096];
	size_t len = 0;

	(void)state;
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), 0);
	memcpy(good, tu_slurp(dir, SEAL_SUMS, &len), len + 1);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	srand(7);
	for (int i = 0; i < 400; i++) {
		char text[4096];
		size_t n = len;
		memcpy(text, good, len + 1);
		if (i % 2 == 0) {
			/* flip, insert or cut a few bytes of a good file */
			for (int k = 0; k < 1 + rand() % 4; k++) {
				size_t at = (size_t)rand() % n;
				switch (rand() % 3) {
				case 0: text[at] = (char)(rand() % 256); break;
				case 1: n = at; break;
				default: text[at] = "\n \\*./"[rand() % 6]; break;
				}
			}
		} else {
			n = (size_t)rand() % 300;
			for (size_t k = 0; k < n; k++)
				text[k] = (char)(rand() % 256);
		}
		FILE *f = fopen(path, "wb");
		assert_non_null(f);
		fwrite(text, 1, n, f);
		fclose(f);
		int rc = verify(NULL, out, sizeof out);
		assert_true(rc == 0 || rc == 2 || rc == 4);
	}
}

static void
write_key(EVP_PKEY *pk, const char *priv, const char *pub)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof path, "%s.%s", dir, priv);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	snprintf(path, sizeof path, "%s.%s", dir, pub);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PUBKEY(f, pk), 1);
	fclose(f);
}

static void
test_sign(void **state)
{
	char err[512] = "", out[4096], key[512], pub[512], key2[512], pub2[512];
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	EVP_PKEY *other = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
	size_t len;
	char *sig;

	(void)state;
	assert_non_null(pk);
	write_key(pk, "key.pem", "pub.pem");
	write_key(other, "key2.pem", "pub2.pem");
	snprintf(key, sizeof key, "%s.key.pem", dir);
	snprintf(pub, sizeof pub, "%s.pub.pem", dir);
	snprintf(key2, sizeof key2, "%s.key2.pem", dir);
	snprintf(pub2, sizeof pub2, "%s.pub2.pem", dir);

	/* A public key cannot sign. */
	assert_int_equal(seal_write(dir, pub, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "pub.pem"));
	assert_int_equal(seal_write(dir, key, NULL, err, sizeof err), 0);
	sig = tu_slurp(dir, SEAL_SIG, &len);
	assert_non_null(sig);
	assert_int_equal(len, 64);
	assert_int_equal(verify(pub, out, sizeof out), 0);
	assert_int_equal(verify(pub2, out, sizeof out), 4);
	assert_string_equal(out, "signature: bad\n");
	/* A private key is not a public key: bad input, not a mismatch. */
	assert_int_equal(verify(key, out, sizeof out), 2);

	/* Flip one byte of the signature. */
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SIG);
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	int c = fgetc(f);
	fseek(f, 0, SEEK_SET);
	fputc(c ^ 1, f);
	fclose(f);
	assert_int_equal(verify(pub, out, sizeof out), 4);
	assert_string_equal(out, "signature: bad\n");
	assert_int_equal(verify(NULL, out, sizeof out), 0);
	/* Missing signature. */
	unlink(path);
	assert_int_equal(verify(pub, out, sizeof out), 4);
	assert_string_equal(out, "signature: missing\n");

	unlink(key);
	unlink(pub);
	unlink(key2);
	unlink(pub2);
	EVP_PKEY_free(pk);
	EVP_PKEY_free(other);
}

static void
test_sign_not_ed25519(void **state)
{
	char err[512] = "", key[512], path[512];
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");

	(void)state;
	assert_non_null(pk);
	write_key(pk, "ec.pem", "ecpub.pem");
	snprintf(key, sizeof key, "%s.ec.pem", dir);
	assert_int_equal(seal_write(dir, key, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "not Ed25519"));
	/* Nothing half-written. */
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SIG);
	assert_int_equal(access(path, F_OK), -1);
	unlink(key);
	snprintf(key, sizeof key, "%s.ecpub.pem", dir);
	unlink(key);
	EVP_PKEY_free(pk);
}

/* A leg can make a tree thousands of levels deep inside the round folder:
 * seal and verify walk it without recursion and refuse past their depth
 * with a message naming it (the recursive walk died of SIGSEGV). */
static void
test_deep_tree(void **state)
{
	char err[1024] = "", out[4096], path[512];
	int fd, nfd;

	(void)state;
	snprintf(path, sizeof path, "%s/legs", dir);
	fd = open(path, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	for (int i = 0; i < 1500; i++) {
		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		nfd = openat(fd, "d", O_RDONLY | O_DIRECTORY);
		assert_true(nfd >= 0);
		close(fd);
		fd = nfd;
	}
	close(fd);
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "levels deep"));
	assert_non_null(strstr(err, "legs/d/d/"));
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	assert_int_equal(access(path, F_OK), -1);
	tu_put(dir, SEAL_SUMS, "");
	assert_int_equal(verify(NULL, out, sizeof out), 2);
	assert_non_null(strstr(out, "levels deep"));
}

/* SHA256SUMS is outside input: a path listed twice is named as a
 * duplicate (sha256sum -c passes it), a CR in a name is shown as \r (not
 * sent to the terminal), and a SHA256SUMS that is a symlink is refused. */
static void
test_verify_odd_sums(void **state)
{
	char err[512] = "", out[4096], path[512], other[600];
	FILE *f;

	(void)state;
	assert_int_equal(seal_write(dir, NULL, NULL, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	chmod(path, 0644);
	char line[200];
	memcpy(line, tu_slurp(dir, SEAL_SUMS, NULL), 67 + strlen("legs/c-a-r1.out") + 1);
	line[67 + strlen("legs/c-a-r1.out")] = '\0';
	f = fopen(path, "a");
	assert_non_null(f);
	fputs(line, f);
	fclose(f);
	assert_int_equal(verify(NULL, out, sizeof out), 4);
	assert_string_equal(out, "duplicate: legs/c-a-r1.out\n");

	tu_put(dir, "legs/a\rchanged: b", "x");
	assert_int_equal(verify(NULL, out, sizeof out), 4);
	assert_string_equal(out, "added: legs/a\\rchanged: b\n"
	    "duplicate: legs/c-a-r1.out\n");

	snprintf(other, sizeof other, "%s.sums", dir);
	assert_int_equal(rename(path, other), 0);
	assert_int_equal(symlink(other, path), 0);
	assert_int_equal(verify(NULL, out, sizeof out), 2);
	assert_non_null(strstr(out, "symlink"));
	unlink(other);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_tamper, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_bad_sums, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_odd_names, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sums_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sign_not_ed25519, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deep_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verify_odd_sums, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
