#!/bin/bash
# Crash safety with a cell server: kill -9 benchtui at random moments of a
# round whose cells run the demo server, resuming after each.  No server or
# leg of a killed benchtui may be left running (the port must be free for
# the restarted server), resume restarts each cell's server, and the round
# completes exactly once and sealed.
. "$(dirname "$0")/life_lib.sh"

# Two free ports next to each other (nothing answers on them now).
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for try in $(seq 1 50); do
	port1=$((20000 + RANDOM % 20000))
	port2=$((port1 + 1))
	port_busy $port1 || port_busy $port2 || break
done
cat >"$T/srv.json" <<EOF
{
  "name": "srv",
  "reps": 4,
  "bin": "$BENCHTUI_DEMO",
  "command": ["\${BIN}", "client", "--port", "\${PORT}", "--requests", "300"],
  "baseline": "a",
  "quiet": false,
  "counters": ["task-clock"],
  "arms": [{"name": "a"}, {"name": "b"}, {"name": "aa", "aa_of": "a"}],
  "cells": [
    {"name": "s1", "vars": {"PORT": "$port1"},
     "server": {"cmd": ["$BENCHTUI_DEMO", "serve", "--port", "\${PORT}"],
                "ready": {"tcp_port": $port1, "timeout_s": 10}}},
    {"name": "s2", "vars": {"PORT": "$port2"},
     "server": {"cmd": ["$BENCHTUI_DEMO", "serve", "--port", "\${PORT}"],
                "ready": {"tcp_port": $port2, "timeout_s": 10}}}
  ]
}
EOF
export DEMO_SPIN_MS=60
dir=$T/round
"$BENCHTUI" check "$T/srv.json" >/dev/null 2>"$T/check.err" ||
	{ cat "$T/check.err"; fail "check rejects the server round"; }

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
	3)   # Stopped resumably (say a restarted server lost a race with
	     # the dying one for its port): a designed outcome, and resuming
	     # again is the user's answer too.  Reported, and at most 3.
	     stops=$((stops + 1))
	     [ $stops -le 3 ] || { tail -20 "$T/out.txt"; fail "too many resumable stops"; }
	     echo "resume stopped resumably (run $runs): $(grep 'benchtui:' "$T/out.txt" | tail -1)" ;;
	*) tail -20 "$T/out.txt"; fail "run/resume exited $rc (run $runs)" ;;
	esac
done
echo "server round: $kills kills, $runs runs"

log=$dir/log.jsonl
check_log_whole "$log"
check_exactly_once "$log" 24
check_no_live_legs "$log"
for spid in $(jq -r 'select(.t == "server" and .pid != null) | .pid' "$log" | sort -u); do
	[ -d "/proc/$spid" ] || continue
	grep -q '^State:.*Z' "/proc/$spid/status" 2>/dev/null && continue
	[ "$(readlink "/proc/$spid/exe")" != "$(readlink -f "$BENCHTUI_DEMO")" ] ||
		fail "server $spid is still alive"
done
ready=$(jq -s 'map(select(.t == "server" and .state == "ready")) | length' "$log")
[ "$ready" -ge 2 ] || fail "$log: servers were not started (ready lines: $ready)"
check_sealed "$dir"
exit 0
