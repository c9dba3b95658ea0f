#!/bin/bash
# test: tui est=5
# The console's profiles view: replaying a round that profiled two arms of
# one program (tests/data/profile/prof-replay.jsonl, a bare log: "on" is
# compared with "off", the first arm seen), the current-leg pane names the
# differential profile's largest move once the round is over; f turns the
# ratios pane to the profiles, readable in an 80x24 terminal: sample counts
# beside each share, prof_hot_extra's move in points as `report` has it,
# prof_base marked as noise, the moved symbol's caller, and the pane's
# scroll position, which j moves; f again shows the ratios.
. "$(dirname "$0")/tui_lib.sh"

log=$BENCHTUI_SOURCE_DIR/tests/data/profile/prof-replay.jsonl
"$BENCHTUI" report --format json "$log" > "$tmp/report.json" || fail "report failed"
# printed as the console prints it (C's %.1f)
d=$(jq -r '.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") |
    .diff' "$tmp/report.json" | awk '{ printf "%.1f", $1 }')
n=$(jq -r '.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") |
    .samples' "$tmp/report.json")
[ -n "$d" ] && [ -n "$n" ] || fail "the report has no prof_hot_extra diff"

start 80 24 "$BENCHTUI" --replay "$log" --instant
wait_for 'round complete' 20 || fail "the replay never reached the round's end"
wait_for "profiles \\(f shows them all\\):" 5 &&
    ok "the current-leg pane points at the profiles" ||
    fail "no profiles headline once the round is over"
screen | grep -Eq "cpu on vs off: prof_" &&
    ok "it names the largest move" || fail "no 'cpu on vs off: ...' headline"
tm send-keys f
wait_for 'Profiles beside the comparison arm' 5 && ok "f shows the profiles" ||
    fail "f does not show the profiles"
# the pane (focused with Tab) scrolls to the on-vs-off profile
tm send-keys Tab
for _ in $(seq 1 40); do
	screen | grep -q 'cpu  on vs off  perf' && break
	tm send-keys j
	sleep 0.1
done
screen | grep -q 'cpu  on vs off  perf' || fail "j never reached on's profile"
: >"$tmp/screen"
for _ in $(seq 1 24); do
	screen >>"$tmp/screen"
	tm send-keys j
	sleep 0.1
done
grep -Eq "prof_hot_extra +$n +[0-9.]+ +0 +0\.0 +\+$d " "$tmp/screen" &&
    ok "prof_hot_extra: $n samples, moves +$d points, as in the report" ||
    fail "no prof_hot_extra row with $n samples and +$d: $(grep prof_hot "$tmp/screen")"
grep -Eq "prof_base .* ~" "$tmp/screen" && ok "prof_base is marked as noise" ||
    fail "prof_base is not marked noise: $(grep prof_base "$tmp/screen")"
grep -q "prof_hot_extra <- on: prof_hot_path" "$tmp/screen" &&
    ok "the moved symbol's caller is named" || fail "no caller line"
grep -Eq " [0-9]+-[0-9]+/[0-9]+ " "$tmp/screen" && ok "the pane shows its position" ||
    fail "no scroll position"
grep -Eq " 1-[0-9]+/[0-9]+ " "$tmp/screen" && fail "j did not move the position"
tm send-keys f
wait_for 'Ratios vs comparison arm' 5 && ok "f again shows the ratios" || fail "f again"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"
finish
