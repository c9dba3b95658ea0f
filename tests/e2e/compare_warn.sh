#!/bin/bash
# test: needs=jq,sha256sum
# compare carries report's warnings of each folder, and a partial seal,
# into its header (text, markdown) and its json and csv: a resealed
# folder with a repeated leg line, a wall of 1e308, a rep outside the
# plan and an arm not in round.json is named, not compared in silence;
# a folder with fewer legs than its plan (seal --partial) says so.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<EOF2
{"name": "w", "reps": 4, "command": ["/bin/true"], "baseline": "base",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "other"}], "cells": [{"name": "c"}]}
EOF2
"$BENCHTUI" run "$tmp/r.json" --out "$tmp/a" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "run a"; finish; }
# reseal DIR: SHA256SUMS made again over a hand-edited folder, as anyone
# can; the seal then verifies and only the content can tell.
reseal() {
	(cd "$1" && find . -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' |
	    LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
}
cp -r "$tmp/a" "$tmp/b"
chmod -R u+w "$tmp/b"
leg=$(grep '"t":"leg"' "$tmp/b/log.jsonl" | grep '"arm":"other"' | head -1)
{
	echo "$leg"
	echo "$leg" | sed 's/"rep":[0-9]*/"rep":99/'
	echo "$leg" | sed 's/"arm":"other"/"arm":"zz"/'
} >>"$tmp/b/log.jsonl"
sed -i '0,/"wall":[0-9.e-]*/s//"wall":1e308/' "$tmp/b/log.jsonl"
reseal "$tmp/b"
"$BENCHTUI" verify "$tmp/b" >/dev/null || fail "the resealed folder does not verify"

"$BENCHTUI" report "$tmp/b" --format json | jq -c .warnings >"$tmp/rep.w"
for w in 'more than one counted leg line' 'rep 99: a leg line outside the plan' \
    'zz rep 1: a leg line of a cell or arm that is not in round.json' \
    'wall 1e+308 is not a value a leg can have'; do
	grep -q "$w" "$tmp/rep.w" || fail "report does not warn: $w"
done
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format json >"$tmp/cmp.json" 2>/dev/null ||
	fail "compare a b: exit $?"
[ "$(jq -c .rounds.b.warnings "$tmp/cmp.json")" = "$(cat "$tmp/rep.w")" ] &&
	ok "compare's json holds report's warnings of B, the same list" ||
	fail "compare json rounds.b.warnings: $(jq -c .rounds.b "$tmp/cmp.json")"
jq -e '.rounds.a.partial == false and .rounds.b.legs_total == 8' \
    "$tmp/cmp.json" >/dev/null || fail "rounds: partial or legs_total wrong"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" >"$tmp/cmp.txt" 2>&1
grep -q '^warnings of B (as report gives them):' "$tmp/cmp.txt" &&
    grep -q 'rep 99: a leg line outside the plan' "$tmp/cmp.txt" &&
    grep -q 'wall 1e+308 is not a value' "$tmp/cmp.txt" ||
	{ cat "$tmp/cmp.txt"; fail "the text header lacks B's warnings"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format csv >"$tmp/cmp.csv" 2>/dev/null
head -1 "$tmp/cmp.csv" | grep -q ',verdict,note$' || fail "csv header has no note"
grep -q '^[^,]*,[^,]*,,,,warning_b,.*more than one counted leg line' "$tmp/cmp.csv" ||
	fail "csv has no warning_b row"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format markdown 2>/dev/null |
    grep -q '^- c zz rep 1: a leg line of a cell or arm' ||
	fail "markdown lacks B's warnings"

# Fewer legs than the plan: compare says B is partial.
cp -r "$tmp/a" "$tmp/p"
chmod -R u+w "$tmp/p"
grep -v '"rep":4' "$tmp/a/log.jsonl" >"$tmp/p/log.jsonl"
reseal "$tmp/p"
"$BENCHTUI" compare "$tmp/a" "$tmp/p" >"$tmp/p.txt" 2>&1
grep -q '^B is partial: 6 of 8 planned legs counted' "$tmp/p.txt" ||
	{ cat "$tmp/p.txt"; fail "the text does not say B is partial"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/p" --format json 2>/dev/null |
    jq -e '.rounds.b.partial == true and .rounds.b.legs_counted == 6' >/dev/null ||
	fail "json rounds.b.partial"
"$BENCHTUI" compare "$tmp/a" "$tmp/p" --format csv 2>/dev/null |
    grep -q ',partial_b,.*B is partial: 6 of 8' || fail "csv partial_b row"
finish
