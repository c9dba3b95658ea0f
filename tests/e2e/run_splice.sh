#!/bin/bash
# test: asan-covered needs=jq,gzip
# Arms that differ only by flags, and a matrix of cells.
# 1. A gzip round whose arms differ only by spliced "${FLAGS}" arrays (one
#    of them empty): every leg runs the argv its arm splices (leg_start's
#    argv), the empty array passes no argument, and each arm's output is
#    what gzip writes with its flags by hand.
# 2. A 2x2 matrix: four cells named by the template, in product order
#    (the last variable fastest), each leg running its cell's values.
. "$(dirname "$0")/e2e_lib.sh"

gz=$(command -v gzip)
seq 1 20000 > "$tmp/input.txt"
cat > "$tmp/gzip.json" <<EOF
{
  "name": "gzip-levels",
  "reps": 6,
  "command": ["$gz", "-c", "\${FLAGS}", "\${INPUT}"],
  "baseline": "l6",
  "arms": [{"name": "l6", "vars": {"FLAGS": []}},
           {"name": "l1", "vars": {"FLAGS": ["-1"]}},
           {"name": "l9", "vars": {"FLAGS": ["-9", "-n"]}}],
  "cells": [{"name": "seq", "vars": {"INPUT": "input.txt"}}],
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" check "$tmp/gzip.json" > "$tmp/check" 2> "$tmp/check.err" ||
    fail "check refused the round: $(cat "$tmp/check.err")"
grep -q "exec $gz -c -9 -n input.txt" "$tmp/check" &&
    grep -q "exec $gz -c input.txt" "$tmp/check" &&
    grep -q "arm l9 vs l6 var FLAGS=\[-9 -n\]" "$tmp/check" &&
    ok "check prints the spliced commands" || fail "check: $(cat "$tmp/check")"
[ ! -s "$tmp/check.err" ] && ok "no check warning" ||
    fail "check warned: $(cat "$tmp/check.err")"
"$BENCHTUI" run --headless --out "$tmp/gz" "$tmp/gzip.json" > "$tmp/stdout" 2>&1
rc=$?
log="$tmp/gz/log.jsonl"
[ "$rc" -eq 0 ] && ok "gzip round exit 0" || { fail "exit $rc"; cat "$tmp/stdout"; }
[ "$(jq -s '[.[] | select(.t == "leg" and .status == "ok")] | length' "$log")" = 18 ] &&
    ok "18 legs ok" || fail "legs: $(jq -c 'select(.t == "leg") | [.arm, .status]' "$log")"
for want in "l6|$gz -c input.txt" "l1|$gz -c -1 input.txt" "l9|$gz -c -9 -n input.txt"; do
	arm=${want%%|*}
	got=$(jq -r --arg a "$arm" 'select(.t == "leg_start" and .arm == $a) | .argv | join(" ")' "$log" | sort -u)
	[ "$got" = "${want#*|}" ] && ok "$arm ran: $got" || fail "$arm argv: '$got', want '${want#*|}'"
done
# Each arm's output is byte for byte what its flags give by hand.
(cd "$tmp" && "$gz" -c input.txt > by-hand-l6 && "$gz" -c -1 input.txt > by-hand-l1 &&
    "$gz" -c -9 -n input.txt > by-hand-l9)
for arm in l6 l1 l9; do
	cmp -s "$tmp/by-hand-$arm" "$tmp/gz/legs/seq-$arm-r2.out" &&
	    ok "$arm's output is gzip with its flags" || fail "$arm's output differs from gzip by hand"
done
cmp -s "$tmp/by-hand-l1" "$tmp/by-hand-l9" && fail "-1 and -9 -n wrote the same bytes"
gunzip -c < "$tmp/gz/legs/seq-l9-r1.out" | cmp -s - "$tmp/input.txt" &&
    ok "l9's output is the input compressed" || fail "l9 output does not decompress to the input"

# 2. A 2x2 matrix.
cat > "$tmp/matrix.json" <<'EOF'
{
  "name": "scan",
  "reps": 1,
  "command": ["/bin/echo", "size=${SIZE}", "conn=${CONN}", "${CELL}"],
  "baseline": "a",
  "arms": [{"name": "a"}, {"name": "b"}],
  "matrix": {"name": "${SIZE}-c${CONN}",
             "vars": {"SIZE": ["k1", "k64"], "CONN": ["1", "8"]}},
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" check "$tmp/matrix.json" > "$tmp/mcheck" 2>&1 ||
    fail "check refused the matrix: $(cat "$tmp/mcheck")"
[ "$(grep '^cell ' "$tmp/mcheck" | cut -d' ' -f2 | tr '\n' ' ')" = "k1-c1 k1-c8 k64-c1 k64-c8 " ] &&
    ok "check: four cells in product order" || fail "cells: $(grep '^cell ' "$tmp/mcheck")"
"$BENCHTUI" run --headless --out "$tmp/m" "$tmp/matrix.json" > "$tmp/mstdout" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "matrix round exit 0" || { fail "matrix exit $rc"; cat "$tmp/mstdout"; }
[ "$(jq -r 'select(.t == "round") | .cells | join(" ")' "$tmp/m/log.jsonl")" = "k1-c1 k1-c8 k64-c1 k64-c8" ] &&
    ok "round event lists the four cells" || fail "round cells: $(jq -c 'select(.t == "round") | .cells' "$tmp/m/log.jsonl")"
[ "$(cat "$tmp/m/legs/k64-c8-b-r1.out")" = "size=k64 conn=8 k64-c8" ] &&
    ok "each cell runs its own values" || fail "k64-c8 output: $(cat "$tmp/m/legs/k64-c8-b-r1.out")"
[ "$(jq -s '[.[] | select(.t == "leg" and .status == "ok")] | length' "$tmp/m/log.jsonl")" = 8 ] &&
    ok "8 legs ok" || fail "matrix legs: $(jq -c 'select(.t == "leg") | [.cell, .arm, .status]' "$tmp/m/log.jsonl")"
"$BENCHTUI" report "$tmp/m" --format json > "$tmp/mrep" 2>&1 &&
    [ "$(jq -r '.cells | keys | length' "$tmp/mrep")" = 4 ] &&
    ok "the report has the four cells" || fail "report: $(head -c 400 "$tmp/mrep")"

finish
