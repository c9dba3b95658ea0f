/* theme: colour roles, theme files and their search path. */
#include <ctype.h>
#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"
#include "theme.h"
#include "xalloc.h"

static const struct {
	const char *key, *dflt;
} role_table[THEME_NROLES] = {
#define THEME_ROW(role, key, dflt) { key, dflt },
	THEME_ROLES(THEME_ROW)
#undef THEME_ROW
};

const char *const theme_names[] = { "default", "light", "high-contrast",
    "mono" };
const size_t theme_count = sizeof theme_names / sizeof theme_names[0];

static const char *const color_names[16] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
	"bright-black", "bright-red", "bright-green", "bright-yellow",
	"bright-blue", "bright-magenta", "bright-cyan", "bright-white",
};

static const struct {
	const char *name;
	unsigned bit;
} attr_names[] = {
	{ "bold", THEME_ATTR_BOLD }, { "dim", THEME_ATTR_DIM },
	{ "underline", THEME_ATTR_UNDERLINE }, { "reverse", THEME_ATTR_REVERSE },
	{ "standout", THEME_ATTR_STANDOUT }, { "italic", THEME_ATTR_ITALIC },
	{ "none", 0 },
};

int
theme_parse_color(const char *s, int *out)
{
	char *end;
	long v;

	if (strcasecmp(s, "default") == 0 || strcmp(s, "-1") == 0) {
		*out = THEME_COLOR_DEFAULT;
		return 0;
	}
	if (strcasecmp(s, "grey") == 0 || strcasecmp(s, "gray") == 0) {
		*out = 8;
		return 0;
	}
	for (int i = 0; i < 16; i++)
		if (strcasecmp(s, color_names[i]) == 0) {
			*out = i;
			return 0;
		}
	if (s[0] == '#') {
		if (strlen(s) != 7)
			return -1;
		for (int i = 1; i < 7; i++)
			if (!isxdigit((unsigned char)s[i]))
				return -1;
		*out = THEME_COLOR_RGB | (int)strtol(s + 1, NULL, 16);
		return 0;
	}
	if (!isdigit((unsigned char)s[0]))
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v > 255)
		return -1;
	*out = (int)v;
	return 0;
}

/* xterm's palette: the 16 system colours, the 6x6x6 cube, 24 greys. */
static unsigned
theme_palette_rgb(int i)
{
	static const unsigned sys[16] = {
		0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd,
		0x00cdcd, 0xe5e5e5, 0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00,
		0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
	};
	static const unsigned lv[6] = { 0, 95, 135, 175, 215, 255 };

	if (i < 16)
		return sys[i];
	if (i < 232) {
		i -= 16;
		return lv[i / 36] << 16 | lv[i / 6 % 6] << 8 | lv[i % 6];
	}
	i = 8 + 10 * (i - 232);
	return (unsigned)(i << 16 | i << 8 | i);
}

int
theme_nearest(int color, int ncolors)
{
	unsigned rgb;
	long best = LONG_MAX;
	int besti = 0, limit;

	if (color == THEME_COLOR_DEFAULT)
		return color;
	if (!(color & THEME_COLOR_RGB) && color < ncolors)
		return color;
	rgb = color & THEME_COLOR_RGB ? (unsigned)color & 0xffffff :
	    theme_palette_rgb(color);
	/* 88-colour terminals have another cube: use their 16 system ones. */
	limit = ncolors >= 256 ? 256 : ncolors >= 16 ? 16 : 8;
	/* Eight colours have no grey: a mid grey would become white (unseen
	 * on a light background) or black (unseen on a dark one).  The
	 * terminal's own colour is seen on both; theme_apply dims it. */
	if (limit == 8) {
		unsigned r = rgb >> 16, g = rgb >> 8 & 0xff, b = rgb & 0xff;
		unsigned hi = r > g ? (r > b ? r : b) : (g > b ? g : b);
		unsigned lo = r < g ? (r < b ? r : b) : (g < b ? g : b);
		if (hi - lo <= 0x18 && hi >= 0x40 && hi <= 0xc0)
			return THEME_COLOR_DEFAULT;
	}
	for (int i = 0; i < limit; i++) {
		unsigned p = theme_palette_rgb(i);
		long dr = (long)(rgb >> 16) - (long)(p >> 16);
		long dg = (long)(rgb >> 8 & 0xff) - (long)(p >> 8 & 0xff);
		long db = (long)(rgb & 0xff) - (long)(p & 0xff);
		long d = dr * dr * 3 + dg * dg * 4 + db * db * 2;
		if (d < best) {
			best = d;
			besti = i;
		}
	}
	return besti;
}

