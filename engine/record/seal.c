/* The seal: SHA256SUMS over a round folder, an optional Ed25519 signature,
 * and verify.
 *
 * Decisions (documented in benchtui(1), section LIFECYCLE):
 * - The seal covers every regular file under DIR, recursively, except
 *   SHA256SUMS and SHA256SUMS.sig themselves.  Anything else (a symlink, a
 *   fifo) makes seal_write refuse: a seal that skipped it would claim more
 *   than it checks.
 * - A file name holding a newline or a backslash is refused rather than
 *   escaped: round folders only ever hold names benchtui made from
 *   [A-Za-z0-9_-] names, so such a file is foreign and the user should look
 *   at it before sealing.  verify still reports such names (escaped as \n
 *   and \\) when they show up as added.
 * - Files are made read-only (a-w); directories stay writable, so `rm -r`
 *   works without a chmod and nothing pretends a read-only folder is a
 *   protection (root ignores it anyway: verify is the protection).
 * - SHA256SUMS.sig is written before SHA256SUMS is renamed into place, so
 *   a SHA256SUMS that exists always belongs to a finished seal. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

#include "digest.h"
#include "escape.h"
#include "seal.h"
#include "rfile.h"
#include "xalloc.h"

#define SEAL_TMP ".SHA256SUMS.tmp"
#define SEAL_SIG_TMP ".SHA256SUMS.sig.tmp"
#define ED25519_SIG_LEN 64
/* The deepest folder nesting the seal walks (benchtui makes 1 level:
 * legs/, servers/), and the longest relative path it lists.  Past either
 * seal and verify refuse with a message naming the path (benchtui(1)). */
#define SEAL_MAX_DEPTH 32
#define SEAL_PATH_MAX 4096

struct seal_list {
	char **paths;   /* relative to DIR, sorted */
	size_t n, cap;
	bool skip_tmp;  /* seal_write: leave out our own temp files (verify
	                 * lists them, so nothing hides behind their names) */
	char *bad;      /* first path that is not a regular file, or NULL */
};

static void
seal_list_free(struct seal_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	free(l->paths);
	free(l->bad);
	memset(l, 0, sizeof *l);
}

static void
seal_list_add(struct seal_list *l, const char *rel)
{
	if (l->n == l->cap) {
		l->cap = xgrow(l->cap, l->n + 1, 64);
		l->paths = xreallocarray(l->paths, l->cap, sizeof *l->paths);
	}
	l->paths[l->n++] = xstrdup(rel);
}

static bool
seal_is_own(const char *rel)
{
	return strcmp(rel, SEAL_SUMS) == 0 || strcmp(rel, SEAL_SIG) == 0;
}

/* A folder opened for listing, at (a folder's fd, or AT_FDCWD) and path
 * (flags: O_NOFOLLOW, or 0), or NULL with errno. */
static DIR *
seal_opendir(int at, const char *path, int flags)
{
	int fd = openat(at, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	DIR *d;

	if (fd < 0)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return d;
}

/* One entry of seal_walk (name in folder d at depth, rel its path): left
 * out or added to l (0), or a folder opened into *sub (1).  -1 with err. */
static int
seal_walk_entry(const char *dir, struct seal_list *l, DIR *d, int depth,
    const char *name, const char *rel, DIR **sub, char *err, size_t errlen)
{
	struct stat sb;

	if (depth == 0 && (seal_is_own(rel) || (l->skip_tmp &&
	    (strcmp(rel, SEAL_TMP) == 0 || strcmp(rel, SEAL_SIG_TMP) == 0))))
		return 0;
	if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) != 0) {
		snprintf(err, errlen, "%s/%s: %s", dir, rel, strerror(errno));
		return -1;
	}
	if (S_ISDIR(sb.st_mode)) {
		if (depth + 1 > SEAL_MAX_DEPTH) {
			snprintf(err, errlen, "%s/%s: folders nest more than %d "
			    "levels deep; the seal refuses such a tree (remove "
			    "it: benchtui never makes one)", dir, rel,
			    SEAL_MAX_DEPTH);
			return -1;
		}
		if ((*sub = seal_opendir(dirfd(d), name, O_NOFOLLOW)) == NULL) {
			snprintf(err, errlen, "%s/%s: cannot list: %s", dir, rel,
			    strerror(errno));
			return -1;
		}
		return 1;
	}
	if (!S_ISREG(sb.st_mode) && l->bad == NULL)
		l->bad = xstrdup(rel);
	seal_list_add(l, rel);
	return 0;
}

