/* replay: `benchtui --replay LOG` / `benchtui replay LOG`. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "console.h"

static const char replay_usage[] =
    "usage: benchtui --replay LOG.jsonl [--speed X | --instant] [--headless] [--theme NAME]\n";

int
cmd_replay(int argc, char **argv)
{
	const char *log = NULL, *theme = NULL;
	double speed = 1;
	bool instant = false, headless = false;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--instant") == 0)
			instant = true;
		else if (strcmp(argv[i], "--headless") == 0)
			headless = true;
		else if (strcmp(argv[i], "--speed") == 0 && i + 1 < argc) {
			char *end;
			speed = strtod(argv[++i], &end);
			if (*end || !(speed > 0))
				return cmd_usage_error(argv[0], replay_usage,
				    "--speed: '%s' is not a positive number", argv[i]);
		} else if (strcmp(argv[i], "--theme") == 0 && i + 1 < argc)
			theme = argv[++i];
		else if (argv[i][0] == '-')
			return cmd_usage_error(argv[0], replay_usage,
			    "unknown option '%s'", argv[i]);
		else if (!log)
			log = argv[i];
		else
			return cmd_usage_error(argv[0], replay_usage,
			    "more than one log given ('%s')", argv[i]);
	}
	if (!log)
		return cmd_usage_error(argv[0], replay_usage, "no log given");
	(void)headless;
	return console_replay(log, speed, instant, theme);
}
