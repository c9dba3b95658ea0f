#!/bin/bash
# test: est=6 needs=jq
# Adaptive reps: looks at min, each 1.5x growth and max, each a look event
# at the Bonferroni level; the cell stops at the first look where every arm
# that is not an A/A copy is decided, the report uses that level, and the
# round is complete (not partial) with fewer legs than max would take.
# b burns 1.5x a's CPU time (the drift program, tests/e2e/drift.c).
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DRIFT:?}"

jq -n --arg d "$BENCHTUI_DRIFT" --arg st "$tmp/state" '{
  name: "adaptive",
  reps: {min: 8, max: 40, until: "decided", metric: "cpu"},
  command: ["sh", "-c", "exec \"$0\" \"$1\" \"$BASE\"", $d, $st],
  baseline: "a",
  arms: [{name: "a", env: {BASE: "20"}}, {name: "b", env: {BASE: "30"}},
         {name: "aa", aa_of: "a"}],
  cells: [{name: "c"}, {name: "d"}], counters: ["task-clock"], quiet: false}' >"$tmp/ad.json"
"$BENCHTUI" check "$tmp/ad.json" >"$tmp/check.out" 2>&1 || fail "check: $(cat "$tmp/check.out")"
grep -q '^looks 8 12 18 27 40 level 0.99$' "$tmp/check.out" ||
	fail "check: schedule: $(grep looks "$tmp/check.out")"
"$BENCHTUI" run --headless --out "$tmp/o" "$tmp/ad.json" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
[ "$rc" -eq 0 ] || fail "run: exit $rc: $(cat "$tmp/run.err")"
log="$tmp/o/log.jsonl"
jq -c 'select(.t == "look")' "$log"
last=$(jq -s '[.[] | select(.t == "look" and .cell == "c")] | last' "$log")
[ "$(jq -r .decided <<<"$last")" = true ] || fail "never decided: $last"
[ "$(jq -r .verdicts.b <<<"$last")" = above ] || fail "b not above at the last look: $last"
[ "$(jq -r .level <<<"$last")" = 0.99 ] || fail "look level: $last"
jq -s -e '[.[] | select(.t == "look" and .cell == "c") | .rep] | . == [8, 12, 18, 27, 40][:length]' "$log" >/dev/null ||
	fail "looks not on the schedule"
rep=$(jq -r .rep <<<"$last")
legs=$(jq -c 'select(.t == "leg" and .cell == "c")' "$log" | wc -l)
[ "$legs" -eq $((3 * rep)) ] || fail "$legs legs, want $((3 * rep)) (stopped at rep $rep)"
[ "$rep" -lt 40 ] || fail "did not stop before max"
jq -e '.partial == false and .level == 0.99 and .legs_total == .legs_counted' \
	"$tmp/o/summary.json" >/dev/null || fail "summary: $(jq -c '{partial, level, legs_total, legs_counted}' "$tmp/o/summary.json")"
jq -e '.cells.c.look.decided' "$tmp/o/summary.json" >/dev/null || fail "summary: no cell look"

# Resume after cell c was decided and cell d had begun (the log cut after
# d's first leg, as a kill would leave it): c runs no rep past its
# deciding look, d runs to its own, each planned leg exactly once.
mkdir "$tmp/r"
cp "$tmp/o/round.json" "$tmp/o/environment.json" "$tmp/r/"
chmod -R u+w "$tmp/r"
first_d=$(grep -n '"t":"leg".*"cell":"d"' "$log" | head -1 | cut -d: -f1)
head -n "$first_d" "$log" >"$tmp/r/log.jsonl"
mkdir "$tmp/r/legs" "$tmp/r/servers"
"$BENCHTUI" resume --headless "$tmp/r" >"$tmp/r.out" 2>"$tmp/r.err" ||
	fail "resume: exit $?: $(cat "$tmp/r.err")"
rlog="$tmp/r/log.jsonl"
[ "$(jq -c 'select(.t == "leg" and .cell == "c")' "$rlog" | wc -l)" -eq $((3 * rep)) ] ||
	fail "resume ran legs of the decided cell c"
jq -s -e '[.[] | select(.t == "leg") | "\(.cell) \(.arm) \(.rep)"] |
    (length == (unique | length))' "$rlog" >/dev/null || fail "resume: a leg ran twice"
jq -s -e '[.[] | select(.t == "look" and .cell == "d")] | last | .decided' "$rlog" >/dev/null ||
	fail "resume: cell d not decided"
jq -e '.partial == false' "$tmp/r/summary.json" >/dev/null || fail "resume: summary partial"

finish
