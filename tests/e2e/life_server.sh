#!/bin/bash
# test life-server: asan-covered est=4
# Crash safety with a cell server: kill -9 benchtui at random moments of a
# round whose cells run the demo server, resuming after each.  No server or
# leg of a killed benchtui may be left running (the port must be free for
# the restarted server), resume restarts each cell's server, and the round
# completes exactly once and sealed.
. "$(dirname "$0")/life_lib.sh"

# Two free ports next to each other (nothing answers on them now).
port1=$(free_port 2) || fail "no two free ports"
port2=$((port1 + 1))
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

server_campaign "$T/srv.json" "$dir"
echo "server round: $kills kills, $runs runs"

log=$dir/log.jsonl
check_complete "$dir" 24
check_no_live_servers "$log"
ready=$(jq -s 'map(select(.t == "server" and .state == "ready")) | length' "$log")
[ "$ready" -ge 2 ] || fail "$log: servers were not started (ready lines: $ready)"
exit 0
