#!/bin/bash
# Resizing to 80x24 and back keeps every pane's title readable; Tab and
# Enter on a leg show its details.
. "$(dirname "$0")/tui_lib.sh"

log="$BENCHTUI_SOURCE_DIR/tests/data/tui/round/log.jsonl"
start 100 30 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console"
check_titles() {
	local s
	s=$(screen)
	for title in 'Quiet box' 'Current leg' 'Plan' 'Legs' 'Ratios' 'fixture' 'q quit'; do
		grep -q -- "$title" <<<"$s" || fail "$1: '$title' not readable"
	done
	echo "ok: $1"
}
check_titles "100x30"
tm resize-window -x 80 -y 24
sleep 1
[ "$(tm display -p '#{window_width}x#{window_height}')" = 80x24 ] ||
    echo "note: tmux did not resize"
check_titles "80x24"
tm resize-window -x 132 -y 40
sleep 1
check_titles "132x40"
s=$(screen)
grep -q 'maxrss' <<<"$s" && ok "wide screen shows more columns" || fail "no maxrss column at 132"
tm resize-window -x 80 -y 24
sleep 1
check_titles "80x24 again"
tm send-keys Enter
wait_for 'status ok' 5 && ok "Enter shows a leg" || fail "no leg details"
tm send-keys Escape
sleep 0.3
screen | grep -q 'status ok' && fail "Esc did not close the leg"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"

# Colours at 256 by default; NO_COLOR gives attributes only.
colours() { tm capture-pane -p -e | grep -cE $'\e\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[;m]'; }
tm kill-server
rm -f "$tmp/exit"
start 100 30 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console (colour)"
[ "$(colours)" -gt 0 ] && ok "colours by default" || fail "no colours by default"
tm kill-server
rm -f "$tmp/exit"
start 100 30 env NO_COLOR=1 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console (NO_COLOR)"
[ "$(colours)" -eq 0 ] && ok "NO_COLOR: no colours" || fail "NO_COLOR: $(colours) coloured lines"
tm capture-pane -p -e | grep -q $'\e\[[0-9;]*[17]m' && ok "NO_COLOR: attributes remain" ||
    fail "NO_COLOR: no bold/reverse"
finish
