/* The round driver, the scratch folder: checked, claimed and emptied before
 * each leg, its bytes counted after, by scratch.c's rules, with what this
 * round's folder must never hold. */
#include <stdlib.h>

#include "round_int.h"
#include "scratch.h"
#include "xalloc.h"

int
round_scratch_empty(struct run *u, const char *path, char *const *keep,
    size_t nkeep, char *err, size_t errlen)
{
	const struct spec *s = u->r->spec;
	struct scratch_hold *h = xcalloc(nkeep + 3, sizeof *h);
	int rc;

	h[0] = (struct scratch_hold){ s->workdir, "holds the workdir" };
	h[1] = (struct scratch_hold){ u->r->dir, "holds the round folder" };
	h[2] = (struct scratch_hold){ s->path, "holds the round file" };
	for (size_t i = 0; i < nkeep; i++)
		h[3 + i] = (struct scratch_hold){ keep[i], i == 0 ? "holds the "
		    "leg's program or a path its command names" : "holds a path "
		    "the leg's command names" };
	rc = scratch_empty(path, h, nkeep + 3, &u->scratch_lock, err, errlen);
	free(h);
	return rc;
}

long long
round_scratch_size(const char *path, char *err, size_t errlen)
{
	return scratch_size(path, err, errlen);
}

void
round_scratch_release(struct run *u)
{
	scratch_release(&u->scratch_lock);
}

char *
round_abspath(const char *p, const char *base)
{
	return p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", base, p);
}
