#!/bin/bash
# test: timeout=60
# tools/commit-check passes a commit written as HACKING.md's History asks,
# and fails, naming the commit, a long subject, a subject without its
# area, a commit without a body, and a merge with a long subject (a merge
# whose subject fits passes, without an area or a body); a range whose
# base is missing (a shallow clone) still checks the commits there are.
set -u
src=${BENCHTUI_SOURCE_DIR:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }
command -v git >/dev/null || { echo "SKIP: no git"; exit 77; }

cd "$tmp" && git init -q . && git config user.email t@t && git config user.name t
commit() { echo "$RANDOM" >>f && git add f && git commit -q -m "$1" ${2:+-m "$2"}; }
commit "base: the start" "Why it starts."
base=$(git rev-parse HEAD)
commit "spawn: hold the child until released" "Because 1 in 20 Ctrl-Cs lost a leg."
check() { "$src/tools/commit-check" "$base..HEAD" >"$tmp/out" 2>&1; }
check || fail "a good commit refused: $(cat "$tmp/out")"

commit "spawn: $(printf 'x%.0s' $(seq 80))" "Why."
check && fail "an 87-character subject passed"
grep -q 'subject is 87 characters' "$tmp/out" || fail "no length named: $(cat "$tmp/out")"
git reset -q --hard HEAD~1

# A merge: held to the length, not to the area or a body.
git checkout -q -b side HEAD~1 && commit "spawn: on a side branch" "Why."
git checkout -q - && git merge -q --no-ff -m "Merge branch 'side': a side line" side
check || fail "a merge whose subject fits refused: $(cat "$tmp/out")"
git reset -q --hard HEAD~1
git merge -q --no-ff -m "Merge branch 'side': $(printf 'x%.0s' $(seq 70))" side
check && fail "a merge with a 91-character subject passed"
grep -q 'subject is 91 characters' "$tmp/out" || fail "no merge length named: $(cat "$tmp/out")"
git reset -q --hard HEAD~1

commit "spawn, leg: an area of two modules" "Why."
check || fail "a two-module area refused: $(cat "$tmp/out")"
git reset -q --hard HEAD~1

commit "hold the child until released, with no area" "Why."
check && fail "a subject without an area passed"
grep -q "not 'area: what changed'" "$tmp/out" || fail "no area named: $(cat "$tmp/out")"
git reset -q --hard HEAD~1

commit "spawn: no body"
check && fail "a commit without a body passed"
grep -q 'no body' "$tmp/out" || fail "no body named: $(cat "$tmp/out")"
# A missing base: the commits there are are checked, so the one without
# a body is named (an exit 1 for the range alone would not be).
"$src/tools/commit-check" "0123456789abcdef0123456789abcdef01234567..HEAD" >"$tmp/out" 2>&1 &&
	fail "a missing base checked nothing"
grep -q 'no body' "$tmp/out" || fail "a missing base: the commits were not checked: $(cat "$tmp/out")"
git reset -q --hard HEAD~1
check || fail "the good history again: $(cat "$tmp/out")"
[ $bad = 0 ] && echo "commit-check: all passed"
exit $bad
