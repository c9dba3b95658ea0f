/* spec: the checks against this machine that parsing leaves out (online
 * cpus, programs found as execvp would find them), so that a recorded
 * round can still be read on another one. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probe.h"
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
	/* In spec_profile_kinds' order. */
	const char *tool[SPEC_PROFILE_KINDS] = { pr && pr->perf ? "perf" : NULL,
		pr && pr->server_perf ? "perf" : NULL,
		pr && pr->syscalls ? "strace" : NULL };
	const char *pkg[SPEC_PROFILE_KINDS] = { "linux-perf", "linux-perf",
		"strace" };
	bool here = false;

	/* A server's profiles are taken where it runs, and the legs' where
	 * they run: on another host, by its agent, which check cannot see (a
	 * missing tool there fails the profile, not the round). */
	for (size_t c = 0; c < s->ncells; c++)
		here = here || (s->cells[c].server != NULL &&
		    !spec_server_remote(s->cells[c].server));
	for (int i = 0; i < SPEC_PROFILE_KINDS; i++) {
		char *found;

		/* legs on another host: their perf profile is taken there */
		if (tool[i] == NULL || (i > 0 && !here) || (i == 0 &&
		    (s->host != NULL || s->nhosts > 0)))
			continue;
		if ((found = spec_resolve_program(tool[i], s->workdir)) != NULL) {
			free(found);
			continue;
		}
		snprintf(err, errlen, "%s: profile.%s: %s is not installed (not "
		    "found in PATH); install the %s package", s->path,
		    spec_profile_kinds[i], tool[i], pkg[i]);
		return -1;
	}
	return 0;
}

/* A file the round reads (stdin, files[i]): there, a regular file, and
 * readable.  0, or -1 with err naming the field. */
