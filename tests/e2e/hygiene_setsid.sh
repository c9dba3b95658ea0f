#!/bin/bash
# test: asan-covered
# A leg whose child escapes its process group and session with setsid(1)
# and ignores SIGTERM: killing the leg's group misses it, but benchtui (a
# subreaper that walks its own tree) ends it; it is gone when the round is.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
command -v setsid >/dev/null || { echo "SKIP: no setsid(1)"; exit 77; }

# The leg ends once its escaped child has written its pid.
cat >"$T/leg.sh" <<'EOF'
f=$1
n=$(cat "$f" 2>/dev/null | grep -c .)
setsid sh -c 'trap "" TERM; echo $$ >>"$1"; exec sleep 60' sh "$f" &
while [ "$(cat "$f" 2>/dev/null | grep -c .)" -le "$n" ]; do
	sleep 0.02
done
exit 0
EOF
cat >"$T/round.json" <<EOF
{"name": "escape", "reps": 2, "baseline": "a",
 "command": ["sh", "$T/leg.sh", "$T/escaped.pid"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c"}],
 "quiet": false}
EOF
run_round 0
[ "$(grep -c . "$T/escaped.pid" 2>/dev/null)" = 2 ] || fail "expected two escaped pids"
assert_gone "$T/escaped.pid"
[ "$(events leg | jq -r .status | sort -u)" = ok ] || fail "legs did not all succeed"
echo "ok"
