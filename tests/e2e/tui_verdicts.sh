#!/bin/bash
# test: tui
# The ratios pane makes a verdict actionable: estimate, interval and verdict
# word, the ratios' min-max labelled as a range, BIASED on the cell's line
# and SUSPECT beside every verdict on a metric whose A/A arms differ, and
# "n < 6: no interval" while there are too few reps; ? help has the legend.
# A replay of a made-up log: aa reads 1.05x a every rep (biased wall), b
# 1.20x; cell d has 3 reps only.
. "$(dirname "$0")/tui_lib.sh"

mkdir "$tmp/r"
cat >"$tmp/r/round.json" <<'EOF2'
{"name": "verdicts", "reps": 6, "command": ["true"], "baseline": "a",
 "arms": [{"name": "a"}, {"name": "b"}, {"name": "aa", "aa_of": "a"}],
 "cells": [{"name": "c"}, {"name": "d"}], "counters": ["task-clock"], "quiet": false}
EOF2
echo '{}' >"$tmp/r/environment.json"
sha=$(sha256sum "$tmp/r/round.json" | cut -d' ' -f1)
python3 - "$sha" >"$tmp/r/log.jsonl" <<'PY'
import json, sys
print(json.dumps({"t": "round", "ts": "2026-11-29T10:00:00.000Z", "name": "verdicts",
                  "spec_sha256": sys.argv[1], "dir": "/x", "order": "mirror"}))
seq = 0
for cell, reps in (("c", 6), ("d", 3)):
    for r in range(1, reps + 1):
        for arm, f in (("a", 1.0), ("b", 1.2), ("aa", 1.05)):
            seq += 1
            w = (1 + 0.01 * r) * f
            print(json.dumps({"t": "leg", "ts": "2026-11-29T10:00:%02d.000Z" % (seq % 60),
                "cell": cell, "arm": arm, "rep": r, "seq": seq, "status": "ok", "rc": 0,
                "signal": None, "timed_out": False, "wall": w, "utime": w, "stime": 0,
                "cpu": w, "cycles": None, "instructions": None,
                "counters": {"task-clock": w * 1000}}))
PY
start 120 60 "$BENCHTUI" --replay "$tmp/r/log.jsonl" --instant
wait_for 'Ratios' 10 || fail "no console"
s=$(screen)
grep -Eq '^│c .*BIASED: cpu, task-clock, wall' <<<"$s" && ok "BIASED on the cell's line" ||
	fail "no BIASED line: $(grep -m1 '^│c ' <<<"$s")"
# Every metric shows the arms' medians, in the units of every view.
grep -Eq 'b vs a +wall +1\.200 \[1\.200, 1\.200\] +above +SUSPECT +[0-9.]+m?s vs [0-9.]+m?s' <<<"$s" &&
	ok "estimate, interval, verdict, SUSPECT and the medians" ||
	fail "b's wall line: $(grep -m1 'b vs a  *wall' <<<"$s")"
grep -Eq 'b vs a +task-clock +1\.200 \[1\.200, 1\.200\] +above +SUSPECT +[0-9.]+us vs [0-9.]+us' <<<"$s" &&
	ok "and task-clock's medians in time" ||
	fail "b's task-clock line: $(grep -m1 'b vs a  *task-clock' <<<"$s")"
grep -Eq 'b vs a +wall +1\.200 n < 6: no interval +unknown' <<<"$s" &&
	ok "n < 6: no interval" || fail "no 'n < 6: no interval' for cell d"
tm send-keys '?'
wait_for 'same: within the margin +above / below: the interval is' 5 &&
	screen | grep -q 'undecided: more reps would tell' &&
	ok "the legend in ? help" || fail "no verdict legend in ? help"
tm send-keys q q
finish
