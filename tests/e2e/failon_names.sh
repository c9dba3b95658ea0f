#!/bin/bash
# test: needs=jq
# A fail_on rule that could never fire is refused wherever a rule is
# read, with the nearest name: a misspelt metric (wal) or an arm no round
# has (zz) in run --fail-on, the round file's fail_on (check names it and
# does not print it as armed), report --fail-on and compare --fail-on.
# A comma makes a list: 'wall:below,wall:unknown' is two rules, the
# second of which matches.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<EOF2
{"name": "f", "reps": 3, "command": ["/bin/true"], "baseline": "base",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "other"}], "cells": [{"name": "c"}]}
EOF2
# refused WHAT EXPECT CMD...: exit 2, EXPECT on stderr.
refused() {
	local what=$1 want=$2
	shift 2
	"$@" >"$tmp/out" 2>"$tmp/err"
	local rc=$?
	[ $rc = 2 ] && grep -qF -- "$want" "$tmp/err" && ok "$what refused" ||
		{ cat "$tmp/err"; fail "$what: exit $rc, not 2 with: $want"; }
}
refused "run --fail-on wal:above" "'wal:above': \"wal\" is not a metric of this round (did you mean \"wall\"?)" \
    "$BENCHTUI" run "$tmp/r.json" --out "$tmp/x" --headless --fail-on wal:above
[ ! -e "$tmp/x/log.jsonl" ] || fail "run began a round for a rule that cannot fire"
refused "run --fail-on zz/wall:above" "the round has no arm 'zz'" \
    "$BENCHTUI" run "$tmp/r.json" --out "$tmp/x" --headless --fail-on zz/wall:above

jq '.fail_on = ["other/wal:above"]' "$tmp/r.json" >"$tmp/bad.json"
refused "fail_on in the round file" "fail_on[0]: 'other/wal:above': \"wal\" is not a metric" \
    "$BENCHTUI" check "$tmp/bad.json"
grep -q '^fail_on' "$tmp/out" && fail "check printed the misspelt rule as armed"

"$BENCHTUI" run "$tmp/r.json" --out "$tmp/a" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "run a"; finish; }
cp -r "$tmp/a" "$tmp/b"
refused "report --fail-on wal:above" "the round has no metric 'wal' (did you mean \"wall\"?)" \
    "$BENCHTUI" report "$tmp/a" --fail-on wal:above
refused "report --fail-on zz/wall:above" "the round has no arm 'zz' with verdicts" \
    "$BENCHTUI" report "$tmp/a" --fail-on zz/wall:above
refused "compare --fail-on wal:above" "neither round has a metric 'wal' (did you mean \"wall\"?)" \
    "$BENCHTUI" compare "$tmp/a" "$tmp/b" --fail-on wal:above
refused "compare --fail-on zz/wall:above" "neither round has an arm 'zz'" \
    "$BENCHTUI" compare "$tmp/a" "$tmp/b" --fail-on zz/wall:above
refused "an empty rule in a list" "an empty rule in a list" \
    "$BENCHTUI" report "$tmp/a" --fail-on 'wall:below,'

# A list: 3 reps give no interval, so wall is unknown and the second
# rule of the list matches (exit 6).
"$BENCHTUI" report "$tmp/a" --fail-on 'wall:below,wall:unknown' >/dev/null 2>"$tmp/l.err"
rc=$?
[ $rc = 6 ] && grep -q 'c/other wall unknown: .*(fail_on wall:unknown)' "$tmp/l.err" &&
    ok "a comma list is two rules" || { cat "$tmp/l.err"; fail "a list: exit $rc"; }
jq '.fail_on = ["wall:below,cpu:below"]' "$tmp/r.json" >"$tmp/list.json"
"$BENCHTUI" check "$tmp/list.json" 2>/dev/null | grep -q '^fail_on wall:below cpu:below ' ||
	fail "check does not list the two rules of a list"
finish
