/* test: */
/* Leg order (SPEC.md "Leg order"), against orders worked out by hand:
 * mirror (odd rep r rotates left by ((r-1)/2) mod n, even reps reverse the
 * rep before), seed (rep r rotates left by (r-1) mod n, reversed when r is
 * even), and shuffle against a SplitMix64 computed independently. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plan.h"

static enum spec_order test_order = SPEC_ORDER_SEED;

static struct spec
fake_spec(size_t narms, size_t ncells, int reps)
{
	struct spec s;

	memset(&s, 0, sizeof s);
	s.narms = narms;
	s.ncells = ncells;
	s.reps = reps;
	s.order = test_order;
	s.shuffle_seed = 42;
	return s;
}

/* order: the arms of every rep of one cell as letters, reps separated by
 * spaces ("ABC ACB CAB"). */
static void
check_order(size_t narms, int reps, const char *order)
{
	struct spec s = fake_spec(narms, 1, reps);
	struct plan p;
	char got[256];
	size_t k = 0;

	assert_int_equal(plan_init(&p, &s), 0);
	assert_int_equal(p.n, narms * (size_t)reps);
	for (size_t i = 0; i < p.n; i++) {
		if (i > 0 && i % narms == 0)
			got[k++] = ' ';
		got[k++] = (char)('A' + p.legs[i].arm);
		assert_int_equal(p.legs[i].rep, (int)(i / narms) + 1);
		assert_int_equal(p.legs[i].seq, i + 1);
		assert_int_equal(p.legs[i].cell, 0);
	}
	got[k] = '\0';
	assert_string_equal(got, order);
	plan_finish(&p);
}

static void
test_one_arm(void **state)
{
	(void)state;
	check_order(1, 4, "A A A A");
}

/* With two arms, rotating by one and reversing cancel out: the SPEC.md rule
 * keeps A first in every rep.  Pinned here so a change is deliberate. */
static void
test_two_arms(void **state)
{
	(void)state;
	check_order(2, 5, "AB AB AB AB AB");
}

static void
test_three_arms(void **state)
{
	(void)state;
	check_order(3, 7, "ABC ACB CAB CBA BCA BAC ABC");
}

static void
test_four_arms(void **state)
{
	(void)state;
	check_order(4, 6, "ABCD ADCB CDAB CBAD ABCD ADCB");
}

static void
test_five_arms(void **state)
{
	(void)state;
	check_order(5, 3, "ABCDE AEDCB CDEAB");
}

static void
test_mirror(void **state)
{
	(void)state;
	test_order = SPEC_ORDER_MIRROR;
	check_order(1, 2, "A A");
	/* Two arms alternate: each arm's positions in reps 2k-1, 2k sum to 1. */
	check_order(2, 5, "AB BA BA AB AB");
	check_order(3, 6, "ABC CBA BCA ACB CAB BAC");
	check_order(4, 4, "ABCD DCBA BCDA ADCB");
	test_order = SPEC_ORDER_SEED;
}

/* Positions add up to n-1 within every pair of reps, for any n. */
static void
test_mirror_pairs(void **state)
{
	(void)state;
	for (size_t n = 1; n <= 9; n++) {
		struct spec s = fake_spec(n, 1, 10);
		struct plan p;

		s.order = SPEC_ORDER_MIRROR;
		assert_int_equal(plan_init(&p, &s), 0);
		for (int r = 1; r <= 10; r += 2)
			for (size_t a = 0; a < n; a++) {
				long x = plan_find(&p, 0, a, r) - (long)(n *
				    (size_t)(r - 1));
				long y = plan_find(&p, 0, a, r + 1) - (long)(n *
				    (size_t)r);
				assert_int_equal(x + y, (long)n - 1);
			}
		plan_finish(&p);
	}
}

