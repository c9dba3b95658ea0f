#!/bin/bash
# test: asan-covered
# An abort (SIGTERM to a headless benchtui; or the signal named by $1, as
# hygiene_hangup.sh passes HUP for a terminal that closed) in the middle of
# a leg whose process and grandchild ignore SIGTERM, in a cell with a
# server: benchtui stops resumably (exit 3) and leaves none of them running.
set -u
sig=${1:-TERM}
. "$(dirname "$0")/hygiene_lib.sh"
[ "$sig" != HUP ] || need_hup

port=$(free_port)
cat >"$T/round.json" <<EOF
{"name": "abort", "reps": 1, "baseline": "a",
 "command": ["sh", "-c", "trap '' TERM; (trap '' TERM; exec sleep 60) & echo \$! >>$T/leg.pids; echo \$\$\$\$ >>$T/leg.pids; sleep 60"],
 "arms": [{"name": "a"}],
 $(net_cell),
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1 &
bt=$!
OWN_PIDS+=("$bt")
wait_until 10 lines_in "$T/leg.pids" 2 || fail "the leg did not start"
events server | jq -r 'select(.pid != null) | .pid' | sort -u >"$T/server.pids"
kill -"$sig" "$bt"
wait "$bt"
rc=$?
[ "$rc" = 3 ] || fail "expected exit status 3 after SIG$sig, got $rc"
assert_gone "$T/leg.pids" "$T/server.pids"
[ "$(events leg | jq -r .status)" = aborted ] || fail "the running leg is not recorded as aborted"
echo "ok"
