#!/bin/bash
# test: asan-covered
# kill -9 of benchtui in the middle of a leg: the leg's leader dies with it
# (PR_SET_PDEATHSIG), but what the leg forked stays in the leg's process
# group with no PDEATHSIG of its own.  resume must end that group before it
# goes on, and complete the round.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<EOF
{"name": "kill9", "reps": 1, "baseline": "a",
 "command": ["sh", "-c", "[ -e $T/first ] && exit 0; touch $T/first; sleep 60 & echo \$! >>$T/leg.pids; sleep 60"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": false}
EOF
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1 &
bt=$!
OWN_PIDS+=("$bt")
wait_until 10 lines_in "$T/leg.pids" 1 || fail "the leg did not start"
OWN_PIDS+=("$(cat "$T/leg.pids")")
kill -9 "$bt"
wait "$bt" 2>/dev/null
# Not a wait for something: the stretch in which a child that went with
# benchtui would be gone.
sleep 0.3
alive "$(cat "$T/leg.pids")" || fail "setup: the leg's child did not outlive benchtui"
"$BENCHTUI" resume "$T/out" --headless >>"$T/stdout" 2>&1
rc=$?
[ "$rc" = 0 ] || fail "resume: exit $rc, expected 0"
assert_gone "$T/leg.pids"
echo "ok"
