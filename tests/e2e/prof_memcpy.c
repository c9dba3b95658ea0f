/* A leg that copies through memcpy from two named callers, built -O2 -g
 * WITHOUT frame pointers (-fomit-frame-pointer), as the programs users
 * profile are: frame pointers cannot name memcpy's caller here, and libc's
 * memcpy is a leaf that keeps no frame.  Each step header_copy copies a
 * 1 KiB header, stage_offer a 4 KiB body, and score_step (no memcpy) does
 * a fixed amount of arithmetic.  PROF_MEMCPY=big makes stage_offer copy
 * its body 8 times (the same 4 KiB, so the cache holds what it held):
 * that arm spends far more time in memcpy, all of it more from
 * stage_offer, while header_copy's time per run stays what it was.  The
 * header lives in a half of the buffers of its own, and score_step runs
 * between stage_offer and header_copy: the stores the big arm's copies
 * leave in flight drain there, not into the next header's copy, where
 * they once made header_copy read +0.7 samples a run more in 2 of 12
 * rounds.
 *
 * Usage: prof-memcpy [STEPS]   (default 100000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUF (1u << 20)

static unsigned char *src, *dst;
/* sizes read at run time: the compiler cannot turn the copies into moves */
static volatile size_t header_len = 1024, offer_len = 4096;
static volatile int offer_times = 1;
static volatile unsigned score_rounds = 150;

__attribute__((noinline)) static unsigned
header_copy(size_t off)
{
	/* the upper half: never the bytes stage_offer writes */
	off += BUF / 2;
	memcpy(dst + off, src + off, header_len);
	/* the copy is used after the call: a call, not a tail jump */
	return dst[off];
}

__attribute__((noinline)) static unsigned
stage_offer(size_t off)
{
	/* the same 4 KiB again and again: more copying, no more cache */
	for (int k = 0; k < offer_times; k++)
		memcpy(dst + off, src + off, offer_len);
	return dst[off + 1];
}

__attribute__((noinline)) static unsigned
score_step(unsigned h)
{
	for (unsigned i = 0; i < score_rounds; i++)
		h = (h ^ i) * 16777619u;
	return h;
}

int
main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 100000;
	const char *big = getenv("PROF_MEMCPY");
	unsigned sum = 0;

	src = malloc(BUF);
	dst = malloc(BUF);
	if (src == NULL || dst == NULL)
		return 1;
	memset(src, 7, BUF);
	memset(dst, 0, BUF);
	if (big != NULL && strcmp(big, "big") == 0)
		offer_times = 8;
	for (long i = 0; i < steps; i++) {
		size_t off = (size_t)(i % 3) * 4096;

		sum += stage_offer(off);
		sum = score_step(sum);
		sum += header_copy(off);
	}
	printf("%u\n", sum);
	free(src);
	free(dst);
	return 0;
}
