#!/bin/bash
# test: asan-covered est=2
# Legs that fork a grandchild which ignores SIGTERM and outlives its parent:
# one leg exits at once leaving it behind, one runs into timeout_s.  When
# the round is over, none of them is running (checked by the pids the
# grandchildren wrote).
set -u
. "$(dirname "$0")/hygiene_lib.sh"

# The shell is the leg's program here (the test's choice, not benchtui's).
cat >"$T/round.json" <<EOF
{"name": "grand", "reps": 1, "baseline": "a",
 "command": ["sh", "-c", "\${SCRIPT}"],
 "arms": [{"name": "a"}],
 "cells": [
   {"name": "orphan", "vars": {"SCRIPT":
     "(trap '' TERM; exec sleep 60) & echo \$! >$T/orphan.pid; exit 0"}},
   {"name": "stuck", "vars": {"SCRIPT":
     "trap '' TERM; (exec sleep 60) & echo \$! >$T/stuck.pid; echo \$\$\$\$ >>$T/stuck.pid; sleep 60"}}
 ],
 "timeout_s": 1,
 "quiet": false}
EOF
start=$(date +%s.%N)
run_round
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
# The stuck leg timed out: complete and sealed, exit 5.
[ "$rc" = 5 ] || fail "benchtui exited with $rc, want 5"
assert_gone "$T/orphan.pid" "$T/stuck.pid"
statuses=$(events leg | jq -r '.cell + "=" + .status' | tr '\n' ' ')
[ "$statuses" = "orphan=ok stuck=timed_out " ] || fail "leg statuses: $statuses"
events leg | jq -se 'map(select(.cell == "stuck")) | length == 1 and
    all(.[]; .timed_out == true and .rc == null)' >/dev/null ||
	fail "the stuck leg is not recorded as timed out and killed"
awk -v t="$took" 'BEGIN { exit !(t < 30) }' || fail "the round took $took s"
echo "ok (round took $took s)"
