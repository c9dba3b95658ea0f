#!/bin/bash
# Crash safety with a server per leg: kill -9 benchtui at random moments of
# a round whose arms set server_env (so every leg starts and stops its own
# demo server), resuming after each.  No server of a killed benchtui may be
# left running, each leg is counted exactly once, every counted leg line
# names a server the log saw ready for that leg, and the round is sealed.
. "$(dirname "$0")/life_lib.sh"

port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for try in $(seq 1 50); do
	port=$((20000 + RANDOM % 20000))
	port_busy $port || break
done
cat >"$T/srv.json" <<EOF2
{
  "name": "srvleg",
  "reps": 4,
  "bin": "$BENCHTUI_DEMO",
  "command": ["\${BIN}", "client", "--port", "$port", "--requests", "200"],
  "baseline": "a",
  "quiet": false,
  "counters": ["task-clock"],
  "arms": [{"name": "a", "server_env": {"BENCHTUI_TEST_ARM": "a"}},
           {"name": "b", "server_env": {"BENCHTUI_TEST_ARM": "b"}},
           {"name": "aa", "aa_of": "a"}],
  "cells": [
    {"name": "s1",
     "server": {"cmd": ["$BENCHTUI_DEMO", "serve", "--port", "$port"],
                "ready": {"tcp_port": $port, "timeout_s": 10}}}
  ]
}
EOF2
export DEMO_SPIN_MS=40
dir=$T/round
"$BENCHTUI" check "$T/srv.json" >"$T/check.out" 2>"$T/check.err" ||
	{ cat "$T/check.err"; fail "check rejects the server round"; }
grep -q server-per-leg "$T/check.out" || fail "check does not say server-per-leg"

seed_kills
kills=0 runs=0 stops=0 complete=0
while [ $complete -eq 0 ]; do
	runs=$((runs + 1))
	[ $runs -le 30 ] || fail "round not complete after $runs runs"
	if [ $runs -eq 1 ]; then
		"$BENCHTUI" run "$T/srv.json" --out "$dir" --headless >>"$T/out.txt" 2>&1 &
		pid=$!
		wait_for_line "$dir/log.jsonl" '.t == "round"' 20 ||
			{ kill -9 $pid; cat "$T/out.txt"; fail "run never logged its round event"; }
	else
		"$BENCHTUI" resume "$dir" --headless >>"$T/out.txt" 2>&1 &
		pid=$!
	fi
	if [ $kills -lt 4 ]; then
		sleep "0.$(printf '%03d' $((100 + RANDOM % 800)))"
		kill -9 $pid 2>/dev/null
	fi
	wait $pid 2>/dev/null
	rc=$?
	case $rc in
	0) complete=1 ;;
	137) kills=$((kills + 1)) ;;
	3)   stops=$((stops + 1))
	     [ $stops -le 3 ] || { tail -20 "$T/out.txt"; fail "too many resumable stops"; }
	     echo "resume stopped resumably (run $runs): $(grep 'benchtui:' "$T/out.txt" | tail -1)" ;;
	# A kill that lands after the seal was written but before the process
	# exited: the round is complete, and the next resume refuses it (2).
	2)   [ -f "$dir/SHA256SUMS" ] && grep -q "sealed" "$T/out.txt" ||
		{ tail -20 "$T/out.txt"; fail "run/resume exited 2 (run $runs)"; }
	     complete=1 ;;
	*) tail -20 "$T/out.txt"; fail "run/resume exited $rc (run $runs)" ;;
	esac
done
echo "per-leg server round: $kills kills, $runs runs"

log=$dir/log.jsonl
check_log_whole "$log"
check_exactly_once "$log" 12
check_no_live_legs "$log"
for spid in $(jq -r 'select(.t == "server" and .pid != null) | .pid' "$log" | sort -u); do
	[ -d "/proc/$spid" ] || continue
	grep -q '^State:.*Z' "/proc/$spid/status" 2>/dev/null && continue
	[ "$(readlink "/proc/$spid/exe")" != "$(readlink -f "$BENCHTUI_DEMO")" ] ||
		fail "server $spid is still alive"
done
ready=$(jq -s 'map(select(.t == "server" and .state == "ready")) | length' "$log")
[ "$ready" -ge 12 ] || fail "$log: fewer servers ready ($ready) than legs"
# Every counted leg was served by a server of its own arm and rep.
jq -s -e '(map(select(.t == "server" and .state == "ready") |
	{key: (.pid | tostring), value: "\(.arm) \(.rep)"}) | from_entries) as $srv |
	map(select(.t == "leg" and .status != "aborted")) |
	all(.[]; $srv[.server.pid | tostring] == "\(.arm) \(.rep)")' "$log" >/dev/null ||
	fail "a leg line's server is not the one started for it"
check_sealed "$dir"
exit 0
