#!/bin/bash
# test:
# fail_on on a real round: `run --fail-on cpu:above` on a round with a
# clear slowdown (one arm runs the same small program doing 2.5 times the
# work) exits 6 and names the arm, the metric and the interval; without
# the slowdown it exits 0.  The round file's fail_on does the same, and
# report --fail-on reads the folder the same way.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_CMP_LOOP:?}" "${BENCHTUI_CMP_LOOP_SLOW:?}"

# round NAME SLOW_BIN [FAIL_ON_JSON]
round() {
	cat >"$tmp/$1.json" <<EOF2
{"name": "$1", "reps": 8, "command": ["\${BIN}"],
 "bin": "$BENCHTUI_CMP_LOOP", "baseline": "base", "quiet": false,
 "margin": 0.25, "counters": ["task-clock"], ${3:+\"fail_on\": $3,}
 "arms": [{"name": "base"}, {"name": "slow", "bin": "$2"}],
 "cells": [{"name": "c"}]}
EOF2
}
round slowdown "$BENCHTUI_CMP_LOOP_SLOW"
"$BENCHTUI" run "$tmp/slowdown.json" --out "$tmp/s" --headless --fail-on cpu:above \
    >"$tmp/s.out" 2>"$tmp/s.err"
rc=$?
[ $rc = 6 ] || { cat "$tmp/s.out" "$tmp/s.err"; fail "a slowdown: exit $rc, not 6"; }
grep -q 'c/slow cpu above: [0-9.]* \[[0-9.]*, [0-9.]*\] (fail_on cpu:above)' "$tmp/s.err" ||
	{ cat "$tmp/s.err"; fail "the message does not name arm, metric and interval"; }
[ -f "$tmp/s/SHA256SUMS" ] || fail "exit 6 but the round is not sealed"
"$BENCHTUI" report "$tmp/s" --fail-on slow/cpu:above >/dev/null 2>"$tmp/r.err"
rc=$?
[ $rc = 6 ] && grep -q 'c/slow cpu above' "$tmp/r.err" ||
	{ cat "$tmp/r.err"; fail "report --fail-on on the slowdown: exit $rc"; }
"$BENCHTUI" report "$tmp/s" --fail-on slow/cpu:below >/dev/null 2>&1 ||
	fail "report --fail-on slow/cpu:below matched"

round same "$BENCHTUI_CMP_LOOP"
"$BENCHTUI" run "$tmp/same.json" --out "$tmp/n" --headless --fail-on cpu:above \
    >"$tmp/n.out" 2>&1 || { cat "$tmp/n.out"; fail "no slowdown: exit $?, not 0"; }

# The round file's rule, as --fail-on's.
round filed "$BENCHTUI_CMP_LOOP_SLOW" '["slow/cpu:above"]'
"$BENCHTUI" check "$tmp/filed.json" | grep -q '^fail_on slow/cpu:above' ||
	fail "check does not print the round's fail_on"
"$BENCHTUI" run "$tmp/filed.json" --out "$tmp/f" --headless >/dev/null 2>"$tmp/f.err"
rc=$?
[ $rc = 6 ] || { cat "$tmp/f.err"; fail "the round file's fail_on: exit $rc"; }
# A rule naming an arm the round lacks is refused before anything runs.
"$BENCHTUI" run "$tmp/same.json" --out "$tmp/x" --headless --fail-on fast/cpu:above \
    >/dev/null 2>"$tmp/x.err"
rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x" ] && grep -q "no arm 'fast'" "$tmp/x.err" ||
	{ cat "$tmp/x.err"; fail "--fail-on with an unknown arm: exit $rc"; }
finish
