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
	const struct spec *spec; /* the round folder's round.json, or NULL */
};

struct console {
	struct model m;
	struct render r;
	struct theme theme;
	size_t theme_idx;
	bool mono;               /* NO_COLOR or no colours: attributes only */
	bool curses_on;
	unsigned long drawn_gen; /* model generation last drawn */
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

/* replay.c: the player inside the loop. */
double replay_timeout(struct console *c, double now); /* s, or -1: none */
void replay_advance(struct console *c, double now);
int replay_key(struct console *c, int key);          /* 1 when handled */
/* The log's clock while playing: the last event's ts plus the time since,
 * times the speed, never past the next event. */
double replay_clock(struct console *c, double now);

#endif
