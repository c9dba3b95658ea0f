#!/bin/bash
# test: tui est=3
# q while a round runs asks first, and y aborts (exit 3); SIGTERM to the
# console aborts the round resumably and restores the terminal (exit 3).
. "$(dirname "$0")/tui_lib.sh"

demo_round "$tmp/demo.json" 1500
start 100 30 "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out1"
wait_for 'pid [0-9]+' 30 && ok "a leg runs" || fail "no leg"
tm send-keys q
wait_for 'still running' 5 && ok "q asks while running" || fail "q did not ask"
tm send-keys n
wait_gone 'still running' 5 || fail "n did not close the question"
[ "$(wait_exit 1)" = none ] || fail "n quit anyway"
tm send-keys C-c
wait_for 'still running' 5 && ok "Ctrl-C acts as q" || fail "Ctrl-C did not ask"
tm send-keys y
st=$(wait_exit 30)
[ "$st" = 3 ] && ok "q, y: exit 3" || fail "exit $st"
grep -q '"t":"abort"' "$tmp/out1/log.jsonl" && ok "abort logged" || fail "no abort event"

start 100 30 "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out2"
wait_for 'pid [0-9]+' 30 || fail "no leg (second round)"
[ "$(tm display -p '#{alternate_on}')" = 1 ] || fail "console not on the alternate screen"
shell=$(tm display -p '#{pane_pid}')
pid=$(ps -o pid= --ppid "$shell" | head -n 1 | tr -d ' ')
[ -n "$pid" ] && kill -TERM "$pid"
st=$(wait_exit 30)
[ "$st" = 3 ] && ok "SIGTERM: exit 3" || fail "SIGTERM exit $st"
grep -q '"t":"abort".*"reason":"terminated (SIGTERM)"' "$tmp/out2/log.jsonl" &&
    ok "SIGTERM logged an abort naming it, as headless does" ||
    fail "no abort naming SIGTERM: $(grep '"t":"abort"' "$tmp/out2/log.jsonl")"
# The terminal was restored (endwin left the alternate screen).
[ "$(tm display -p '#{alternate_on}')" = 0 ] && ok "terminal restored" ||
    fail "still on the alternate screen"
[ ! -e "$tmp/out2/SHA256SUMS" ] && ok "not sealed" || fail "sealed after SIGTERM"
finish
