#!/bin/bash
# test: tui needs=jq
# A leg's output file is made only when the leg writes its first byte: a
# silent leg leaves no file (and so no inode), its line still says
# output_bytes 0; a leg that writes gets legs/CELL-ARM-rREP.out, the name
# its leg_start gives.  The readers cope: report, verify and a resume
# (whose rerun of an aborted leg that now writes nothing leaves no stale
# file), the exit-5 message, and the console's Enter on a silent leg.
. "$(dirname "$0")/tui_lib.sh"

cat >"$tmp/lazy.json" <<'EOF'
{"name": "lazy", "reps": 2, "baseline": "quiet", "quiet": false,
 "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "[ \"$0\" = quiet ] || echo said $0", "${ARM}"],
 "arms": [{"name": "quiet"}, {"name": "talk"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$tmp/lazy.json" --out "$tmp/o" --headless >"$tmp/run.out" 2>&1 ||
	fail "run: $(tail -3 "$tmp/run.out")"
log=$tmp/o/log.jsonl
for r in 1 2; do
	[ ! -e "$tmp/o/legs/c-quiet-r$r.out" ] || fail "a silent leg left legs/c-quiet-r$r.out"
	grep -qx 'said talk' "$tmp/o/legs/c-talk-r$r.out" 2>/dev/null ||
		fail "legs/c-talk-r$r.out lacks the leg's output"
done
jq -s -e '[.[] | select(.t == "leg" and .arm == "quiet")] | length == 2 and
	all(.output_bytes == 0)' "$log" >/dev/null || fail "the silent legs' lines lack output_bytes 0"
jq -s -e '[.[] | select(.t == "leg_start")] | all(.out == "legs/\(.cell)-\(.arm)-r\(.rep).out")' \
	"$log" >/dev/null || fail "leg_start does not name legs/CELL-ARM-rREP.out"
ok "silent legs leave no file, talking ones their SPEC name"
"$BENCHTUI" verify "$tmp/o" >"$tmp/verify" 2>&1 && ok "verify passes" ||
	fail "verify: $(cat "$tmp/verify")"
"$BENCHTUI" report "$tmp/o" >"$tmp/report" 2>&1 && ok "report reads it" ||
	fail "report: $(cat "$tmp/report")"

# A failing silent leg: the exit-5 message names no missing file.
jq '.command = ["/bin/sh", "-c", "exit 1"] | .fail_fast = 0' "$tmp/lazy.json" >"$tmp/fail.json"
"$BENCHTUI" run "$tmp/fail.json" --out "$tmp/f" --headless >"$tmp/fail.out" 2>&1
rc=$?
[ $rc -eq 5 ] && grep -q 'left no output file' "$tmp/fail.out" &&
	ok "exit 5 says the failing leg left no output file" ||
	fail "exit $rc: $(grep 'benchtui:' "$tmp/fail.out")"

# Resume: an aborted attempt that wrote, rerun silent, leaves no file.
cat >"$tmp/abort.json" <<EOF
{"name": "ab", "reps": 1, "baseline": "a", "quiet": false,
 "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "if [ ! -e $tmp/once ]; then : >$tmp/once; echo first; sleep 30; fi"],
 "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
set -m
"$BENCHTUI" run "$tmp/abort.json" --out "$tmp/a" --headless >"$tmp/ab.out" 2>&1 &
pid=$!
wait_until 30 test -s "$tmp/a/legs/c-a-r1.out" || fail "the first attempt wrote nothing"
kill -INT $pid
wait $pid
"$BENCHTUI" resume "$tmp/a" --headless >"$tmp/ab2.out" 2>&1 || fail "resume: $(tail -3 "$tmp/ab2.out")"
[ ! -e "$tmp/a/legs/c-a-r1.out" ] && ok "the silent rerun left no stale file" ||
	fail "the aborted attempt's output stayed: $(cat "$tmp/a/legs/c-a-r1.out")"
set +m

# The console: Enter on a silent leg says it wrote nothing.
start 110 40 "$BENCHTUI" --replay "$tmp/f" --instant
wait_for 'round complete' 20 || fail "the replay never ended"
tm send-keys Enter
wait_for 'output: none \(the leg wrote nothing\)' 5 && ok "Enter: the leg wrote nothing" ||
	fail "Enter on a silent leg: $(screen | grep -i output)"
tm send-keys Escape
tm send-keys q
finish
