#!/bin/bash
# test: asan-covered est=2
# A cell server that exits before it is ready, and one that never listens:
# each fails the round at once with a non-zero exit and a message naming the
# cell and its log, and leaves no process behind (checked by pid).  A
# foreign listener on the port before the round is an error naming the port
# and its process, and no leg runs or is counted.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

# $1 name, $2 the server's argv as JSON, $3 ready timeout.
write_round() {
	local port
	port=$(free_port)
	cat >"$T/$1.json" <<EOF
{"name": "$1", "reps": 1, "baseline": "a",
 "command": ["true"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "srv", "server": {"cmd": $2,
            "ready": {"tcp_port": $port, "timeout_s": $3}}}],
 "quiet": false}
EOF
	echo "$port"
}

# Exits with status 3 before it is ready, leaving a child in its group.
write_round early "[\"sh\", \"-c\", \"echo \$\$\$\$ >>$T/early.pids; sleep 30 & echo \$! >>$T/early.pids; echo starting; exit 3\"]" 10 >/dev/null
"$BENCHTUI" run "$T/early.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
cat "$T/stdout"
[ "$rc" != 0 ] || fail "a server that died before it was ready: exit status 0"
grep -q "cell srv" "$T/stdout" || fail "the message does not name the cell"
grep -q "status 3" "$T/stdout" || fail "the message does not give the exit status"
grep -q "servers/srv.log" "$T/stdout" || fail "the message does not name the log"
grep -q starting "$T/out/servers/srv.log" || fail "the server's output is not in servers/srv.log"
[ -z "$(events leg_start)" ] || fail "a leg ran without its server"
assert_gone "$T/early.pids"

# Never listens: ready.timeout_s 1.
rm -rf "$T/out"
port=$(write_round never "[\"sh\", \"-c\", \"echo \$\$\$\$ >>$T/never.pids; exec sleep 30\"]" 1)
start=$(date +%s.%N)
"$BENCHTUI" run "$T/never.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$T/stdout"
[ "$rc" != 0 ] || fail "a server that never listened: exit status 0"
grep -q "cell srv" "$T/stdout" || fail "the message does not name the cell"
grep -q "127.0.0.1:$port" "$T/stdout" || fail "the message does not name the port"
grep -q "servers/srv.log" "$T/stdout" || fail "the message does not name the log"
awk -v t="$took" 'BEGIN { exit !(t < 10) }' || fail "took $took s to give up on a 1 s ready timeout"
[ -z "$(events leg_start)" ] || fail "a leg ran without its server"
assert_gone "$T/never.pids"

# Someone else listens on the port before the round: a server that would
# come up fine is never started against it.
rm -rf "$T/out"
port=$(write_round foreign "[\"sh\", \"-c\", \"echo \$\$\$\$ >>$T/foreign.pids; exec sleep 30\"]" 5)
python3 -c "import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(4); time.sleep(60)" &
holder=$!
OWN_PIDS+=("$holder")
for _ in $(seq 50); do
	grep -qi ":$(printf '%04X' "$port") 00000000:0000 0A" /proc/net/tcp && break
	sleep 0.1
done
"$BENCHTUI" run "$T/foreign.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
cat "$T/stdout"
kill "$holder"
[ "$rc" != 0 ] || fail "a foreign listener: exit status 0"
grep -q "port $port already has a listener before the server was started: it is held by pid $holder (python3)" "$T/stdout" ||
	fail "the message does not name the port and the holder"
[ -z "$(events leg_start)" ] || fail "a leg ran against a foreign listener"
[ -z "$(events leg)" ] || fail "a leg was counted against a foreign listener"
[ ! -e "$T/foreign.pids" ] || fail "the server was started anyway"
echo "ok"
