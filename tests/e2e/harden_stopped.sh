#!/bin/bash
# A leg that stops itself (SIGSTOP) with no timeout_s: the headless line
# says it is stopped and that an abort ends it, and an abort does end it
# (it used to look like a leg that hangs, with nothing said).
. "$(dirname "$0")/life_lib.sh"

cat >"$T/r.json" <<'EOF'
{"name": "stop", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "echo before; kill -STOP $$$$; echo after"],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/r.json" --out "$T/d" --headless >"$T/o" 2>&1 &
bt=$!
wait_until 10 grep -q 'stopped (SIGSTOP)' "$T/o"
grep -q 'c a r1 stopped (SIGSTOP): it waits to be continued; an abort (Ctrl-C) ends it' "$T/o" ||
	{ kill -9 $bt; cat "$T/o"; fail "the headless line does not show the leg as stopped"; }
jq -e 'select(.t == "leg_state" and .state == "stopped" and .signal == "SIGSTOP")' "$T/d/log.jsonl" >/dev/null ||
	{ kill -9 $bt; fail "no leg_state stopped event in the log"; }
kill -INT $bt
wait_until 10 eval "! kill -0 $bt 2>/dev/null" ||
	{ kill -9 $bt; fail "an abort did not end the stopped leg within 10 s"; }
wait $bt
rc=$?
[ $rc -eq 3 ] || { cat "$T/o"; fail "abort of a stopped leg: exit $rc, expected 3"; }
check_no_live_legs "$T/d/log.jsonl"
exit 0
