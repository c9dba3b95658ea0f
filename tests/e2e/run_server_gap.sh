#!/bin/bash
# A cell server that dies between legs (here: while the round settles before
# the first leg) fails the round at once, before a leg runs against
# nothing: exit 3 (resumable), a message naming the cell, no leg line, and
# exactly one server event with state "died" (carrying its cause).  Then
# the same for a death seen after a leg (server_dies.sh's case): still one
# "died" event.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

port=$(free_port)
# The server exits on its own 1 s after it started; the round settles 2.5 s
# before each leg.
cat >"$T/round.json" <<EOF
{"name": "gap", "reps": 2, "baseline": "a", "settle_s": 2.5,
 "command": ["sh", "-c", "exit 0"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "net", "server": {
            "cmd": ["sh", "-c", "echo \$\$\$\$ >$T/server.pid; exec timeout -s KILL 1 '$BENCHTUI_DEMO' serve --port $port"],
            "ready": {"tcp_port": $port, "timeout_s": 10}}}],
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
cat "$T/stdout"
[ "$rc" = 3 ] || fail "expected exit status 3 (aborted, resumable), got $rc"
grep -q "cell net: the server died" "$T/stdout" || fail "the message does not name the cell"
[ -z "$(events leg)" ] || fail "a leg ran against a dead server"
[ -n "$(events abort)" ] || fail "no abort event"
[ "$(events server | jq -c 'select(.state == "died")' | grep -c .)" = 1 ] ||
    fail "expected exactly one server event with state died"
events server | jq -e 'select(.state == "died") | .msg | test("exited|signal")' >/dev/null ||
    fail "the died event has no cause"
assert_gone "$T/server.pid"

# Killed during the first leg: the leg is failed, and "died" is logged once.
rm -rf "$T/out" "$T/server.pid"
port=$(free_port)
# The leg kills the server, and ends once it is dead (a zombie, for
# benchtui to reap): SIGKILL is not instant.
cat >"$T/leg.sh" <<'EOF'
p=$(cat "$1")
kill -9 "$p"
while [ -d "/proc/$p" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$p/status"; do
	sleep 0.02
done
exit 0
EOF
cat >"$T/round.json" <<EOF
{"name": "dies", "reps": 2, "baseline": "a",
 "command": ["sh", "$T/leg.sh", "$T/server.pid"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "net", "server": {
            "cmd": ["sh", "-c", "echo \$\$\$\$ >$T/server.pid; exec '$BENCHTUI_DEMO' serve --port $port"],
            "ready": {"tcp_port": $port, "timeout_s": 10}}}],
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
[ "$rc" = 3 ] || fail "during a leg: expected exit status 3, got $rc"
[ "$(events server | jq -c 'select(.state == "died")' | grep -c .)" = 1 ] ||
    fail "during a leg: expected exactly one server event with state died"
assert_gone "$T/server.pid"
echo "ok"
