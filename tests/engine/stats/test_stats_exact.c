/* test: */
/* Arithmetic at the edges: the normal quantile against R's qnorm, and
 * the floor estimator's u and the signed-rank k at levels built to sit
 * within an ulp of a tail probability, against exact rational arithmetic
 * (the tables below were made by python's fractions: Fraction(level) is
 * the double exactly, tails are integer counts over C(2n, k) or 2^n). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "stats.h"
#include "stats_floor.h"
#include "stats_int.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* floor: n, level, u (python fractions) */
static const struct { size_t n; double level; size_t u; } floor_edges[] = {
	{ 35, 0x1.ffffffffe643ap-1, 28 },
	{ 33, 0x1.8c18c18c18c1ap-2, 4 },
	{ 8, 0x1.f2df2df2df2e0p-1, 6 },
	{ 35, 0x1.fffff98982bd0p-1, 22 },
	{ 19, 0x1.8a60dd67c8a62p-1, 4 },
	{ 31, 0x1.fffffffe1de48p-1, 26 },
	{ 36, 0x1.ffff40e8c9194p-1, 18 },
	{ 20, 0x1.89d89d89d89d8p-1, 3 },
	{ 14, 0x1.fffb8e77190aep-1, 12 },
	{ 32, 0x1.ffffffffe686bp-1, 27 },
	{ 33, 0x1.fffffffffffd4p-1, 32 },
	{ 33, 0x1.0000000000000p+0, 0 },
	{ 18, 0x1.fffc1cb04f08ep-1, 13 },
	{ 36, 0x1.fcb22e679cfd7p-1, 11 },
	{ 27, 0x1.fa39623672862p-1, 10 },
	{ 36, 0x1.ff50de8c135bdp-1, 13 },
	{ 31, 0x1.feb056a271cbdp-1, 12 },
	{ 12, 0x1.d04c52aee8264p-1, 5 },
	{ 28, 0x1.ffffffffc30d6p-1, 26 },
	{ 14, 0x1.f7d67245c02f9p-1, 7 },
	{ 23, 0x1.91a979d91a979p-2, 3 },
	{ 31, 0x1.feb056a271cbep-1, 12 },
	{ 16, 0x1.febf3ed178570p-1, 8 },
	{ 3, 0x1.ccccccccccccdp-1, 0 },
	{ 26, 0x1.ffffffffffc2cp-1, 0 },
	{ 2, 0x1.5555555555554p-1, 2 },
	{ 21, 0x1.ffffffff4c3d8p-1, 21 },
	{ 39, 0x1.ffab058b5f487p-1, 14 },
	{ 37, 0x1.fffffd21b4e70p-1, 22 },
	{ 28, 0x1.ffff3dcfb16b3p-1, 18 },
	{ 30, 0x1.febccb6efec56p-1, 11 },
	{ 25, 0x1.fffb8a577c90ap-1, 15 },
	{ 26, 0x1.ffff7dc83bef6p-1, 17 },
	{ 32, 0x1.fffffff16fdfdp-1, 25 },
	{ 8, 0x1.1111111111110p-1, 2 },
	{ 27, 0x1.ffffffffffefep-1, 0 },
	{ 35, 0x1.fffffffffffd8p-1, 33 },
	{ 32, 0x1.fffffffffffffp-1, 32 },
	{ 40, 0x1.ffffffffffff8p-1, 35 },
	{ 35, 0x1.fffffffffb75bp-1, 29 },
	{ 28, 0x1.ffced7d173991p-1, 14 },
	{ 23, 0x1.ff2561f0156ffp-1, 11 },
	{ 25, 0x1.fffe9c900907fp-1, 16 },
	{ 36, 0x1.fff2c4f9c71b2p-1, 15 },
	{ 18, 0x1.fffffffe1b5fbp-1, 18 },
	{ 36, 0x1.f1c2d41ec9c67p-1, 8 },
	{ 36, 0x1.fffffffffffffp-1, 34 },
	{ 35, 0x1.fffffffffffffp-1, 34 },
	{ 39, 0x1.487a5919eeb62p-1, 4 },
	{ 25, 0x1.fffffffeefb85p-1, 24 },
	{ 11, 0x1.d1cdf4737d1cep-1, 5 },
	{ 28, 0x1.4bf737c448039p-1, 5 },
	{ 39, 0x1.ff41036912e9bp-1, 12 },
	{ 34, 0x1.ffb9ec389d298p-1, 14 },
	{ 15, 0x1.fcc36247cc363p-1, 8 },
	{ 27, 0x1.ff8c399458696p-1, 13 },
	{ 34, 0x1.ffffffffffff4p-1, 33 },
	{ 21, 0x1.ff4970d1fed5cp-1, 11 },
	{ 34, 0x1.ffffeebf1abd0p-1, 21 },
	{ 29, 0x1.fffffffffe36ep-1, 28 },
	{ 12, 0x1.fffebd613d6c0p-1, 12 },
	{ 38, 0x1.fe66b955f361ep-1, 11 },
	{ 22, 0x1.92838ebd0f3f2p-2, 3 },
	{ 32, 0x1.fffffffffff5fp-1, 31 },
	{ 25, 0x1.9efeb4010998bp-1, 5 },
	{ 40, 0x1.4842533e3e337p-1, 5 },
	{ 39, 0x1.fff07afc92065p-1, 15 },
	{ 27, 0x1.ff8c399458694p-1, 12 },
	{ 34, 0x1.f941e6f7e2c21p-1, 10 },
	{ 22, 0x1.fff7c8cadedcep-1, 15 },
	{ 12, 0x1.f8f8626a9e2b6p-1, 7 },
	{ 29, 0x1.fec9d1596e749p-1, 12 },
	{ 40, 0x1.ffffffff41b63p-1, 29 },
	{ 3, 0x1.3333333333334p-1, 3 },
	{ 21, 0x1.fffffbc5ee72bp-1, 19 },
	{ 32, 0x1.f2713dcd51cc5p-1, 9 },
	{ 26, 0x1.e69a165389bf4p-1, 8 },
	{ 35, 0x1.0000000000000p+0, 0 },
	{ 23, 0x1.fffff35acef46p-1, 18 },
	{ 40, 0x1.f13586ac0119cp-1, 8 },
	{ 13, 0x1.f85e21b595c8cp-1, 7 },
	{ 31, 0x1.fd0f353c2d1ccp-1, 10 },
	{ 29, 0x1.ffcb219712253p-1, 14 },
	{ 21, 0x1.ffffe7e6981adp-1, 17 },
	{ 33, 0x1.fffffffb328abp-1, 25 },
	{ 7, 0x1.f5423cddfc6b7p-1, 6 },
	{ 33, 0x1.ffe497c083794p-1, 14 },
	{ 37, 0x1.fffffffb527d4p-1, 27 },
	{ 17, 0x1.ffff53e2c9df5p-1, 13 },
	{ 11, 0x1.fffb8a6bc5a55p-1, 10 },
	{ 31, 0x1.9bff5b27f4f2dp-1, 5 },
	{ 32, 0x1.ff68e31582385p-1, 13 },
	{ 15, 0x1.8d3dcb08d3dcbp-1, 3 },
	{ 22, 0x1.e879829d3adcfp-1, 7 },
	{ 37, 0x1.ffffb3af3e3d2p-1, 20 },
	{ 31, 0x1.fd0f353c2d1cep-1, 11 },
	{ 20, 0x1.fffffad3ad625p-1, 17 },
	{ 22, 0x1.cf943bea26e4bp-1, 7 },
	{ 30, 0x1.ffffffffffffbp-1, 30 },
	{ 34, 0x1.fffffff8edc5cp-1, 25 },
	{ 35, 0x1.9a9626f9c6d3bp-1, 5 },
	{ 29, 0x1.fd3b6838f94f5p-1, 11 },
	{ 34, 0x1.0000000000000p+0, 0 },
	{ 23, 0x1.ffffc7ed0865ap-1, 18 },
	{ 19, 0x1.ffffaf4c90c96p-1, 15 },
	{ 38, 0x1.f178a6a77117bp-1, 8 },
	{ 29, 0x1.ffffffffee2dep-1, 26 },
	{ 30, 0x1.ffffa90c43659p-1, 18 },
	{ 39, 0x1.fffffc0e646a5p-1, 23 },
	{ 19, 0x1.fffeafbf05f1cp-1, 14 },
	{ 35, 0x1.9a9626f9c6d3cp-1, 6 },
	{ 30, 0x1.fffcf72785c91p-1, 17 },
	{ 30, 0x1.cb5f256e77b4dp-1, 7 },
	{ 24, 0x1.f46c999ba8088p-1, 9 },
	{ 11, 0x1.ff78bc1a6b42cp-1, 8 },
	{ 11, 0x1.f9a8d13d07221p-1, 6 },
	{ 39, 0x1.fffffebaf7213p-1, 24 },
	{ 40, 0x1.fe5553f861adep-1, 11 },
	{ 9, 0x1.fffa9bba29275p-1, 9 },
	{ 25, 0x1.fffe9c9009080p-1, 17 },
	{ 31, 0x1.fffc9a9b0b331p-1, 16 },
	{ 40, 0x1.fffffff57e426p-1, 26 },
	{ 20, 0x1.ffffff2347907p-1, 18 },
	{ 32, 0x1.f2713dcd51cc4p-1, 9 },
	{ 20, 0x1.ffffffe335db4p-1, 19 },
	{ 35, 0x1.fcc30c52c2078p-1, 10 },
	{ 19, 0x1.f5efa56cd0d36p-1, 7 },
	{ 16, 0x1.fff7201802514p-1, 11 },
	{ 36, 0x1.9a48be927785ap-1, 6 },
	{ 27, 0x1.fa39623672861p-1, 9 },
	{ 40, 0x1.ffffffffd1bc7p-1, 29 },
	{ 33, 0x1.ffffffff0105ap-1, 26 },
	{ 13, 0x1.ffffa5aa96517p-1, 13 },
	{ 40, 0x1.fffffffd202cap-1, 28 },
	{ 13, 0x1.fff1e2a77cb91p-1, 11 },
	{ 14, 0x1.ffec0117f0b0dp-1, 10 },
	{ 11, 0x1.9249249249248p-1, 3 },
	{ 39, 0x1.ffffa291a6089p-1, 19 },
	{ 39, 0x1.ff41036912e9cp-1, 13 },
	{ 31, 0x1.ffff99957c1c1p-1, 19 },
	{ 13, 0x1.fd542565f46cbp-1, 8 },
	{ 24, 0x1.ff1468c83fbe5p-1, 12 },
	{ 33, 0x1.fffe7c8dffd1ep-1, 18 },
	{ 11, 0x1.fe04c163123abp-1, 8 },
	{ 18, 0x1.fff21d511a440p-1, 11 },
	{ 39, 0x1.fc83f2c690665p-1, 11 },
	{ 20, 0x1.ffffe62262eb4p-1, 16 },
	{ 9, 0x1.0f0f0f0f0f0f2p-1, 3 },
	{ 26, 0x1.e69a165389bf2p-1, 7 },
	{ 28, 0x1.ffffffc63fc76p-1, 22 },
	{ 4, 0x1.b6db6db6db6dcp-1, 4 },
};
/* signed rank: n, level, k (python fractions) */
static const struct { size_t n; double level; uint64_t k; } wil_edges[] = {
	{ 40, 0x1.ff6ef74797fffp-1, 175 },
	{ 40, 0x1.ff6ef74798000p-1, 175 },
	{ 40, 0x1.ff6ef74798001p-1, 174 },
	{ 40, 0x1.ff2e893527fffp-1, 182 },
	{ 40, 0x1.ff2e893528000p-1, 182 },
	{ 40, 0x1.ff2e893528001p-1, 181 },
	{ 40, 0x1.fe7005d603fffp-1, 195 },
	{ 40, 0x1.fe7005d604000p-1, 195 },
	{ 40, 0x1.fe7005d604001p-1, 194 },
	{ 40, 0x1.fdece1c213fffp-1, 201 },
	{ 40, 0x1.fdece1c214000p-1, 201 },
	{ 40, 0x1.fdece1c214001p-1, 200 },
	{ 56, 0x1.fefd427761318p-1, 426 },
	{ 56, 0x1.fefd427761319p-1, 426 },
	{ 56, 0x1.fefd42776131ap-1, 425 },
	{ 56, 0x1.f67850167b829p-1, 512 },
	{ 56, 0x1.f67850167b82ap-1, 511 },
	{ 56, 0x1.f67850167b82bp-1, 511 },
	{ 56, 0x1.ef2df28e5c205p-1, 538 },
	{ 56, 0x1.ef2df28e5c206p-1, 538 },
	{ 56, 0x1.ef2df28e5c207p-1, 537 },
	{ 56, 0x1.ed56e503ca231p-1, 543 },
	{ 56, 0x1.ed56e503ca232p-1, 543 },
	{ 56, 0x1.ed56e503ca233p-1, 542 },
	{ 60, 0x1.eec903624413cp-1, 628 },
	{ 60, 0x1.eec903624413dp-1, 628 },
	{ 60, 0x1.eec903624413ep-1, 627 },
	{ 60, 0x1.ed73300b83a20p-1, 632 },
	{ 60, 0x1.ed73300b83a21p-1, 631 },
	{ 60, 0x1.ed73300b83a22p-1, 631 },
	{ 60, 0x1.d82a4e512e8a1p-1, 676 },
	{ 60, 0x1.d82a4e512e8a2p-1, 675 },
	{ 60, 0x1.d82a4e512e8a3p-1, 675 },
	{ 60, 0x1.bcea208b7388dp-1, 710 },
	{ 60, 0x1.bcea208b7388ep-1, 709 },
	{ 60, 0x1.bcea208b7388fp-1, 709 },
	{ 64, 0x1.fe6c61ea622eap-1, 604 },
	{ 64, 0x1.fe6c61ea622ebp-1, 604 },
	{ 64, 0x1.fe6c61ea622ecp-1, 603 },
	{ 64, 0x1.fbf71af5c63d2p-1, 647 },
	{ 64, 0x1.fbf71af5c63d3p-1, 646 },
	{ 64, 0x1.fbf71af5c63d4p-1, 646 },
	{ 64, 0x1.f23ebf5acc9c8p-1, 711 },
	{ 64, 0x1.f23ebf5acc9c9p-1, 710 },
	{ 64, 0x1.f23ebf5acc9cap-1, 710 },
	{ 64, 0x1.ee2c52bd23510p-1, 726 },
	{ 64, 0x1.ee2c52bd23511p-1, 726 },
	{ 64, 0x1.ee2c52bd23512p-1, 725 },
	{ 70, 0x1.ffab6ee93c41cp-1, 671 },
	{ 70, 0x1.ffab6ee93c41dp-1, 670 },
	{ 70, 0x1.ffab6ee93c41ep-1, 670 },
	{ 70, 0x1.ff8ba8358813fp-1, 685 },
	{ 70, 0x1.ff8ba83588140p-1, 685 },
	{ 70, 0x1.ff8ba83588141p-1, 684 },
	{ 70, 0x1.fe60dbf9d7b79p-1, 745 },
	{ 70, 0x1.fe60dbf9d7b7ap-1, 745 },
	{ 70, 0x1.fe60dbf9d7b7bp-1, 744 },
	{ 70, 0x1.fa0b6eea50c3ep-1, 815 },
	{ 70, 0x1.fa0b6eea50c3fp-1, 814 },
	{ 70, 0x1.fa0b6eea50c40p-1, 814 },
	{ 90, 0x1.ffdd7ba08e941p-1, 1157 },
	{ 90, 0x1.ffdd7ba08e942p-1, 1157 },
	{ 90, 0x1.ffdd7ba08e943p-1, 1156 },
	{ 90, 0x1.ffd477aecff63p-1, 1171 },
	{ 90, 0x1.ffd477aecff64p-1, 1170 },
	{ 90, 0x1.ffd477aecff65p-1, 1170 },
	{ 90, 0x1.ffa801a7614a2p-1, 1215 },
	{ 90, 0x1.ffa801a7614a3p-1, 1214 },
	{ 90, 0x1.ffa801a7614a4p-1, 1214 },
	{ 90, 0x1.ff8f693fbaf09p-1, 1231 },
	{ 90, 0x1.ff8f693fbaf0ap-1, 1231 },
	{ 90, 0x1.ff8f693fbaf0bp-1, 1230 },
	{ 127, 0x1.ffd9d68b85a8ap-1, 2577 },
	{ 127, 0x1.ffd9d68b85a8bp-1, 2576 },
	{ 127, 0x1.ffd9d68b85a8cp-1, 2576 },
	{ 127, 0x1.ffd3df82dabd9p-1, 2592 },
	{ 127, 0x1.ffd3df82dabdap-1, 2592 },
	{ 127, 0x1.ffd3df82dabdbp-1, 2591 },
	{ 127, 0x1.ffca0f29e0c72p-1, 2613 },
	{ 127, 0x1.ffca0f29e0c73p-1, 2613 },
	{ 127, 0x1.ffca0f29e0c74p-1, 2612 },
	{ 127, 0x1.ffc7f977d831bp-1, 2617 },
	{ 127, 0x1.ffc7f977d831cp-1, 2616 },
	{ 127, 0x1.ffc7f977d831dp-1, 2616 },
};

