#!/bin/bash
# A gate that can never open (max_foreign_cores 0) holds each leg and shows
# the time left to its timeout_s; g lets the held leg go: the leg line says
# quiet_override, the gate's last quiet event override, and the round
# completes sealed.
. "$(dirname "$0")/tui_lib.sh"

cat >"$tmp/gate.json" <<EOF2
{"name": "gate", "reps": 2, "baseline": "a",
 "command": ["/bin/true"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 0, "window_ms": 200, "timeout_s": 600,
           "on_timeout": "abort"}}
EOF2
start 100 30 "$BENCHTUI" run "$tmp/gate.json" --out "$tmp/out"

wait_for 'held, [0-9]+ s left' 20 &&
    ok "the gate's countdown is on screen" || fail "no countdown"
left1=$(screen | grep -Eo 'held, [0-9]+ s left' | grep -Eo '[0-9]+')
# Until the figure moves (the clock's tick redraws the quiet box while the
# gate holds), 10 s at most.
for _ in $(seq 100); do
	left2=$(screen | grep -Eo 'held, [0-9]+ s left' | grep -Eo '[0-9]+')
	[ -n "$left2" ] && [ "$left2" != "$left1" ] && break
	sleep 0.1
done
[ -n "$left1" ] && [ -n "$left2" ] && [ "$left2" -lt "$left1" ] &&
    [ "$left1" -le 600 ] && ok "it counts down ($left1 -> $left2)" ||
    fail "countdown did not move: '$left1' -> '$left2'"
grep -q '"t":"leg"' "$tmp/out/log.jsonl" && fail "a leg ran past a closed gate"
tm send-keys g
for _ in $(seq 100); do
	grep -q '"t":"leg"' "$tmp/out/log.jsonl" && break
	sleep 0.1
done
jq -se 'any(.[]; .t == "leg" and .rep == 1 and .quiet_override == true)' \
    "$tmp/out/log.jsonl" >/dev/null && ok "g: the leg ran, quiet_override" ||
    fail "no leg line with quiet_override after g"
jq -se 'any(.[]; .t == "quiet" and .override == true and .timeout_s == 600)' \
    "$tmp/out/log.jsonl" >/dev/null && ok "quiet event with override and timeout_s" ||
    fail "no quiet event with override"
wait_for 'held, [0-9]+ s left' 20 && ok "the next leg is held again" ||
    fail "the next leg was not held"
tm send-keys g
wait_for ' sealed ' 30 && ok "sealed after the second g" || fail "never sealed"
[ "$(jq -s '[.[] | select(.t == "leg" and .quiet_override == true)] | length' \
    "$tmp/out/log.jsonl")" = 2 ] && ok "two overrides logged" ||
    fail "override count"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"
finish
