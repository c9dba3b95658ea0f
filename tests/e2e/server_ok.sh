#!/bin/bash
# test: asan-covered
# A cell server for real: the demo workload serves on loopback, pinned to
# the server cpus, the client legs talk to it, it stays up for all reps and
# is stopped by pid after the cell; the log shows its lifecycle.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

ncpu=$(nproc)
port=$(free_port)
cpus=""
[ "$ncpu" -ge 2 ] && cpus='"cpus": {"client": "0", "server": "1"},'
cat >"$T/round.json" <<EOF
{"name": "srvok", "reps": 2, "baseline": "a",
 "bin": "$BENCHTUI_DEMO",
 "command": ["\${BIN}", "client", "--port", "$port", "--requests", "50"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "net", "server": {
            "cmd": ["\${BIN}", "serve", "--port", "$port"],
            "ready": {"tcp_port": $port, "timeout_s": 10}}}],
 $cpus
 "quiet": false}
EOF
run_round 0
states=$(events server | jq -r .state | tr '\n' ' ')
[ "$states" = "starting ready stopped " ] || fail "server states: $states"
pid=$(events server | jq -r 'select(.pid != null) | .pid' | sort -u)
[ "$(echo "$pid" | grep -c .)" = 1 ] || fail "the server events name several pids: $pid"
events server | jq -se 'length == 3 and all(.[]; .cell == "net")' >/dev/null ||
	fail "a server event lacks the cell: $(events server | jq -c '[.state, .cell]')"
alive "$pid" && fail "the server $pid is still running"
grep -q listening "$T/out/servers/net.log" || fail "servers/net.log lacks the server's output"
[ "$(events leg | jq -r .status | sort -u)" = ok ] || fail "legs did not all succeed"
[ "$(events leg | grep -c .)" = 4 ] || fail "expected 4 legs"
# Started before the first leg, stopped after the last.
first_leg=$(events leg_start | head -1 | jq -r .ts)
ready=$(events server | jq -r 'select(.state == "ready") | .ts')
stopped=$(events server | jq -r 'select(.state == "stopped") | .ts')
last_leg=$(events leg | tail -1 | jq -r .ts)
[[ ! "$first_leg" < "$ready" ]] || fail "a leg started before the server was ready"
[[ ! "$stopped" < "$last_leg" ]] || fail "the server stopped before the last leg"
echo "ok"
