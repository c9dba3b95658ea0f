#!/bin/bash
# test: est=3
# A cell server that dies between legs (here: while the round settles before
# the first leg) fails the round at once, before a leg runs against
# nothing: exit 3 (resumable), a message naming the cell, no leg line, and
# exactly one server event with state "died" (carrying its cause).  A
# death during a leg is server_dies.sh's case.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

port=$(free_port)
# The server exits on its own 1 s after it started; the round settles 2.5 s
# before each leg.
cat >"$T/round.json" <<EOF
{"name": "gap", "reps": 2, "baseline": "a", "settle_s": 2.5,
 "command": ["sh", "-c", "exit 0"],
 "arms": [{"name": "a"}],
 $(net_cell "echo \$\$\$\$ >$T/server.pid; exec timeout -s KILL 1"),
 "quiet": false}
EOF
run_round 3   # aborted, resumable
grep -q "cell net: the server died" "$T/stdout" || fail "the message does not name the cell"
[ -z "$(events leg)" ] || fail "a leg ran against a dead server"
[ -n "$(events abort)" ] || fail "no abort event"
[ "$(events server | jq -c 'select(.state == "died")' | grep -c .)" = 1 ] ||
    fail "expected exactly one server event with state died"
events server | jq -se 'map(select(.state == "died")) | length == 1 and
    (.[0].msg | test("exited|signal"))' >/dev/null ||
    fail "the died event has no cause"
assert_gone "$T/server.pid"

echo "ok"
