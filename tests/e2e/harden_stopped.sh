#!/bin/bash
# test: est=5
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
jq -se 'any(.[]; .t == "leg_state" and .state == "stopped" and .signal == "SIGSTOP")' "$T/d/log.jsonl" >/dev/null ||
	{ kill -9 $bt; fail "no leg_state stopped event in the log"; }
kill -INT $bt
wait_until 10 eval "! kill -0 $bt 2>/dev/null" ||
	{ kill -9 $bt; fail "an abort did not end the stopped leg within 10 s"; }
wait $bt
rc=$?
[ $rc -eq 3 ] || { cat "$T/o"; fail "abort of a stopped leg: exit $rc, expected 3"; }
check_no_live_legs "$T/d/log.jsonl"

# A leg that writes all the time, stopped and continued from outside: its
# output wakes benchtui's wait far more often than twice a second, and the
# stop and the continue must still be seen (the look used to run only
# when the wait timed out, which a chatty leg never lets it do).
cat >"$T/w.json" <<'EOF'
{"name": "chatty", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "i=0; while [ $i -lt 300 ]; do echo $i; i=$((i + 1)); sleep 0.01; done"],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/w.json" --out "$T/w" --headless >"$T/wo" 2>&1 &
bt=$!
wait_until 10 grep -q '"t":"leg_start"' "$T/w/log.jsonl" || { kill -9 $bt; fail "the chatty leg did not start"; }
pid=$(jq -r 'select(.t == "leg_start") | .pid' "$T/w/log.jsonl")
kill -STOP "$pid"
wait_until 5 grep -q '"state":"stopped"' "$T/w/log.jsonl" ||
	{ kill -CONT "$pid"; kill -9 $bt; fail "a stopped chatty leg was not seen stopped"; }
kill -CONT "$pid"
wait_until 5 grep -q '"state":"running"' "$T/w/log.jsonl" ||
	{ kill -9 $bt; fail "a chatty leg continued was not seen running within 5 s"; }
wait $bt
rc=$?
[ $rc -eq 0 ] || { cat "$T/wo"; fail "the chatty round: exit $rc, expected 0"; }
exit 0
