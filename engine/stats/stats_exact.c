/* Tail probabilities held to (1 - level) / 2 exactly: integer counts
 * against the rational bound the level is, so a level built to sit within
 * an ulp of a tail probability gets the rank its definition gives on
 * every machine, whatever its C library's lgamma or exp (see
 * stats_int.h).  OpenSSL's BIGNUM holds the counts. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>

#include "stats_int.h"
#include "xalloc.h"

static BIGNUM *
stats_exact_bn(void)
{
	BIGNUM *b = BN_new();

	if (b == NULL)
		xalloc_die(sizeof(BIGNUM *));
	return b;
}

static void
stats_exact_ok(int rc)
{
	/* BN's only failure here is running out of memory. */
	if (rc != 1)
		xalloc_die(4096);
}

bool
stats_exact_tail_le(const BIGNUM *count, const BIGNUM *total, double level)
{
	BN_CTX *ctx = BN_CTX_new();
	BIGNUM *lhs = stats_exact_bn(), *rhs = stats_exact_bn();
	BIGNUM *m = stats_exact_bn();
	int e, s;
	double f = frexp(level, &e);
	bool le;

	if (ctx == NULL)
		xalloc_die(4096);
	/* level = M / 2^s with M an integer of 53 bits at most (s >= 53:
	 * level < 1).  count / total <= (1 - M / 2^s) / 2 is
	 * count * 2^(s+1) <= (2^s - M) * total, all integers. */
	s = 53 - e;
	stats_exact_ok(BN_set_word(m, (BN_ULONG)ldexp(f, 53)));
	stats_exact_ok(BN_lshift(lhs, count, s + 1));
	stats_exact_ok(BN_set_word(rhs, 1));
	stats_exact_ok(BN_lshift(rhs, rhs, s));
	stats_exact_ok(BN_sub(rhs, rhs, m));
	stats_exact_ok(BN_mul(rhs, rhs, total, ctx));
	le = BN_cmp(lhs, rhs) <= 0;
	BN_free(lhs);
	BN_free(rhs);
	BN_free(m);
	BN_CTX_free(ctx);
	return le;
}

/* c = C(n, k), built one factor at a time (each step exact). */
static void
stats_exact_choose(BIGNUM *c, size_t n, size_t k)
{
	stats_exact_ok(BN_set_word(c, 1));
	if (k > n)
		return (void)BN_zero(c);
	if (k > n - k)
		k = n - k;
	for (size_t i = 1; i <= k; i++) {
		stats_exact_ok(BN_mul_word(c, (BN_ULONG)(n - k + i)));
		(void)BN_div_word(c, (BN_ULONG)i);
	}
}

bool
stats_floor_tail_le(size_t n, size_t u, size_t v, double level)
{
	size_t k = u + v - 1, j0 = k > n ? k - n : 0;
	BIGNUM *cj = stats_exact_bn(), *ck = stats_exact_bn();
	BIGNUM *sum = stats_exact_bn(), *t = stats_exact_bn();
	BIGNUM *all = stats_exact_bn();
	BN_CTX *ctx = BN_CTX_new();
	bool le;

	if (ctx == NULL)
		xalloc_die(4096);
	/* sum over j in [j0, v) of C(n, j) C(n, k - j), against C(2n, k):
	 * cj walks up from C(n, j0), ck down from C(n, k - j0). */
	BN_zero(sum);
	stats_exact_choose(cj, n, j0);
	stats_exact_choose(ck, n, k - j0);
	for (size_t j = j0; j < v; j++) {
		stats_exact_ok(BN_mul(t, cj, ck, ctx));
		stats_exact_ok(BN_add(sum, sum, t));
		/* C(n, j+1) = C(n, j) (n - j) / (j + 1);
		 * C(n, k-j-1) = C(n, k-j) (k - j) / (n - k + j + 1). */
		stats_exact_ok(BN_mul_word(cj, (BN_ULONG)(n - j)));
		(void)BN_div_word(cj, (BN_ULONG)(j + 1));
		stats_exact_ok(BN_mul_word(ck, (BN_ULONG)(k - j)));
		(void)BN_div_word(ck, (BN_ULONG)(n - k + j + 1));
	}
	stats_exact_choose(all, 2 * n, k);
	le = stats_exact_tail_le(sum, all, level);
	BN_free(cj);
	BN_free(ck);
	BN_free(sum);
	BN_free(t);
	BN_free(all);
	BN_CTX_free(ctx);
	return le;
}

/* An unsigned 128-bit count into a BIGNUM. */
static void
stats_exact_u128(BIGNUM *b, unsigned __int128 x)
{
	unsigned char be[16];

	for (int i = 15; i >= 0; i--, x >>= 8)
		be[i] = (unsigned char)x;
	if (BN_bin2bn(be, 16, b) == NULL)
		xalloc_die(16);
}

uint64_t
stats_wilcoxon_exact_k(size_t n, double level)
{
	size_t m = n * (n + 1) / 2, half = m / 2;
	unsigned __int128 *c, cdf = 0;
	BIGNUM *count = stats_exact_bn(), *total = stats_exact_bn();
	uint64_t k = 0;

	if (n == 0 || n > STATS_EXACT_INT_MAX)
		return 0;
	/* c[t]: the subsets of {1..n} summing to t, at most 2^n < 2^128;
	 * only t <= M/2 is needed (P(T <= M/2) >= 1/2 > alpha). */
	c = xcalloc(half + 1, sizeof *c);
	c[0] = 1;
	for (size_t i = 1; i <= n; i++)
		for (size_t t = half; t >= i; t--)
			c[t] += c[t - i];
	stats_exact_ok(BN_set_word(total, 1));
	stats_exact_ok(BN_lshift(total, total, (int)n));
	/* The largest k with P(T <= k - 1) <= alpha. */
	for (size_t t = 0; t <= half; t++) {
		cdf += c[t];
		stats_exact_u128(count, cdf);
		if (!stats_exact_tail_le(count, total, level))
			break;
		k = t + 1;
	}
	free(c);
	BN_free(count);
	BN_free(total);
	return k;
}
