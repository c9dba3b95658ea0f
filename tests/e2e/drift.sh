#!/bin/bash
# test: alone measure est=3 needs=jq
# Drift: two identical arms (b an A/A copy of a) running a program that
# gets 0.5% slower with each call.  Under "order": "mirror" the drift
# cancels within each pair of reps: the cpu estimate is within 0.3% of 1
# and the verdict same or undecided.  Under "seed" (with 2 arms a always
# runs first) b reads 0.5% slower every rep: the cell reads biased on cpu.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DRIFT:?}"

for order in mirror seed; do
	rm -f "$tmp/state"
	cat >"$tmp/$order.json" <<EOF2
{"name": "drift-$order", "reps": 10, "order": "$order",
 "command": ["$BENCHTUI_DRIFT", "$tmp/state", "40"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b", "aa_of": "a"}],
 "cells": [{"name": "c"}], "counters": ["task-clock"], "quiet": false}
EOF2
	if ! "$BENCHTUI" run --headless --out "$tmp/$order" "$tmp/$order.json" \
		>"$tmp/$order.out" 2>"$tmp/$order.err"; then
		fail "$order: the round failed: $(tail -2 "$tmp/$order.err")"
		continue
	fi
	"$BENCHTUI" report --format json "$tmp/$order" >"$tmp/$order.rep" ||
		fail "$order: report failed"
	jq -r --arg o "$order" '.cells.c as $c | $c.arms.b.metrics as $m |
	    "\($o): cpu estimate \($m.cpu.estimate) ci \($m.cpu.ci) \($m.cpu.verdict); wall estimate \($m.wall.estimate) ci \($m.wall.ci) \($m.wall.verdict); biased \($c.biased)"' \
	    "$tmp/$order.rep"
done

jq -e '.cells.c.arms.b.metrics.cpu |
    (.estimate - 1 | fabs) <= 0.003 and
    (.verdict == "same" or .verdict == "undecided")' "$tmp/mirror.rep" >/dev/null ||
	fail "mirror: cpu estimate not within 0.3% of 1, or a verdict: $(jq -c .cells.c.arms.b.metrics.cpu "$tmp/mirror.rep")"
jq -e '.cells.c.biased | index("cpu") == null' "$tmp/mirror.rep" >/dev/null ||
	fail "mirror: reads biased on cpu"
jq -e '.cells.c.biased | index("cpu") != null' "$tmp/seed.rep" >/dev/null &&
    jq -e '.cells.c.arms.b.metrics.cpu.suspect' "$tmp/seed.rep" >/dev/null ||
	fail "seed: the drift does not read biased on cpu: $(jq -c .cells.c "$tmp/seed.rep")"
grep -q 'BIASED: the A/A arms differ on cpu' "$tmp/seed.out" ||
	fail "seed: the headless summary does not say BIASED"
"$BENCHTUI" report "$tmp/seed" >"$tmp/seed.txt" 2>/dev/null
grep -q 'BIASED: the A/A arms differ on cpu' "$tmp/seed.txt" &&
    grep -Eq '^ +cpu .* SUSPECT$' "$tmp/seed.txt" ||
	fail "seed: the text report lacks BIASED or SUSPECT"
"$BENCHTUI" report --format markdown "$tmp/seed" 2>/dev/null | grep -q '\*\*SUSPECT\*\*' ||
	fail "seed: the markdown report lacks SUSPECT"

finish
