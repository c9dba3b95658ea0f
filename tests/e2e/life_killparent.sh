#!/bin/bash
# test life-killparent: est=6 long
# A leg that SIGKILLs benchtui (kill -KILL $PPID) ends the run with 137.
# resume must not start it the same way forever: benchtui died while that
# leg ran, so it runs again under a stand-in parent, kills that instead,
# and is recorded once, as failed, with a warning saying why; the round
# completes (exit 5).  A leg during which benchtui was killed from outside
# runs again under the stand-in too, and is counted "ok" with its counters.
. "$(dirname "$0")/life_lib.sh"

cat >"$T/kp.json" <<'EOF'
{"name": "kp", "reps": 3, "baseline": "a", "quiet": false,
 "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "if [ \"$0\" = b2 ]; then kill -KILL $PPID; sleep 5; fi; echo ran $0", "${ARM}${REP}"],
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
dir=$T/round
"$BENCHTUI" run "$T/kp.json" --out "$dir" --headless >"$T/o1" 2>&1
rc=$?
[ $rc -eq 137 ] || { cat "$T/o1"; fail "the leg did not kill benchtui: exit $rc"; }
"$BENCHTUI" resume "$dir" --headless >"$T/o2" 2>&1
rc=$?
[ $rc -eq 5 ] || { tail -5 "$T/o2"; fail "resume after the leg killed benchtui: exit $rc, expected 5"; }
log=$dir/log.jsonl
check_complete "$dir" 6
jq -s -e '[.[] | select(.t == "leg" and .arm == "b" and .rep == 2)] | length == 1 and
	(.[0] | .status == "failed" and .signal == "SIGKILL" and .killed_parent == true and
	 .stand_in_parent == true)' "$log" >/dev/null ||
	fail "b r2's line: $(jq -c 'select(.t == "leg" and .arm == "b" and .rep == 2)' "$log")"
grep -q 'warning: leg c b r2 killed its parent' "$T/o2" ||
	{ cat "$T/o2"; fail "no warning saying the leg killed its parent"; }
echo "ok: $(grep -o 'leg c b r2 killed its parent[^;]*' "$T/o2")"

# Killed from outside during a long leg: run again under the stand-in, ok.
cat >"$T/long.json" <<'EOF'
{"name": "long", "reps": 2, "baseline": "a", "quiet": false,
 "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"],
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
dir2=$T/long
"$BENCHTUI" run "$T/long.json" --out "$dir2" --headless >"$T/o3" 2>&1 &
pid=$!
wait_for_line "$dir2/log.jsonl" '.t == "leg_start" and .seq == 2' 60 ||
	{ kill -9 $pid; cat "$T/o3"; fail "the second leg never started"; }
kill -9 $pid
wait $pid 2>/dev/null
"$BENCHTUI" resume "$dir2" --headless >"$T/o4" 2>&1 ||
	{ tail -5 "$T/o4"; fail "resume after an outside kill -9 did not complete"; }
check_complete "$dir2" 4
jq -s -e '[.[] | select(.t == "leg" and .stand_in_parent == true)] | length == 1 and
	(.[0] | .status == "ok" and .counters["task-clock"] > 0)' "$dir2/log.jsonl" >/dev/null ||
	fail "the leg killed from outside: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status, .stand_in_parent]' "$dir2/log.jsonl")"
echo "ok: a leg interrupted from outside ran again under the stand-in, ok"
exit 0
