/* git and the build command: run to their end through the engine's one
 * spawn path (spawn.c), with an argv and no shell. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bisect_int.h"
#include "spawn.h"
#include "spec.h"
#include "xalloc.h"

extern char **environ;

/* Everything readable on fd into a malloc'd string. */
static char *
bisect_exec_slurp(int fd)
{
	struct xbuf b = { 0 };
	char buf[4096];
	ssize_t n;

	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		xbuf_add(&b, buf, (size_t)n);
	}
	xbuf_add(&b, "", 1);
	return b.p;
}

int
bisect_exec(char *const *argv, const char *cwd, int out_fd, char **text,
    char *err, size_t errlen)
{
	struct spawn_req req = { .argv = argv, .envp = environ, .cwd = cwd,
	    .out_fd = out_fd, .in_fd = -1 };
	int fds[2] = { -1, -1 }, status = 0;
	char *path = spec_resolve_program(argv[0], cwd);
	pid_t pid;

	if (text != NULL)
		*text = NULL;
	if (path == NULL) {
		snprintf(err, errlen, "%s: program not found%s%s", argv[0],
		    cwd != NULL ? " in " : "", cwd != NULL ? cwd : "");
		return -1;
	}
	req.path = path;
	if (out_fd < 0) {
		if (pipe2(fds, O_CLOEXEC) != 0) {
			snprintf(err, errlen, "pipe: %s", strerror(errno));
			free(path);
			return -1;
		}
		req.out_fd = fds[1];
	}
	pid = spawn_run(&req, NULL, err, errlen);
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid >= 0 && fds[0] >= 0) {
		char *s = bisect_exec_slurp(fds[0]);

		if (text != NULL)
			*text = s;
		else
			free(s);
	}
	if (fds[0] >= 0)
		close(fds[0]);
	free(path);
	if (pid < 0)
		return -1;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(err, errlen, "%s: wait: %s", argv[0],
			    strerror(errno));
			return -1;
		}
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}

int
bisect_git(const char *repo, const char *const *args, char **out, char *err,
    size_t errlen)
{
	const char *argv[16] = { "git", "-C", repo };
	size_t n = 3;
	char *text = NULL, run[1024];
	int rc;

	for (size_t i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	rc = bisect_exec((char *const *)argv, NULL, -1, &text, err, errlen);
	if (rc < 0) {
		free(text);
		return -1;
	}
	if (rc != 0) {
		size_t k = 0;

		run[0] = '\0';
		for (size_t i = 3; i < n && k < sizeof run - 1; i++)
			k += (size_t)snprintf(run + k, sizeof run - k, " %s",
			    argv[i]);
		/* git's own words, its first line. */
		text[strcspn(text, "\n")] = '\0';
		snprintf(err, errlen, "git%s (in %s) failed: %s", run, repo,
		    text[0] != '\0' ? text : "no message");
		free(text);
		return -1;
	}
	{
		size_t len = strlen(text);

		while (len > 0 && text[len - 1] == '\n')
			text[--len] = '\0';
	}
	if (out != NULL)
		*out = text;
	else
		free(text);
	return 0;
}
