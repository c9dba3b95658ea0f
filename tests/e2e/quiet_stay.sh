#!/bin/bash
# test: alone est=26 long
# Load that stays is not waited for.  A CPU hog started by this test before
# the round (a shell loop, ended by its pid) is busy through the start-up
# look and the first wait: the gate names it once, by pid (a gate event of
# kind staying, one warning, the console's line and the report's), does not
# wait for it again, and marks the legs beside it ("staying": [pid]).  The
# gate runs with its defaults, so its waits stay within 5 s plus a quarter
# of the legs' time: the round ends within 1.3x the legs' own time plus
# 6 s, however busy the box.  On a box so busy that three other processes
# each used more than the hog in the look, the hog cannot be named:
# skipped (77).
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<JSON
{"name": "stay", "reps": 8, "baseline": "a",
 "command": ["/bin/sleep", "1"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}]}
JSON
start_hog
spin=$(pgrep -P "$HOG" | head -1)
[ -n "$spin" ] || fail "no hog loop under $HOG"
t0=$(date +%s.%N)
run_round 0
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
stop_hog

legs=$(events leg | jq -s 'map(.wall) | add')
waited=$(events leg | jq -s 'map(.wait_s) | add')
echo "round took $took s; the legs $legs s; the gate waited $waited s"
# Under ASan the time beside the legs and the waits is the sanitizer's:
# the round's bound is read only in an uninstrumented build; the gate's
# own (its waits) in both.
if ldd "$BENCHTUI" 2>/dev/null | grep -q libasan; then
	echo "note: $BENCHTUI is built with ASan: the round's time bound not read"
else
	awk -v t="$took" -v l="$legs" 'BEGIN { exit !(t <= 1.3 * l + 6) }' ||
		fail "the round took $took s, over 1.3x its legs' $legs s plus 6 s"
fi
awk -v w="$waited" -v l="$legs" 'BEGIN { exit !(w <= 5 + 0.25 * l + 0.2) }' ||
	fail "the gate waited $waited s, over 5 s plus a quarter of $legs s"

st=$(events gate | jq -c 'select(.kind == "staying")')
if ! echo "$st" | jq -e --argjson p "$spin" 'any(.procs[]; .pid == $p)' \
    >/dev/null 2>&1; then
	look=$(events gate | jq -c 'select(.kind == "startup")')
	if ! echo "$look" | jq -e --argjson p "$spin" 'any(.top[]; .pid == $p)' \
	    >/dev/null; then
		echo "SKIP: three processes were busier than the hog in the look: $look"
		exit 77
	fi
	fail "the hog (pid $spin) is not named as load that stays: $st"
fi
echo "$st"
[ "$(echo "$st" | grep -c .)" = 1 ] || fail "the staying load is named more than once"
warn=$(events warning | jq -r .msg | grep 'load that stays')
[ "$(echo "$warn" | grep -c .)" = 1 ] || fail "expected one warning naming the load that stays"
echo "$warn" | grep -q "(pid $spin)" || fail "the warning does not name the hog's pid: $warn"
grep -q "load that stays.*(pid $spin)" "$T/stdout" ||
	fail "the console does not name the hog"
"$BENCHTUI" report "$T/out" >"$T/report.txt" || fail "report failed"
grep -q "load that stays.*(pid $spin)" "$T/report.txt" ||
	fail "the report does not name the hog"
# The legs beside it are marked with its pid: every one whose line says
# so names it, and most do (the hog ran all through).
marked=$(events leg | jq -c --argjson p "$spin" \
    'select((.staying // []) | index($p))' | grep -c .)
n=$(events leg | grep -c .)
echo "$marked of $n legs marked staying"
[ "$marked" -ge $((n / 2)) ] || fail "only $marked of $n legs are marked staying"
echo "ok"