/* Walk DIR iteratively (a stack of open folders, never recursion: a leg
 * can make a tree thousands of levels deep) adding every entry that is not
 * a folder.  Non-regular entries are added too (so verify reports them as
 * added) and the first is remembered in l->bad (so seal_write can refuse).
 * Folders nested deeper than SEAL_MAX_DEPTH are refused with a message:
 * benchtui itself makes two levels (legs/, servers/). */
static int
seal_walk(const char *dir, struct seal_list *l, char *err, size_t errlen)
{
	struct { DIR *d; size_t len; } st[SEAL_MAX_DEPTH + 1];
	char rel[SEAL_PATH_MAX];
	int depth = 0, rc = -1, n;

	rel[0] = '\0';
	if ((st[0].d = seal_opendir(AT_FDCWD, dir, 0)) == NULL) {
		snprintf(err, errlen, "%s: cannot list: %s", dir, strerror(errno));
		return -1;
	}
	st[0].len = 0;
	while (depth >= 0) {
		DIR *d = st[depth].d, *sub;
		size_t len = st[depth].len;
		struct dirent *de;

		rel[len] = '\0';
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			if (errno != 0) {
				snprintf(err, errlen, "%s/%s: cannot list: %s", dir,
				    rel, strerror(errno));
				goto out;
			}
			closedir(d);
			depth--;
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		n = snprintf(rel + len, sizeof rel - len, "%s%s", len ? "/" : "",
		    de->d_name);
		if (n < 0 || (size_t)n >= sizeof rel - len) {
			snprintf(err, errlen, "%s/%.*s/%s: path too long for the seal",
			    dir, (int)len, rel, de->d_name);
			goto out;
		}
		if ((n = seal_walk_entry(dir, l, d, depth, de->d_name, rel,
		    &sub, err, errlen)) < 0)
			goto out;
		if (n > 0) {
			st[++depth].d = sub;
			st[depth].len = strlen(rel);
		}
	}
	rc = 0;
out:
	for (; depth >= 0; depth--)
		closedir(st[depth].d);
	return rc;
}

static int
seal_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
seal_list_dir(const char *dir, bool skip_tmp, struct seal_list *l, char *err,
    size_t errlen)
{
	memset(l, 0, sizeof *l);
	l->skip_tmp = skip_tmp;
	if (seal_walk(dir, l, err, errlen) != 0) {
		seal_list_free(l);
		return -1;
	}
	if (l->n > 1)
		qsort(l->paths, l->n, sizeof *l->paths, seal_cmp);
	return 0;
}

/* Write buf to DIR/tmp, fsync, rename to DIR/name, fsync DIR. */
static int
seal_write_atomic(const char *dir, const char *tmp, const char *name,
    const void *buf, size_t len, char *err, size_t errlen)
{
	char tpath[4096], path[4096];
	const char *p = buf;
	size_t left = len;
	int fd, dfd;

	snprintf(tpath, sizeof tpath, "%s/%s", dir, tmp);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* A link planted under the temp name cannot send the write
	 * elsewhere. */
	fd = rfile_create(tpath, 0, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", tpath,
		    rfile_strerror(errno));
		return -1;
	}
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			snprintf(err, errlen, "%s: write failed: %s", tpath,
			    strerror(errno));
			goto fail;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fsync(fd) != 0) {
		snprintf(err, errlen, "%s: fsync failed: %s", tpath, strerror(errno));
		goto fail;
	}
	close(fd);
	if (rename(tpath, path) != 0) {
		int e = errno;

		snprintf(err, errlen, "%s: cannot rename to %s: %s", tpath, name,
		    strerror(e));
		unlink(tpath);
		errno = e;
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(dfd);
		close(dfd);
	}
	return 0;
fail: {
	int e = errno;  /* the caller tells a full disk by it */

	close(fd);
	unlink(tpath);
	errno = e;
	return -1;
}
}

/* "RSA", "EC", ... for messages. */
static const char *
seal_key_type(const EVP_PKEY *pk)
{
	const char *name = EVP_PKEY_get0_type_name(pk);

	return name != NULL ? name : OBJ_nid2sn(EVP_PKEY_get_id(pk));
}

