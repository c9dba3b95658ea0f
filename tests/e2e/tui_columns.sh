#!/bin/bash
# test: tui est=8 long
# The legs table shows what the round asked for and nothing it cannot
# measure: the demo round's software counters (task-clock, page-faults,
# context-switches) and maxrss at 80x24, 100x30 and 200x60, and on a
# machine without a hardware PMU no cycles, instr or IPC column (n/a in
# every leg).  Then, at 100x30: Enter shows every counter, w the message
# log saying plainly that the machine has no PMU, ? the legend, and a
# terminal shrunk below 60x16 one line saying so.  With BENCHTUI_CAPTURES
# set, the three screens are saved there.
. "$(dirname "$0")/tui_lib.sh"

# A hardware PMU shows up as an event source "cpu" (or "cpu_core").
pmu=no
ls /sys/bus/event_source/devices 2>/dev/null | grep -qx 'cpu\|cpu_core\|cpu_atom' && pmu=yes

for size in 80x24 100x30 200x60; do
	w=${size%x*} h=${size#*x}
	rm -rf "$tmp/out-$size"
	# One rep (6 legs) and no profiles: the columns come from the
	# round's counters, not from how many legs it has.  The hardware
	# counters are named, so a machine without a PMU says so (the
	# demo's own default counts only what the machine counts).
	demo_round "$tmp/demo.json"
	jq '.reps = 1 | del(.profile) | .counters = ["cycles", "instructions",
	    "task-clock", "page-faults", "context-switches"]' \
	    "$tmp/demo.json" >"$tmp/demo1.json" &&
	    mv "$tmp/demo1.json" "$tmp/demo.json"
	start "$w" "$h" "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out-$size"
	wait_for ' sealed ' 180 || fail "$size: the round never sealed"
	s=$(screen)
	[ -n "${BENCHTUI_CAPTURES:-}" ] && printf '%s\n' "$s" > "$BENCHTUI_CAPTURES/demo-$size.txt"
	head=$(grep -E '│ ?cell +arm +rep' <<<"$s" | head -1)
	[ -n "$head" ] || fail "$size: no legs table header"
	for col in wall maxrss task-clk; do
		grep -q -- " $col" <<<"$head" && ok "$size: column $col" ||
		    fail "$size: no $col column: $head"
	done
	if [ "$pmu" = no ]; then
		for col in cycles instr IPC; do
			grep -qw -- "$col" <<<"$head" && fail "$size: $col column shown without a PMU: $head"
		done
		ok "$size: no cycles/instr/IPC column without a PMU"
	fi
	[ "$w" -ge 100 ] && { grep -q "faults" <<<"$head" && ok "$size: faults column" ||
	    fail "$size: no faults column: $head"; }
	if [ "$size" = 100x30 ]; then
		tm send-keys Enter
		wait_for 'counters:' 5 && ok "Enter: the leg's counters" || fail "no counters in the leg pop-up"
		screen | grep -q 'task-clock' || fail "the pop-up lacks task-clock"
		tm send-keys Escape
		tm send-keys w
		wait_for 'messages [0-9]+/[0-9]+' 5 && ok "w opens the message log" ||
		    fail "no message log"
		if [ "$pmu" = no ]; then
			wait_for 'no hardware PMU' 5 && ok "the log says there is no PMU" ||
			    fail "no 'no hardware PMU' in the log"
		fi
		tm send-keys Escape
		tm send-keys '?'
		wait_for 'cores  foreign CPU use' 5 && ok "? shows the legend" ||
		    fail "no legend"
		for w in 'floor  the A/A' '~ not quiet' 'undecided' 'to run'; do
			screen | grep -q -- "$w" || fail "the legend lacks '$w'"
		done
		tm send-keys x
		tm resize-window -x 50 -y 12
		wait_for 'too small: needs 60x16' 5 && ok "a 50x12 terminal: one line saying so" ||
		    fail "50x12: $(screen | head -3)"
		tm resize-window -x 100 -y 30
		wait_for 'Ratios' 5 && ok "back at 100x30" || fail "no panes after growing back"
	fi
	tm send-keys q
	st=$(wait_exit 10)
	[ "$st" = 0 ] && ok "$size: q exits 0" || fail "$size: exit $st"
done
finish
