/* libnofeat: an LD_PRELOAD shim that makes benchtui meet a machine
 * without some system calls, as an older kernel or a seccomp filter would
 * answer them: NOFEAT is a comma-separated list of
 *   openat2      answered EPERM (a container's seccomp filter)
 *   close_range  answered ENOSYS (Linux before 5.9)
 *   pidfd        pidfd_open answered ENOSYS (Linux before 5.3)
 * Each refusal is noted in the file NOFEAT_LOG (when set), so a test can
 * tell the fallback was taken.  benchtui asks for these through libc's
 * syscall(), which is what this replaces. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long (*nofeat_real)(long, ...);

static int
nofeat_on(const char *what)
{
	const char *list = getenv("NOFEAT");
	size_t n = strlen(what);

	for (const char *p = list; p != NULL && *p != '\0';) {
		size_t k = strcspn(p, ",");

		if (k == n && strncmp(p, what, n) == 0)
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

static void
nofeat_note(const char *what)
{
	const char *log = getenv("NOFEAT_LOG");
	int fd;

	if (log == NULL || (fd = open(log, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC, 0644)) < 0)
		return;
	if (write(fd, what, strlen(what)) < 0 || write(fd, "\n", 1) < 0) {
		close(fd);
		return;
	}
	close(fd);
}

long
syscall(long n, ...)
{
	long a[6];
	va_list ap;
	const char *what = NULL;
	int e = 0;

	va_start(ap, n);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	if (n == SYS_openat2 && nofeat_on("openat2"))
		what = "openat2", e = EPERM;
	else if (n == SYS_close_range && nofeat_on("close_range"))
		what = "close_range", e = ENOSYS;
	else if (n == SYS_pidfd_open && nofeat_on("pidfd"))
		what = "pidfd_open", e = ENOSYS;
	if (what != NULL) {
		nofeat_note(what);
		errno = e;
		return -1;
	}
	if (nofeat_real == NULL)
		nofeat_real = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	return nofeat_real(n, a[0], a[1], a[2], a[3], a[4], a[5]);
}
