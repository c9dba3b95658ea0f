#!/bin/bash
# test: tui est=11
# The demo round in the console: the panes appear, the legs table fills,
# the ratios pane shows verdicts, the round ends sealed and q exits 0.
. "$(dirname "$0")/tui_lib.sh"

demo_round "$tmp/demo.json"
start 100 30 "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out"

wait_for 'Quiet box' 20 && ok "the panes appear" || fail "no panes"
s=$(screen)
for title in 'Quiet box' 'Current leg' 'Plan' 'Legs' 'Ratios' ' demo '; do
	grep -q -- "$title" <<<"$s" || fail "no '$title' on screen"
done
grep -q 'p pause' <<<"$s" && ok "footer keys" || fail "no footer keys"

# An overlay stays on top while the panes under it redraw (only the dirty
# ones are drawn, then the overlay again): the header's leg count moves
# and the help is still there.
tm send-keys '?'
wait_for 'Any key closes' 5 || fail "no help mid-round"
before=$(screen | grep -oE 'legs [0-9]+/18' | head -1)
n=600
while [ $n -gt 0 ] && [ "$(screen | grep -oE 'legs [0-9]+/18' | head -1)" = "$before" ]; do
	sleep 0.1
	n=$((n - 1))
done
s=$(screen)
[ $n -gt 0 ] && grep -q 'Any key closes' <<<"$s" &&
    ok "help stays over the redrawn panes ($before, then $(grep -oE 'legs [0-9]+/18' <<<"$s" | head -1))" ||
    fail "help lost, or no leg ended under it ($before)"
tm send-keys x
wait_gone 'Any key closes' 5 && wait_for 'Ratios' 5 && ok "closing the help redraws the panes" ||
    fail "the help did not close"

wait_for ' sealed ' 120 && ok "the round ends sealed" || fail "never sealed"
s=$(screen)
grep -q 'legs 18/18' <<<"$s" && ok "18/18 legs" || fail "legs count"
rows=$(grep -cE '^│(work|net) +(chunk4k|chunk512|aa) +[0-9]' <<<"$s")
[ "$rows" -ge 5 ] && ok "legs table filled ($rows rows)" || fail "legs table: $rows rows"
grep -Eq '(above|below|same|undecided|unknown)' <<<"$s" && ok "verdicts shown" ||
    fail "no verdict in the ratios pane"
grep -q 'n < 6: no interval' <<<"$s" && ok "3 reps: 'n < 6: no interval'" ||
    fail "no 'n < 6: no interval' in the ratios pane"
grep -q 'chunk512 vs chunk4k' <<<"$s" && ok "ratio vs its comparison arm" ||
    fail "no 'chunk512 vs chunk4k'"

# The plan: every leg done.
[ "$(grep -c '■■■' <<<"$s")" -ge 3 ] && ok "plan grid done" || fail "plan grid"

# Help overlay, then theme cycling, then q exits 0 without asking.
tm send-keys '?'
wait_for ' help ' 5 && ok "help overlay" || fail "no help"
tm send-keys x
tm send-keys t
wait_for 'theme light' 5 && ok "t cycles themes" || fail "no theme change"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q exits 0 after completion" || fail "exit $st"
[ -f "$tmp/out/SHA256SUMS" ] && ok "sealed folder" || fail "no SHA256SUMS"
finish
