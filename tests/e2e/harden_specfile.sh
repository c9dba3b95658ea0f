#!/bin/bash
# test:
# round.json is read-only from the start, and a round file changed during
# the round is never sealed as if it were the round: the seal refuses,
# naming the mismatch, and so does report (whose arms come from it).
. "$(dirname "$0")/life_lib.sh"

cat >"$T/r.json" <<EOF
{
  "name": "spec", "reps": 1, "quiet": false,
  "counters": ["task-clock"],
  "command": ["/bin/sh", "-c", "stat -c %a \${ROUND_DIR}/round.json; if [ -n \"\$EDIT_SPEC\" ] && [ \${ARM} = b ]; then chmod u+w \${ROUND_DIR}/round.json; sed -i 's/\"b\"/\"bb\"/' \${ROUND_DIR}/round.json; fi"],
  "baseline": "a",
  "arms": [{"name": "a"}, {"name": "b"}],
  "cells": [{"name": "c"}]
}
EOF

"$BENCHTUI" run "$T/r.json" --out "$T/d1" --headless >"$T/run1.out" 2>&1 ||
	{ cat "$T/run1.out"; fail "plain run failed"; }
[ "$(cat "$T/d1/legs/c-a-r1.out")" = 444 ] ||
	fail "round.json was not read-only while the legs ran: mode $(cat "$T/d1/legs/c-a-r1.out")"
check_sealed "$T/d1"

EDIT_SPEC=1 "$BENCHTUI" run "$T/r.json" --out "$T/d2" --headless >"$T/run2.out" 2>&1
rc=$?
[ $rc -eq 1 ] || { cat "$T/run2.out"; fail "round.json changed mid-round: exit $rc, expected 1"; }
grep -q 'round.json: changed during the round' "$T/run2.out" ||
	{ cat "$T/run2.out"; fail "the refusal does not name round.json"; }
[ ! -e "$T/d2/SHA256SUMS" ] || fail "a round whose round.json changed was sealed"
"$BENCHTUI" report "$T/d2" >"$T/rep2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/rep2.out"; fail "report of a changed round.json: exit $rc, expected 2"; }
grep -q 'round.json: changed since the round started' "$T/rep2.out" ||
	{ cat "$T/rep2.out"; fail "report does not name the mismatch"; }
"$BENCHTUI" seal "$T/d2" --partial >"$T/seal2.out" 2>&1 &&
	{ cat "$T/seal2.out"; fail "seal --partial sealed a changed round.json"; }
exit 0
