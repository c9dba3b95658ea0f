/* Themes: colour roles and theme files.
 *
 * Code draws with roles (THEME_OK, THEME_BAD...), never raw colour pairs.
 * Each role is listed once below with its key in theme files and its
 * default "fg bg attrs".  A theme file holds lines `role = fg bg attrs`
 * (`#` starts a comment); colours are names, 0-255 or #RRGGBB, mapped to
 * the nearest colour the terminal has. */
#ifndef BENCHTUI_THEME_H
#define BENCHTUI_THEME_H

#include <stdbool.h>
#include <stdio.h>

/*      ROLE         key            default */
#define THEME_ROLES(X) \
	X(NORMAL,     "normal",     "default default none") \
	X(HEADER,     "header",     "white blue bold") \
	X(TITLE,      "title",      "cyan default bold") \
	X(BORDER,     "border",     "blue default none") \
	X(FOCUS,      "focus",      "yellow default bold") \
	X(LABEL,      "label",      "default default dim") \
	X(OK,         "ok",         "green default none") \
	X(BAD,        "bad",        "red default bold") \
	X(WARN,       "warn",       "yellow default none") \
	X(DIM,        "dim",        "default default dim") \
	X(RUNNING,    "running",    "cyan default bold") \
	X(PENDING,    "pending",    "default default dim") \
	X(ABOVE,      "above",      "red default bold") \
	X(BELOW,      "below",      "green default bold") \
	X(WITHIN,     "within",     "default default none") \
	X(UNKNOWN,    "unknown",    "default default dim") \
	X(SPARK,      "spark",      "cyan default none") \
	X(BAR,        "bar",        "green default reverse") \
	X(SELECTED,   "selected",   "default default reverse") \
	X(FOOTER,     "footer",     "black cyan none") \
	X(KEY,        "key",        "black cyan bold") \
	X(OVERLAY,    "overlay",    "default default none")

enum theme_role {
#define THEME_ENUM(role, key, dflt) THEME_##role,
	THEME_ROLES(THEME_ENUM)
#undef THEME_ENUM
	THEME_NROLES
};

/* A colour as written: THEME_COLOR_DEFAULT, an index 0-255, or an RGB
 * value with THEME_COLOR_RGB set. */
#define THEME_COLOR_DEFAULT (-1)
#define THEME_COLOR_RGB 0x1000000

#define THEME_ATTR_BOLD      0x01
#define THEME_ATTR_DIM       0x02
#define THEME_ATTR_UNDERLINE 0x04
#define THEME_ATTR_REVERSE   0x08
#define THEME_ATTR_STANDOUT  0x10
#define THEME_ATTR_ITALIC    0x20

struct theme_style {
	int fg, bg;
	unsigned attrs;
};

struct theme {
	char name[64];
	struct theme_style roles[THEME_NROLES];
};

/* Every role at its default. */
void theme_init(struct theme *t, const char *name);

/* Apply theme-file text to t.  path names the file in messages.  Unknown
 * keys and bad values are warnings "PATH:LINE: what is wrong" written to
 * warn (may be NULL) and skipped; returns their count. */
int theme_parse(struct theme *t, const char *text, const char *path,
    FILE *warn);

/* One colour ("red", "bright-red", "default", "208", "#ff8700") into *out.
 * 0, or -1 when it is none of those. */
int theme_parse_color(const char *s, int *out);

/* The nearest of the terminal's first ncolors colours (8, 16, 88 or 256,
 * xterm's palette) to a colour as written; default stays default. */
int theme_nearest(int color, int ncolors);

/* Find NAME.theme: $XDG_CONFIG_HOME/benchtui/themes (default
 * ~/.config/benchtui/themes), then BENCHTUI_DATA_DIR/themes, then
 * BENCHTUI_SOURCE_DIR/themes.  Writes the path; 0, or -1 when absent. */
int theme_find(const char *name, char *path, size_t len);

/* theme_init, then the file of that name when found.  -1 (t at defaults,
 * a message on warn) when it is not found. */
int theme_load(struct theme *t, const char *name, FILE *warn);

/* The shipped theme names in the order `t` cycles through them. */
extern const char *const theme_names[];
extern const size_t theme_count;

/* Curses side (theme.c also keeps this so tests need no terminal for the
 * rest): make colour pairs for every role; mono (NO_COLOR, or a terminal
 * without colours) uses attributes only.  Then theme_attr(role) is what to
 * wattrset. */
void theme_apply(const struct theme *t, bool mono);
int theme_attr(enum theme_role role);

#endif
