/* test: */
/* theme: the theme-file parser, colours and the shipped themes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "theme.h"
#include "testutil.h"

/* Parse text, returning the warning count and the warnings in buf. */
static int
parse(struct theme *t, const char *text, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	int n;

	assert_non_null(f);
	theme_init(t, "test");
	n = theme_parse(t, text, "x.theme", f);
	fclose(f);
	return n;
}

static void
test_colors(void **state)
{
	static const struct {
		const char *in;
		int rc, want;
	} cases[] = {
		{ "default", 0, THEME_COLOR_DEFAULT },
		{ "red", 0, 1 },
		{ "WHITE", 0, 7 },
		{ "bright-blue", 0, 12 },
		{ "grey", 0, 8 },
		{ "0", 0, 0 },
		{ "208", 0, 208 },
		{ "255", 0, 255 },
		{ "256", -1, 0 },
		{ "-3", -1, 0 },
		{ "12x", -1, 0 },
		{ "#ff8700", 0, THEME_COLOR_RGB | 0xff8700 },
		{ "#FFF", -1, 0 },
		{ "#gg0000", -1, 0 },
		{ "purple", -1, 0 },
		{ "", -1, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int c = -99, rc = theme_parse_color(cases[i].in, &c);
		if (rc != cases[i].rc)
			fail_msg("'%s': rc %d, want %d", cases[i].in, rc, cases[i].rc);
		if (rc == 0 && c != cases[i].want)
			fail_msg("'%s': %d, want %d", cases[i].in, c, cases[i].want);
	}
}

static void
test_nearest(void **state)
{
	(void)state;
	/* Exact cube and grey entries at 256 colours. */
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0xff8700, 256), 208);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x080808, 256), 232);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x005f87, 256), 24);
	/* At 8 colours, the nearest basic one. */
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0xd70000, 8), 1);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x00af00, 8), 2);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0xeeeeee, 8), 7);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x101010, 8), 0);
	/* ... but no mid grey: white or black would vanish on one of the
	 * backgrounds, so it becomes the terminal's own colour. */
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x808080, 8),
	    THEME_COLOR_DEFAULT);
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x585858, 8),
	    THEME_COLOR_DEFAULT);
	assert_int_equal(theme_nearest(8, 8), THEME_COLOR_DEFAULT); /* grey */
	assert_int_equal(theme_nearest(THEME_COLOR_RGB | 0x808080, 16), 8);
	/* An index the terminal lacks maps down; one it has stays. */
	assert_int_equal(theme_nearest(196, 8), 1);      /* #ff0000 */
	assert_int_equal(theme_nearest(9, 8), 1);        /* bright red */
	assert_int_equal(theme_nearest(9, 16), 9);
	assert_int_equal(theme_nearest(THEME_COLOR_DEFAULT, 8),
	    THEME_COLOR_DEFAULT);
}

static void
test_parse_valid(void **state)
{
	struct theme t, d;
	char buf[1024] = "";

	(void)state;
	theme_init(&d, "d");
	assert_int_equal(parse(&t,
	    "# a comment\n"
	    "\n"
	    "ok = bright-green black bold  # trailing comment\n"
	    "  bad=#d70000 default bold,underline\n"
	    "warn = 214 default\n", buf, sizeof buf), 0);
	assert_string_equal(buf, "");
	assert_int_equal(t.roles[THEME_OK].fg, 10);
	assert_int_equal(t.roles[THEME_OK].bg, 0);
	assert_int_equal(t.roles[THEME_OK].attrs, THEME_ATTR_BOLD);
	assert_int_equal(t.roles[THEME_BAD].fg, THEME_COLOR_RGB | 0xd70000);
	assert_int_equal(t.roles[THEME_BAD].bg, THEME_COLOR_DEFAULT);
	assert_int_equal(t.roles[THEME_BAD].attrs,
	    THEME_ATTR_BOLD | THEME_ATTR_UNDERLINE);
	assert_int_equal(t.roles[THEME_WARN].fg, 214);
	assert_int_equal(t.roles[THEME_WARN].attrs, 0);
	/* A missing key keeps its default. */
	assert_memory_equal(&t.roles[THEME_HEADER], &d.roles[THEME_HEADER],
	    sizeof d.roles[0]);
}

