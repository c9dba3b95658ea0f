/* The round driver, a leg's command: its argv and bin expanded from the
 * round file's templates, and its environment. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "round_int.h"
#include "template.h"

extern char **environ;

void
run_free_strv(char **v)
{
	for (size_t i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Expand every element of a template argv.  NULL with err. */
char **
run_expand_argv(char *const *tmpl, size_t n, const struct template_ctx *ctx,
    char *err, size_t errlen)
{
	char **v = calloc(n + 1, sizeof *v), terr[512];

	if (v == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((v[i] = template_expand(tmpl[i], ctx, terr,
		    sizeof terr)) == NULL) {
			/* template_expand writes err even when it succeeds:
			 * copy it only on failure. */
			snprintf(err, errlen, "%s", terr);
			run_free_strv(v);
			return NULL;
		}
	return v;
}

/* The inherited environment with kv merged over it. */
char **
run_envp(const struct spec_kv *kv, size_t nkv)
{
	size_t n = 0, k = 0;
	char **v;

	while (environ[n] != NULL)
		n++;
	if ((v = calloc(n + nkv + 1, sizeof *v)) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		bool over = false;

		for (size_t j = 0; j < nkv && !over; j++) {
			size_t l = strlen(kv[j].key);

			over = strncmp(environ[i], kv[j].key, l) == 0 &&
			    environ[i][l] == '=';
		}
		if (!over && (v[k++] = strdup(environ[i])) == NULL)
			goto fail;
	}
	for (size_t j = 0; j < nkv; j++)
		if (asprintf(&v[k++], "%s=%s", kv[j].key, kv[j].val) < 0) {
			v[k - 1] = NULL;
			goto fail;
		}
	return v;
fail:
	run_free_strv(v);
	return NULL;
}

char *
run_resolve_bin(const struct spec *s, const char *bin,
    const struct template_ctx *ctx, char **bin_out, char *err, size_t errlen)
{
	char terr[512];

	*bin_out = NULL;
	if (bin == NULL)
		return NULL;
	/* A bin may hold templates ("${TOOLS}/zstd"): what runs is the
	 * expansion for this cell and arm, never the raw string. */
	if ((*bin_out = template_expand(bin, ctx, terr, sizeof terr)) == NULL) {
		snprintf(err, errlen, "bin \"%s\": %s", bin, terr);
		return NULL;
	}
	return spec_resolve_program(*bin_out, s->workdir);
}
