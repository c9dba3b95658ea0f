#!/bin/bash
# test: needs=jq,python3
# "order": "shuffle" without a seed: run picks one and records it in the
# round event, and the legs ran in the order benchtui-round(5) defines
# (SplitMix64 from shuffle_seed, Fisher-Yates per rep, cell after cell),
# reimplemented here from the manual's words.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/sh.json" <<'EOF2'
{"name": "sh", "reps": 4, "order": "shuffle", "command": ["true"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "d"}],
 "cells": [{"name": "x"}, {"name": "y"}], "counters": ["task-clock"], "quiet": false}
EOF2
"$BENCHTUI" run --headless --out "$tmp/o" "$tmp/sh.json" >"$tmp/out" 2>&1 ||
	fail "run: exit $?: $(tail -3 "$tmp/out")"
# The seed as written (below 2^53, so jq's doubles keep it exact too).
seed=$(head -1 "$tmp/o/log.jsonl" | grep -o '"shuffle_seed":[0-9]*' | cut -d: -f2)
[ "$(jq -r 'select(.t == "round") | .order' "$tmp/o/log.jsonl")" = shuffle ] ||
	fail "the round event does not record order shuffle"
case "$seed" in ''|null|*[!0-9]*) fail "no shuffle_seed recorded: '$seed'" ;; esac
[ "${seed:-0}" -lt 9007199254740992 ] || fail "shuffle_seed $seed is not below 2^53"
echo "shuffle_seed: $seed"
want=$(python3 - "$seed" <<'PY'
import sys
M = (1 << 64) - 1
state = int(sys.argv[1])
def nxt():
    global state
    state = (state + 0x9E3779B97F4A7C15) & M
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
    return z ^ (z >> 31)
arms = "abcd"
out = []
for cell in "xy":
    for rep in range(1, 5):
        p = list(range(4))
        for i in range(3, 0, -1):
            j = nxt() % (i + 1)
            p[i], p[j] = p[j], p[i]
        out += ["%s%s%d" % (cell, arms[k], rep) for k in p]
print(" ".join(out))
PY
)
got=$(jq -r 'select(.t == "leg") | "\(.cell)\(.arm)\(.rep)"' "$tmp/o/log.jsonl" | tr '\n' ' ' | sed 's/ $//')
[ "$got" = "$want" ] || fail "leg order differs from the manual's shuffle (seed $seed):
  got  $got
  want $want"
# check prints the same plan for that seed.
sed "s/\"order\": \"shuffle\",/\"order\": \"shuffle\", \"shuffle_seed\": $seed,/" "$tmp/sh.json" >"$tmp/seeded.json"
chk=$("$BENCHTUI" check "$tmp/seeded.json" 2>/dev/null | awk '$1 == "leg" { printf "%s%s%s ", $3, $5, $4 }' | sed 's/ $//')
[ "$chk" = "$want" ] || fail "check's plan for seed $seed differs: $chk"

finish
