#!/bin/bash
# test: asan-covered
# A misspelt command, report format or round-file key gets the name it
# meant (edit distance), and still exits 2.
. "$(dirname "$0")/e2e_lib.sh"

"$BENCHTUI" reprot x >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown command 'reprot' (did you mean \"report\"?)" "$tmp/err" &&
    ok "command" || fail "command: $(head -1 "$tmp/err")"
printf '{"t":"leg","cell":"c","arm":"a","rep":1,"status":"ok","wall":1}\n' >"$tmp/l.jsonl"
"$BENCHTUI" report "$tmp/l.jsonl" --format markdwn >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown format 'markdwn' (did you mean \"markdown\"?)" "$tmp/err" &&
    ok "format" || fail "format: $(head -1 "$tmp/err")"
cat >"$tmp/r.json" <<'EOF2'
{"name": "r", "reps": 6, "command": ["true"], "baseline": "a", "warmups": 1,
 "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF2
"$BENCHTUI" check "$tmp/r.json" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q 'warmups: unknown key "warmups" (did you mean "warmup"?)' "$tmp/err" &&
    ok "round-file key" || fail "key: $(cat "$tmp/err")"
finish
