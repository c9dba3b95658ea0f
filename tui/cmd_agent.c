/* agent: the far end of a cell server on another host, run by ssh
 * (engine/remote/agent.c).  It speaks on stdin and stdout only.
 *
 * Exit status: 0 once its input closed (its server ended first); 2 bad
 * usage, or a client of another version refused; 1 its output failed. */
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "agent.h"
#include "cmd.h"

static const char agent_usage[] = "usage: benchtui agent --dir DIR\n";

int
cmd_agent(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (c != 'd')
			return cmd_usage_error("agent", agent_usage,
			    "unknown option '%s'", argv[optind - 1]);
		dir = optarg;
	}
	if (optind < argc)
		return cmd_usage_error("agent", agent_usage, "unexpected "
		    "argument '%s'", argv[optind]);
	if (dir == NULL)
		return cmd_usage_error("agent", agent_usage, "--dir DIR is "
		    "required: the one folder the agent writes in");
	/* Someone at a terminal gets a word: the agent waits for JSON. */
	if (isatty(0))
		fprintf(stderr, "benchtui agent: reading requests (one JSON "
		    "object per line) from stdin, as ssh runs it for a round "
		    "whose server.host names this host; see benchtui-agent(1)"
		    "\n");
	return agent_run(dir, 0, 1);
}