static void
test_shuffle(void **state)
{
	uint64_t st = 0;

	(void)state;
	/* SplitMix64's published first output for seed 0. */
	assert_true(plan_splitmix64(&st) == UINT64_C(0xe220a8397b1dcdaf));
	/* Seed 42, 3 arms: Fisher-Yates from i = 2 down, j = next % (i+1). */
	test_order = SPEC_ORDER_SHUFFLE;
	check_order(3, 4, "ACB BCA CAB CAB");
	test_order = SPEC_ORDER_SEED;
}

static void
test_cells_outer(void **state)
{
	struct spec s = fake_spec(3, 2, 2);
	struct plan p;
	static const size_t cell[] = { 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1 };
	static const size_t arm[] = { 0, 1, 2, 0, 2, 1, 0, 1, 2, 0, 2, 1 };
	static const int rep[] = { 1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2 };

	(void)state;
	assert_int_equal(plan_init(&p, &s), 0);
	assert_int_equal(p.n, 12);
	for (size_t i = 0; i < p.n; i++) {
		assert_int_equal(p.legs[i].cell, cell[i]);
		assert_int_equal(p.legs[i].arm, arm[i]);
		assert_int_equal(p.legs[i].rep, rep[i]);
		assert_int_equal(p.legs[i].seq, i + 1);
	}
	plan_finish(&p);
}

static void
test_find(void **state)
{
	struct spec s = fake_spec(3, 2, 3);
	struct plan p;

	(void)state;
	assert_int_equal(plan_init(&p, &s), 0);
	/* Every leg is found at its own index. */
	for (size_t i = 0; i < p.n; i++)
		assert_int_equal(plan_find(&p, p.legs[i].cell, p.legs[i].arm,
		    p.legs[i].rep), (long)i);
	/* cell 1, rep 2: rotated BCA, reversed ACB; arm C is its 2nd leg. */
	assert_int_equal(plan_find(&p, 1, 2, 2), 9 + 3 + 1);
	assert_int_equal(plan_find(&p, 0, 0, 4), -1);
	assert_int_equal(plan_find(&p, 2, 0, 1), -1);
	assert_int_equal(plan_find(&p, 0, 3, 1), -1);
	plan_finish(&p);
	plan_finish(&p); /* twice is harmless */
}

/* plan_find computes the index; check it against a search over many
 * shapes. */
static void
test_find_shapes(void **state)
{
	(void)state;
	for (size_t narms = 1; narms <= 6; narms++) {
		for (int reps = 1; reps <= 7; reps++) {
			struct spec s = fake_spec(narms, 3, reps);
			struct plan p;

			assert_int_equal(plan_init(&p, &s), 0);
			for (size_t c = 0; c < 3; c++)
				for (size_t a = 0; a < narms; a++)
					for (int r = 1; r <= reps; r++) {
						long want = -1, got;

						for (size_t i = 0; i < p.n && want < 0; i++)
							if (p.legs[i].cell == c &&
							    p.legs[i].arm == a &&
							    p.legs[i].rep == r)
								want = (long)i;
						got = plan_find(&p, c, a, r);
						assert_true(want >= 0);
						assert_int_equal(got, want);
					}
			assert_int_equal(plan_find(&p, 0, 0, reps + 1), -1);
			assert_int_equal(plan_find(&p, 0, 0, 0), -1);
			plan_finish(&p);
			assert_int_equal(plan_find(&p, 0, 0, 1), -1);
		}
	}
}

static void
test_empty(void **state)
{
	struct spec s = fake_spec(0, 1, 3);
	struct plan p;

	(void)state;
	assert_int_equal(plan_init(&p, &s), 0);
	assert_int_equal(p.n, 0);
	assert_int_equal(plan_find(&p, 0, 0, 1), -1);
	plan_finish(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_arm),
		cmocka_unit_test(test_two_arms),
		cmocka_unit_test(test_three_arms),
		cmocka_unit_test(test_four_arms),
		cmocka_unit_test(test_five_arms),
		cmocka_unit_test(test_mirror),
		cmocka_unit_test(test_mirror_pairs),
		cmocka_unit_test(test_shuffle),
		cmocka_unit_test(test_cells_outer),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_find_shapes),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
