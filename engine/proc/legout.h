/* legout: a leg's output, bounded.
 *
 * The leg's stdout and stderr are the write end of a pipe that the thread
 * waiting for the leg drains (leg.c polls legout_rd beside the leg and
 * calls legout_pump): the first max_bytes go to the output file (keep "all"),
 * the rest is read and dropped, so a leg that writes 200 MB is neither
 * blocked nor killed and the round folder does not grow past the bound.
 * Every byte is counted. */
#ifndef BENCHTUI_LEGOUT_H
#define BENCHTUI_LEGOUT_H

#include <stdbool.h>
#include <stddef.h>

struct legout;

/* Ready to drain into path, made (replacing whatever holds the name)
 * only when the first byte arrives: a leg that writes nothing leaves no
 * file.  NULL or !keep: nothing is written.  NULL with err. */
struct legout *legout_create(const char *path, bool keep,
    long long max_bytes, char *err, size_t errlen);

/* The fd the leg gets as stdout and stderr (the pipe's write end). */
int legout_fd(const struct legout *o);

/* The pipe's read end to poll for POLLIN while the leg runs, or -1 once it
 * reached EOF. */
int legout_rd(const struct legout *o);

/* Read what the pipe holds now (without blocking) into the file and the
 * count.  true once it reached EOF. */
bool legout_pump(struct legout *o);

/* After the leg and what it left behind have ended: close our write end,
 * drain to EOF (giving up a moment after the last byte when something
 * outside the leg still holds the pipe), and say what the leg wrote,
 * whether some of it was dropped, and *werr the errno of the first write
 * to the file (or of its creation) that failed (ENOSPC: the disk filled),
 * 0 when none did.
 * Any of the three may be NULL.  Frees o (NULL: no-op). */
void legout_finish(struct legout *o, long long *bytes, bool *truncated,
    int *werr);

#endif