/* R's qnorm(1 - 1e-12) (R prints 7.034487; its AS 241 is good to about
 * 1e-16): the reference here is mpmath's sqrt(2) erfinv(2p - 1) at 50
 * digits for p the double 1 - 1e-12 exactly, 7.0344869100478352057,
 * rounded to the nearest double.  A few more points the same way. */
static void
test_quantile(void **state)
{
	static const struct { double p, z; } ref[] = {
		{ 1 - 1e-12, 7.0344869100478356 },
		{ 0.975, 1.9599639845400538 },
		{ 0.999999995, 5.73072886926708 },
		{ 0.9, 1.2815515655446006 },
	};

	(void)state;
	for (size_t i = 0; i < N(ref); i++) {
		double z = stats_normal_quantile(ref[i].p);
		assert_true(fabs(z - ref[i].z) <= 4e-16 * ref[i].z);
		assert_true(fabs(stats_normal_quantile(1 - ref[i].p) +
		    ref[i].z) <= 1e-9 * ref[i].z);
	}
	assert_true(stats_normal_quantile(0.5) == 0);
	/* n = 2470 at 0.99999999: R gives k = 1322701 (the old
	 * approximation, 1e-9 off out there, gave 1322702). */
	assert_int_equal(stats_wilcoxon_k(2470, 0.99999999), 1322701);
}

