#!/bin/bash
# test life-tui: alone tui est=5
# Abort and resume through the console (tmux): a then y aborts the round
# (exit 3, the leg in flight logged as aborted); `benchtui resume DIR` in
# the console then completes it, exactly once, and seals it.  Then the same
# after a kill -9 of the console in the middle of a leg.
. "$(dirname "$0")/tui_lib.sh"
. "$(dirname "$0")/life_lib.sh"
# life_lib's trap replaced tui_lib's: its tmux server is killed here, and
# $T removed by life_cleanup (kept under LIFE_KEEP=1).
life_cleanup_hooks+=("tm kill-server 2>/dev/null")

export DEMO_SPIN_MS=300
make_round "$T/tui.json" tui 2 0   # 12 legs of ~0.3 s
dir=$T/round
log=$dir/log.jsonl

# --- abort with a, y ---
start 100 30 "$BENCHTUI" run "$T/tui.json" --out "$dir"
wait_for_line "$log" '.t == "leg_start" and .seq == 3' 30 || fail "no third leg"
tm send-keys a
wait_for 'Abort the round' 5 || fail "a did not ask to confirm"
tm send-keys y
st=$(wait_exit 30)
[ "$st" = 3 ] || fail "console abort: exit $st, expected 3"
check_aborted "$dir"

# --- resume in the console, killed with -9 in the middle of a leg ---
start 100 30 "$BENCHTUI" resume "$dir"
n=$(jq -s 'map(select(.t == "leg_start")) | length' "$log")
wait_for_line "$log" ".t == \"leg_start\" and .seq > $((n + 1))" 30 ||
	fail "resume in the console ran no legs"
bpid=$(pgrep -x -P "$(tm list-panes -F '#{pane_pid}')" benchtui || true)
[ -n "$bpid" ] || fail "cannot find the console's benchtui process"
kill -9 "$bpid"
check_log_whole "$log"
# The leg in flight ends with benchtui (its parent-death signal), soon
# after rather than at once.
wait_no_live_legs "$log" 10

# --- resume again in the console, to the end ---
start 100 30 "$BENCHTUI" resume "$dir"
# The console stays up on the finished round until q.
wait_for ' sealed ' 60 || { screen; fail "resume in the console never showed sealed"; }
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] || { screen; fail "resume in the console: exit $st, expected 0"; }
check_log_whole "$log"
check_exactly_once "$log" 12
check_sealed "$dir"
echo "ok: console abort, kill -9 and resume: complete, exactly once, sealed"
exit 0
