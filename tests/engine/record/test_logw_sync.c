/* test: timeout=60 */
/* logw: a failed background fdatasync is never lost.  fdatasync is
 * wrapped (-Wl,--wrap=fdatasync) so that one call fails with EIO, as the
 * kernel reports a writeback error once: the next append is told, even
 * when it is an event synced at once whose own fdatasync succeeds, and so
 * is logw_sync. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "event.h"
#include "logw.h"
#include "testutil.h"

int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);

/* The calls left before the one that fails (-1: none fails), and the
 * calls made. */
static atomic_int fail_in = -1;
static atomic_int calls;

int
__wrap_fdatasync(int fd)
{
	atomic_fetch_add(&calls, 1);
	if (atomic_load(&fail_in) >= 0 && atomic_fetch_sub(&fail_in, 1) == 0) {
		errno = EIO;
		return -1;
	}
	return __real_fdatasync(fd);
}

static char tmpdir[] = "/tmp/benchtui-test-logw-sync.XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	return tu_rmtree(tmpdir);
}

static struct logw *
open_log(const char *name)
{
	char path[512], err[256];
	struct logw *lw;

	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	lw = logw_open(path, err, sizeof err);
	assert_non_null(lw);
	return lw;
}

/* Append a leg line (synced in the background), then wait until the
 * background sync has run: it fails. */
static void
background_failure(struct logw *lw)
{
	char err[256];
	json_t *ev = event_new("leg");
	int before = atomic_load(&calls);

	atomic_store(&fail_in, 0);
	assert_int_equal(logw_append(lw, ev, err, sizeof err), 0);
	json_decref(ev);
	for (int i = 0; i < 500 && atomic_load(&calls) == before; i++)
		tu_nap_ms(2);
	assert_true(atomic_load(&calls) > before);
	assert_int_equal(atomic_load(&fail_in), -1);
	/* the flusher records it after the call returns */
	tu_nap_ms(20);
}

/* "done" is synced at once and its own sync succeeds: the failure before
 * it is still reported. */
static void
test_sync_now_reports(void **state)
{
	struct logw *lw = open_log("a.jsonl");
	char err[256] = "";
	json_t *done = event_new("done");

	(void)state;
	background_failure(lw);
	assert_int_equal(logw_append(lw, done, err, sizeof err), -1);
	if (strstr(err, "Input/output error") == NULL)
		fail_msg("the error does not say EIO: %s", err);
	/* Reported once: the line after it syncs fine. */
	assert_int_equal(logw_append(lw, done, err, sizeof err), 0);
	json_decref(done);
	logw_destroy(lw);
}

/* logw_sync (the seal's) reports it too. */
static void
test_sync_reports(void **state)
{
	struct logw *lw = open_log("b.jsonl");

	(void)state;
	background_failure(lw);
	errno = 0;
	assert_int_equal(logw_sync(lw), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(logw_sync(lw), 0);
	logw_destroy(lw);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_now_reports),
		cmocka_unit_test(test_sync_reports),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
