#!/bin/bash
# test: alone asan-covered est=6
# A CPU hog that comes once the round runs and stays to its end: the gate
# gives up after timeout_s and, with on_timeout "proceed", runs the leg
# and flags it: gate "timeout" with its wait_s, and a foreign figure
# during the leg that shows the hog.  (A hog there from before the round
# is load that stays, and is not waited for at all: quiet_stay.)
set -u
. "$(dirname "$0")/hygiene_lib.sh"

gate_threshold

# The legs sleep, so the hog has a cpu to itself during them.
cat >"$T/round.json" <<EOF
{"name": "proceed", "reps": 2, "baseline": "a",
 "command": ["sleep", "1"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": $thr, "window_ms": 500, "timeout_s": 2,
           "on_timeout": "proceed"}}
EOF

first_started() {
	[ -f "$T/out/log.jsonl" ] && events leg_start 2>/dev/null | grep -q .
}
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1 &
round=$!
OWN_PIDS+=("$round")
wait_until 30 first_started || fail "the first leg never started"
start_hog
start=$(date +%s.%N)
wait "$round"
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
stop_hog
[ "$rc" = 0 ] || fail "benchtui exited with $rc"

leg=$(events leg | tail -1)
echo "leg: $leg (round took $took s)"
[ "$(echo "$leg" | jq -r .status)" = ok ] || fail "the leg did not succeed"
[ "$(echo "$leg" | jq -r .gate)" = timeout ] || fail "the leg is not flagged gate timeout"
echo "$leg" | jq -e '.wait_s >= 2 and .wait_s < 20' >/dev/null ||
	fail "the leg's wait_s is not the gate's timeout_s"
echo "$leg" | jq -e '.foreign >= 0.5' >/dev/null || fail "the leg's foreign does not show the hog"
last=$(events quiet | tail -1)
echo "$last" | jq -e '.ok == false and .timed_out == true and .foreign >= 0.5' >/dev/null ||
	fail "the last quiet event is not a timed-out, loaded sample: $last"
# It gave up after about timeout_s, not sooner and not much later (the
# rest of the first leg, the wait, the second leg).
awk -v t="$took" 'BEGIN { exit !(t >= 3 && t < 20) }' || fail "round took $took s"
events leg | jq -e 'select(.staying != null)' >/dev/null &&
	fail "a leg is marked beside load that stays: the hog came after the first wait"
echo "ok"
