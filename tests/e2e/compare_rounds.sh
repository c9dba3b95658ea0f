#!/bin/bash
# test: est=3 needs=jq,sha256sum
# benchtui compare on two real rounds of this box: the same round run
# twice, the "changed" arm's binary replaced between the runs by a copy of
# the same small program doing 2.5 times the work.  The changed arm reads
# above for cpu, and so does its effect (its ratio to the unchanged arm,
# B's against A's); the unchanged arm's ratio is at most 1/1.5 of the
# changed one's; and the header's differences are exactly the changed
# binary's sha256.  (The unchanged arm's own verdict is not asserted: the
# two rounds run at different moments, and whatever else the box runs
# then moves every leg of a round alike, by 5-10% on this VM, where a
# guest's task-clock counts the time its vcpu was stolen.  With 8 reps of
# a 9 ms leg compare rightly reads such a shift "above" at times; the
# effect, read inside each round where the arms alternate, does not see
# it.  Runs beside others for the same reason.)  Then the
# refusals: a changed seal (exit 4, naming the file), an unsealed folder
# (exit 2, suggesting --partial), a folder that is not a round, two rounds
# with nothing in common; a different margin said in the header; the
# formats; --fail-on (exit 6).
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_CMP_LOOP:?}" "${BENCHTUI_CMP_LOOP_SLOW:?}"

cp "$BENCHTUI_CMP_LOOP" "$tmp/base"
cp "$BENCHTUI_CMP_LOOP" "$tmp/changed"
# round NAME [CELL [MARGIN]]: the round file
round() {
	cat >"$tmp/$1.json" <<EOF2
{"name": "$1", "reps": 8, "command": ["\${BIN}"], "bin": "$tmp/base",
 "baseline": "base", "quiet": false, "margin": ${3:-0.25},
 "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "changed", "bin": "$tmp/changed"}],
 "cells": [{"name": "${2:-c}"}]}
EOF2
}
run() {
	"$BENCHTUI" run "$tmp/$1.json" --out "$tmp/$2" --headless \
	    >"$tmp/$2.out" 2>&1 || { cat "$tmp/$2.out"; fail "run $2 failed"; }
}
round cmp
run cmp a
cp "$BENCHTUI_CMP_LOOP_SLOW" "$tmp/changed"
run cmp b

"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format json >"$tmp/cmp.json" \
    2>"$tmp/cmp.err" || { cat "$tmp/cmp.err"; fail "compare a b: exit $?"; }
v() { jq -r ".cells.c.arms.$1.metrics.cpu.verdict" "$tmp/cmp.json"; }
case $(v changed) in
above) ok "the changed arm reads above for cpu" ;;
*) fail "the changed arm reads '$(v changed)' for cpu, not above" ;;
esac
e() { jq -r ".cells.c.arms.$1.metrics.cpu.estimate" "$tmp/cmp.json"; }
awk -v b="$(e base)" -v c="$(e changed)" 'BEGIN { exit !(b > 0 && c / b >= 1.5) }' &&
	ok "the unchanged arm's ratio $(e base) against the changed one's $(e changed)" ||
	fail "the unchanged arm's ratio $(e base) is not below the changed one's $(e changed) / 1.5"
sha_a=$(sha256sum <"$BENCHTUI_CMP_LOOP" | cut -d' ' -f1)
sha_b=$(sha256sum <"$BENCHTUI_CMP_LOOP_SLOW" | cut -d' ' -f1)
want=$(jq -nc --arg k "bin:$tmp/changed" --arg a "$sha_a" --arg b "$sha_b" \
    '{($k): [$a, $b]}')
got=$(jq -c '.env.differ' "$tmp/cmp.json")
[ "$got" = "$want" ] && ok "the header's differences: exactly the changed sha256" ||
	fail "env.differ is $got, expected $want"
jq -e '.env.same["bin:'"$tmp"'/base"] == "'"$sha_a"'" and .env.same.kernel != null
    and .only_a == [] and .only_b == []
    and (.cells.c.arms.changed.effect.cpu.verdict == "above")
    and (.cells.c.arms.base.effect == null)
    and .level == 0.95 and .margin == 0.25' "$tmp/cmp.json" >/dev/null ||
	fail "compare json: same, only lists, effect or settings wrong"
# The text names the changed binary with both sha256 in 80 columns.
"$BENCHTUI" compare "$tmp/a" "$tmp/b" >"$tmp/cmp.txt" || fail "compare text"
grep -q "bin:$tmp/changed" "$tmp/cmp.txt" && grep -q "A $sha_a" "$tmp/cmp.txt" &&
    grep -q "B $sha_b" "$tmp/cmp.txt" || fail "the text does not name the changed sha256"
