#!/bin/bash
# test: alone measure est=20 long
# bisect on a repository of 24 commits where one (c11) makes the hot
# function 8% slower in cpu and two later ones change other code only:
# the culprit is named within ceil(log2 24) + 2 steps plus the
# confirmation, bisect.json lists every step (each a sealed round),
# verify passes on the folder, and the repository's own worktree and
# worktree list are as they were.
. "$(dirname "$0")/bisect_lib.sh"

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
culprit=$(bisect_rev "$tmp/repo" "c$BISECT_CULPRIT")
bisect_headless "$tmp/b"
rc=$?
[ "$rc" -eq 0 ] || fail "exit $rc, want 0: $(cat "$tmp/err")"
j="$tmp/b/bisect.json"
[ "$(jq -r .culprit.revision "$j")" = "$culprit" ] ||
	fail "culprit $(jq -r .culprit.revision "$j"), want c$BISECT_CULPRIT $culprit"
[ "$(jq -r .culprit.parent "$j")" = "$(bisect_rev "$tmp/repo" "c$((BISECT_CULPRIT - 1))")" ] ||
	fail "parent: $(jq -c .culprit "$j")"
jq -e '.culprit.estimate > 1 and .culprit.ci[0] > 1 and .culprit.confirmed' "$j" >/dev/null ||
	fail "culprit's estimate and interval: $(jq -c .culprit "$j")"
steps=$(jq '[.steps[] | select(.kind != "confirm")] | length' "$j")
[ "$steps" -le 7 ] || fail "$steps steps before the confirmation, want <= ceil(log2 24) + 2 = 7"
jq -e '.steps[-1].kind == "confirm" and .steps[-1].revision == .culprit.revision' "$j" \
	>/dev/null || fail "the last step is not the confirmation"
# Every step: its fields, its round sealed, one headless line.
n=$(jq '.steps | length' "$j")
jq -e '[.steps[] | has("revision", "round", "verdict", "estimate", "ci", "reps", "wall_s")]
	| all' "$j" >/dev/null || fail "a step lacks a field: $(jq -c .steps "$j")"
for r in $(jq -r '.steps[].round' "$j"); do
	[ -f "$tmp/b/$r/SHA256SUMS" ] || fail "$r: not a sealed round"
	"$BENCHTUI" verify "$tmp/b/$r" >/dev/null || fail "$r: verify"
done
[ "$(ls "$tmp/b/steps" | wc -l)" -eq "$n" ] || fail "steps/ holds $(ls "$tmp/b/steps"), bisect.json $n steps"
[ "$(grep -c '^step ' "$tmp/out")" -eq "$n" ] || fail "want one line per step ($n)"
grep -q "^culprit: $culprit" "$tmp/out" || fail "no culprit line"
"$BENCHTUI" verify "$tmp/b" >"$tmp/v" 2>&1 || fail "verify: $(cat "$tmp/v")"
grep -q "OK: .* files, $n step rounds" "$tmp/v" || fail "verify: $(cat "$tmp/v")"
# Tamper with a step's verdict: verify names it.
chmod u+w "$tmp/b/steps" "$tmp/b/bisect.json"
echo ' ' >>"$tmp/b/bisect.json"
"$BENCHTUI" verify "$tmp/b" >"$tmp/v" 2>&1
[ $? -eq 4 ] && grep -q bisect.json "$tmp/v" || fail "verify missed a changed bisect.json: $(cat "$tmp/v")"
# Worktrees and builds gone; the repository's own untouched.
[ ! -e "$tmp/b/work" ] || fail "work/ left behind"
[ "$(git -C "$tmp/repo" worktree list | wc -l)" -eq 1 ] ||
	fail "worktrees left: $(git -C "$tmp/repo" worktree list)"
[ -z "$(git -C "$tmp/repo" status --porcelain)" ] || fail "the repository's worktree changed"
[ "$(git -C "$tmp/repo" rev-parse HEAD)" = "$(bisect_rev "$tmp/repo" c24)" ] || fail "HEAD moved"
# A finished bisect is not resumed.
"$BENCHTUI" resume --headless "$tmp/b" >/dev/null 2>"$tmp/rerr"
[ $? -eq 2 ] && grep -q sealed "$tmp/rerr" || fail "resume of a finished bisect: $(cat "$tmp/rerr")"
finish
