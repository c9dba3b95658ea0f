#!/bin/bash
# test: alone est=8
# Load that comes and goes is still waited out.  A loop started by this
# test (busy 200 ms of every second, ended by its pid) runs beside a round
# of short legs: the gate holds each leg until a window without a burst,
# so the legs' foreign load is below max_foreign_cores in at least 90% of
# them, and the loop is never named as load that stays (it runs in a
# quarter of the samples).  A fixed budget_s, so the waits are the load's
# to end.  Skipped (77) on a box already busier than a burst could show.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }

gate_threshold
echo "baseline load $base cores; gate threshold $thr"
cat >"$T/round.json" <<JSON
{"name": "comego", "reps": 30, "baseline": "a",
 "command": ["/bin/true"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": $thr, "window_ms": 500, "budget_s": 60,
           "probe": false}}
JSON
python3 -c '
import time
while True:
    t = time.monotonic()
    while time.monotonic() - t < 0.2:
        pass
    time.sleep(0.8)' &
PULSE=$!
OWN_PIDS+=("$PULSE")
run_round 0
kill "$PULSE"
wait "$PULSE" 2>/dev/null

if [ -n "$(events gate | jq -c 'select(.kind == "budget")')" ]; then
	echo "SKIP: the budget ran out: the box stayed busier than the loop alone"
	exit 77
fi
n=$(events leg | grep -c .)
under=$(events leg | jq -c --argjson t "$thr" 'select(.foreign < $t)' | grep -c .)
held=$(events quiet | jq -c 'select(.ok == false)' | grep -c .)
echo "$under of $n legs under $thr foreign cores; $held held samples"
[ "$held" -ge 1 ] || fail "the gate never held a leg for the bursts"
[ $((under * 10)) -ge $((n * 9)) ] ||
	fail "only $under of $n legs ran under the threshold"
events gate | jq -e --argjson p "$PULSE" \
    'select(.kind == "staying") | any(.procs[]; .pid == $p)' >/dev/null 2>&1 &&
	fail "the loop that comes and goes was named as load that stays"
echo "ok"
