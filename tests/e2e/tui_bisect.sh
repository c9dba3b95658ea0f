#!/bin/bash
# test: alone tui est=33 long
# The console shows the hunt: the step, the revisions left and each
# finished step's verdict in the header, the step's round live below;
# p pauses the step's round between legs and resumes it, and q then y
# stops it as it stops a round: the bisect exits 3, resumable.
. "$(dirname "$0")/tui_lib.sh"
. "$(dirname "$0")/bisect_lib.sh"

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
# Longer legs than the other bisect tests: time to see the step and act.
jq '.command = ["${BIN}", "60000000"] | .reps = {min: 40, max: 60,
	until: "decided", metric: "cpu"}' "$tmp/round.json" >"$tmp/r.json"
mv "$tmp/r.json" "$tmp/round.json"
start 160 30 "$BENCHTUI" bisect "$tmp/round.json" --repo "$tmp/repo" \
	--good c0 --bad c24 --build './build.sh ${OUT}' --out "$tmp/b"

wait_for 'bisect step 1 \(ends\) [0-9a-f]{10}  23 left of 24' 60 &&
	ok "the header shows the first step" || fail "no hunt header: $(screen | head -3)"
wait_for 'pid [0-9]+' 30 && ok "the step's round runs live" || fail "no running leg"
log=$(ls -d "$tmp/b/steps/"*/log.jsonl | head -1)
tm send-keys p
wait_for ' paused ' 30 && ok "p pauses" || fail "never paused"
n1=$(grep -c '"t":"leg"' "$log")
# Not a wait for something: the stretch over which nothing may happen.
sleep 2
n2=$(grep -c '"t":"leg"' "$log")
[ "$n1" = "$n2" ] && ok "no legs while paused" || fail "legs ran while paused ($n1 -> $n2)"
tm send-keys p
wait_for ' running ' 10 && ok "p resumes" || fail "never resumed"
# The next step's header lists the first step's verdict.
wait_for 'bisect step 2 \(step\) .*\| 1:[0-9a-f]{7} above' 120 &&
	ok "step 2 shows step 1's verdict" || fail "no verdict of step 1: $(screen | head -3)"
wait_for 'pid [0-9]+' 30
tm send-keys q
wait_for 'Quit|quit\?|Abort' 5 && ok "q asks" || fail "q did not ask: $(screen | tail -5)"
tm send-keys y
st=$(wait_exit 60)
[ "$st" = 3 ] && ok "q, y: exit 3" || fail "exit $st after q, y"
jq -e '.steps | length == 1' "$tmp/b/bisect.json" >/dev/null || fail "bisect.json: $(jq -c .steps "$tmp/b/bisect.json")"
[ ! -e "$tmp/b/SHA256SUMS" ] && ok "not sealed" || fail "sealed after a stop"
[ "$(git -C "$tmp/repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left"
finish
