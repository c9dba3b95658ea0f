/* test: counters asan-covered */
/* sysname: the fallback tables say what glibc says, for every errno value
 * and signal it knows (where this build uses glibc's calls), and the
 * public calls answer in either build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "sysname.h"

static void
test_known(void **state)
{
	(void)state;
	assert_string_equal(sysname_errdesc(ENOSPC), "No space left on device");
	assert_string_equal(sysname_errname(ENOSPC), "ENOSPC");
	assert_string_equal(sysname_errname(EPERM), "EPERM");
	assert_string_equal(sysname_sigabbrev(SIGINT), "INT");
	assert_string_equal(sysname_sigabbrev(SIGKILL), "KILL");
	assert_null(sysname_errname(0));
	assert_null(sysname_errdesc(100000));
	assert_null(sysname_sigabbrev(SIGRTMIN + 1));
	assert_null(sysname_sigabbrev(-1));
	/* The raw engine's copy (BENCHTUI_SYSNAME=tables, tests/meson.build)
	 * answers from the tables: their very strings. */
	if (getenv("BENCHTUI_SYSNAME") != NULL &&
	    strcmp(getenv("BENCHTUI_SYSNAME"), "tables") == 0) {
		assert_ptr_equal(sysname_errdesc(ENOSPC),
		    sysname_table_errdesc(ENOSPC));
		assert_ptr_equal(sysname_errname(ENOSPC),
		    sysname_table_errname(ENOSPC));
		assert_ptr_equal(sysname_sigabbrev(SIGINT),
		    sysname_table_sigabbrev(SIGINT));
	}
}

/* Where glibc has the calls, its answers and the tables' agree. */
static void
test_tables(void **state)
{
	(void)state;
	for (int e = 1; e < 200; e++) {
#if HAVE_STRERRORDESC_NP
		const char *g = strerrordesc_np(e), *t = sysname_table_errdesc(e);

		if ((g == NULL) != (t == NULL) || (g && strcmp(g, t) != 0))
			fail_msg("errno %d: glibc \"%s\", table \"%s\"", e,
			    g ? g : "(null)", t ? t : "(null)");
#endif
#if HAVE_STRERRORNAME_NP
		const char *gn = strerrorname_np(e), *tn = sysname_table_errname(e);

		if ((gn == NULL) != (tn == NULL) || (gn && strcmp(gn, tn) != 0))
			fail_msg("errno %d: glibc %s, table %s", e,
			    gn ? gn : "(null)", tn ? tn : "(null)");
#endif
		assert_true(sysname_table_errdesc(e) == NULL ||
		    sysname_table_errname(e) != NULL);
	}
	for (int sig = 0; sig <= 65; sig++) {
#if HAVE_SIGABBREV_NP
		const char *g = sigabbrev_np(sig), *t = sysname_table_sigabbrev(sig);

		if ((g == NULL) != (t == NULL) || (g && strcmp(g, t) != 0))
			fail_msg("signal %d: glibc %s, table %s", sig,
			    g ? g : "(null)", t ? t : "(null)");
#endif
		assert_true(sig < 1 || sig > 31 || sysname_table_sigabbrev(sig));
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
