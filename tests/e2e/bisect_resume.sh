#!/bin/bash
# test: alone measure est=25 long
# A bisect stopped mid-step resumes: SIGTERM stops it resumably (exit 3,
# the command to resume said), kill -9 mid-step leaves it as a crash
# would; resume DIR never runs a finished step again (its round folder
# and its line in bisect.json stay as they were), finishes the step in
# flight as a resumed round, and names the same culprit.
. "$(dirname "$0")/bisect_lib.sh"

bisect_repo "$tmp/repo"
bisect_round "$tmp/round.json"
culprit=$(bisect_rev "$tmp/repo" "c$BISECT_CULPRIT")
j="$tmp/b/bisect.json"

# mid_step K: bisect.json lists K steps or more, and the round of the
# step after them has run a leg.
mid_step() {
	local k d
	k=$(jq '.steps | length' "$j" 2>/dev/null) || return 1
	[ "${k:-0}" -ge "$1" ] || return 1
	[ "$(ls "$tmp/b/steps" | wc -l)" -gt "$k" ] || return 1
	d=$(ls -d "$tmp/b/steps/"* | sort | tail -1)
	grep -q '"t":"leg"' "$d/log.jsonl" 2>/dev/null
}

# finished: each finished step's line and its seal's hash.
finished() {
	local r
	jq -c '.steps[]' "$j"
	for r in $(jq -r '.steps[].round | strings' "$j"); do
		sha256sum "$tmp/b/$r/SHA256SUMS"
	done
}

# SIGTERM during a build (no round running) stops it resumably too.
printf '#!/bin/sh\ntouch "$2/../building"\nsleep 1\nexec ./build.sh "$1"\n' >"$tmp/slow.sh"
chmod +x "$tmp/slow.sh"
"$BENCHTUI" bisect "$tmp/round.json" --repo "$tmp/repo" --good c0 --bad c24 \
	--build "$tmp/slow.sh \${OUT} $tmp/b0" --out "$tmp/b0" --headless >"$tmp/out0" 2>&1 &
pid=$!
wait_until 30 test -e "$tmp/building" || fail "the build never began"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || fail "SIGTERM during a build: exit $rc, want 3: $(cat "$tmp/out0")"
[ ! -e "$tmp/b0/work" ] || fail "work/ left after a stop during a build"
[ "$(git -C "$tmp/repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left after a stop during a build"

"$BENCHTUI" bisect "$tmp/round.json" --repo "$tmp/repo" --good c0 --bad c24 \
	--build './build.sh ${OUT}' --out "$tmp/b" --headless >"$tmp/out1" 2>"$tmp/err1" &
pid=$!
wait_until 60 mid_step 1 || fail "never reached step 2"
kill -TERM "$pid"
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || fail "SIGTERM: exit $rc, want 3: $(cat "$tmp/err1")"
grep -q "resume with: benchtui resume $tmp/b" "$tmp/out1" || fail "no resume hint: $(cat "$tmp/out1")"
[ ! -e "$tmp/b/work" ] || fail "work/ left after a stop"
[ "$(git -C "$tmp/repo" worktree list | wc -l)" -eq 1 ] || fail "worktrees left after a stop"
finished >"$tmp/fin1"

"$BENCHTUI" resume --headless "$tmp/b" >"$tmp/out2" 2>"$tmp/err2" &
pid=$!
wait_until 60 mid_step 3 || fail "never reached step 4"
kill -KILL "$pid"
wait "$pid" 2>/dev/null
finished >"$tmp/fin2"
inflight=$(ls -d "$tmp/b/steps/"* | sort | tail -1)
[ ! -e "$inflight/SHA256SUMS" ] || echo "note: the step had sealed before the kill"

"$BENCHTUI" resume --headless "$tmp/b" >"$tmp/out3" 2>"$tmp/err3"
rc=$?
cat "$tmp/out1" "$tmp/out2" "$tmp/out3"
[ "$rc" -eq 0 ] || fail "resume: exit $rc: $(cat "$tmp/err3")"
[ "$(jq -r .culprit.revision "$j")" = "$culprit" ] ||
	fail "culprit $(jq -r .culprit.revision "$j"), want c$BISECT_CULPRIT"
finished >"$tmp/fin3"
for f in fin1 fin2; do
	n=$(grep -c '^{' "$tmp/$f")
	diff <(grep '^{' "$tmp/$f") <(grep '^{' "$tmp/fin3" | head -n "$n") >/dev/null ||
		fail "$f: a finished step changed or ran again"
	while read -r sum file; do
		[ "$(sha256sum "$file" | cut -d' ' -f1)" = "$sum" ] || fail "$file changed"
	done < <(grep -v '^{' "$tmp/$f")
done
# One round folder per step, no revision twice among the steps.
[ "$(ls "$tmp/b/steps" | wc -l)" -eq "$(jq '[.steps[].round | strings] | length' "$j")" ] ||
	fail "steps/ $(ls "$tmp/b/steps" | tr '\n' ' ') against bisect.json"
jq -e '[.steps[] | select(.kind == "step") | .revision] | length == (unique | length)' "$j" \
	>/dev/null || fail "a revision was tested twice"
# The step in flight at the kill was resumed as a round, not begun again.
if [ ! -e "$inflight/SHA256SUMS.before" ] && grep -q '"t":"resume"' "$inflight/log.jsonl"; then
	ok "the step in flight was resumed"
else
	grep -q '"t":"resume"' "$inflight/log.jsonl" || fail "$inflight: no resume event"
fi
"$BENCHTUI" verify "$tmp/b" >"$tmp/v" 2>&1 || fail "verify: $(cat "$tmp/v")"
finish