static void
test_floor_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(floor_edges); i++) {
		size_t u = stats_floor_u(floor_edges[i].n, floor_edges[i].level);
		if (u != floor_edges[i].u)
			fail_msg("floor n=%zu level=%a: u %zu, exact %zu",
			    floor_edges[i].n, floor_edges[i].level, u,
			    floor_edges[i].u);
	}
}

/* n = 4 at 0.8571428571428572 (the double just above 6/7): the tail at
 * u = 3 is 1/14, just over (1 - level) / 2, so u = 4 and the interval of
 * 1..4 against 1..4 is [1/4, 4]. */
static void
test_floor_four(void **state)
{
	static const double a[] = { 1, 2, 3, 4 };
	double est, lo, hi;

	(void)state;
	assert_true(stats_floor_interval(a, a, 4, 0.8571428571428572, &est,
	    &lo, &hi));
	assert_true(lo == 0.25 && hi == 4);
}

static void
test_wilcoxon_edges(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(wil_edges); i++) {
		uint64_t k = stats_wilcoxon_k(wil_edges[i].n,
		    wil_edges[i].level);
		if (k != wil_edges[i].k)
			fail_msg("signed rank n=%zu level=%a: k %llu, exact "
			    "%llu", wil_edges[i].n, wil_edges[i].level,
			    (unsigned long long)k,
			    (unsigned long long)wil_edges[i].k);
		if (wil_edges[i].n <= STATS_EXACT_INT_MAX)
			assert_int_equal(stats_wilcoxon_exact_k(wil_edges[i].n,
			    wil_edges[i].level), wil_edges[i].k);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quantile),
		cmocka_unit_test(test_floor_edges),
		cmocka_unit_test(test_floor_four),
		cmocka_unit_test(test_wilcoxon_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
