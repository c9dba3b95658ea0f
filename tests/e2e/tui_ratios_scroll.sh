#!/bin/bash
# test: tui
# The ratios pane scrolled: the row at the top keeps its cell's name above
# it, the bottom border says which lines are in view, and a terminal that
# grows until every line fits brings the pane back to its first line.
. "$(dirname "$0")/tui_lib.sh"

start 100 30 "$BENCHTUI" --replay "$BENCHTUI_SOURCE_DIR/tests/data/tui/round" --instant
wait_for 'Ratios' 10 || fail "no console"
tm send-keys Tab
# Three lines down: an arm's row of the first cell is at the top.
for _ in 1 2 3; do tm send-keys j; done
wait_for '─ 4-[0-9]+/[0-9]+ ─┘' 5 && ok "the scroll position is shown" ||
    fail "no scroll position: $(screen | tail -3)"
first=$(screen | grep -A1 'Ratios vs comparison arm' | tail -1)
grep -Eq '^│small ' <<<"$first" && ok "the top row keeps its cell's name" ||
    fail "the top row has no cell name: $first"
for _ in $(seq 30); do tm send-keys j; done
wait_for '─ [0-9]+-([0-9]+)/\1 ─┘' 5 && ok "scrolled to the end, no further" ||
    fail "past the end: $(screen | tail -3)"
tm resize-window -x 100 -y 60
wait_for '^│small ' 5 && ok "grown until all fits: back at the first line" ||
    fail "after growing: $(screen | grep -A1 'Ratios vs comparison arm' | tail -1)"
screen | grep -Eq '─ [0-9]+-[0-9]+/[0-9]+ ─┘' &&
    fail "a position shown though every line fits"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0" || fail "exit $st"
finish
