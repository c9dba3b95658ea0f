#!/bin/bash
# test: alone measure est=7
# bisect over a range with no regression (after the culprit: two commits
# change other code only): exit 7 with every step's verdict, in
# bisect.json and a line each, and the folder sealed.
. "$(dirname "$0")/bisect_lib.sh"

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
bisect_headless "$tmp/b" --good "c$BISECT_CULPRIT"
rc=$?
cat "$tmp/err"
[ "$rc" -eq 7 ] || fail "exit $rc, want 7"
j="$tmp/b/bisect.json"
jq -e '.culprit == null and .exit == 7 and (.steps | length) >= 1 and
	([.steps[] | .verdict | strings] | length) == (.steps | length) and
	.steps[0].kind == "ends" and .steps[0].verdict != "above"' "$j" >/dev/null ||
	fail "bisect.json: $(jq -c '{culprit, exit, steps}' "$j")"
[ "$(grep -c '^step ' "$tmp/out")" -eq "$(jq '.steps | length' "$j")" ] ||
	fail "want one line per step"
grep -q 'not worse than the good end' "$tmp/err" || fail "no message: $(cat "$tmp/err")"
"$BENCHTUI" verify "$tmp/b" >"$tmp/v" 2>&1 || fail "verify: $(cat "$tmp/v")"
finish
