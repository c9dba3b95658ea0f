/* Round-file fields of what a leg reads and what counts as its success,
 * beyond its argv: ok_rc, stdin, files, and a cell's setup and cleanup.
 * See benchtui-round(5). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec_int.h"
#include "template.h"
#include "xalloc.h"

/* ok_rc: the exit codes that count as ok, each once, 0 to 255. */
static int
spec_io_ok_rc(struct parser *p, json_t *j)
{
	struct spec *s = p->s;
	size_t i;
	json_t *v;

	if (!json_is_array(j) || json_array_size(j) == 0)
		return spec_perr(p, "ok_rc", "must be a non-empty array of exit "
		    "codes, such as [0, 1]");
	free(s->ok_rc);
	s->ok_rc = xcalloc(json_array_size(j), sizeof *s->ok_rc);
	s->nok_rc = 0;
	json_array_foreach(j, i, v) {
		char sub[32];

		snprintf(sub, sizeof sub, "ok_rc[%zu]", i);
		if (spec_want_int(p, v, sub, 0, 255, &s->ok_rc[i]) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (s->ok_rc[k] == s->ok_rc[i])
				return spec_perr(p, sub, "%d is listed twice",
				    s->ok_rc[i]);
		s->nok_rc = i + 1;
	}
	return 0;
}

/* A name in DIR/files/: [A-Za-z0-9._-], not "." or "..", at most 64. */
static bool
spec_io_file_name_ok(const char *n)
{
	size_t len = strlen(n);

	if (len == 0 || len > 64 || strcmp(n, ".") == 0 || strcmp(n, "..") == 0)
		return false;
	return strspn(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") == len;
}

/* Whether path is under /proc or /sys (kept files never are). */
static bool
spec_io_file_pseudo(const char *path)
{
	static const char *const tops[] = { "/proc", "/sys" };

	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(tops[i]);
		/* "/proc", "/proc/...", "//proc/..." and "/./proc" alike. */
		while (path[0] == '/' && (path[1] == '/' || (path[1] == '.' &&
		    path[2] == '/')))
			path += path[1] == '/' ? 1 : 2;
		if (strncmp(path, tops[i], n) == 0 && (path[n] == '\0' ||
		    path[n] == '/'))
			return true;
	}
	return false;
}

/* One entry of files: a path, or {"path": P, "as": NAME}.  The path is
 * expanded with the round's vars (a round-level template: no cell, arm or
 * rep), made absolute against the workdir, and named by "as" or its last
 * component. */
static int
spec_io_file(struct parser *p, json_t *v, size_t i, struct spec_file *f)
{
	static const char *const keys[] = { "path", "as", NULL };
	struct template_ctx ctx = { .spec = p->s,
	    .round_dir = "<ROUND_DIR>" };
	char sub[64], terr[512];
	json_t *as = NULL, *path = v;
	const char *base;

	snprintf(sub, sizeof sub, "files[%zu]", i);
	if (json_is_object(v)) {
		if (spec_check_keys(p, v, sub, keys) < 0)
			return -1;
		path = json_object_get(v, "path");
		as = json_object_get(v, "as");
		snprintf(sub, sizeof sub, "files[%zu].path", i);
		if (path == NULL)
			return spec_perr(p, sub, "missing (the file to keep)");
	}
	if (spec_want_string(p, path, sub, true, &f->path) < 0)
		return -1;
	if (strstr(f->path, "${ROUND_DIR}") != NULL)
		return spec_perr(p, sub, "a file the round depends on is not in "
		    "the round's own folder");
	if ((f->abs = template_expand(f->path, &ctx, terr, sizeof terr)) == NULL)
		return spec_perr(p, sub, "%s", terr);
	if (f->abs[0] != '/') {
		char *a = xasprintf("%s/%s", p->s->workdir, f->abs);

		free(f->abs);
		f->abs = a;
	}
	if (spec_io_file_pseudo(f->abs))
		return spec_perr(p, sub, "%s: a file of /proc or /sys is the "
		    "kernel's state of the moment, not a file the result "
		    "depends on (and may block a reader): not kept", f->abs);
	snprintf(sub, sizeof sub, "files[%zu]%s", i, as ? ".as" : "");
	if (as != NULL && spec_want_string(p, as, sub, true, &f->as) < 0)
		return -1;
	base = strrchr(f->abs, '/') + 1;
	if (f->as == NULL)
		f->as = xstrdup(base);
	if (!spec_io_file_name_ok(f->as))
		return spec_perr(p, sub, "\"%s\" is no name for a copy in "
		    "files/ (letters, digits, '.', '_' and '-'; give one with "
		    "{\"path\": ..., \"as\": NAME})", f->as);
	return 0;
}

static int
spec_io_files(struct parser *p, json_t *j)
{
	struct spec *s = p->s;
	size_t i;
	json_t *v;

	if (!json_is_array(j))
		return spec_perr(p, "files", "must be an array of paths or "
		    "{\"path\": P, \"as\": NAME} objects, not %s",
		    spec_json_type(j));
	s->files = xcalloc(json_array_size(j) + 1, sizeof *s->files);
	json_array_foreach(j, i, v) {
		s->nfiles = i + 1;
		if (spec_io_file(p, v, i, &s->files[i]) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (strcmp(s->files[k].as, s->files[i].as) == 0) {
				char sub[32];

				snprintf(sub, sizeof sub, "files[%zu]", i);
				return spec_perr(p, sub, "its copy would be "
				    "files/%s, as files[%zu]'s is; name one with "
				    "\"as\"", s->files[i].as, k);
			}
	}
	return 0;
}

int
spec_parse_io(struct parser *p, json_t *root)
{
	struct spec *s = p->s;
	json_t *v;

	s->ok_rc = xcalloc(1, sizeof *s->ok_rc);
	s->nok_rc = 1;
	if ((v = json_object_get(root, "ok_rc")) != NULL &&
	    spec_io_ok_rc(p, v) < 0)
		return -1;
	if ((v = json_object_get(root, "stdin")) != NULL &&
	    spec_want_string(p, v, "stdin", true, &s->stdin_path) < 0)
		return -1;
	if ((v = json_object_get(root, "files")) != NULL &&
	    spec_io_files(p, v) < 0)
		return -1;
	return 0;
}

int
spec_parse_cell_hooks(struct parser *p, json_t *c, const char *path,
    struct spec_cell *cell)
{
	char sub[256];
	json_t *v;

	spec_path_join(sub, sizeof sub, path, "setup");
	if ((v = json_object_get(c, "setup")) != NULL &&
	    spec_want_argv(p, v, sub, &cell->setup, &cell->nsetup) < 0)
		return -1;
	spec_path_join(sub, sizeof sub, path, "cleanup");
	if ((v = json_object_get(c, "cleanup")) != NULL &&
	    spec_want_argv(p, v, sub, &cell->cleanup, &cell->ncleanup) < 0)
		return -1;
	return 0;
}

bool
spec_ok_rc(const struct spec *s, int rc)
{
	if (s->nok_rc == 0)
		return rc == 0;
	for (size_t i = 0; i < s->nok_rc; i++)
		if (s->ok_rc[i] == rc)
			return true;
	return false;
}

void
spec_io_free(struct spec *s)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		free(s->files[i].path);
		free(s->files[i].abs);
		free(s->files[i].as);
	}
	free(s->files);
	free(s->ok_rc);
	free(s->stdin_path);
}
