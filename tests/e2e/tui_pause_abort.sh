#!/bin/bash
# test: tui est=22 long
# p pauses between legs and resumes; a then y aborts: exit 3, resumable
# (the log ends with an abort event and the round is not sealed).
. "$(dirname "$0")/tui_lib.sh"

# Legs of a second or so; one rep (6 legs, no profiles) is enough to
# pause, abort and resume, and keeps the resumed round short.
demo_round "$tmp/demo.json" 1500
jq '.reps = 1 | del(.profile)' "$tmp/demo.json" >"$tmp/demo1.json" && mv "$tmp/demo1.json" "$tmp/demo.json"
start 100 30 "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out"

wait_for 'Current leg' 20 || fail "no console"
wait_for 'pid [0-9]+' 20 && ok "a leg runs" || fail "no running leg"
tm send-keys p
wait_for ' paused ' 30 && ok "p pauses" || fail "never paused"
screen | tail -n 1 | grep -q ' p resume ' && ok "the footer offers p resume" ||
    fail "footer while paused: $(screen | tail -n 1)"
grep -q '"t":"pause"' "$tmp/out/log.jsonl" && ok "pause logged" ||
    fail "no pause event"
n1=$(grep -c '"t":"leg"' "$tmp/out/log.jsonl")
# Not a wait for something: the stretch over which nothing may happen.
sleep 2
n2=$(grep -c '"t":"leg"' "$tmp/out/log.jsonl")
[ "$n1" = "$n2" ] && ok "no legs while paused" || fail "legs ran while paused ($n1 -> $n2)"
tm send-keys p
wait_for ' running ' 10 && ok "p resumes" || fail "never resumed"

wait_for 'pid [0-9]+' 20
tm send-keys a
wait_for 'Abort the round' 5 && ok "a asks" || fail "no confirmation"
tm send-keys n
wait_gone 'Abort the round' 5 || fail "n did not close the question"
[ "$(wait_exit 1)" = none ] || fail "n ended the console"
tm send-keys a
wait_for 'Abort the round' 5
tm send-keys y
st=$(wait_exit 30)
[ "$st" = 3 ] && ok "a, y: exit 3" || fail "exit $st after abort"
last=$(tail -n 1 "$tmp/out/log.jsonl" | jq -r .t)
grep -q '"t":"abort"' "$tmp/out/log.jsonl" && ok "abort logged" || fail "no abort event"
[ ! -e "$tmp/out/SHA256SUMS" ] && ok "not sealed" || fail "sealed after abort"
echo "last event: $last"
done_before=$(jq -s '[.[] | select(.t == "leg" and .status != "aborted")] | length' "$tmp/out/log.jsonl")

# Resume in the console: it starts from the legs already in the log and
# ends sealed.
start 100 30 "$BENCHTUI" resume "$tmp/out"
wait_for "legs $done_before/6|legs $((done_before + 1))/6" 10 &&
    ok "resume shows the $done_before legs already run" ||
    fail "resume did not start from $done_before legs"
wait_for ' sealed ' 120 && ok "resumed round ends sealed" || fail "resume never sealed"
screen | grep -q 'legs 6/6' && ok "6/6 after resume" || fail "legs after resume"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0 after resume" || fail "exit $st after resume"
finish
