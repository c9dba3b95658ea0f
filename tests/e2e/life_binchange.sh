#!/bin/bash
# test life-binchange: est=2
# A resume with a binary that changed since the round started is warned
# about (sha256 against environment.json), in the log and on stderr, and
# the round still completes.  A resume with nothing changed warns nothing.
. "$(dirname "$0")/life_lib.sh"
set -m

cp "$BENCHTUI_DEMO" "$T/demo"
BENCHTUI_DEMO=$T/demo
export DEMO_SPIN_MS=300
make_round "$T/b.json" binchange 1 0   # 6 legs
dir=$T/round
log=$dir/log.jsonl

abort_after_first_leg() {
	wait_for_line "$log" '.t == "leg" and .status != "aborted"' 30 ||
		{ kill -9 $pid; cat "$T/out.txt"; fail "no leg finished"; }
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 3 ] || { cat "$T/out.txt"; fail "SIGINT: exit $rc, expected 3"; }
}

"$BENCHTUI" run "$T/b.json" --out "$dir" --headless >"$T/out.txt" 2>&1 &
pid=$!
abort_after_first_leg
jq -e '.bins | to_entries | map(select(.key | endswith("/demo"))) | length == 1' \
    "$dir/environment.json" >/dev/null ||
	fail "environment.json does not record the binary's sha256 under bins"

# Unchanged: resume (interrupted again) warns about no binary.
"$BENCHTUI" resume "$dir" --headless >"$T/out.txt" 2>&1 &
pid=$!
starts=$(jq -c 'select(.t == "leg_start")' "$log" | grep -c .)
wait_for_line "$log" ".t == \"resume\"" 30 || fail "no resume event"
jq -s -e 'map(select(.t == "resume")) | .[0].host | type == "object"' "$log" >/dev/null ||
	fail "the resume event does not carry the host facts"
# Its warnings come before its first leg: once that leg started, they are
# all in the log.
wait_count "$log" '.t == "leg_start"' $((starts + 1)) 30 ||
	{ kill -9 $pid; cat "$T/out.txt"; fail "the resume ran no leg"; }
kill -INT $pid
wait $pid
jq -s -e 'map(select(.t == "warning" and (.msg | test("changed")))) | length == 0' "$log" >/dev/null ||
	fail "a warning about a changed binary when nothing changed"

# Change the binary (one byte appended: still runs), resume to the end.
printf '\0' >>"$T/demo"
"$BENCHTUI" resume "$dir" --headless >"$T/out2.txt" 2>&1 ||
	{ cat "$T/out2.txt"; fail "resume with a changed binary did not complete"; }
jq -s -e 'map(select(.t == "warning" and (.msg | test("demo"))
    and (.msg | test("changed")))) | length == 1' "$log" >/dev/null || fail "no warning event naming the changed binary"
grep -q 'warning.*demo.*changed' "$T/out2.txt" ||
	{ cat "$T/out2.txt"; fail "no warning on stderr about the changed binary"; }
check_exactly_once "$log" 6
check_sealed "$dir"
exit 0
