#!/bin/bash
# test: alone est=5
# The start-up look: before the first leg the gate samples the box for a
# few seconds, and a box already busier than max_foreign_cores is said in
# one line naming the load and the busiest foreign processes.  A hog (a
# shell loop at nice -10) runs beside the round; max_foreign_cores 0 makes
# any load too much, so the line is always said: it must name the hog by
# its pid, in the log (a gate event of kind startup and a warning) and in
# check --host.  On a box so busy that three other processes each used
# more than the hog, it cannot be named: skipped (77), as the hog's own
# share shows.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<EOF
{"name": "startup", "reps": 1, "baseline": "a",
 "command": ["/bin/true"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 0, "window_ms": 200, "timeout_s": 1,
           "budget_s": 1}}
EOF
start_hog
spin=$(pgrep -P "$HOG" | head -1)
[ -n "$spin" ] || fail "no hog loop under $HOG"
ticks0=$(hog_ticks) secs0=$(date +%s.%N)
run_round 0
share=$(hog_share "$ticks0" "$secs0")
"$BENCHTUI" check "$T/round.json" --host >"$T/check.out" 2>"$T/check.err" ||
	fail "check --host failed: $(cat "$T/check.err")"
stop_hog

ev=$(events gate | jq -c 'select(.kind == "startup")')
[ "$(echo "$ev" | grep -c .)" = 1 ] || fail "expected one startup gate event"
echo "$ev"
echo "$ev" | jq -e '.busy == true and .foreign > 0 and .span_s >= 0.19' \
    >/dev/null || fail "the startup event does not say the box is busy"
warn=$(events warning | jq -r .msg | grep 'already busy')
[ "$(echo "$warn" | grep -c .)" = 1 ] || fail "expected one start-up warning"
host=$(grep '^host: ' "$T/check.out")
[ -n "$host" ] || fail "check --host printed no host line"
echo "$host"
if ! echo "$ev" | jq -e --argjson p "$spin" 'any(.top[]; .pid == $p)' \
    >/dev/null; then
	least=$(echo "$ev" | jq '[.top[].cores] | min')
	[ "$(echo "$ev" | jq '.top | length')" = 3 ] ||
		fail "the hog (pid $spin) is not named, and fewer than three are"
	# That three used more is benchtui's word: the hog's own cpu time
	# over the whole run (the look is 2 s of it) checks it, with room for
	# the look alone to have gone otherwise.
	awk -v h="$share" -v l="$least" 'BEGIN { exit !(h > l + 0.5) }' &&
		fail "the hog (pid $spin) had $share of a cpu, yet the top three are named without it (the least $least): $ev"
	echo "SKIP: three processes each used more than the hog ($least cores or more; the hog had $share)"
	exit 77
fi
echo "$warn" | grep -q "(pid $spin)" || fail "the warning does not name the hog: $warn"
echo "$host" | grep -q "(pid $spin)" || fail "check --host does not name the hog: $host"
echo "ok"
