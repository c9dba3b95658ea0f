#!/bin/bash
# test: needs=jq
# output: a leg writing 200 MB under "max_bytes": 1 MiB runs to its end
# (exit 0, neither blocked nor killed), the round folder stays under 2 MiB,
# and its line says output_bytes 200000000 and output_truncated; under
# "keep": "none" no output file is written and the bytes are still counted;
# a small output is kept whole (output_truncated false).
. "$(dirname "$0")/e2e_lib.sh"

head=$(command -v head)
cat > "$tmp/big.json" <<EOF
{
  "name": "big",
  "reps": 1,
  "command": ["$head", "-c", "\${N}", "/dev/zero"],
  "baseline": "a",
  "arms": [{"name": "a"}],
  "cells": [{"name": "huge", "vars": {"N": "200000000"}},
            {"name": "small", "vars": {"N": "1000"}}],
  "output": {"max_bytes": 1048576},
  "timeout_s": 120,
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/big.json" > "$tmp/stdout" 2>&1
rc=$?
log="$tmp/out/log.jsonl"
[ "$rc" -eq 0 ] && ok "exit 0" || { fail "exit $rc"; cat "$tmp/stdout"; }
line=$(jq -c 'select(.t == "leg" and .cell == "huge")' "$log")
[ "$(jq -r '.status' <<< "$line")" = ok ] && [ "$(jq -r '.rc' <<< "$line")" = 0 ] &&
    ok "the 200 MB leg ran to its end (ok, rc 0)" || fail "huge leg: $line"
[ "$(jq -r '.output_bytes' <<< "$line")" = 200000000 ] &&
    [ "$(jq -r '.output_truncated' <<< "$line")" = true ] &&
    ok "its line says output_bytes 200000000, output_truncated" || fail "huge leg: $line"
[ "$(stat -c %s "$tmp/out/legs/huge-a-r1.out")" = 1048576 ] &&
    ok "legs/huge-a-r1.out holds the first 1 MiB" ||
    fail "huge-a-r1.out: $(stat -c %s "$tmp/out/legs/huge-a-r1.out") bytes"
kb=$(du -sk "$tmp/out" | cut -f1)
[ "$kb" -lt 2048 ] && ok "the round folder is ${kb} KiB (< 2 MiB)" || fail "round folder ${kb} KiB"
line=$(jq -c 'select(.t == "leg" and .cell == "small")' "$log")
[ "$(jq -r '.output_bytes' <<< "$line")" = 1000 ] &&
    [ "$(jq -r '.output_truncated' <<< "$line")" = false ] &&
    [ "$(stat -c %s "$tmp/out/legs/small-a-r1.out")" = 1000 ] &&
    ok "a small output is kept whole" || fail "small leg: $line"
grep -q "output 200000000 bytes, cut" "$tmp/stdout" && ok "headless says so" ||
    fail "stdout: $(cat "$tmp/stdout")"

# keep: none
jq '.output = {"keep": "none"} | .cells = [.cells[1]]' "$tmp/big.json" > "$tmp/none.json"
"$BENCHTUI" run --headless --out "$tmp/none" "$tmp/none.json" > "$tmp/stdout2" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "keep none: exit 0" || { fail "keep none: exit $rc"; cat "$tmp/stdout2"; }
[ ! -e "$tmp/none/legs/small-a-r1.out" ] && ok "keep none: no output file" ||
    fail "keep none wrote $(ls -l "$tmp/none/legs")"
[ "$(jq -r 'select(.t == "leg") | .output_bytes' "$tmp/none/log.jsonl")" = 1000 ] &&
    ok "keep none: the bytes are counted" || fail "keep none: $(jq -c 'select(.t == "leg")' "$tmp/none/log.jsonl")"
"$BENCHTUI" verify "$tmp/none" > /dev/null 2>&1 && ok "keep none: the folder verifies" ||
    fail "keep none: verify failed"

finish
