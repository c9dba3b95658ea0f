#!/bin/bash
# test: needs=jq
# "estimator": "floor" from the round file to every reader: check names a
# misspelt or mistyped estimator with the valid values (exit 2) and prints
# the chosen one; an adaptive run's looks decide by the floor verdict (as
# the reference computes it from the log at the look's level and reps);
# the round event, report json (estimator, verdicts, alt), a bare copy of
# the log, and the text report's "(paired)" row where the two disagree.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_LOOP:?}"

base() {
	jq -n --arg l "$BENCHTUI_LOOP" '{
	  name: "floorrun",
	  reps: {min: 6, max: 20, until: "decided", metric: "cpu"},
	  command: [$l, "${N}"], baseline: "a",
	  arms: [{name: "a", vars: {N: "2000000"}}, {name: "b", vars: {N: "3000000"}},
	         {name: "aa", aa_of: "a"}], cells: [{name: "c"}],
	  counters: ["task-clock"], quiet: false}'
}

# Bad input: a misspelling, a number, then the valid field.
base | jq '.estimator = "flor"' >"$tmp/bad.json"
"$BENCHTUI" check "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ "$rc" -eq 2 ] || fail "misspelt estimator: exit $rc"
grep -q 'estimator: must be "paired" or "floor", not "flor"' "$tmp/err" ||
	fail "misspelt estimator: $(cat "$tmp/err")"
base | jq '.estimator = 1' >"$tmp/bad.json"
"$BENCHTUI" check "$tmp/bad.json" >"$tmp/out" 2>"$tmp/err" && fail "estimator 1 passed check"
grep -q 'estimator: must be "paired" or "floor", not an integer' "$tmp/err" ||
	fail "estimator 1: $(cat "$tmp/err")"
base | jq '.estimator = "floor"' >"$tmp/r.json"
"$BENCHTUI" check "$tmp/r.json" >"$tmp/check.out" 2>"$tmp/err" || fail "check: $(cat "$tmp/err")"
grep -qx 'estimator floor' "$tmp/check.out" || fail "check does not print the estimator"
base >"$tmp/p.json"
"$BENCHTUI" check "$tmp/p.json" 2>/dev/null | grep -qx 'estimator paired' ||
	fail "check: the default is not paired"

"$BENCHTUI" run --headless --out "$tmp/o" "$tmp/r.json" >"$tmp/run.out" 2>"$tmp/run.err" ||
	fail "run: exit $?: $(cat "$tmp/run.err")"
log="$tmp/o/log.jsonl"
jq -s -e 'map(select(.t == "round"))[0].estimator == "floor"' "$log" >/dev/null ||
	fail "round event without the estimator"
# Each look's verdicts are the floor's at the look's level over its reps.
PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$log" <<'PY' || fails=$((fails + 1))
import json, sys
import stats_ref
ev = [json.loads(l) for l in open(sys.argv[1])]
cpu = {(e["arm"], e["rep"]): e["cpu"] for e in ev if e["t"] == "leg"}
looks = [e for e in ev if e["t"] == "look"]
bad = 0
for lk in looks:
    reps = range(1, lk["rep"] + 1)
    b = [cpu["b", r] for r in reps]
    a = [cpu["a", r] for r in reps]
    _, ci = stats_ref.floor_interval(b, a, lk["level"])
    want = stats_ref.verdict(ci, 0.01)
    if lk["verdicts"]["b"] != want:
        print("FAIL look at rep %d: %s, the floor says %s" % (lk["rep"], lk["verdicts"]["b"], want))
        bad += 1
print("looks:", [(lk["rep"], lk["verdicts"]["b"]) for lk in looks])
if not looks or looks[-1]["verdicts"]["b"] != "above":
    print("FAIL b not decided above: %s" % looks[-1:])
    bad += 1
sys.exit(1 if bad else 0)
PY
"$BENCHTUI" report "$tmp/o" --format json >"$tmp/rep.json" || fail "report failed"
jq -e '.estimator == "floor" and (.cells | to_entries[0].value.arms.b.metrics.cpu |
    .verdict == "above" and .alt.estimator == "paired" and
    (.alt | has("estimate") and has("ci") and has("verdict")))' "$tmp/rep.json" >/dev/null ||
	fail "report json: $(jq -c '.estimator, (.cells | to_entries[0].value.arms.b.metrics.cpu)' "$tmp/rep.json")"
# A bare copy of the log reports by the same estimator.
cp "$log" "$tmp/bare.jsonl"
"$BENCHTUI" report "$tmp/bare.jsonl" --aa aa=a --format json | jq -e '.estimator == "floor"' >/dev/null ||
	fail "a bare log lost the estimator"

# The text report: a "(paired)" row under a metric exactly where the
# paired verdict differs.  A log made to disagree: b's floor 5% up, its
# typical leg lost in bursts.
python3 - "$tmp/dis.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    f.write(json.dumps({"t": "round", "name": "dis", "level": 0.95,
                        "margin": 0.01, "estimator": "floor"}) + "\n")
    for r in range(1, 21):
        noise_a = 3.0 if r % 3 == 0 else 1.0
        noise_b = 3.0 if r % 3 == 1 else 1.0 + 0.001 * r
        for arm, v in (("a", noise_a), ("b", 1.05 * noise_b)):
            f.write(json.dumps({"t": "leg", "cell": "c", "arm": arm, "rep": r,
                                "status": "ok", "rc": 0, "wall": v}) + "\n")
PY
"$BENCHTUI" report "$tmp/dis.jsonl" >"$tmp/dis.txt" || fail "report text failed"
cat "$tmp/dis.txt"
grep -q '^estimator floor' "$tmp/dis.txt" || fail "text: no estimator line"
grep -A1 '^    wall ' "$tmp/dis.txt" | grep -q '^      (paired) .* undecided$' ||
	fail "text: no (paired) row under wall"
[ "$(grep -c '^      (paired)' "$tmp/dis.txt")" -eq 1 ] || fail "text: a (paired) row where they agree"
"$BENCHTUI" report "$tmp/dis.jsonl" --format markdown | grep -q '| \*\*above\*\* (paired: undecided ' ||
	fail "markdown: no paired verdict beside the floor one"
finish
