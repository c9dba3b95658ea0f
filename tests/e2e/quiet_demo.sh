#!/bin/bash
# test: est=8 needs=jq
# The demo never stalls at the gate, however busy the machine: its round
# with its own gate settings but max_foreign_cores 0 (a box busier than
# any could be), 2 reps (12 legs): every leg is let go by timeout or by
# the budget, and all the waits together stay within the demo's budget_s
# (plus a sample's slack), the start-up look included.  Deterministic: a
# threshold of 0 is never met.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?}"

demo_json '.quiet.max_foreign_cores = 0 | .reps = 2 | del(.profile)' \
    >"$tmp/demo.json" || exit 1
budget=$(jq '.quiet.budget_s' "$tmp/demo.json")
[ "$budget" != null ] && ok "the demo sets budget_s ($budget)" ||
	fail "the demo's quiet gate has no budget_s"

"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/demo.json" \
    >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 0 ] && ok "exit 0" || { fail "exit $rc"; cat "$tmp/stderr"; }
log=$tmp/out/log.jsonl
waited=$(jq -s '[.[] | select(.t == "leg") | .wait_s] | add' "$log")
awk -v w="$waited" -v b="$budget" 'BEGIN { exit !(w <= b + 0.5) }' &&
	ok "the gate waited $waited s in all, within budget_s $budget" ||
	fail "the gate waited $waited s, more than budget_s $budget"
[ "$(jq -rs '[.[] | select(.t == "leg") | .gate] | unique | map(select(. == "quiet")) | length' "$log")" = 0 ] &&
	ok "no leg counted quiet under a threshold of 0" || fail "a leg was quiet"
finish
