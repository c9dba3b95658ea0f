#!/bin/bash
# test: asan-covered est=3
# budget_s bounds the whole round's wait.  A gate that can never open
# (max_foreign_cores 0: any load at all is too much) and a timeout_s of
# ten minutes, with on_timeout "abort": without the budget the first leg
# would wait ten minutes and the round stop.  With budget_s 2 the first
# leg waits about 2 s, then the gate proceeds for the rest of the round:
# every leg is marked gate "budget", none waits again, one gate event and
# one warning say so, headless prints it, and report counts the legs.
# Deterministic on a busy box: nothing here depends on the load.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<EOF
{"name": "budget", "reps": 3, "baseline": "a",
 "command": ["/bin/true"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 0, "window_ms": 200, "timeout_s": 600,
           "budget_s": 2, "on_timeout": "abort"}}
EOF
start=$(date +%s.%N)
run_round 0
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
echo "round took $took s"

[ "$(events leg | jq -r .gate | sort -u)" = budget ] ||
	fail "not every leg is marked gate budget: $(events leg | jq -r .gate | sort | uniq -c)"
first=$(events leg | head -1 | jq .wait_s)
awk -v w="$first" 'BEGIN { exit !(w >= 1.9 && w < 10) }' ||
	fail "the first leg waited $first s, not the budget's 2 s"
later=$(events leg | tail -n +2 | jq -s 'map(.wait_s) | max')
awk -v w="$later" 'BEGIN { exit !(w < 0.05) }' ||
	fail "a leg after the budget was spent waited $later s"
[ "$(events gate | jq -c 'select(.kind == "budget")' | grep -c .)" = 1 ] ||
	fail "expected one gate event of kind budget"
[ "$(events warning | grep -c 'whole budget')" = 1 ] ||
	fail "expected one warning that the budget is spent"
grep -q 'gate=budget' "$T/stdout" || fail "headless does not say gate=budget"
# The round is bounded by the budget, not by timeout_s: far under it.
awk -v t="$took" 'BEGIN { exit !(t < 60) }' || fail "round took $took s"

"$BENCHTUI" report "$T/out" --format json >"$T/report.json" ||
	fail "report failed"
jq -e '.gate.arms.a.not_quiet == 3 and .gate.arms.a.budget == 3 and
    .gate.arms.b.not_quiet == 3 and .gate.budget_spent == true' \
    "$T/report.json" >/dev/null ||
	fail "report json does not count the budget legs: $(jq -c .gate "$T/report.json")"
"$BENCHTUI" report "$T/out" >"$T/report.txt" || fail "report failed"
grep -q 'budget' "$T/report.txt" || fail "the text report does not say the budget was spent"
echo "ok"