/* Never prompt for a passphrase: benchtui may own the terminal. */
static int
seal_no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

/* Load an Ed25519 private key, or NULL with err. */
static EVP_PKEY *
seal_load_key(const char *key_path, char *err, size_t errlen)
{
	EVP_PKEY *pk;
	FILE *f;

	if ((f = fopen(key_path, "r")) == NULL) {
		snprintf(err, errlen, "%s: cannot open signing key: %s", key_path,
		    strerror(errno));
		return NULL;
	}
	pk = PEM_read_PrivateKey(f, NULL, seal_no_passphrase, NULL);
	fclose(f);
	if (pk == NULL) {
		snprintf(err, errlen, "%s: not a readable PEM private key "
		    "(an unencrypted Ed25519 key from "
		    "`openssl genpkey -algorithm ed25519` is expected)", key_path);
		return NULL;
	}
	if (EVP_PKEY_get_id(pk) != EVP_PKEY_ED25519) {
		snprintf(err, errlen, "%s: the key is %s, not Ed25519; only Ed25519 "
		    "keys can sign a seal", key_path, seal_key_type(pk));
		EVP_PKEY_free(pk);
		return NULL;
	}
	return pk;
}

int
seal_check_key(const char *sign_key, char *err, size_t errlen)
{
	EVP_PKEY *pk = seal_load_key(sign_key, err, errlen);

	EVP_PKEY_free(pk);
	return pk != NULL ? 0 : -1;
}

static int
seal_sign(const char *key_path, const void *msg, size_t len,
    unsigned char sig[ED25519_SIG_LEN], char *err, size_t errlen)
{
	EVP_PKEY *pk;
	EVP_MD_CTX *ctx = NULL;
	size_t siglen = ED25519_SIG_LEN;
	int rc = -1;

	if ((pk = seal_load_key(key_path, err, errlen)) == NULL)
		return -1;
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestSignInit(ctx, NULL, NULL, NULL, pk) != 1 ||
	    EVP_DigestSign(ctx, sig, &siglen, msg, len) != 1 ||
	    siglen != ED25519_SIG_LEN) {
		snprintf(err, errlen, "%s: signing failed", key_path);
		goto out;
	}
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return rc;
}

/* 1 good, 0 bad, -1 with err when the key cannot be used. */
static int
seal_check_sig(const char *pub_path, const void *msg, size_t len,
    const unsigned char *sig, size_t siglen, char *err, size_t errlen)
{
	EVP_PKEY *pk = NULL;
	EVP_MD_CTX *ctx = NULL;
	FILE *f;
	int rc = -1;

	if ((f = fopen(pub_path, "r")) == NULL) {
		snprintf(err, errlen, "%s: cannot open public key: %s", pub_path,
		    strerror(errno));
		return -1;
	}
	pk = PEM_read_PUBKEY(f, NULL, seal_no_passphrase, NULL);
	fclose(f);
	if (pk == NULL) {
		snprintf(err, errlen, "%s: not a PEM public key (make one with "
		    "`openssl pkey -in KEY.pem -pubout`)", pub_path);
		goto out;
	}
	if (EVP_PKEY_get_id(pk) != EVP_PKEY_ED25519) {
		snprintf(err, errlen, "%s: the key is %s, not Ed25519", pub_path,
		    seal_key_type(pk));
		goto out;
	}
	if ((ctx = EVP_MD_CTX_new()) == NULL ||
	    EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, pk) != 1) {
		snprintf(err, errlen, "%s: cannot set up verification", pub_path);
		goto out;
	}
	rc = EVP_DigestVerify(ctx, sig, siglen, msg, len) == 1 ? 1 : 0;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pk);
	return rc;
}

static void
seal_make_readonly(const char *dir, const struct seal_list *l)
{
	const char *own[] = { SEAL_SUMS, SEAL_SIG };
	char path[8192];
	struct stat st;

	for (size_t i = 0; i < l->n + 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir,
		    i < l->n ? l->paths[i] : own[i - l->n]);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
			chmod(path, st.st_mode & ~(mode_t)0222 & 07777);
	}
}

