#!/bin/bash
# test: needs=jq
# fail_fast across resumes: the legs an arm failed before its cause was
# fixed do not keep counting, so once the cause is fixed one resume
# completes the round (it used to stop again after every leg: a 10-leg
# round needed 4 resumes); and fail_fast does not stop a round that has
# nothing left to run (it completes, sealed, exit 5).  The stop message is
# printed once, and with output.keep "none" it names no output file.
. "$(dirname "$0")/e2e_lib.sh"

# Arm b needs input.bin in the workdir (the round file's folder).
cat >"$tmp/ff.json" <<'EOF'
{"name": "ff", "reps": 5, "baseline": "a", "quiet": false,
 "counters": ["task-clock"],
 "command": ["sh", "-c", "if [ -n \"$NEED\" ] && [ ! -e \"$NEED\" ]; then echo \"cannot open $NEED\" >&2; exit 1; fi"],
 "arms": [{"name": "a"}, {"name": "b", "env": {"NEED": "input.bin"}}],
 "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$tmp/ff.json" --out "$tmp/o" --headless >"$tmp/1.out" 2>"$tmp/1.err"
rc=$?
[ $rc -eq 3 ] || fail "run: exit $rc, want 3 (fail_fast): $(cat "$tmp/1.err")"
n=$(grep -c 'fail_fast: arm b failed its first 2 legs in cell c' "$tmp/1.err")
[ "$n" -eq 1 ] && ok "the fail_fast message is printed once" ||
	fail "the fail_fast message is printed $n times: $(cat "$tmp/1.err")"
grep -q '| cannot open input.bin' "$tmp/1.err" || fail "no output tail: $(cat "$tmp/1.err")"

# The cause fixed: one resume runs the rest.
: >"$tmp/input.bin"
"$BENCHTUI" resume "$tmp/o" --headless >"$tmp/2.out" 2>"$tmp/2.err"
rc=$?
[ $rc -eq 5 ] && [ -f "$tmp/o/SHA256SUMS" ] &&
	ok "one resume after the fix completes the round (exit 5: 2 legs failed before)" ||
	fail "the resume after the fix: exit $rc: $(cat "$tmp/2.err")"
jq -s -e '[.[] | select(.t == "leg" and .status != "aborted")] | length == 10' \
	"$tmp/o/log.jsonl" >/dev/null || fail "not 10 legs recorded"

# Nothing left to run: b's second failure is the round's last leg
# (arms b, a; mirror: r1 b a, r2 a b).  Also keep: none.
jq '.reps = 2 | .arms = [.arms[1], .arms[0]] | .output = {"keep": "none"}' \
	"$tmp/ff.json" >"$tmp/last.json"
rm -f "$tmp/input.bin"
"$BENCHTUI" run "$tmp/last.json" --out "$tmp/last" --headless >"$tmp/3.out" 2>"$tmp/3.err"
rc=$?
[ $rc -eq 5 ] && [ -f "$tmp/last/SHA256SUMS" ] &&
	ok "fail_fast does not stop a round with nothing left to run" ||
	fail "the last leg tripped fail_fast: exit $rc: $(cat "$tmp/3.err")"

# keep: none and a leg still to run: the message names no output file.
jq '.output = {"keep": "none"}' "$tmp/ff.json" >"$tmp/none.json"
"$BENCHTUI" run "$tmp/none.json" --out "$tmp/none" --headless >"$tmp/4.out" 2>"$tmp/4.err"
rc=$?
[ $rc -eq 3 ] || fail "keep none: exit $rc, want 3"
grep -q 'fail_fast: arm b' "$tmp/4.err" || fail "keep none: no fail_fast message: $(cat "$tmp/4.err")"
grep -q '\.out' "$tmp/4.err" && fail "keep none: the message names an output file never written: $(cat "$tmp/4.err")"
grep -q 'output.keep is "none"' "$tmp/4.err" && ok "keep none: it says the output was not kept" ||
	fail "keep none: the message does not say the output was not kept: $(cat "$tmp/4.err")"
finish
