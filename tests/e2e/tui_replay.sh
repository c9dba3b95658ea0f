#!/bin/bash
# --replay of a finished round reaches the same final ratios as
# `benchtui report --format json`: every median on the screen is the
# report's, rounded as shown.  Also the headless replay and replay keys.
. "$(dirname "$0")/tui_lib.sh"

demo_round "$tmp/demo.json"
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/demo.json" > /dev/null 2> "$tmp/run.err" ||
    { fail "the demo round did not complete: $(tail -n 2 "$tmp/run.err")"; finish; }
"$BENCHTUI" report --format json "$tmp/out" > "$tmp/report.json" ||
    fail "report failed"

# A screen tall enough for every ratio line.
start 140 80 "$BENCHTUI" --replay "$tmp/out/log.jsonl" --speed 50
wait_for ' sealed ' 60 && ok "replay ends sealed (SHA256SUMS beside the log)" ||
    fail "replay never reached sealed"
screen > "$tmp/screen"
jq -r '.cells | to_entries[] | .key as $c | .value.arms | to_entries[] |
    .key as $a | .value.vs as $vs | .value.metrics | to_entries[] |
    select(.value.median != null) |
    "\($a) vs \($vs)|\(if .key == "instructions" then "instr" else .key end)|\(.value.median * 1000 | round / 1000)|\(.value.verdict)"' \
    "$tmp/report.json" > "$tmp/want"
n=0
while IFS='|' read -r label metric median verdict; do
	med=$(printf '%.3f' "$median")
	if grep -E -- "$label +$metric +$med .* $verdict" "$tmp/screen" >/dev/null; then
		n=$((n + 1))
	else
		fail "no '$label $metric $med ... $verdict' on screen"
	fi
done < "$tmp/want"
[ "$n" -gt 0 ] && ok "$n medians and verdicts equal the report's" || fail "nothing compared"

# Replay keys: Home goes back to the start, End to the end.
tm send-keys Home
wait_for 'legs 0/18' 5 && ok "Home rewinds" || fail "Home"
tm send-keys Right
wait_for 'legs 1/18' 5 && ok "right steps one leg" || fail "Right"
tm send-keys End
wait_for 'legs 18/18' 5 && ok "End jumps to the end" || fail "End"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"

# Headless (stdout not a terminal) goes through the headless printer.
"$BENCHTUI" replay "$tmp/out/log.jsonl" > "$tmp/headless" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "headless replay exits 0" || fail "headless replay exit $rc"
[ -s "$tmp/headless" ] && ok "headless replay prints" || fail "headless replay printed nothing"
"$BENCHTUI" --replay "$tmp/nope.jsonl" > /dev/null 2>&1
[ $? = 2 ] && ok "missing log: exit 2" || fail "missing log exit"
finish
