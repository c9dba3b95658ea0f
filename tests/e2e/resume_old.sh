#!/bin/bash
# test: needs=jq
# A round folder written before the leg order was recorded (its round
# event has no "order"; tests/data/resume-old, stopped after 3 of 6 legs)
# resumes under the seed rule it was written with: the legs left run in
# seed's order with seed's seq numbers, and every planned leg ends with
# exactly one leg line.  Under today's default (mirror) rep 2 would run b
# before a.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_SOURCE_DIR:?}"

cp -r "$BENCHTUI_SOURCE_DIR/tests/data/resume-old" "$tmp/old"
chmod -R u+w "$tmp/old"
"$BENCHTUI" resume --headless "$tmp/old" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 0 ] || fail "resume: exit $rc: $(cat "$tmp/err")"
log="$tmp/old/log.jsonl"
# One counted leg line per planned leg (1 cell x 2 arms x 3 reps).
got=$(jq -r 'select(.t == "leg" and .status != "aborted") |
    "\(.cell) \(.arm) \(.rep)"' "$log" | sort | uniq -c | awk '{print $1}' |
    sort -u | tr '\n' ' ')
n=$(jq -r 'select(.t == "leg" and .status != "aborted") | .arm' "$log" | wc -l)
[ "$n" -eq 6 ] && [ "$got" = "1 " ] ||
	fail "want 6 leg lines, one per planned leg; got $n (counts: $got)"
# The legs the resume ran: seed's order and seq (b2 4, a3 5, b3 6).
order=$(jq -r 'select(.t == "leg") | select(.seq > 3) |
    "\(.arm)\(.rep):\(.seq)"' "$log" | tr '\n' ' ')
[ "$order" = "b2:4 a3:5 b3:6 " ] ||
	fail "resumed legs not in the seed order: $order"
[ -f "$tmp/old/SHA256SUMS" ] || fail "not sealed after the resume"

finish
