/* console: the ncurses loop (first version: runs the round in this thread
 * without a screen; the real loop follows). */
#include <stdio.h>

#include "console.h"
#include "round.h"

int
console_run_round(struct round *r, const char *theme)
{
	char err[512] = "";
	int rc;

	(void)theme;
	rc = round_run(r, err, sizeof err);
	if (rc != ROUND_EXIT_OK && err[0])
		fprintf(stderr, "benchtui: %s\n", err);
	return rc;
}

int
console_replay(const char *log_path, double speed, bool instant,
    const char *theme)
{
	(void)speed; (void)instant; (void)theme;
	fprintf(stderr, "benchtui replay: %s: the console replay is not built yet\n",
	    log_path);
	return 1;
}
