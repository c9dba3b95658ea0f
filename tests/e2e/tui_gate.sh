#!/bin/bash
# test: alone tui est=4
# A gate that can never open (max_foreign_cores 0) holds each leg and shows
# the time left to its timeout_s; g lets the held leg go: the leg line says
# gate "waived", the gate's last quiet event override, and a gate event
# logs the key.  G then lets the rest of the round go: no leg waits any
# more, each is "waived", and the round completes sealed.
. "$(dirname "$0")/tui_lib.sh"

cat >"$tmp/gate.json" <<EOF2
{"name": "gate", "reps": 4, "baseline": "a",
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
jq -se 'any(.[]; .t == "leg" and .rep == 1 and .gate == "waived")' \
    "$tmp/out/log.jsonl" >/dev/null && ok "g: the leg ran, gate waived" ||
    fail "no leg line with gate waived after g"
jq -se 'any(.[]; .t == "gate" and .kind == "release" and .scope == "leg")' \
    "$tmp/out/log.jsonl" >/dev/null && ok "g is logged" || fail "g not logged"
jq -se 'any(.[]; .t == "quiet" and .override == true and .timeout_s == 600)' \
    "$tmp/out/log.jsonl" >/dev/null && ok "quiet event with override and timeout_s" ||
    fail "no quiet event with override"
wait_for 'held, [0-9]+ s left' 20 && ok "the next leg is held again" ||
    fail "the next leg was not held"
tm send-keys G
wait_for ' sealed ' 30 && ok "sealed after G, no more holds" || fail "never sealed"
[ "$(jq -s '[.[] | select(.t == "leg" and .gate == "waived")] | length' \
    "$tmp/out/log.jsonl")" = 4 ] && ok "four legs waived" ||
    fail "waived count"
[ "$(jq -s '[.[] | select(.t == "gate" and .kind == "release" and .scope == "round")] | length' \
    "$tmp/out/log.jsonl")" = 1 ] && ok "G is logged once" || fail "G not logged"
wait_for 'released \(G\)' 5 && ok "the quiet box says the gate is released" ||
    fail "no released line"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"
finish
