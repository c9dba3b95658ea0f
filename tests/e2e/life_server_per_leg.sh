#!/bin/bash
# test life-server-per-leg: asan-covered est=3
# Crash safety with a server per leg: kill -9 benchtui at random moments of
# a round whose arms set server_env (so every leg starts and stops its own
# demo server), resuming after each.  No server of a killed benchtui may be
# left running, each leg is counted exactly once, every counted leg line
# names a server the log saw ready for that leg, and the round is sealed.
. "$(dirname "$0")/life_lib.sh"

port=$(free_port) || fail "no free port"
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

server_campaign "$T/srv.json" "$dir"
echo "per-leg server round: $kills kills, $runs runs"

log=$dir/log.jsonl
check_complete "$dir" 12
check_no_live_servers "$log"
ready=$(jq -s 'map(select(.t == "server" and .state == "ready")) | length' "$log")
[ "$ready" -ge 12 ] || fail "$log: fewer servers ready ($ready) than legs"
# Every counted leg was served by a server of its own arm and rep.
jq -s -e '(map(select(.t == "server" and .state == "ready") |
	{key: (.pid | tostring), value: "\(.arm) \(.rep)"}) | from_entries) as $srv |
	map(select(.t == "leg" and .status != "aborted")) |
	all(.[]; $srv[.server.pid | tostring] == "\(.arm) \(.rep)")' "$log" >/dev/null ||
	fail "a leg line's server is not the one started for it"
exit 0
