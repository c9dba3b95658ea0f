#!/bin/bash
# test:
# A cell server that dies in the middle of the cell (the first leg kills it
# by its pid, then ends once it is dead): that leg is recorded as failed,
# the round aborts resumably (exit 3) with a message naming the cell, the
# death is logged once (a "died" server event), and nothing is left running.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

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
# "$$" is a template escape: the shell's $$ is written $$$$.
cat >"$T/round.json" <<EOF
{"name": "dies", "reps": 2, "baseline": "a",
 "command": ["sh", "$T/leg.sh", "$T/server.pid"],
 "arms": [{"name": "a"}],
 $(net_cell "echo \$\$\$\$ >$T/server.pid; exec"),
 "quiet": false}
EOF
run_round 3   # aborted, resumable
grep -q "cell net" "$T/stdout" || fail "the message does not name the cell"
[ "$(events leg | grep -c .)" = 1 ] || fail "expected exactly one leg line"
[ "$(events leg | jq -r .status)" = failed ] || fail "the leg during which the server died is not failed"
[ -n "$(events abort)" ] || fail "no abort event"
[ "$(events server | jq -c 'select(.state == "died")' | grep -c .)" = 1 ] ||
    fail "expected exactly one server event with state died"
assert_gone "$T/server.pid"
echo "ok"