static void
test_parse_warnings(void **state)
{
	static const struct {
		const char *line, *want;
	} cases[] = {
		{ "colour = red default\n", "x.theme:1: unknown role 'colour'" },
		{ "ok = purple default\n", "x.theme:1: ok: 'purple' is not a colour" },
		{ "ok = red #12345 bold\n", "x.theme:1: ok: '#12345' is not a colour" },
		{ "ok = red default blink\n", "x.theme:1: ok: 'blink' is not an attribute" },
		{ "ok = red\n", "x.theme:1: ok: expected 'fg bg [attrs]'" },
		{ "ok red default\n", "x.theme:1: expected 'role = fg bg attrs'" },
		{ "# one\n\nbogus = red red\n", "x.theme:3: unknown role 'bogus'" },
	};
	struct theme t, d;

	(void)state;
	theme_init(&d, "d");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[512] = "";
		int n = parse(&t, cases[i].line, buf, sizeof buf);
		if (n != 1 || strncmp(buf, cases[i].want, strlen(cases[i].want)) != 0)
			fail_msg("'%s': %d warnings '%s', want '%s'", cases[i].line,
			    n, buf, cases[i].want);
		/* A bad line leaves the role at its default. */
		assert_memory_equal(&t.roles[THEME_OK], &d.roles[THEME_OK],
		    sizeof d.roles[0]);
	}
}

/* Every shipped theme parses without a warning and sets every role. */
static void
test_shipped(void **state)
{
	(void)state;
	for (size_t i = 0; i < theme_count; i++) {
		char path[4096], buf[2048] = "", *text;
		const char *src = getenv("BENCHTUI_SOURCE_DIR");
		struct theme t;
		FILE *f, *w;
		long size;
		int n;

		snprintf(path, sizeof path, "%s/themes/%s.theme", src ? src : ".",
		    theme_names[i]);
		f = fopen(path, "r");
		if (!f)
			fail_msg("%s: missing", path);
		fseek(f, 0, SEEK_END);
		size = ftell(f);
		rewind(f);
		text = calloc(1, (size_t)size + 1);
		assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
		fclose(f);
		w = fmemopen(buf, sizeof buf, "w");
		theme_init(&t, theme_names[i]);
		n = theme_parse(&t, text, path, w);
		fclose(w);
		if (n)
			fail_msg("%s: %s", path, buf);
		/* Every role is set in the file, not left to the default. */
#define THEME_KEY(role, key, dflt) key,
		static const char *const keys[] = { THEME_ROLES(THEME_KEY) };
#undef THEME_KEY
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			char want[64];
			snprintf(want, sizeof want, "\n%s ", keys[k]);
			if (!strstr(text, want))
				fail_msg("%s: role '%s' not set", path, keys[k]);
		}
		free(text);
	}
}

static void
test_find(void **state)
{
	char path[4096];

	char dir[] = "/tmp/benchtui-theme-XXXXXX", sub[4096], file[4200];
	struct theme t;

	(void)state;
	/* The user's folder comes first, and theme_load reads from it. */
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof sub, "%s/benchtui", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(sub, sizeof sub, "%s/benchtui/themes", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	snprintf(file, sizeof file, "%s/light.theme", sub);
	tu_put(NULL, file, "ok = 201 default underline\n");
	setenv("XDG_CONFIG_HOME", dir, 1);
	assert_int_equal(theme_find("light", path, sizeof path), 0);
	assert_string_equal(path, file);
	assert_int_equal(theme_load(&t, "light", NULL), 0);
	assert_int_equal(t.roles[THEME_OK].fg, 201);
	assert_int_equal(t.roles[THEME_OK].attrs, THEME_ATTR_UNDERLINE);
	unlink(file);
	rmdir(sub);
	snprintf(sub, sizeof sub, "%s/benchtui", dir);
	rmdir(sub);
	rmdir(dir);

	/* Then the installed and the source trees. */
	setenv("XDG_CONFIG_HOME", "/nonexistent-benchtui", 1);
	assert_int_equal(theme_find("light", path, sizeof path), 0);
	assert_non_null(strstr(path, "themes/light.theme"));
	assert_int_equal(theme_find("no-such-theme", path, sizeof path), -1);
	assert_int_equal(theme_find("../etc/passwd", path, sizeof path), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colors),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_parse_valid),
		cmocka_unit_test(test_parse_warnings),
		cmocka_unit_test(test_shipped),
		cmocka_unit_test(test_find),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
