#!/bin/bash
# A cell server that dies in the middle of the cell (the first leg kills it
# by its pid, then runs on a little: SIGKILL is not instant): that leg is recorded as failed, the round aborts resumably
# (exit 3) with a message naming the cell, and nothing is left running.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

port=$(free_port)
# "$$" is a template escape: the shell's $$ is written $$$$.
cat >"$T/round.json" <<EOF
{"name": "dies", "reps": 2, "baseline": "a",
 "command": ["sh", "-c", "kill -9 \$(cat $T/server.pid); sleep 0.3; exit 0"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "net", "server": {
            "cmd": ["sh", "-c", "echo \$\$\$\$ >$T/server.pid; exec '$BENCHTUI_DEMO' serve --port $port"],
            "ready": {"tcp_port": $port, "timeout_s": 10}}}],
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1
rc=$?
cat "$T/stdout"
[ "$rc" = 3 ] || fail "expected exit status 3 (aborted, resumable), got $rc"
grep -q "cell net" "$T/stdout" || fail "the message does not name the cell"
[ "$(events leg | grep -c .)" = 1 ] || fail "expected exactly one leg line"
[ "$(events leg | jq -r .status)" = failed ] || fail "the leg during which the server died is not failed"
[ -n "$(events abort)" ] || fail "no abort event"
events server | jq -e 'select(.state == "died")' >/dev/null || fail "no server event with state died"
assert_gone "$T/server.pid"
echo "ok"
