#!/bin/bash
# test: asan-covered needs=jq
# Loud failures: a round that completes with failed legs is sealed and exits
# 5, naming how many failed, where, and the first failing leg's output file;
# fail_fast stops a round whose arm fails its first N legs in a cell,
# resumably (exit 3), naming the arm, the cell and the end of the leg's
# output; "fail_fast": 0 runs on and exits 5.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_SOURCE_DIR:?}"

# tests/data/failures/some.json: arm b fails in rep 2 only (FAIL_REP), a never.
cp "$BENCHTUI_SOURCE_DIR/tests/data/failures/some.json" "$tmp/"
"$BENCHTUI" run --headless --out "$tmp/some" "$tmp/some.json" >"$tmp/some.out" 2>"$tmp/some.err"
rc=$?
[ "$rc" -eq 5 ] || fail "failed legs: exit $rc, want 5 ($(cat "$tmp/some.err"))"
[ -f "$tmp/some/SHA256SUMS" ] || fail "failed legs: the round is not sealed"
grep -q '1 leg failed or timed out (cell c 1' "$tmp/some.err" ||
	fail "exit 5 message lacks the count and the cell: $(cat "$tmp/some.err")"
grep -q "$tmp/some/legs/c-b-r2.out" "$tmp/some.err" ||
	fail "exit 5 message lacks the first failing leg's output file"
"$BENCHTUI" verify "$tmp/some" >/dev/null 2>&1 || fail "failed legs: verify fails"

# The missing input file: every leg of arm b fails; fail_fast (default 2)
# stops the round after b's second leg, resumably.
cp "$BENCHTUI_SOURCE_DIR/tests/data/failures/ff.json" "$tmp/"
"$BENCHTUI" run --headless --out "$tmp/ff" "$tmp/ff.json" >"$tmp/ff.out" 2>"$tmp/ff.err"
rc=$?
[ "$rc" -eq 3 ] || fail "fail_fast: exit $rc, want 3 ($(cat "$tmp/ff.err"))"
grep -q 'fail_fast: arm b failed its first 2 legs in cell c' "$tmp/ff.err" ||
	fail "fail_fast message lacks the arm and cell: $(cat "$tmp/ff.err")"
grep -q '| cannot open input.bin' "$tmp/ff.err" ||
	fail "fail_fast message lacks the end of the leg's output"
grep -q "resume with: benchtui resume $tmp/ff" "$tmp/ff.err" ||
	fail "fail_fast: no resume hint"
[ -f "$tmp/ff/SHA256SUMS" ] && fail "fail_fast: the round was sealed"
legs=$(jq -c 'select(.t == "leg")' "$tmp/ff/log.jsonl" | wc -l)
# mirror: rep 1 runs a, b; rep 2 runs b first.
[ "$legs" -eq 3 ] || fail "fail_fast: $legs legs ran, want 3 (a1 b1 b2)"
jq -se '[.[] | select(.t == "abort")] | length == 1 and
	(.[0].reason | test("fail_fast: arm b"))' "$tmp/ff/log.jsonl" >/dev/null ||
	fail "fail_fast: not one abort event naming it: $(jq -c 'select(.t == "abort")' "$tmp/ff/log.jsonl")"

# fail_fast 0: never stops; all 12 legs, sealed, exit 5.
jq '.fail_fast = 0' "$tmp/ff.json" >"$tmp/ff0.json"
"$BENCHTUI" run --headless --out "$tmp/ff0" "$tmp/ff0.json" >"$tmp/ff0.out" 2>"$tmp/ff0.err"
rc=$?
[ "$rc" -eq 5 ] || fail "fail_fast 0: exit $rc, want 5"
grep -q '6 legs failed or timed out (cell c 6' "$tmp/ff0.err" ||
	fail "fail_fast 0: message: $(cat "$tmp/ff0.err")"

finish
