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

bool
spec_cell_name_taken(struct parser *p, const char *name, size_t i, size_t *k)
{
	json_t *at;

	if (p->cell_names == NULL)
		p->cell_names = json_object();
	if ((at = json_object_get(p->cell_names, name)) != NULL) {
		*k = (size_t)json_integer_value(at);
		return true;
	}
	json_object_set_new(p->cell_names, name, json_integer((json_int_t)i));
	return false;
}

static const struct spec *spec_check_sorting;

/* qsort: cell indexes by name. */
static int
spec_check_by_name(const void *a, const void *b)
{
	return strcmp(spec_check_sorting->cells[*(const size_t *)a].name,
	    spec_check_sorting->cells[*(const size_t *)b].name);
}

/* Names may hold '-', so cell "a-b" arm "c" and cell "a" arm "b-c" would
 * both write legs/a-b-c-rREP.out, the later leg's output over the
 * earlier's.  Two cells can only collide when one is the other plus "-":
 * with the names sorted, the cells named "sh-..." follow each other, found
 * by a binary search, so a 10,000-cell matrix costs O(cells log cells). */
int
spec_check_leg_files(struct parser *p)
{
	const struct spec *s = p->s;
	size_t *by = xcalloc(s->ncells + 1, sizeof *by);
	char path[64];
	int rc = 0;

	for (size_t i = 0; i < s->ncells; i++)
		by[i] = i;
	spec_check_sorting = s;
	qsort(by, s->ncells, sizeof *by, spec_check_by_name);
	for (size_t i = 0; i < s->ncells && rc == 0; i++) {
		const char *sh = s->cells[i].name;
		size_t ls = strlen(sh), lo_i = 0, hi_i = s->ncells;

		/* The first name not below "sh-". */
		while (lo_i < hi_i) {
			size_t mid = lo_i + (hi_i - lo_i) / 2;
			const char *m = s->cells[by[mid]].name;
			int c = strncmp(m, sh, ls);

			if (c < 0 || (c == 0 && (unsigned char)m[ls] < '-'))
				lo_i = mid + 1;
			else
				hi_i = mid;
		}
		for (size_t q = lo_i; q < s->ncells && rc == 0; q++) {
			size_t k = by[q];
			const char *lo = s->cells[k].name, *rest;
			size_t lr;

			if (strncmp(lo, sh, ls) != 0 || lo[ls] != '-')
				break;
			rest = lo + ls + 1;
			lr = strlen(rest);
			/* Arm X of cell sh and arm Y of cell lo collide when X
			 * is rest + "-" + Y. */
			for (size_t j = 0; j < s->narms && rc == 0; j++) {
				const char *x = s->arms[j].name;
				if (strncmp(x, rest, lr) != 0 || x[lr] != '-')
					continue;
				for (size_t l = 0; l < s->narms && rc == 0; l++) {
					if (strcmp(x + lr + 1, s->arms[l].name) != 0)
						continue;
					snprintf(path, sizeof path, "cells[%zu].name", k);
					rc = spec_perr(p, path, "cell \"%s\" arm "
					    "\"%s\" and cell \"%s\" arm \"%s\" "
					    "would both write legs/%s-%s-rREP.out; "
					    "rename a cell or an arm", sh, x, lo,
					    s->arms[l].name, sh, x);
				}
			}
		}
	}
	free(by);
	return rc;
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

/* Folders that are never scratch, nor inside scratch. */
static const char *const spec_scratch_sys[] = {
	"/", "/bin", "/boot", "/dev", "/dev/shm", "/etc", "/home", "/lib",
	"/lib32", "/lib64", "/libx32", "/media", "/mnt", "/opt", "/proc",
	"/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr",
	"/usr/local", "/var", "/var/tmp",
};
/* Folders nothing inside of which is scratch (/dev/shm aside). */
static const char *const spec_scratch_sys_trees[] = {
	"/bin", "/boot", "/etc", "/lib", "/lib32", "/lib64", "/libx32",
	"/proc", "/sbin", "/sys", "/usr",
};

bool
spec_path_within(const char *dir, const char *top)
{
	size_t n = strlen(top);

	if (strcmp(top, "/") == 0)
		return true;
	return strncmp(dir, top, n) == 0 && (dir[n] == '\0' || dir[n] == '/');
}

bool
spec_path_holds(const char *sp, const char *p)
{
	char *rp = p != NULL ? realpath(p, NULL) : NULL;
	bool in = rp != NULL && spec_path_within(rp, sp);

	free(rp);
	return in;
}

const char *
spec_scratch_system(const char *sp)
{
	const char *home = getenv("HOME"), *tmp = getenv("TMPDIR");

	for (size_t i = 0; i < sizeof spec_scratch_sys /
	    sizeof *spec_scratch_sys; i++)
		if (spec_path_within(spec_scratch_sys[i], sp))
			return "is or holds a system folder";
	for (size_t i = 0; i < sizeof spec_scratch_sys_trees /
	    sizeof *spec_scratch_sys_trees; i++)
		if (spec_path_within(sp, spec_scratch_sys_trees[i]))
			return "is inside a system folder";
	if (strncmp(sp, "/dev/", 5) == 0 && strncmp(sp, "/dev/shm/", 9) != 0)
		return "is inside a system folder";
	if ((home != NULL && spec_path_holds(sp, home)) ||
	    (tmp != NULL && spec_path_holds(sp, tmp)))
		return "is or holds $HOME or $TMPDIR";
	return NULL;
}

/* scratch as expanded, made absolute against the workdir and canonical
 * where it exists: a system folder (the rule run applies) is refused by
 * check, run and resume before the first leg. */
int
spec_check_scratch_system(struct parser *p, const char *sc)
{
	char *abs = sc[0] == '/' ? xstrdup(sc) : xasprintf("%s/%s",
	    p->s->workdir, sc), *real = realpath(abs, NULL);
	const char *why = spec_scratch_system(real != NULL ? real : abs);
	int rc = 0;

	if (why != NULL)
		rc = spec_perr(p, "scratch", "\"%s\" %s; scratch is emptied "
		    "before every leg, so it must be a folder of its own", sc,
		    why);
	free(real);
	free(abs);
	return rc;
}

/* Scratch is emptied before every leg, so it must never be a folder that
 * holds anything else: not the workdir, "/", a system folder, or anything
 * reached by "..". */
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
