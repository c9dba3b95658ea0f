/* clock: monotonic seconds and abortable naps. */
#include "clock.h"

#include <poll.h>
#include <time.h>

double
clock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

bool
clock_nap(int abort_fd, int ms)
{
	struct pollfd p = { .fd = abort_fd, .events = POLLIN };

	return poll(&p, abort_fd >= 0 ? 1 : 0, ms) > 0 &&
	    (p.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
}
