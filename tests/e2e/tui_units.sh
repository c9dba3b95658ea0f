#!/bin/bash
# test: tui
# A 12.7 ms leg reads 12.7ms in every view: the headless leg lines and
# summary, report text and markdown, summary.md, the console's legs table,
# ratios pane and leg details, and the summary the console leaves on
# quitting.  Counters read in their units too (task-clock in time, counts
# with k/M), never raw.
. "$(dirname "$0")/tui_lib.sh"

mkdir "$tmp/r"
cat >"$tmp/r/round.json" <<'EOF2'
{"name": "units", "reps": 6, "command": ["true"], "baseline": "a",
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}],
 "counters": ["task-clock", "page-faults"], "quiet": false}
EOF2
echo '{}' >"$tmp/r/environment.json"
sha=$(sha256sum "$tmp/r/round.json" | cut -d' ' -f1)
python3 - "$sha" >"$tmp/r/log.jsonl" <<'PY'
import json, sys
print(json.dumps({"t": "round", "ts": "2026-11-29T10:00:00.000Z", "name": "units",
                  "spec_sha256": sys.argv[1], "dir": "/x", "order": "mirror",
                  "counters": ["task-clock", "page-faults"]}))
seq = 0
for r in range(1, 7):
    for arm, w in (("a", 0.0127), ("b", 0.0254)):
        seq += 1
        print(json.dumps({"t": "leg", "ts": "2026-11-29T10:00:%02d.000Z" % seq,
            "cell": "c", "arm": arm, "rep": r, "seq": seq, "status": "ok", "rc": 0,
            "signal": None, "timed_out": False, "wall": w, "utime": w, "stime": 0,
            "cpu": w, "maxrss_kb": 2048, "cycles": None, "instructions": None,
            "counters": {"task-clock": 88144292, "page-faults": 2043},
            "bytes": None, "foreign": None, "bin": "/bin/true"}))
PY

# Headless: leg lines and the summary.
"$BENCHTUI" replay "$tmp/r/log.jsonl" --headless >"$tmp/headless" 2>&1
grep -q '^\[1\] c a r1 rc=0 wall=12.7ms cpu=12.7ms task-clock=88.1ms page-faults=2.04k$' \
    "$tmp/headless" && ok "headless leg line" ||
    fail "headless leg line: $(grep -m1 '^\[1\]' "$tmp/headless")"
grep -Eq '^    wall +25.4ms vs 12.7ms +b is 2.00x slower than a in wall' "$tmp/headless" &&
    ok "headless summary" || fail "headless summary: $(grep wall "$tmp/headless" | tail -1)"
grep -q 88144292 "$tmp/headless" && fail "a raw count in the headless output"

# report text and markdown, and summary.md of the sealed (partial) folder.
"$BENCHTUI" report "$tmp/r" >"$tmp/text" 2>/dev/null
grep -Eq '^    wall +25.4ms vs 12.7ms +b is 2.00x slower' "$tmp/text" &&
    ok "report text" || fail "report text: $(grep wall "$tmp/text" | head -2)"
"$BENCHTUI" report "$tmp/r" --format markdown >"$tmp/md" 2>/dev/null
grep -q '^| wall | 25.4ms | 12.7ms | b is 2.00x slower' "$tmp/md" &&
    ok "report markdown" || fail "report markdown: $(grep wall "$tmp/md" | head -2)"
cp -r "$tmp/r" "$tmp/s"
"$BENCHTUI" seal "$tmp/s" --partial >/dev/null 2>&1
grep -q '^| wall | 25.4ms | 12.7ms | b is 2.00x slower' "$tmp/s/summary.md" &&
    ok "summary.md" || fail "summary.md: $(grep wall "$tmp/s/summary.md" | head -2)"

# The console: the legs table, the ratios pane, the leg's details, and
# what it leaves on quitting.
start 100 30 "$BENCHTUI" --replay "$tmp/r/log.jsonl" --instant
wait_for 'Ratios' 10 || fail "no console"
s=$(screen)
grep -Eq '│c +a +6 +0 +12.7ms +12.7ms +88.1ms +2.04k +2.00MiB' <<<"$s" &&
    ok "legs table" || fail "legs table: $(grep -m1 '│c  *a ' <<<"$s")"
grep -Eq 'b vs a +wall +2.000 .* 25.4ms vs 12.7ms' <<<"$s" &&
    ok "ratios pane" || fail "ratios pane: $(grep -m1 'b vs a' <<<"$s")"
grep -q 88144292 <<<"$s" && fail "a raw count on the screen"
tm send-keys j Enter    # the newest leg is b's; a's is next
wait_for 'wall 12.7ms  cpu 12.7ms' 5 && ok "leg details" ||
    fail "leg details: $(screen | grep -m1 'wall')"
tm send-keys Escape q
wait_exit 10 >/dev/null
screen | grep -Eq '^    wall +25.4ms vs 12.7ms +b is 2.00x slower' &&
    ok "the summary on quitting" || fail "quit summary: $(screen | grep wall)"
finish
