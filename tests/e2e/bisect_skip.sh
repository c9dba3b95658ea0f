#!/bin/bash
# test: alone measure est=20 long
# bisect where the commit after the culprit does not build: that commit
# is skipped (its step says build-failed, its build log kept), and the
# culprit is still named.
. "$(dirname "$0")/bisect_lib.sh"

broken=$((BISECT_CULPRIT + 1))
bisect_repo "$tmp/repo" "$broken"
bisect_round "$tmp/round.json"
culprit=$(bisect_rev "$tmp/repo" "c$BISECT_CULPRIT")
skipped=$(bisect_rev "$tmp/repo" "c$broken")
bisect_headless "$tmp/b"
rc=$?
[ "$rc" -eq 0 ] || fail "exit $rc, want 0: $(cat "$tmp/err")"
j="$tmp/b/bisect.json"
[ "$(jq -r .culprit.revision "$j")" = "$culprit" ] ||
	fail "culprit $(jq -r .culprit.revision "$j"), want c$BISECT_CULPRIT"
jq -e --arg s "$skipped" '[.steps[] | select(.revision == $s)] |
	length == 1 and .[0].verdict == "build-failed" and .[0].mark == "skip" and
	.[0].round == null' "$j" >/dev/null ||
	fail "c$broken not skipped once as build-failed: $(jq -c .steps "$j")"
grep -q 'does not compile' "$tmp/b/builds/$skipped.log" || fail "no build log of c$broken"
steps=$(jq '[.steps[] | select(.kind != "confirm")] | length' "$j")
[ "$steps" -le 8 ] || fail "$steps steps before the confirmation"
"$BENCHTUI" verify "$tmp/b" >"$tmp/v" 2>&1 || fail "verify: $(cat "$tmp/v")"
finish
