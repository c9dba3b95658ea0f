#!/bin/bash
# A CPU hog runs through the whole round; the gate gives up after timeout_s
# and, with on_timeout "proceed", runs the leg and flags it: gate
# "timeout" with its wait_s, and a foreign figure during the leg that shows
# the hog.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

gate_threshold

# The leg sleeps, so the hog has a cpu to itself during it.
cat >"$T/round.json" <<EOF
{"name": "proceed", "reps": 1, "baseline": "a",
 "command": ["sleep", "1"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": $thr, "window_ms": 500, "timeout_s": 2,
           "on_timeout": "proceed"}}
EOF

start_hog
start=$(date +%s.%N)
run_round
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
stop_hog
[ "$rc" = 0 ] || fail "benchtui exited with $rc"

leg=$(events leg | head -1)
echo "leg: $leg (round took $took s)"
[ "$(echo "$leg" | jq -r .status)" = ok ] || fail "the leg did not succeed"
[ "$(echo "$leg" | jq -r .gate)" = timeout ] || fail "the leg is not flagged gate timeout"
echo "$leg" | jq -e '.wait_s >= 2 and .wait_s < 20' >/dev/null ||
	fail "the leg's wait_s is not the gate's timeout_s"
echo "$leg" | jq -e '.foreign >= 0.5' >/dev/null || fail "the leg's foreign does not show the hog"
last=$(events quiet | tail -1)
echo "$last" | jq -e '.ok == false and .timed_out == true and .foreign >= 0.5' >/dev/null ||
	fail "the last quiet event is not a timed-out, loaded sample: $last"
# It gave up after about timeout_s, not sooner and not much later.
awk -v t="$took" 'BEGIN { exit !(t >= 3 && t < 20) }' || fail "round took $took s"
echo "ok"
