#!/bin/bash
# test:
# report: nothing to report is an error (not "round null" with exit 0); leg
# lines outside the plan and values no leg can have are named in the
# warnings and counted nowhere (the arithmetic is in the tally unit test).
. "$(dirname "$0")/life_lib.sh"

"$BENCHTUI" report /dev/null >"$T/o1" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/o1"; fail "report /dev/null: exit $rc, expected 2"; }
grep -q 'no legs' "$T/o1" || { cat "$T/o1"; fail "report /dev/null does not say 'no legs'"; }
! grep -q 'round null' "$T/o1" || fail "report /dev/null reports a round named null"

echo '{"t":"round","name":"r","reps":1}' >"$T/only.jsonl"
"$BENCHTUI" report "$T/only.jsonl" >"$T/o2" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'no legs' "$T/o2" || { cat "$T/o2"; fail "a log without legs: exit $rc"; }

cat >"$T/log.jsonl" <<'EOF'
{"t":"round","name":"r","reps":2}
{"t":"leg","cell":"c","arm":"a","rep":1,"status":"ok","wall":1}
{"t":"leg","cell":"c","arm":"b","rep":1,"status":"ok","wall":2}
{"t":"leg","cell":"c","arm":"a","rep":2,"status":"ok","wall":1}
{"t":"leg","cell":"c","arm":"b","rep":2,"status":"ok","wall":1e308}
{"t":"leg","cell":"c","arm":"a","rep":3,"status":"ok","wall":1}
{"t":"leg","cell":"c","arm":"b","rep":3,"status":"ok","wall":9}
EOF
"$BENCHTUI" report "$T/log.jsonl" --format json >"$T/r.json" 2>"$T/r.err" ||
	{ cat "$T/r.err"; fail "report of a log with odd lines failed"; }
[ "$(jq .legs_counted "$T/r.json")" -eq 4 ] || fail "legs_counted $(jq .legs_counted "$T/r.json"), expected 4"
[ "$(jq '.cells.c.arms.b.metrics.wall.n' "$T/r.json")" -eq 1 ] || fail "a wall of 1e308 was used"
jq -r '.warnings[]' "$T/r.json" | grep -q 'c b rep 3: a leg line outside the plan' ||
	{ jq .warnings "$T/r.json"; fail "rep 3 is not named as outside the plan"; }
jq -r '.warnings[]' "$T/r.json" | grep -q 'c b rep 2: wall 1e+308 is not a value' ||
	{ jq .warnings "$T/r.json"; fail "wall 1e308 is not named"; }
exit 0