int
seal_write(const char *dir, const char *sign_key, char sums_sha256[65],
    char *err, size_t errlen)
{
	struct seal_list l;
	struct xbuf b = { 0 };
	char path[8192], hex[DIGEST_HEX_LEN];
	unsigned char sig[ED25519_SIG_LEN];
	struct stat st;
	int rc = -1;

	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	if (lstat(path, &st) == 0) {
		snprintf(err, errlen, "%s: the folder is already sealed", path);
		return -1;
	}
	/* Left over from a seal that crashed half way. */
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_TMP);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SIG_TMP);
	unlink(path);
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SIG);
	unlink(path);

	if (seal_list_dir(dir, true, &l, err, errlen) != 0)
		return -1;
	if (l.bad != NULL) {
		snprintf(err, errlen, "%s/%s: not a regular file; the seal covers "
		    "regular files only, so remove it or seal by hand", dir, l.bad);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		if (strpbrk(l.paths[i], "\n\\") != NULL) {
			snprintf(err, errlen, "%s: a file name with a newline or a "
			    "backslash cannot be sealed; rename or remove it", dir);
			goto out;
		}
		snprintf(path, sizeof path, "%s/%s", dir, l.paths[i]);
		if (digest_file(path, hex) != 0) {
			snprintf(err, errlen, "%s: cannot read: %s", path,
			    strerror(errno));
			goto out;
		}
		xbuf_add(&b, hex, strlen(hex));
		xbuf_add(&b, "  ", 2);
		xbuf_add(&b, l.paths[i], strlen(l.paths[i]));
		xbuf_add(&b, "\n", 1);
	}
	if (b.p == NULL)
		xbuf_add(&b, "", 0);
	if (sign_key != NULL) {
		if (seal_sign(sign_key, b.p, b.len, sig, err, errlen) != 0)
			goto out;
		if (seal_write_atomic(dir, SEAL_SIG_TMP, SEAL_SIG, sig, sizeof sig,
		    err, errlen) != 0)
			goto out;
	}
	if (seal_write_atomic(dir, SEAL_TMP, SEAL_SUMS, b.p, b.len, err,
	    errlen) != 0)
		goto out;
	digest_buf(b.p, b.len, hex);
	if (sums_sha256 != NULL)
		memcpy(sums_sha256, hex, DIGEST_HEX_LEN);
	seal_make_readonly(dir, &l);
	rc = 0;
out: {
	int e = errno;  /* a failure's, for the caller */

	free(b.p);
	seal_list_free(&l);
	errno = e;
	return rc;
}
}

/* A path as verify shows it (escape.h): newline and backslash escaped the
 * way sha256sum escapes them, and every other control byte (a CR would
 * move the cursor back over the line) as \r or \xNN, so one report line
 * is one file and what is printed is what is there.  Cut to fit buf. */
static const char *
seal_escape(const char *rel, char *buf, size_t len)
{
	(void)escape_text(rel, strlen(rel), buf, len, ESCAPE_BACKSLASH, NULL);
	return buf;
}

static void
seal_print(FILE *out, const char *what, const char *rel)
{
	char buf[4 * SEAL_PATH_MAX + 8];

	fprintf(out, "%s: %s\n", what, seal_escape(rel, buf, sizeof buf));
}

struct seal_entry {
	char *path;
	char hex[DIGEST_HEX_LEN];
};

static int
seal_entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct seal_entry *)a)->path,
	    ((const struct seal_entry *)b)->path);
}

/* A path in SHA256SUMS must stay inside DIR: relative, no empty, "." or
 * ".." component. */
static bool
seal_path_safe(const char *rel)
{
	const char *p = rel;

	if (*rel == '/')
		return false;
	for (;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (p[n] == '\0')
			return true;
		p += n + 1;
	}
}

/* Parse SHA256SUMS text into entries.  Accepts sha256sum's "HEX  path" and
 * "HEX *path" and its "\" escaped lines. */
