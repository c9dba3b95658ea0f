#!/bin/bash
# test: tui
# Resizing to 80x24 and back keeps every pane's title readable; Tab and
# Enter on a leg show its details.
. "$(dirname "$0")/tui_lib.sh"

log="$BENCHTUI_SOURCE_DIR/tests/data/tui/round/log.jsonl"
start 100 30 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console"
check_titles() {
	local s bad=0
	s=$(screen)
	for title in 'Quiet box' 'Current leg' 'Plan' 'Legs' 'Ratios' 'fixture' 'q quit'; do
		grep -q -- "$title" <<<"$s" || { fail "$1: '$title' not readable"; bad=1; }
	done
	[ $bad = 1 ] || ok "$1"
}
# resize_to W H: tmux resizes the window, then the console redraws for
# it.  Either one missing fails: titles still readable in what tmux kept
# of the old drawing prove nothing.
resize_to() {
	tm resize-window -x "$1" -y "$2"
	[ "$(tm display -p '#{window_width}x#{window_height}')" = "$1x$2" ] ||
	    fail "tmux did not resize to $1x$2"
	wait_drawn "$1" "$2" 10 || fail "the console did not redraw for $1x$2"
}
wait_drawn 100 30 10 || fail "the console is not drawn for 100x30"
check_titles "100x30"
resize_to 80 24
check_titles "80x24"
resize_to 132 40
check_titles "132x40"
s=$(screen)
grep -q 'maxrss' <<<"$s" && ok "wide screen shows more columns" || fail "no maxrss column at 132"
resize_to 80 24
check_titles "80x24 again"
# At 80 columns the least useful columns go, not maxrss.
grep -q 'maxrss' <<<"$(screen)" && ok "maxrss kept at 80" || fail "maxrss dropped at 80"
tm send-keys Enter
wait_for 'status ok' 5 && ok "Enter shows a leg" || fail "no leg details"
tm send-keys Escape
wait_gone 'status ok' 5 || fail "Esc did not close the leg"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"

# Colours at 256 by default; NO_COLOR gives attributes only.
colours() { tm capture-pane -p -e | grep -cE $'\e\[[0-9;]*(3[0-7]|4[0-7]|38;5|48;5)[;m]'; }
start 100 30 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console (colour)"
[ "$(colours)" -gt 0 ] && ok "colours by default" || fail "no colours by default"
start 100 30 env NO_COLOR=1 "$BENCHTUI" --replay "$log" --instant
wait_for 'Ratios' 10 || fail "no console (NO_COLOR)"
[ "$(colours)" -eq 0 ] && ok "NO_COLOR: no colours" || fail "NO_COLOR: $(colours) coloured lines"
tm capture-pane -p -e | grep -q $'\e\[[0-9;]*[17]m' && ok "NO_COLOR: attributes remain" ||
    fail "NO_COLOR: no bold/reverse"
finish
