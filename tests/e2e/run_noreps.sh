#!/bin/bash
# test: needs=jq
# reps left out: the round is adaptive until decided, min 8 and max 40, on
# its headline metric (cpu here: no server), and check prints the rule.  b
# burns 1.5x a's CPU time (the drift program), so the cell stops at its
# first deciding look; a server round whose legs write ${METRICS} decides
# on requests/s instead (check only).
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DRIFT:?}"

jq -n --arg d "$BENCHTUI_DRIFT" --arg st "$tmp/state" '{
  name: "noreps",
  command: [$d, $st, "${BASE}"],
  baseline: "a",
  arms: [{name: "a", vars: {BASE: "20"}}, {name: "b", vars: {BASE: "30"}}],
  cells: [{name: "c"}], counters: ["task-clock"], quiet: false}' >"$tmp/nr.json"
"$BENCHTUI" check "$tmp/nr.json" >"$tmp/check.out" 2>&1 || fail "check: $(cat "$tmp/check.out")"
grep -q '^adaptive min 8 max 40 metric cpu$' "$tmp/check.out" ||
	fail "check: no adaptive rule: $(cat "$tmp/check.out")"
grep -q '^reps left out: each cell runs until every arm is decided .* on cpu' "$tmp/check.out" ||
	fail "check does not print the rule: $(cat "$tmp/check.out")"
grep -q '^looks 8 12 18 27 40 level 0.99$' "$tmp/check.out" ||
	fail "check: schedule: $(grep looks "$tmp/check.out")"
"$BENCHTUI" run --headless --out "$tmp/o" "$tmp/nr.json" >"$tmp/run.out" 2>"$tmp/run.err"
rc=$?
[ "$rc" -eq 0 ] || fail "run: exit $rc: $(cat "$tmp/run.err")"
log="$tmp/o/log.jsonl"
jq -c 'select(.t == "look")' "$log"
# Stopped at its first deciding look: every look before it undecided.
jq -s -e '[.[] | select(.t == "look")] | (last.decided == true) and
    ([.[:-1][] | .decided] | all(. == false))' "$log" >/dev/null ||
	fail "did not stop at the first deciding look"
last=$(jq -s '[.[] | select(.t == "look")] | last' "$log")
[ "$(jq -r .verdicts.b <<<"$last")" = above ] || fail "b not above at the deciding look: $last"
rep=$(jq -r .rep <<<"$last")
legs=$(jq -c 'select(.t == "leg")' "$log" | wc -l)
[ "$legs" -eq $((2 * rep)) ] || fail "$legs legs, want $((2 * rep)) (stopped at rep $rep)"

# A server round whose legs write ${METRICS}: requests/s.
jq -n '{name: "srv", command: ["/bin/true", "${METRICS}"], baseline: "a",
  arms: [{name: "a"}, {name: "b"}],
  cells: [{name: "c", server: {cmd: ["/bin/sleep", "9"],
    ready: {tcp_port: 47999}}}]}' >"$tmp/srv.json"
"$BENCHTUI" check "$tmp/srv.json" >"$tmp/srv.out" 2>&1 || fail "check srv: $(cat "$tmp/srv.out")"
grep -q '^adaptive min 8 max 40 metric rps$' "$tmp/srv.out" ||
	fail "a server round does not decide on rps: $(grep adaptive "$tmp/srv.out")"
echo ok
