#!/bin/bash
# test: asan-covered
# A hangup (SIGHUP to a headless benchtui: its terminal closed) in the
# middle of a leg whose process and grandchild ignore SIGTERM, in a cell
# with a server: benchtui stops resumably (exit 3), as for SIGINT/SIGTERM,
# and leaves none of them running.  The scenario is hygiene_abort.sh's.
exec bash "$(dirname "$0")/hygiene_abort.sh" HUP