static int
seal_parse_sums(const char *path, char *text, struct seal_entry **out,
    size_t *nout, char *err, size_t errlen)
{
	struct seal_entry *e = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	char *line = text, *nl;

	for (; *line; line = nl + 1) {
		bool esc = false;
		char *name;

		lineno++;
		if ((nl = strchr(line, '\n')) == NULL) {
			snprintf(err, errlen, "%s:%zu: line does not end in a newline",
			    path, lineno);
			goto fail;
		}
		*nl = '\0';
		if (*line == '\\') {
			esc = true;
			line++;
		}
		if (strlen(line) < 67 || strspn(line, "0123456789abcdefABCDEF") != 64 ||
		    line[64] != ' ' || (line[65] != ' ' && line[65] != '*')) {
			snprintf(err, errlen, "%s:%zu: not a \"SHA256  PATH\" line",
			    path, lineno);
			goto fail;
		}
		name = line + 66;
		if (esc) {
			char *w = name;
			for (char *r = name; *r; r++) {
				if (*r == '\\' && r[1] == 'n') {
					*w++ = '\n';
					r++;
				} else if (*r == '\\' && r[1] == '\\') {
					*w++ = '\\';
					r++;
				} else {
					*w++ = *r;
				}
			}
			*w = '\0';
		}
		/* `sha256sum $(find . -type f)` writes "./path". */
		while (name[0] == '.' && name[1] == '/')
			name += 2;
		if (!seal_path_safe(name)) {
			char buf[512];

			snprintf(err, errlen, "%s:%zu: path \"%s\" leaves the folder",
			    path, lineno, seal_escape(name, buf, sizeof buf));
			goto fail;
		}
		if (n == cap) {
			cap = xgrow(cap, n + 1, 64);
			e = xreallocarray(e, cap, sizeof *e);
		}
		e[n].path = name;
		for (int i = 0; i < 64; i++)
			e[n].hex[i] = (char)(line[i] | 0x20); /* lower case */
		e[n].hex[64] = '\0';
		n++;
	}
	if (n > 1)
		qsort(e, n, sizeof *e, seal_entry_cmp);
	*out = e;
	*nout = n;
	return 0;
fail:
	free(e);
	return -1;
}

/* Read a file of the seal (SHA256SUMS, its signature) whole.  Never
 * through a symlink, and never anything but a regular file (a fifo would
 * hang verify): benchtui writes both as regular files, so anything else is
 * not its seal.  NULL with errno (ELOOP: a symlink; EINVAL: not a regular
 * file). */
static char *
seal_slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	char *buf = NULL;
	size_t cap = 0, n = 0;
	struct stat st;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	for (;;) {
		ssize_t r;

		if (n + 4096 + 1 > cap) {
			cap = xgrow(cap, n + 4096 + 1, 8192);
			buf = xrealloc(buf, cap);
		}
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*len = n;
	return buf;
}

/* Why a seal file could not be read, for err. */
static const char *
seal_slurp_error(int e)
{
	if (e == ENOENT)
		return "no seal (the round is not sealed)";
	if (e == ELOOP)
		return "is a symlink, not the seal benchtui wrote; verify "
		    "refuses to follow it";
	if (e == EINVAL)
		return "is not a regular file, not the seal benchtui wrote";
	return strerror(e);
}

/* SHA256SUMS of dir read whole (*text, *len) and parsed into its sorted
 * entries (*e, *ne; their paths point into *copy).  0, or -1 with err. */
static int
seal_verify_read(const char *dir, char **text, size_t *len, char **copy,
    struct seal_entry **e, size_t *ne, char *err, size_t errlen)
{
	char path[8192];
	struct stat dst;

	if (stat(dir, &dst) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(dst.st_mode)) {
		snprintf(err, errlen, "%s: not a folder", dir);
		return -1;
	}
	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SUMS);
	if ((*text = seal_slurp(path, len)) == NULL) {
		snprintf(err, errlen, "%s: %s", path, seal_slurp_error(errno));
		return -1;
	}
	if (memchr(*text, '\0', *len) != NULL) {
		snprintf(err, errlen, "%s: holds a NUL byte; not a checksum file",
		    path);
		return -1;
	}
	*copy = xstrdup(*text);
	return seal_parse_sums(path, *copy, e, ne, err, errlen);
}

/* The listed file e[0] (listed k times: e[0..k-1]) against the folder's:
 * 1 when it is changed (printed), 0 when the same; -1 with err when it
 * cannot be read. */
