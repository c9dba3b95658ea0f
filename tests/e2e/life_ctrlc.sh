#!/bin/bash
# test life-ctrlc: asan-covered est=10 long
# Ctrl-C at random moments, 50 times, in a round of 1 ms legs, each time
# followed by resume: a SIGINT to benchtui's process group also reaches a
# leg that is held before its exec (it is still in that group), and must
# neither kill it nor get it recorded as failed.  At the end every planned
# leg has exactly one line that is not aborted, it is ok, and its program
# ran (a mark it wrote); no leg is failed.  The kill times are drawn from
# a seed it prints (BENCHTUI_TEST_SEED=N replays them).
. "$(dirname "$0")/life_lib.sh"

# Job control: each background benchtui leads a process group of its own,
# which the test signals as a terminal's ^C does.
set -m

reps=1000
marks=$T/marks
cat >"$T/round.json" <<EOF
{"name": "ctrlc", "reps": $reps, "baseline": "a", "quiet": false,
 "counters": ["task-clock"], "fail_fast": 0,
 "command": ["/bin/sh", "-c", "echo \"\$0\" >>$marks", "\${CELL}-\${ARM}-\${REP}"],
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
dir=$T/round
seed_kills

legs_started() {
	local n
	n=$(grep -c '"t":"leg_start"' "$dir/log.jsonl" 2>/dev/null)
	echo "${n:-0}"
}
started_more() { [ "$(legs_started)" -gt "$before" ]; }

kills=0
cmd=(run "$T/round.json" --out "$dir")
while [ $kills -lt 50 ]; do
	before=$(legs_started)
	"$BENCHTUI" "${cmd[@]}" --headless >"$T/out.$kills" 2>&1 &
	pid=$!
	cmd=(resume "$dir")
	# Once this run has started a leg, a random moment among its legs
	# (polled every 10 ms: 1 ms legs go by fast).
	n=3000
	until started_more; do
		n=$((n - 1))
		[ $n -gt 0 ] || { kill -9 $pid; cat "$T/out.$kills"; fail "run $kills started no leg"; }
		sleep 0.01
	done
	sleep "0.0$((RANDOM % 60 + 10))"
	kill -INT -- -$pid 2>/dev/null
	wait $pid
	rc=$?
	kills=$((kills + 1))
	[ $rc -eq 3 ] && continue
	# Complete (5: with failed legs, which the checks below name).
	[ $rc -eq 0 ] || [ $rc -eq 5 ] && break
	cat "$T/out.$((kills - 1))"
	fail "Ctrl-C $kills: exit $rc, expected 3"
done
rc=0
[ -f "$dir/SHA256SUMS" ] || { "$BENCHTUI" resume "$dir" --headless >"$T/out.last" 2>&1; rc=$?; }
[ $rc -eq 0 ] || [ $rc -eq 5 ] || { tail -5 "$T/out.last"; fail "the last resume exited $rc"; }
echo "$kills Ctrl-Cs, $(grep -c '"t":"abort"' "$dir/log.jsonl") aborts logged"

log=$dir/log.jsonl
failed=$(jq -c 'select(.t == "leg" and .status == "failed") | [.arm, .rep, .signal, .rc]' "$log")
[ -z "$failed" ] || fail "legs recorded failed (none can fail): $failed"
check_exactly_once "$log" $((2 * reps))
jq -s -e 'all(.[] | select(.t == "leg" and .status != "aborted"); .status == "ok")' "$log" >/dev/null ||
	fail "a counted leg line is not ok: $(jq -c 'select(.t == "leg" and .status != "aborted" and .status != "ok") | [.arm, .rep, .status]' "$log" | head -3)"
# Every counted leg's program ran: its mark is there.
missing=$(jq -r 'select(.t == "leg" and .status == "ok") | "\(.cell)-\(.arm)-\(.rep)"' "$log" |
	sort -u | comm -23 - <(sort -u "$marks") | head -5)
[ -z "$missing" ] || fail "legs recorded ok that never ran: $missing"
# And no program ran more often than its leg was started.
over=$(join <(jq -r 'select(.t == "leg_start") | "\(.cell)-\(.arm)-\(.rep)"' "$log" | sort | uniq -c |
	awk '{ print $2, $1 }') <(sort "$marks" | uniq -c | awk '{ print $2, $1 }') |
	awk '$3 > $2' | head -3)
[ -z "$over" ] || fail "programs ran more often than their legs started: $over"
echo "ok: every leg ran and was counted once"
exit 0
