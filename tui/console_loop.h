/* Inside the console: the state console.c (the loop, live rounds) and
 * replay.c (logs) share.  Not a public interface. */
#ifndef BENCHTUI_CONSOLE_LOOP_H
#define BENCHTUI_CONSOLE_LOOP_H

#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"
#include "render.h"
#include "theme.h"

struct round;
struct spec;

struct console_replay {
	json_t **ev;             /* every event of the log (owned) */
	size_t n, pos;           /* events fed: ev[0..pos) */
	bool playing;
	double speed;
	double due;              /* monotonic time the next event is due */
	double fed_at;           /* monotonic time the last event was fed */
	size_t target;           /* where a key asked to go (fed in slices):
	                          * seeking while pos < target */
	const struct spec *spec; /* the round folder's round.json, or NULL */
};

struct console;

/* Where the console's events come from: a live round (console.c) or a
 * replayed log (replay.c), behind one interface, so the loop never asks
 * which one it has. */
struct console_source {
	/* The fd the loop polls for events, or -1 (none, or no more). */
	int (*fd)(const struct console *c);
	/* Seconds until events fall due without an fd (a replay's pace), or
	 * -1: none. */
	double (*due_in)(struct console *c, double now);
	/* Feed the model what arrived on the fd or fell due by now (a
	 * slice of it at most: the loop polls again in between). */
	void (*feed)(struct console *c, double now);
	/* Whether it is catching up (a replay seeking a position in
	 * slices): the ratios wait until it is there. */
	bool (*seeking)(const struct console *c);
	/* The log's clock now (now is monotonic), for the times on screen. */
	double (*clock)(struct console *c, double now);
	/* Whether a clock on screen moves (a leg runs, the gate waits). */
	bool (*clock_moves)(const struct console *c);
	/* Whether something runs that quitting would abort. */
	bool (*running)(const struct console *c);
	/* A key of the source's own (steering a round, the player): 1 when
	 * handled. */
	int (*key)(struct console *c, int key);
	/* Abort what runs; reason is a string literal. */
	void (*abort)(struct console *c, const char *reason);
	/* Before a draw: the header fields that are the source's own. */
	void (*status)(struct console *c);
	/* The exit status when a signal ends the console, or -1: keep
	 * exit_code. */
	int signal_status;
};

struct console {
	const struct console_source *src;
	struct model m;
	struct render r;
	struct theme theme;
	size_t theme_idx;
	bool mono;               /* NO_COLOR or no colours: attributes only */
	bool curses_on;
	double last_draw;        /* monotonic */

	/* A live round. */
	struct round *round;
	pthread_t thread;
	bool thread_started;
	int ev_fd;               /* read end of the engine's event pipe, or -1 */
	int ev_wfd;              /* write end (the engine thread's) */
	bool engine_done;
	int engine_rc;
	char engine_err[512];
	char *evbuf;             /* a partial line from the pipe */
	size_t evlen, evcap;
	bool paused_req;         /* p was pressed: what we asked the engine */
	bool quit_when_done;     /* the operator aborted: exit when it stops */
	bool end_quits;          /* a bisect's step: exit when it ends */

	struct console_replay *replay; /* NULL for a live round */

	bool quit;
	int exit_code;
};

/* Curses on, theme chosen (theme may be NULL), signals routed to the
 * loop.  -1 when there is no terminal. */
int console_start(struct console *c, const char *theme);
/* Run until quit; returns c->exit_code.  Restores the terminal. */
int console_loop(struct console *c);
void console_stop(struct console *c);
/* The log-clock now for a live round: wall clock seconds since the epoch. */
double console_wall(void);

/* The source of a replayed log (replay.c). */
extern const struct console_source replay_source;

#endif