static int
spec_host_readable(const struct spec *s, const char *file, const char *path,
    char *err, size_t errlen)
{
	const char *why = NULL;
	struct stat st;

	if (strstr(file, LEGCMD_NO_ROUND_DIR) != NULL)
		return 0;
	if (stat(file, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "not a regular file";
	else if (access(file, R_OK) != 0)
		why = "not readable by this user";
	if (why == NULL)
		return 0;
	snprintf(err, errlen, "%s: %s: %s: %s", s->path, path, file, why);
	return -1;
}

/* What the round reads besides its programs: each cell's setup and
 * cleanup programs, each leg's stdin (unless prepare may make it), and
 * the files it keeps. */
static int
spec_host_check_io(const struct spec *s, char *err, size_t errlen)
{
	char path[64], berr[640];
	struct legcmd lc;
	int rc = 0;

	for (size_t ci = 0; ci < s->ncells && rc == 0; ci++) {
		for (int h = 0; h < 2 && rc == 0; h++) {
			if ((h ? s->cells[ci].cleanup : s->cells[ci].setup) == NULL)
				continue;
			snprintf(path, sizeof path, "cells[%zu].%s[0]", ci,
			    h ? "cleanup" : "setup");
			if (legcmd_hook(s, ci, h == 1, NULL, &lc, berr,
			    sizeof berr) == 0 && lc.program == NULL)
				rc = spec_host_no_program(s, lc.argv[0], path,
				    &s->cells[ci], err, errlen);
			legcmd_finish(&lc);
		}
		for (size_t ai = 0; ai < s->narms && rc == 0 &&
		    s->stdin_path != NULL && s->prepare == NULL; ai++) {
			struct legcmd_where w = { .spec = s, .cell = ci,
			    .arm = ai, .rep = 1 };

			if (legcmd_build(&w, &lc, berr, sizeof berr) == 0)
				rc = spec_host_readable(s, lc.stdin_path, "stdin",
				    err, errlen);
			legcmd_finish(&lc);
		}
	}
	for (size_t i = 0; i < s->nfiles && rc == 0; i++) {
		snprintf(path, sizeof path, "files[%zu]", i);
		rc = spec_host_readable(s, s->files[i].abs, path, err, errlen);
	}
	return rc;
}

/* "probe": true needs a clock that can time it (probe.h); "auto" leaves
 * the probe off on such a machine, and run says so. */
static int
spec_host_check_probe(const struct spec *s, char *err, size_t errlen)
{
	char why[256];

	if (!s->quiet.enabled || s->quiet.probe != SPEC_PROBE_ON ||
	    probe_clock_stable(why, sizeof why))
		return 0;
	snprintf(err, errlen, "%s: quiet.probe: true, but %s; set it to false, "
	    "or to \"auto\" (off on such a machine)", s->path, why);
	return -1;
}

/* A round whose servers run on other hosts reaches them with ssh: its
 * program must be here.  cpus.server is this machine's only when a
 * server runs here (*local). */
static int
spec_host_check_ssh(const struct spec *s, bool *local, char *err,
    size_t errlen)
{
	bool remote = false;
	char *found;

	*local = false;
	for (size_t i = 0; i < s->ncells; i++) {
		if (spec_server_remote(s->cells[i].server))
			remote = true;
		else if (s->cells[i].server != NULL)
			*local = true;
	}
	if (!remote && s->host == NULL) {
		*local = true;
		return 0;
	}
	if ((found = spec_resolve_program(s->ssh[0], s->workdir)) != NULL) {
		free(found);
		return 0;
	}
	snprintf(err, errlen, "%s: ssh[0]: no program \"%s\" (relative to the "
	    "workdir %s or on PATH) to reach the servers' hosts; install "
	    "openssh-client, or set ssh", s->path, s->ssh[0], s->workdir);
	return -1;
}

/* Every cpu the round pins to here is online (cpus.server only when a
 * server runs here: local). */
static int
spec_host_check_all_cpus(const struct spec *s, bool local, char *err,
    size_t errlen)
{
	static unsigned char online[SPEC_CPUS_MAX];

	if (spec_host_online_cpus(online, SPEC_CPUS_MAX) != 0)
		return 0;
	/* Legs on another host: its cpus, its agent's to check. */
	if ((s->host == NULL && spec_host_check_cpus(s->path, s->client_cpus,
	    "cpus.client", online, err, errlen) < 0) ||
	    (local && spec_host_check_cpus(s->path, s->server_cpus,
	    "cpus.server", online, err, errlen) < 0))
		return -1;
	for (size_t i = 0; i < s->ncells; i++) {
		char path[64];

		/* Another host's cpus are its agent's to check. */
		if (s->cells[i].server == NULL ||
		    spec_server_remote(s->cells[i].server))
			continue;
		snprintf(path, sizeof path, "cells[%zu].server.cpus", i);
		if (spec_host_check_cpus(s->path, s->cells[i].server->cpus,
		    path, online, err, errlen) < 0)
			return -1;
	}
	return 0;
}

int
spec_check_host(const struct spec *s, char *err, size_t errlen)
{
	bool local;

	if (spec_host_check_ssh(s, &local, err, errlen) < 0 ||
	    spec_host_check_all_cpus(s, local, err, errlen) < 0)
		return -1;

	/* What runs is what legcmd builds for each cell and arm. */
	for (size_t ci = 0; ci < s->ncells; ci++) {
		const struct spec_cell *cell = &s->cells[ci];
		struct legcmd lc = { 0 };
		char path[64], berr[640];
		int rc = 0;

		/* A server per leg runs each arm's server_bin.  One on
		 * another host is looked up there, by its agent. */
		for (size_t ai = 0; cell->server != NULL && rc == 0 &&
		    !spec_server_remote(cell->server) &&
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
		/* Legs on another host: their programs are found there. */
		for (size_t ai = 0; s->host == NULL && ai < s->narms; ai++) {
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
	if (spec_host_check_io(s, err, errlen) < 0 ||
	    spec_host_check_probe(s, err, errlen) < 0)
		return -1;
	return spec_host_check_profilers(s, err, errlen);
}
