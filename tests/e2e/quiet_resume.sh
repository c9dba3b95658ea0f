#!/bin/bash
# test: est=3
# budget_s is the whole round's, across a resume.  A gate that can never
# open (max_foreign_cores 0) and budget_s 2; the first leg hangs and is
# aborted (SIGINT to benchtui, by its pid: exit 3), after its wait spent
# the budget.  resume then runs every leg without waiting again: the
# resumed legs are all gate "budget", their waits (start-up look
# included) far under another budget's worth.  Deterministic on a busy
# box.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<EOF
{"name": "resume", "reps": 3, "baseline": "a",
 "command": ["sh", "-c", "test -e '$T/marker' && exit 0; touch '$T/marker'; exec sleep 60"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 0, "window_ms": 200, "timeout_s": 600,
           "budget_s": 2}}
EOF
started() { [ -f "$T/out/log.jsonl" ] && grep -q '"t":"leg_start"' "$T/out/log.jsonl"; }
"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1 &
bt=$!
OWN_PIDS+=("$bt")
wait_until 60 started || fail "the first leg never started"
kill -INT "$bt"
wait "$bt"
rc=$?
[ "$rc" = 3 ] || fail "the aborted round exited $rc, not 3"
first=$(events leg | jq -s '.[0].wait_s')
awk -v w="$first" 'BEGIN { exit !(w >= 1.9) }' || fail "the first leg waited $first s"
n0=$(grep -c . "$T/out/log.jsonl")
"$BENCHTUI" resume "$T/out" --headless >"$T/stdout" 2>&1 || fail "resume: exit $?"
rest=$(tail -n +"$((n0 + 1))" "$T/out/log.jsonl" | jq -c 'select(.t == "leg")')
[ "$(echo "$rest" | grep -c .)" = 6 ] || fail "resume ran $(echo "$rest" | grep -c .) legs, not 6"
[ "$(echo "$rest" | jq -r .gate | sort -u)" = budget ] ||
	fail "resumed legs are not all gate budget"
waited=$(echo "$rest" | jq -s 'map(.wait_s) | add')
awk -v w="$waited" 'BEGIN { exit !(w < 1.0) }' ||
	fail "the resumed legs waited $waited s: the budget was spent before"
echo "ok: first leg waited $first s; the resumed ones $waited s in all"