/* "fg bg attrs" into *st; the message says which word is wrong. */
static int
theme_parse_style(const char *val, struct theme_style *st, char *why, size_t len)
{
	char buf[256], *save = NULL, *w;
	int n = 0;
	struct theme_style s = { THEME_COLOR_DEFAULT, THEME_COLOR_DEFAULT, 0 };

	snprintf(buf, sizeof buf, "%s", val);
	for (w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save), n++) {
		if (n < 2) {
			int c;
			if (theme_parse_color(w, &c) < 0) {
				snprintf(why, len, "'%s' is not a colour (a name, 0-255 or #RRGGBB)", w);
				return -1;
			}
			*(n == 0 ? &s.fg : &s.bg) = c;
			continue;
		}
		size_t i;
		for (i = 0; i < sizeof attr_names / sizeof attr_names[0]; i++)
			if (strcasecmp(w, attr_names[i].name) == 0)
				break;
		if (i == sizeof attr_names / sizeof attr_names[0]) {
			snprintf(why, len, "'%s' is not an attribute (bold, dim, underline, reverse, standout, italic, none)", w);
			return -1;
		}
		s.attrs |= attr_names[i].bit;
	}
	if (n < 2) {
		snprintf(why, len, "expected 'fg bg [attrs]'");
		return -1;
	}
	*st = s;
	return 0;
}

void
theme_init(struct theme *t, const char *name)
{
	char why[128];

	memset(t, 0, sizeof *t);
	snprintf(t->name, sizeof t->name, "%s", name ? name : "default");
	for (int i = 0; i < THEME_NROLES; i++)
		if (theme_parse_style(role_table[i].dflt, &t->roles[i], why, sizeof why) < 0)
			abort(); /* the table above is wrong: a build-time bug */
}

static char *
theme_trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* A '#' starts a comment, except a word of '#' and hex digits after the
 * '=' (a colour, checked later, so "#12345" is reported, not dropped). */
static void
theme_cut_comment(char *line)
{
	char *eq = strchr(line, '=');

	for (char *h = strchr(line, '#'); h; h = strchr(h + 1, '#')) {
		size_t n = strspn(h + 1, "0123456789abcdefABCDEF");
		bool colour = eq && h > eq && (h[-1] == '=' || isspace((unsigned char)h[-1])) && n > 0 &&
		    (h[1 + n] == '\0' || isspace((unsigned char)h[1 + n]));
		if (!colour) {
			*h = '\0';
			return;
		}
	}
}

int
theme_parse(struct theme *t, const char *text, const char *path, FILE *warn)
{
	int nwarn = 0, lineno = 0;
	const char *p = text;

	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[512], *eq, *key, *val, why[160];
		int role;

		lineno++;
		snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
		p += len + (nl ? 1 : 0);
		theme_cut_comment(line);
		key = theme_trim(line);
		if (!*key)
			continue;
		if (!(eq = strchr(key, '='))) {
			if (warn)
				fprintf(warn, "%s:%d: expected 'role = fg bg attrs'\n", path, lineno);
			nwarn++;
			continue;
		}
		*eq = '\0';
		val = theme_trim(eq + 1);
		key = theme_trim(key);
		for (role = 0; role < THEME_NROLES; role++)
			if (strcmp(key, role_table[role].key) == 0)
				break;
		if (role == THEME_NROLES) {
			if (warn)
				fprintf(warn, "%s:%d: unknown role '%s' (ignored)\n", path, lineno, key);
			nwarn++;
			continue;
		}
		if (theme_parse_style(val, &t->roles[role], why, sizeof why) < 0) {
			if (warn)
				fprintf(warn, "%s:%d: %s: %s\n", path, lineno, key, why);
			nwarn++;
		}
	}
	return nwarn;
}

