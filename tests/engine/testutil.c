/* testutil: the unit tests' shared helpers (testutil.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <netinet/in.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "logread.h"
#include "spec.h"
#include "testutil.h"

static void
tu_path(char *path, size_t n, const char *dir, const char *rel)
{
	if (dir != NULL)
		snprintf(path, n, "%s/%s", dir, rel);
	else
		snprintf(path, n, "%s", rel);
}

void
tu_put(const char *dir, const char *rel, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	tu_path(path, sizeof path, dir, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

char *
tu_slurp(const char *dir, const char *rel, size_t *len)
{
	static char buf[65536];
	char path[PATH_MAX];
	FILE *f;
	size_t n;

	tu_path(path, sizeof path, dir, rel);
	f = fopen(path, "rb");
	if (f == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

static int
tu_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

int
tu_rmtree(const char *dir)
{
	return nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

struct spec *
tu_spec(const char *text, const char *path)
{
	struct spec *s = NULL;
	char err[1024];

	if (spec_parse(text, strlen(text), path, NULL, &s, err,
	    sizeof err) != 0 || spec_check_commands(s, err, sizeof err) != 0)
		fail_msg("unexpected error: %s\nin: %s", err, text);
	return s;
}

struct tu_events {
	json_t **ev;
	size_t n;
};

static int
tu_collect(json_t *ev, size_t lineno, void *arg)
{
	struct tu_events *e = arg;

	(void)lineno;
	e->ev = realloc(e->ev, (e->n + 1) * sizeof *e->ev);
	if (e->ev == NULL)
		fail_msg("out of memory");
	e->ev[e->n++] = json_incref(ev);
	return 0;
}

json_t **
tu_log_events(const char *path, size_t *n)
{
	struct tu_events e = { NULL, 0 };
	char err[512];

	if (logread_file(path, tu_collect, &e, NULL, err, sizeof err) != 0)
		fail_msg("%s", err);
	*n = e.n;
	return e.ev;
}

void
tu_events_free(json_t **ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(ev[i]);
	free(ev);
}

bool
tu_has_string(const json_t *arr, const char *a, const char *b)
{
	size_t i;
	json_t *v;

	json_array_foreach(arr, i, v) {
		const char *s = json_string_value(v);

		if (s != NULL && strstr(s, a) != NULL &&
		    (b == NULL || strstr(s, b) != NULL))
			return true;
	}
	return false;
}

void
tu_nap_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

void
tu_spin_for(double s)
{
	double end = clock_now() + s;
	volatile unsigned long x = 0;

	while (clock_now() < end)
		x++;
}

bool
tu_gone(pid_t pid)
{
	return kill(pid, 0) != 0 && errno == ESRCH;
}

int
tu_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof sa;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	port = ntohs(sa.sin_port);
	close(fd);
	return port;
}
