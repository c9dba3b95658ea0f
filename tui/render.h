/* render: draws the model into curses windows, one per pane.
 *
 * Panes are small vtables (title, draw, key) in a table; the renderer lays
 * them out for the terminal's size, redraws only the dirty ones
 * (wnoutrefresh each, then one doupdate) and keeps the view state that is
 * not the round's: focus, scrolling, the selected leg, overlays. */
#ifndef BENCHTUI_RENDER_H
#define BENCHTUI_RENDER_H

#include <curses.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "model.h"

enum render_pane {
	PANE_HEADER,
	PANE_QUIET,
	PANE_CURRENT,
	PANE_PLAN,
	PANE_LEGS,
	PANE_RATIOS,
	PANE_FOOTER,
	PANE_COUNT
};

enum render_overlay {
	OVERLAY_NONE,
	OVERLAY_HELP,
	OVERLAY_CONFIRM_ABORT,
	OVERLAY_CONFIRM_QUIT,
	OVERLAY_LEG,
	OVERLAY_LOG,             /* the message log (w) */
};

/* What a key handler asks the loop for (a bitmask). */
enum {
	RENDER_KEY_UNHANDLED = 0,
	RENDER_KEY_HANDLED = 1,
	RENDER_KEY_DETAIL = 2,   /* Enter on a leg: fill detail_tail, then draw */
};

#define RENDER_TAIL_LINES 8
/* Below this the panes do not fit: the console shows one line saying so. */
#define RENDER_MIN_COLS 60
#define RENDER_MIN_ROWS 16

struct render {
	WINDOW *win[PANE_COUNT];
	WINDOW *overlay_win;
	int rows, cols;
	unsigned dirty;          /* 1 << pane; all when the layout changed */
	bool utf8;               /* block and box characters available */

	int focus;               /* PANE_LEGS, PANE_RATIOS or PANE_PLAN */
	int scroll[PANE_COUNT];
	size_t sel_leg;          /* 0 = the newest leg */
	int ratio_lines, plan_lines; /* last drawn line counts, for scrolling */
	bool show_profiles;      /* the ratios pane shows the profiles ('f') */

	enum render_overlay overlay;
	size_t detail_leg;       /* index into model legs for OVERLAY_LEG */
	size_t log_back;         /* OVERLAY_LOG: lines scrolled back from the
	                          * newest */
	char detail_tail[RENDER_TAIL_LINES][512];

	/* Set by the console. */
	char out_tail[160];      /* the current leg's last output line */
	char theme_name[64];
	char message[160];       /* a one-off note in the footer */
	char hunt[256];          /* a bisect's hunt, in the header's second
	                          * row instead of the folder ("": none) */
	bool replay;
	bool replay_playing;
	double replay_speed;
	size_t replay_pos, replay_len;
};

/* The windows for the current LINES x COLS (call again after a resize). */
void render_init(struct render *r);
void render_layout(struct render *r);
void render_finish(struct render *r);

/* Mark panes dirty: everything (a new layout, theme or overlay), or the
 * panes whose clocks move on a tick. */
void render_touch_all(struct render *r);
void render_touch_clock(struct render *r, const struct model *m);
/* The replay's line in the header (its place, playing, speed). */
void render_touch_replay(struct render *r);
/* Mark the panes that show what model_take_changes reported. */
void render_touch_changes(struct render *r, unsigned changes);

/* Draw the dirty panes and the overlay; one doupdate.  now: the clock. */
void render_draw(struct render *r, struct model *m, double now);

/* Keys for panes: Tab, arrows, j/k, PgUp/PgDn, Enter, Esc. */
int render_key(struct render *r, struct model *m, int key);

/* Formatting shared by the panes. */
void render_fmt_duration(char *buf, size_t len, double s);
void render_fmt_ratio(char *buf, size_t len, double v);

/* The panes (pane_*.c): draw into w, which has a border drawn by the
 * caller; content starts at row 1, col 1. */
struct render_pane_ops {
	const char *title;
	void (*draw)(struct render *r, WINDOW *w, struct model *m, double now);
	int (*key)(struct render *r, struct model *m, int key);
	bool focusable;
};
extern const struct render_pane_ops pane_quiet_ops, pane_current_ops,
    pane_plan_ops, pane_legs_ops, pane_ratios_ops;

/* The profiles view of the ratios pane (pane_prof.c): each profiled arm
 * beside its comparison arm.  Sets r->ratio_lines for scrolling. */
void pane_prof_draw(struct render *r, WINDOW *w, struct model *m);
/* For the current-leg pane once the round is over: the largest move of up
 * to n differential profiles, one line each ("work chunk512 vs chunk4k:
 * demo_frame +16.0 points"), into lines[n][len].  How many. */
int pane_prof_headlines(struct model *m, char (*lines)[160], int n);

/* Put s at (y, x) in role's attributes, cut to width columns. */
void render_put(WINDOW *w, int y, int x, int width, int role, const char *s);
/* A sparkline character for v in [lo, hi] (UTF-8 blocks, or ASCII). */
const char *render_spark(const struct render *r, double v, double lo,
    double hi);

#endif
