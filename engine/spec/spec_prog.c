/* spec: a program a round file names, found as execvp would find it from
 * the round's workdir.  Apart from spec_host.c so the command builder
 * (legcmd) can resolve programs without calling back into the host
 * checks, which build commands themselves. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec.h"
#include "xalloc.h"

/* dir + "/" + name, without doubling the slash of "/". */
static char *
spec_prog_path_cat(const char *dir, size_t dirlen, const char *name)
{
	while (dirlen > 0 && dir[dirlen - 1] == '/')
		dirlen--;
	return xasprintf("%.*s/%s", (int)dirlen, dir, name);
}

static bool
spec_prog_is_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

char *
spec_resolve_program(const char *prog, const char *workdir)
{
	const char *path, *q;
	char *cand = NULL;

	if (prog == NULL || prog[0] == '\0')
		return NULL;
	if (strchr(prog, '/') != NULL) {
		if (prog[0] == '/')
			cand = xstrdup(prog);
		else
			cand = spec_prog_path_cat(workdir, strlen(workdir), prog);
		if (spec_prog_is_executable(cand))
			return cand;
		free(cand);
		return NULL;
	}
	/* As execvp: PATH, or its default when unset; an empty or relative
	 * entry means the leg's working directory, the workdir. */
	path = getenv("PATH");
	if (path == NULL)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (q = path;; q++) {
		const char *end = strchr(q, ':');
		size_t n = end ? (size_t)(end - q) : strlen(q);
		char *rel = NULL;

		if (n == 0)
			cand = spec_prog_path_cat(workdir, strlen(workdir), prog);
		else if (q[0] == '/')
			cand = spec_prog_path_cat(q, n, prog);
		else {
			rel = spec_prog_path_cat(workdir, strlen(workdir), q);
			/* rel runs on to the rest of PATH: cut it at ':' */
			rel[strlen(rel) - strlen(q) + n] = '\0';
			cand = spec_prog_path_cat(rel, strlen(rel), prog);
			free(rel);
		}
		if (spec_prog_is_executable(cand))
			return cand;
		free(cand);
		cand = NULL;
		if (end == NULL)
			return NULL;
		q = end;
	}
}
