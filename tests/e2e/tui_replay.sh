#!/bin/bash
# test: tui est=10 long
# --replay of a finished round reaches the same final ratios as
# `benchtui report --format json`: every estimate and verdict on the
# screen is the report's, rounded as shown.  Also the headless replay and replay keys.
. "$(dirname "$0")/tui_lib.sh"

demo_round "$tmp/demo.json"
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/demo.json" > /dev/null 2> "$tmp/run.err" ||
    { fail "the demo round did not complete: $(tail -n 2 "$tmp/run.err")"; finish; }
"$BENCHTUI" report --format json "$tmp/out" > "$tmp/report.json" ||
    fail "report failed"

# A screen tall enough for every ratio line (the server cell's too: its
# server_* metrics); the pane cuts a metric's name at 16 characters.
start 140 120 "$BENCHTUI" --replay "$tmp/out/log.jsonl" --speed 50
wait_for ' sealed ' 60 && ok "replay ends sealed (SHA256SUMS beside the log)" ||
    fail "replay never reached sealed"
screen > "$tmp/screen"
jq -r '.cells | to_entries[] | .key as $c | .value.arms | to_entries[] |
    .key as $a | .value.vs as $vs | .value.metrics | to_entries[] |
    select(.value.estimate != null) |
    "\($a) vs \($vs)|\(if .key == "server_cpu" then "server cpu" else .key[0:16] end)|\(.value.estimate * 1000 | round / 1000)|\(.value.verdict)"' \
    "$tmp/report.json" > "$tmp/want"
n=0
while IFS='|' read -r label metric median verdict; do
	# As the console prints a ratio: 3 decimals, fewer past 10 and 100.
	med=$(awk -v v="$median" 'BEGIN { if (v >= 99.995) printf "%.0f", v;
	    else if (v >= 9.9995) printf "%.2f", v; else printf "%.3f", v }')
	if grep -E -- "$label +$metric +$med .* $verdict" "$tmp/screen" >/dev/null; then
		n=$((n + 1))
	else
		fail "no '$label $metric $med ... $verdict' on screen"
	fi
done < "$tmp/want"
[ "$n" -gt 0 ] && ok "$n estimates and verdicts equal the report's" || fail "nothing compared"

# Replay keys: Home goes back to the start, End to the end.
tm send-keys Home
wait_for 'legs 0/18' 5 && ok "Home rewinds" || fail "Home"
tm send-keys Right
wait_for 'legs 1/18' 5 && ok "right steps one leg" || fail "Right"
tm send-keys End
wait_for 'legs 18/18' 5 && ok "End jumps to the end" || fail "End"
tm send-keys Left
wait_for 'legs 17/18' 5 && ok "left steps back one leg" || fail "Left"
tm send-keys + +
wait_for 'replay stopped x200 ' 5 && ok "+ doubles the speed" || fail "+"
tm send-keys -
wait_for 'replay stopped x100 ' 5 && ok "- halves the speed" || fail "-"
tm send-keys End
# The seek is fed in slices, with keys handled between them: the plan's
# last leg is drawn only once it is at the end.
wait_for 'legs 18/18' 5 || fail "End (again)"
# The plan pane fits (3 arms): scrolling it may not push arms out of view.
# Keys are handled in order: once the + after the j's shows (x200), the
# j's were handled too.
tm send-keys Tab Tab j j j j j j +
wait_for 'replay stopped x200 ' 5 || fail "the keys after Tab were not handled"
screen | grep -Eq 'chunk4k +■■■ +■■■' && ok "the plan pane does not scroll past its end" ||
    fail "j in the plan pane scrolled the arms away"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"

# A terminal that cannot move the cursor (TERM=dumb) gets the headless
# printer, not a blank screen.
start 100 30 env TERM=dumb "$BENCHTUI" --replay "$tmp/out/log.jsonl" --instant
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "TERM=dumb: the replay ends by itself (headless)" ||
    fail "TERM=dumb: exit $st"
