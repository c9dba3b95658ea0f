/* spec: checks across a round's fields once all are read: the client and
 * server cpus apart, a scratch folder of its own, leg files that cannot
 * collide.  Whether every template expands is spec_cmds.c's: it builds
 * commands, which reading a round file never needs. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spec_int.h"
#include "xalloc.h"

/* Names may hold '-', so cell "a-b" arm "c" and cell "a" arm "b-c" would
 * both write legs/a-b-c-rREP.out, the later leg's output over the
 * earlier's.  Two cells can only collide when one is the other plus "-". */
int
spec_check_leg_files(struct parser *p)
{
	const struct spec *s = p->s;
	char path[64];

	for (size_t i = 0; i < s->ncells; i++)
		for (size_t k = 0; k < s->ncells; k++) {
			const char *sh = s->cells[i].name, *lo = s->cells[k].name;
			size_t ls = strlen(sh), lr;
			const char *rest;

			if (strncmp(lo, sh, ls) != 0 || lo[ls] != '-')
				continue;
			rest = lo + ls + 1;
			lr = strlen(rest);
			/* Arm X of cell sh and arm Y of cell lo collide when X
			 * is rest + "-" + Y. */
			for (size_t j = 0; j < s->narms; j++) {
				const char *x = s->arms[j].name;
				if (strncmp(x, rest, lr) != 0 || x[lr] != '-')
					continue;
				for (size_t l = 0; l < s->narms; l++) {
					if (strcmp(x + lr + 1, s->arms[l].name) != 0)
						continue;
					snprintf(path, sizeof path, "cells[%zu].name", k);
					return spec_perr(p, path, "cell \"%s\" arm "
					    "\"%s\" and cell \"%s\" arm \"%s\" "
					    "would both write legs/%s-%s-rREP.out; "
					    "rename a cell or an arm", sh, x, lo,
					    s->arms[l].name, sh, x);
				}
			}
		}
	return 0;
}

/* A leg's client and its cell's server on the same cpu would measure their
 * contention, not the client. */
int
spec_check_cpu_overlap(struct parser *p)
{
	static unsigned char cm[SPEC_CPUS_MAX], sm[SPEC_CPUS_MAX];
	struct spec *s = p->s;

	if (s->client_cpus == NULL)
		return 0;
	spec_cpulist_parse(s->client_cpus, cm, SPEC_CPUS_MAX);
	for (size_t i = 0; i < s->ncells; i++) {
		const struct spec_server *srv = s->cells[i].server;
		const char *list;
		char path[64];

		/* A server on another host has that host's cpus. */
		if (srv == NULL || spec_server_remote(srv))
			continue;
		list = srv->cpus ? srv->cpus : s->server_cpus;
		if (list == NULL)
			continue;
		if (srv->cpus)
			snprintf(path, sizeof path, "cells[%zu].server.cpus", i);
		else
			snprintf(path, sizeof path, "cpus.server");
		spec_cpulist_parse(list, sm, SPEC_CPUS_MAX);
		for (int c = 0; c < SPEC_CPUS_MAX; c++)
			if (cm[c] && sm[c])
				return spec_perr(p, path, "cpu %d is also in "
				    "cpus.client (\"%s\"); a cell's server and "
				    "its client must not share cpus", c,
				    s->client_cpus);
	}
	return 0;
}

/* Scratch is emptied before every leg, so it must never be a folder that
 * holds anything else: not the workdir, "/", or anything reached by "..". */
int
spec_check_scratch(struct parser *p, const char *sc)
{
	const char *w = p->s->workdir;
	size_t wl = strlen(w), sl = strlen(sc);
	char *copy, *tok, *save = NULL;
	bool dotdot = false;

	copy = xstrdup(sc);
	for (tok = strtok_r(copy, "/", &save); tok != NULL;
	    tok = strtok_r(NULL, "/", &save))
		if (strcmp(tok, "..") == 0)
			dotdot = true;
	free(copy);
	if (dotdot)
		return spec_perr(p, "scratch", "\"%s\" holds \"..\"; scratch is "
		    "emptied before every leg, so it must be a folder of its "
		    "own", sc);
	while (sl > 1 && sc[sl - 1] == '/')
		sl--;
	if (strspn(sc, "./") == strlen(sc) ||
	    (sc[0] == '/' && sl <= wl && strncmp(w, sc, sl) == 0 &&
	    (w[sl] == '/' || w[sl] == '\0')))
		return spec_perr(p, "scratch", "\"%s\" is the workdir or one of "
		    "its parents; scratch is emptied before every leg, so it "
		    "must be a folder of its own", sc);
	return 0;
}