int
theme_find(const char *name, char *path, size_t len)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char dirs[3][PATH_MAX];
	int n = 0;

	if (!name || !*name || strchr(name, '/'))
		return -1;
	if (xdg && *xdg)
		snprintf(dirs[n++], PATH_MAX, "%s/benchtui/themes", xdg);
	else if (home && *home)
		snprintf(dirs[n++], PATH_MAX, "%s/.config/benchtui/themes", home);
	snprintf(dirs[n++], PATH_MAX, "%s/themes", BENCHTUI_DATA_DIR);
	snprintf(dirs[n++], PATH_MAX, "%s/themes", BENCHTUI_SOURCE_DIR);
	for (int i = 0; i < n; i++) {
		snprintf(path, len, "%s/%s.theme", dirs[i], name);
		if (access(path, R_OK) == 0)
			return 0;
	}
	return -1;
}

int
theme_load(struct theme *t, const char *name, FILE *warn)
{
	char path[PATH_MAX], *text = NULL;
	FILE *f = NULL;
	long size;
	int rc = -1;

	theme_init(t, name);
	if (theme_find(name, path, sizeof path) < 0) {
		if (warn)
			fprintf(warn, "benchtui: theme '%s': no %s.theme in the theme folders\n", name, name);
		return -1;
	}
	if (!(f = fopen(path, "r")) || fseek(f, 0, SEEK_END) < 0 ||
	    (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		goto fail;
	text = xcalloc(1, (size_t)size + 1);
	if (fread(text, 1, (size_t)size, f) != (size_t)size)
		goto fail;
	theme_parse(t, text, path, warn);
	rc = 0;
	goto out;
fail:
	if (warn)
		fprintf(warn, "benchtui: %s: %s\n", path, strerror(errno));
out:
	free(text);
	if (f)
		fclose(f);
	return rc;
}

static int role_attrs[THEME_NROLES];

static int
theme_curses_attrs(unsigned a)
{
	int r = (int)A_NORMAL;

	if (a & THEME_ATTR_BOLD) r |= A_BOLD;
	if (a & THEME_ATTR_DIM) r |= A_DIM;
	if (a & THEME_ATTR_UNDERLINE) r |= A_UNDERLINE;
	if (a & THEME_ATTR_REVERSE) r |= A_REVERSE;
	if (a & THEME_ATTR_STANDOUT) r |= A_STANDOUT;
#ifdef A_ITALIC
	if (a & THEME_ATTR_ITALIC) r |= A_ITALIC;
#endif
	return r;
}

void
theme_apply(const struct theme *t, bool mono)
{
	for (int i = 0; i < THEME_NROLES; i++) {
		const struct theme_style *s = &t->roles[i];
		role_attrs[i] = theme_curses_attrs(s->attrs);
		if (mono || i + 1 >= COLOR_PAIRS)
			continue;
		init_pair((short)(i + 1), (short)theme_nearest(s->fg, COLORS),
		    (short)theme_nearest(s->bg, COLORS));
		if (s->fg != THEME_COLOR_DEFAULT &&
		    theme_nearest(s->fg, COLORS) == THEME_COLOR_DEFAULT)
			role_attrs[i] |= A_DIM; /* a grey at 8 colours */
		role_attrs[i] |= (int)COLOR_PAIR(i + 1);
	}
}

int
theme_attr(enum theme_role role)
{
	return role < THEME_NROLES ? role_attrs[role] : (int)A_NORMAL;
}