static int
seal_verify_file(const char *dir, const struct seal_entry *e, size_t k,
    FILE *out, char *err, size_t errlen)
{
	char path[8192], hex[DIGEST_HEX_LEN];
	struct stat st;
	bool same = true;

	snprintf(path, sizeof path, "%s/%s", dir, e[0].path);
	if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		seal_print(out, "changed", e[0].path); /* now a symlink, fifo */
		return 1;
	}
	if (digest_file(path, hex) != 0) {
		snprintf(err, errlen, "%s: cannot read: %s", path,
		    strerror(errno));
		return -1;
	}
	for (size_t m = 0; m < k; m++)
		same = same && strcmp(hex, e[m].hex) == 0;
	if (same)
		return 0;
	seal_print(out, "changed", e[0].path);
	return 1;
}

/* The listed entries against the folder's files, both sorted, merged so
 * the report is in path order: added, duplicate, missing, changed.  1
 * when anything differs, 0 when nothing does; -1 with err. */
static int
seal_verify_merge(const char *dir, const struct seal_entry *e, size_t ne,
    const struct seal_list *l, FILE *out, char *err, size_t errlen)
{
	size_t i = 0, j = 0;
	int bad = 0, rc;

	while (i < ne || j < l->n) {
		int c = i >= ne ? 1 : j >= l->n ? -1 : strcmp(e[i].path,
		    l->paths[j]);
		size_t k = i + 1;

		if (c > 0) {
			seal_print(out, "added", l->paths[j++]);
			bad = 1;
			continue;
		}
		/* The same path listed twice: sha256sum -c would check it
		 * twice and pass; it is not the list benchtui wrote. */
		while (k < ne && strcmp(e[k].path, e[i].path) == 0)
			k++;
		if (k - i > 1) {
			seal_print(out, "duplicate", e[i].path);
			bad = 1;
		}
		if (c < 0) {
			seal_print(out, "missing", e[i].path);
			bad = 1;
			i = k;
			continue;
		}
		if ((rc = seal_verify_file(dir, e + i, k - i, out, err,
		    errlen)) < 0)
			return -1;
		bad |= rc;
		i = k;
		j++;
	}
	return bad;
}

/* SHA256SUMS.sig against text and the public key: 1 when missing or bad
 * (printed), 0 when good; -1 with err. */
static int
seal_verify_sig(const char *dir, const char *pubkey, const char *text,
    size_t textlen, FILE *out, char *err, size_t errlen)
{
	char path[8192], *sig;
	size_t siglen = 0;
	int ok;

	snprintf(path, sizeof path, "%s/%s", dir, SEAL_SIG);
	if ((sig = seal_slurp(path, &siglen)) == NULL) {
		if (errno != ENOENT) {
			snprintf(err, errlen, "%s: %s", path,
			    seal_slurp_error(errno));
			return -1;
		}
		fputs("signature: missing\n", out);
		return 1;
	}
	ok = seal_check_sig(pubkey, text, textlen, (unsigned char *)sig,
	    siglen, err, errlen);
	free(sig);
	if (ok == 0)
		fputs("signature: bad\n", out);
	return ok < 0 ? -1 : !ok;
}

int
seal_verify(const char *dir, const char *pubkey, FILE *out,
    char *err, size_t errlen)
{
	struct seal_list l = { 0 };
	struct seal_entry *e = NULL;
	size_t ne = 0, textlen = 0;
	char *text = NULL, *copy = NULL;
	int rc = 2, diff, sig = 0;

	if (seal_verify_read(dir, &text, &textlen, &copy, &e, &ne, err,
	    errlen) != 0)
		goto out;
	if (seal_list_dir(dir, false, &l, err, errlen) != 0)
		goto out;
	/* A key that cannot be used is bad usage (exit 2) before any
	 * difference is printed, whether or not the folder is signed. */
	if (pubkey != NULL && seal_check_sig(pubkey, text, textlen,
	    (const unsigned char *)"", 0, err, errlen) < 0)
		goto out;
	if ((diff = seal_verify_merge(dir, e, ne, &l, out, err, errlen)) < 0)
		goto out;
	if (pubkey != NULL && (sig = seal_verify_sig(dir, pubkey, text,
	    textlen, out, err, errlen)) < 0)
		goto out;
	fflush(out);
	rc = diff || sig ? 4 : 0;
out:
	free(e);
	free(copy);
	free(text);
	seal_list_free(&l);
	return rc;
}
