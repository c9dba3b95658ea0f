/* agent: the far end of a cell server on another host, run by ssh
 * (engine/remote/agent.c).  It speaks on stdin and stdout only.
 *
 * Exit status: 0 once its input closed (its server ended first); 2 bad
 * usage, or a client of another version refused; 1 its output failed. */
#include <stdio.h>
#include <unistd.h>

#include "agent.h"
#include "cmd.h"

static const struct opts_opt cmd_agent_rows[] = {
	{ "dir", 0, "DIR", OPTS_REQUIRED, 'd', "the one folder it writes in "
	  "(the servers' logs; their cwd), made when missing" },
	{ NULL, 0, NULL, 0, 0, NULL },
};

const struct opts_cmd cmd_agent_opts = {
	"agent", "",
	"The far end of a cell server on another host; ssh runs it.",
	"benchtui-agent(1)", cmd_agent_rows,
};

int
cmd_agent(int argc, char **argv)
{
	struct opts_parser p;
	const char *dir = NULL;
	int c;

	opts_init(&p, &cmd_agent_opts, argc, argv);
	while ((c = opts_next(&p)) != OPTS_END) {
		if (c == OPTS_STOP)
			return p.status;
		dir = p.arg;
	}
	if (optind < argc)
		return opts_error(&cmd_agent_opts, "unexpected "
		    "argument '%s'", argv[optind]);
	if (dir == NULL)
		return opts_error(&cmd_agent_opts, "--dir DIR is "
		    "required: the one folder the agent writes in");
	/* Someone at a terminal gets a word: the agent waits for JSON. */
	if (isatty(0))
		fprintf(stderr, "benchtui agent: reading requests (one JSON "
		    "object per line) from stdin, as ssh runs it for a round "
		    "whose server.host names this host; see benchtui-agent(1)"
		    "\n");
	return agent_run(dir, 0, 1);
}
