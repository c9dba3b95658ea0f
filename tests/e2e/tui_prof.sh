#!/bin/bash
# The console's profiles view: replaying a round that profiled two arms of
# one program (tests/data/profile/prof-replay.jsonl, a bare log: "on" is
# compared with "off", the first arm seen), the current-leg pane names the
# differential profile's largest move once the round is over; f turns the
# ratios pane to the profiles, showing prof_hot_extra's move in points as
# `report` does, and back.
. "$(dirname "$0")/tui_lib.sh"

log=$BENCHTUI_SOURCE_DIR/tests/data/profile/prof-replay.jsonl
"$BENCHTUI" report --format json "$log" > "$tmp/report.json" || fail "report failed"
# printed as the console prints it (C's %.1f)
d=$(jq -r '.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") |
    .diff' "$tmp/report.json" | awk '{ printf "%.1f", $1 }')
[ -n "$d" ] || fail "the report has no prof_hot_extra diff"

start 110 44 "$BENCHTUI" --replay "$log" --instant
wait_for 'round complete' 20 || fail "the replay never reached the round's end"
wait_for "profiles \\(f shows them all\\):" 5 &&
    ok "the current-leg pane points at the profiles" ||
    fail "no profiles headline once the round is over"
screen | grep -Eq "cpu on vs off: prof_(hot_extra|base) [+-][0-9.]+ pts" &&
    ok "it names the largest move" || fail "no 'cpu on vs off: ...' headline"
screen | grep -q 'Ratios vs comparison arm' && ok "the ratios pane keeps the ratios" ||
    fail "the ratios pane changed by itself"
tm send-keys f
wait_for 'Profiles beside the comparison arm' 5 && ok "f shows the profiles" ||
    fail "f does not show the profiles"
screen > "$tmp/screen"
grep -q 'cpu  on vs off  perf (cpu-clock' "$tmp/screen" &&
    ok "on is shown beside off" || fail "no 'cpu  on vs off  perf' heading"
grep -Eq "prof_hot_extra +[0-9.]+ +0\.0 +\+$d( |\$)" "$tmp/screen" &&
    ok "prof_hot_extra moves +$d points, as in the report" ||
    fail "no prof_hot_extra row with +$d: $(grep prof_hot "$tmp/screen")"
tm send-keys f
wait_for 'Ratios vs comparison arm' 5 && ok "f again shows the ratios" || fail "f again"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"
finish