awk -v t="$tmp" 'length($0) > 80 && index($0, t) == 0 { bad = 1; print }
    END { exit bad }' "$tmp/cmp.txt" || fail "text lines past 80 columns"
grep -Eq '^  changed/cpu +8/8 .* above$' "$tmp/cmp.txt" || fail "no text row for changed/cpu"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format csv >"$tmp/cmp.csv" &&
    grep -q '^[^,]*,[^,]*,c,changed,cpu,metric,8,8,' "$tmp/cmp.csv" &&
    grep -q ',c,changed,cpu,effect,8,8,' "$tmp/cmp.csv" || fail "csv rows"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format markdown | grep -q '^| changed | cpu | 8 | 8 |' ||
	fail "markdown row"

# --fail-on: the slowdown matches (6, named with its interval); what did
# not happen (the changed arm faster) does not.
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --fail-on changed/cpu:above >/dev/null 2>"$tmp/f.err"
rc=$?
[ $rc = 6 ] && grep -q 'c/changed cpu above: [0-9.]* \[[0-9.]*, [0-9.]*\]' "$tmp/f.err" ||
	{ cat "$tmp/f.err"; fail "--fail-on changed/cpu:above: exit $rc"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --fail-on changed/cpu:below >/dev/null 2>&1 ||
	fail "--fail-on changed/cpu:below matched a slower arm"

# A changed seal: exit 4, naming the file.
cp -r "$tmp/b" "$tmp/tampered"
chmod -R u+w "$tmp/tampered"
sed -i '0,/"cpu":/s/"cpu":/"cpu": 1e-3, "x":/' "$tmp/tampered/log.jsonl"
"$BENCHTUI" compare "$tmp/a" "$tmp/tampered" >/dev/null 2>"$tmp/t.err"
rc=$?
[ $rc = 4 ] && grep -q 'tampered: the seal does not verify (changed: log.jsonl)' "$tmp/t.err" ||
	{ cat "$tmp/t.err"; fail "a changed seal: exit $rc"; }
# Unsealed: exit 2 suggesting --unsealed, which reads it (and so does
# its old spelling --partial).
cp -r "$tmp/b" "$tmp/unsealed"
chmod -R u+w "$tmp/unsealed"
rm "$tmp/unsealed/SHA256SUMS"
"$BENCHTUI" compare "$tmp/a" "$tmp/unsealed" >/dev/null 2>"$tmp/u.err"
rc=$?
[ $rc = 2 ] && grep -q 'not sealed.*--unsealed' "$tmp/u.err" ||
	{ cat "$tmp/u.err"; fail "an unsealed folder: exit $rc"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/unsealed" --unsealed >"$tmp/p.txt" 2>&1 &&
    grep -q 'B (.*unsealed) is not sealed: read as it is' "$tmp/p.txt" ||
	{ cat "$tmp/p.txt"; fail "--unsealed does not read an unsealed folder"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/unsealed" --partial >"$tmp/p2.txt" 2>&1 &&
    cmp -s "$tmp/p.txt" "$tmp/p2.txt" ||
	{ cat "$tmp/p2.txt"; fail "--partial is not --unsealed's old spelling"; }
# Not a round: exit 2 naming what is missing.
mkdir "$tmp/empty"
"$BENCHTUI" compare "$tmp/a" "$tmp/empty" 2>"$tmp/e.err" >/dev/null
rc=$?
[ $rc = 2 ] && grep -q 'empty: not a round folder: no round.json, no environment.json, no log.jsonl' "$tmp/e.err" ||
	{ cat "$tmp/e.err"; fail "not a round: exit $rc"; }
# Nothing in common: exit 2 saying so.
round other d
run other o
"$BENCHTUI" compare "$tmp/a" "$tmp/o" 2>"$tmp/n.err" >/dev/null
rc=$?
[ $rc = 2 ] && grep -q 'no cell, arm and metric in common' "$tmp/n.err" ||
	{ cat "$tmp/n.err"; fail "nothing in common: exit $rc"; }
# Another margin: A's applies, and the header says so.
round wide c 0.5
run wide w
"$BENCHTUI" compare "$tmp/a" "$tmp/w" >"$tmp/w.txt" 2>&1 &&
    grep -q "note: the rounds' margin differs (A 0.25, B 0.5): A's applies" "$tmp/w.txt" &&
    grep -q 'margin 25%' "$tmp/w.txt" || { cat "$tmp/w.txt"; fail "a different margin"; }
# Usage.
"$BENCHTUI" compare "$tmp/a" 2>/dev/null; [ $? = 2 ] || fail "one folder: not exit 2"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --fail-on cpu:worse 2>/dev/null; [ $? = 2 ] ||
	fail "a bad --fail-on: not exit 2"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --confidence 1 2>/dev/null; [ $? = 2 ] ||
	fail "--confidence 1: not exit 2"
finish
