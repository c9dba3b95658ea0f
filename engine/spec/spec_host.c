/* spec: the checks against this machine that parsing leaves out (online
 * cpus, programs found as execvp would find them), so that a recorded
 * round can still be read on another one. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spec_int.h"
#include "xalloc.h"
#include "legcmd.h"

static int
spec_host_online_cpus(unsigned char *mask, int ncpus)
{
	char line[4096];
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	long n;

	if (f != NULL) {
		bool ok = fgets(line, sizeof line, f) != NULL;

		fclose(f);
		line[strcspn(line, "\n")] = '\0';
		if (ok && spec_cpulist_parse(line, mask, ncpus) == 0)
			return 0;
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1 || n > ncpus)
		return -1;
	memset(mask, 0, (size_t)ncpus);
	memset(mask, 1, (size_t)n);
	return 0;
}

static int
spec_host_check_cpus(const char *file, const char *list, const char *path,
    const unsigned char *online, char *err, size_t errlen)
{
	static unsigned char m[SPEC_CPUS_MAX];

	if (list == NULL)
		return 0;
	spec_cpulist_parse(list, m, SPEC_CPUS_MAX);
	for (int c = 0; c < SPEC_CPUS_MAX; c++) {
		if (m[c] && !online[c]) {
			snprintf(err, errlen, "%s: %s: cpu %d (in \"%s\") is "
			    "not online on this machine", file, path, c, list);
			return -1;
		}
	}
	return 0;
}

/* "FILE: PATH: no program ..." for prog, which was not found.  A program
 * that needs what only the run knows (the round folder) is not looked
 * up: the run will tell. */
static int
spec_host_no_program(const struct spec *s, const char *prog, const char *path,
    const struct spec_cell *cell, char *err, size_t errlen)
{
	if (strstr(prog, LEGCMD_NO_ROUND_DIR) != NULL)
		return 0;
	if (strchr(prog, '/') != NULL) {
		/* There, but not a program: say what is wrong with it. */
		char *cand = prog[0] == '/' ? xstrdup(prog) :
		    xasprintf("%s/%s", s->workdir, prog);
		struct stat st;
		const char *why = NULL;

		if (stat(cand, &st) == 0)
			why = S_ISDIR(st.st_mode) ? "is a folder, not a program" :
			    !S_ISREG(st.st_mode) ? "is not a regular file" :
			    access(cand, X_OK) != 0 ? "has no execute permission "
			    "for this user (chmod +x it)" : NULL;
		if (why != NULL) {
			snprintf(err, errlen, "%s: %s: \"%s\" (%s) %s in cell "
			    "\"%s\"", s->path, path, prog, cand, why, cell->name);
			free(cand);
			return -1;
		}
		free(cand);
	}
	snprintf(err, errlen, "%s: %s: no program \"%s\" (an executable file, "
	    "relative to the workdir %s or on PATH) in cell \"%s\"", s->path,
	    path, prog, s->workdir, cell->name);
	return -1;
}

/* A round that profiles needs the tools on this machine: perf for "perf"
 * and "server_perf", strace for "syscalls". */
static int
spec_host_check_profilers(const struct spec *s, char *err, size_t errlen)
{
	const struct spec_profile *pr = s->profile;
	const char *tool[3] = { pr && pr->perf ? "perf" : NULL,
		pr && pr->server_perf ? "perf" : NULL,
		pr && pr->syscalls ? "strace" : NULL };
	const char *pkg[3] = { "linux-perf", "linux-perf", "strace" };
	const char *field[3] = { "perf", "server_perf", "syscalls" };

	for (int i = 0; i < 3; i++) {
		char *found;

		if (tool[i] == NULL)
			continue;
		if ((found = spec_resolve_program(tool[i], s->workdir)) != NULL) {
			free(found);
			continue;
		}
		snprintf(err, errlen, "%s: profile.%s: %s is not installed (not "
		    "found in PATH); install the %s package", s->path,
		    field[i], tool[i], pkg[i]);
		return -1;
	}
	return 0;
}

int
spec_check_host(const struct spec *s, char *err, size_t errlen)
{
	static unsigned char online[SPEC_CPUS_MAX];

	if (spec_host_online_cpus(online, SPEC_CPUS_MAX) == 0) {
		if (spec_host_check_cpus(s->path, s->client_cpus, "cpus.client",
		    online, err, errlen) < 0 ||
		    spec_host_check_cpus(s->path, s->server_cpus, "cpus.server",
		    online, err, errlen) < 0)
			return -1;
		for (size_t i = 0; i < s->ncells; i++) {
			char path[64];

			if (s->cells[i].server == NULL)
				continue;
			snprintf(path, sizeof path, "cells[%zu].server.cpus", i);
			if (spec_host_check_cpus(s->path, s->cells[i].server->cpus,
			    path, online, err, errlen) < 0)
				return -1;
		}
	}

	/* What runs is what legcmd builds for each cell and arm. */
	for (size_t ci = 0; ci < s->ncells; ci++) {
		const struct spec_cell *cell = &s->cells[ci];
		struct legcmd lc = { 0 };
		char path[64], berr[640];
		int rc = 0;

		/* A server per leg runs each arm's server_bin. */
		for (size_t ai = 0; cell->server != NULL && rc == 0 &&
		    ai < (spec_server_per_leg(s, cell) ? s->narms : 1); ai++) {
			bool per_leg = spec_server_per_leg(s, cell);

			if (legcmd_server(s, ci, per_leg ? (int)ai : -1, per_leg ?
			    1 : 0, NULL, &lc, berr, sizeof berr) == 0 &&
			    lc.program == NULL) {
				snprintf(path, sizeof path,
				    "cells[%zu].server.cmd[0]", ci);
				rc = spec_host_no_program(s, lc.argv[0], path, cell,
				    err, errlen);
			}
			legcmd_finish(&lc);
		}
		if (rc < 0)
			return -1;
		for (size_t ai = 0; ai < s->narms; ai++) {
			const struct spec_arm *arm = &s->arms[ai];
			struct legcmd_where w = { .spec = s, .cell = ci,
			    .arm = ai, .rep = 1 };

			if (legcmd_build(&w, &lc, berr, sizeof berr) < 0) {
				legcmd_finish(&lc);
				continue;
			}
			if (lc.bin != NULL && !lc.bin_found) {
				if (arm->bin != NULL)
					snprintf(path, sizeof path, "arms[%d].bin",
					    arm->aa_of ? spec_arm_index(s,
					    arm->aa_of) : (int)ai);
				else
					snprintf(path, sizeof path, "bin");
				rc = spec_host_no_program(s, lc.bin, path, cell, err,
				    errlen);
			} else if (lc.program == NULL) {
				rc = spec_host_no_program(s, lc.argv[0], "command[0]",
				    cell, err, errlen);
			}
			legcmd_finish(&lc);
			if (rc < 0)
				return -1;
		}
	}
	return spec_host_check_profilers(s, err, errlen);
}