wait_for '^sealed: SHA256SUMS' 5 && ok "TERM=dumb: headless output" ||
    fail "TERM=dumb: no headless output"

# At 80x24 the ratios pane shows the rows that matter first: each arm's
# wall and cpu, before any counter, with no n/a-only row.
start 80 24 "$BENCHTUI" --replay "$tmp/out/log.jsonl" --instant
wait_for 'Ratios' 10 || fail "no console at 80x24"
screen | grep -Eq 'chunk512 vs chunk4k +wall +[0-9]' &&
    screen | grep -Eq 'chunk512 vs chunk4k +cpu +[0-9]' &&
    ! screen | grep -q 'n/a' &&
    ok "80x24: wall and cpu of the compared arm in view, no n/a row" ||
    fail "80x24: rows that matter not in view: $(screen | sed -n '15,23p')"
tm send-keys q
wait_exit 10 > /dev/null

# Huge ratios and floors keep their columns: a ratio takes at most 5
# characters and a floor past 999% says so, so the verdict stays apart.
mkdir "$tmp/big"
cat > "$tmp/big/round.json" <<'EOF2'
{"name": "big", "reps": 2, "command": ["true"], "baseline": "base",
 "arms": [{"name": "base"}, {"name": "slow"}, {"name": "aa", "aa_of": "base"}],
 "cells": [{"name": "c"}], "counters": ["task-clock"], "quiet": false}
EOF2
echo '{}' > "$tmp/big/environment.json"
seq=0
for rep in 1 2; do
	for arm in base slow aa; do
		seq=$((seq + 1))
		case $arm$rep in
		base*) w=0.01 ;; slow1) w=2.5 ;; slow2) w=3.1 ;; aa1) w=1.5 ;; aa2) w=1.2 ;;
		esac
		printf '{"t":"leg","ts":"2026-11-29T10:00:0%d.000Z","cell":"c","arm":"%s","rep":%d,"seq":%d,"status":"ok","rc":0,"signal":null,"timed_out":false,"wall":%s,"utime":%s,"stime":0,"cpu":%s,"maxrss_kb":1000,"minflt":1,"majflt":0,"cycles":null,"instructions":null,"counters":{"task-clock":1000},"bytes":null,"foreign":null,"bin":"/bin/true"}\n' \
		    "$seq" "$arm" "$rep" "$seq" "$w" "$w" "$w"
	done
done > "$tmp/big/log.jsonl"
start 100 30 "$BENCHTUI" --replay "$tmp/big/log.jsonl" --instant
wait_for 'Ratios' 10 || fail "no console (huge ratios)"
# (every metric shows the arms' medians in adaptive units)
screen | grep -Eq 'slow vs base +wall +278 +n < 6: no interval +unknown +2.80s vs 10.0ms' &&
    screen | grep -q 'A/A floor: wall >999%' &&
    ok "huge ratios and floor fit their columns" ||
    fail "huge ratios: $(screen | grep -m1 'slow vs base')"
tm send-keys q
wait_exit 10 > /dev/null

# Headless (stdout not a terminal) goes through the headless printer.
"$BENCHTUI" replay "$tmp/out/log.jsonl" > "$tmp/headless" 2>&1
rc=$?
[ "$rc" = 0 ] && ok "headless replay exits 0" || fail "headless replay exit $rc"
[ -s "$tmp/headless" ] && ok "headless replay prints" || fail "headless replay printed nothing"
sums=$(sha256sum < "$tmp/out/SHA256SUMS" | cut -d' ' -f1)
grep -q "^sealed: SHA256SUMS sha256 $sums\$" "$tmp/headless" &&
    ok "headless replay names the seal's sha256" ||
    fail "headless replay: $(grep '^sealed' "$tmp/headless") (want $sums)"
"$BENCHTUI" --replay "$tmp/nope.jsonl" > /dev/null 2>&1
[ $? = 2 ] && ok "missing log: exit 2" || fail "missing log exit"
finish
