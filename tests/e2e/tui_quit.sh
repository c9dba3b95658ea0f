#!/bin/bash
# test: alone tui est=3
# Quitting: Ctrl-C asks, Ctrl-C again aborts and quits at once (exit 3,
# resumable), and the terminal then shows the round folder, the exit
# status in words and the exact resume command.  A quit question still
# open when the round ends on its own goes away.
. "$(dirname "$0")/tui_lib.sh"

# 1. Ctrl-C twice on a running round.
demo_round "$tmp/demo.json" 1500
jq '.reps = 1' "$tmp/demo.json" >"$tmp/demo1.json" && mv "$tmp/demo1.json" "$tmp/demo.json"
start 100 30 "$BENCHTUI" run "$tmp/demo.json" --out "$tmp/out"
wait_for 'pid [0-9]+' 30 && ok "a leg runs" || fail "no running leg"
tm send-keys C-c
wait_for 'Abort it \(resumable\) and quit' 5 && ok "Ctrl-C asks" || fail "Ctrl-C did not ask"
tm send-keys C-c
st=$(wait_exit 30)
[ "$st" = 3 ] && ok "Ctrl-C twice: exit 3" || fail "exit $st after Ctrl-C twice"
grep -q '"t":"abort"' "$tmp/out/log.jsonl" && ok "abort logged (resumable)" || fail "no abort event"
[ ! -e "$tmp/out/SHA256SUMS" ] && ok "not sealed" || fail "sealed after Ctrl-C twice"
s=$(screen)
grep -q "round folder: $tmp/out" <<<"$s" && ok "the folder is printed" || fail "no folder: $s"
grep -q 'exit 3: the round stopped before its end and can be resumed' <<<"$s" &&
    ok "the exit status in words" || fail "no status in words: $s"
grep -q "resume it with: benchtui resume $tmp/out" <<<"$s" &&
    ok "the resume command" || fail "no resume command: $s"

# 2. A quit question open when the round ends by itself goes away; the
#    quit leaves the summary on the terminal.
cat > "$tmp/short.json" <<'EOF'
{"name": "short", "reps": 1, "command": ["/bin/sleep", "1"], "baseline": "a",
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}],
 "counters": ["task-clock"], "quiet": false}
EOF
start 100 30 "$BENCHTUI" run "$tmp/short.json" --out "$tmp/out2"
wait_for 'pid [0-9]+' 30 || fail "no running leg (short)"
tm send-keys q
wait_for 'Abort it \(resumable\) and quit' 5 || fail "q did not ask"
wait_for ' sealed ' 30 && ok "the round ended on its own" || fail "never sealed"
wait_gone 'Abort it \(resumable\) and quit' 5 && ok "the question went away" ||
    fail "the question stayed after the round ended"
tm send-keys q
st=$(wait_exit 10)
[ "$st" = 0 ] && ok "q then exits 0" || fail "exit $st"
s=$(screen)
grep -q '^summary: each verdict' <<<"$s" && grep -q '^  b vs a, 1 paired reps' <<<"$s" &&
    grep -Eq '^    wall +1\.[0-9]{2}s vs 1\.[0-9]{2}s +unknown: 1 reps, an interval needs 6' <<<"$s" &&
    ok "the summary stays on the terminal" || fail "no summary after quitting: $s"
finish
