#!/bin/bash
# test: needs=jq
# warmup and prepare.
# 1. warmup 2: before each cell's counted legs, two warm-up legs per arm
#    in the order of the cell's first rep, logged with "warmup": K and
#    "rep": 0, writing legs/CELL-ARM-wK.out; never counted (the report's n
#    is the reps); prepare runs before every leg (warm-up too) with the
#    leg's env and templates and records prepare_rc 0.
# 2. A prepare that exits 3 fails its legs with prepare_rc 3, the leg's
#    own command never runs, and the round still completes.
. "$(dirname "$0")/e2e_lib.sh"

cat > "$tmp/warm.json" <<'EOF'
{
  "name": "warm",
  "reps": 2,
  "warmup": 2,
  "prepare": ["/bin/sh", "-c", "echo prep $0 $1 $MARK >> prepared.log", "${ARM}", "${REP}"],
  "command": ["/bin/sh", "-c", "echo ran $0 $1 >> ran.log; echo out", "${ARM}", "${REP}"],
  "baseline": "a",
  "arms": [{"name": "a", "env": {"MARK": "env-a"}}, {"name": "b", "env": {"MARK": "env-b"}}],
  "cells": [{"name": "one"}, {"name": "two"}],
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" check "$tmp/warm.json" > "$tmp/check" 2>&1 || fail "check: $(cat "$tmp/check")"
[ "$(grep -c '^warmup [12] ' "$tmp/check")" = 8 ] && grep -q '^warmup 2$' "$tmp/check" &&
    ok "check prints the warm-up legs" || fail "check: $(cat "$tmp/check")"
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/warm.json" > "$tmp/stdout" 2>&1
rc=$?
log="$tmp/out/log.jsonl"
[ "$rc" -eq 0 ] && ok "exit 0" || { fail "exit $rc"; cat "$tmp/stdout"; }
got=$(jq -r 'select(.t == "leg") | "\(.cell) \(.arm) \(.rep) \(.warmup // "-")"' "$log" | tr '\n' ',')
want="one a 0 1,one b 0 1,one a 0 2,one b 0 2,one a 1 -,one b 1 -,"
[ "${got:0:${#want}}" = "$want" ] && [[ "$got" == *",two a 0 1,two b 0 1,two a 0 2,two b 0 2,two a 1 -,two b 1 -,"* ]] &&
    ok "warm-up legs first in each cell, in the first rep's order" ||
    fail "leg order: $got"
[ "$(jq -s '[.[] | select(.t == "leg_start" and .warmup == 1 and .rep == 0)] | length' "$log")" = 4 ] &&
    ok "leg_start of a warm-up leg carries warmup and rep 0" || fail "warm-up leg_start lines"
for f in one-a-w1 one-b-w2 two-a-w2; do
	[ -f "$tmp/out/legs/$f.out" ] || fail "no legs/$f.out"
done
ok "warm-up output files legs/CELL-ARM-wK.out"
[ "$(wc -l < "$tmp/ran.log")" = 16 ] && ok "16 legs ran (8 warm-up, 8 counted)" ||
    fail "ran.log: $(cat "$tmp/ran.log")"
[ "$(wc -l < "$tmp/prepared.log")" = 16 ] && grep -qx "prep b 2 env-b" "$tmp/prepared.log" &&
    grep -qx "prep a 0 env-a" "$tmp/prepared.log" &&
    ok "prepare ran before every leg with its env and templates" ||
    fail "prepared.log: $(cat "$tmp/prepared.log")"
[ "$(jq -s '[.[] | select(.t == "leg" and .prepare_rc == 0)] | length' "$log")" = 16 ] &&
    ok "prepare_rc 0 on every leg line" || fail "prepare_rc: $(jq -c 'select(.t == "leg") | .prepare_rc' "$log")"
"$BENCHTUI" report "$tmp/out" --format json > "$tmp/rep" 2>&1
[ "$(jq '.cells.one.arms.b.metrics.wall.n' "$tmp/rep")" = 2 ] &&
    ok "the report counts the 2 reps, not the warm-up legs" ||
    fail "report: $(jq -c '.cells.one.arms.b.metrics.wall' "$tmp/rep")"
grep -q "^\[warm-up\] one a w1 " "$tmp/stdout" && ok "headless shows warm-up legs" ||
    fail "stdout: $(head -5 "$tmp/stdout")"

# 2. A failing prepare.
cat > "$tmp/prepfail.json" <<'EOF'
{
  "name": "prepfail",
  "reps": 1,
  "prepare": ["/bin/sh", "-c", "echo cannot prepare >&2; exit 3"],
  "command": ["/bin/sh", "-c", "echo ran >> ran2.log"],
  "baseline": "a",
  "arms": [{"name": "a"}, {"name": "b"}],
  "cells": [{"name": "c"}],
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" run --headless --out "$tmp/pf" "$tmp/prepfail.json" > "$tmp/pfout" 2>&1
rc=$?
[ "$rc" -eq 5 ] && jq -se 'map(select(.t == "done")) | length == 1' "$tmp/pf/log.jsonl" > /dev/null &&
    ok "failing prepare: the round completes (exit 5)" ||
    { fail "failing prepare: exit $rc, want 5 and one done event"; cat "$tmp/pfout"; }
[ "$(jq -s '[.[] | select(.t == "leg" and .status == "failed" and .prepare_rc == 3 and .wall == null)] | length' "$tmp/pf/log.jsonl")" = 2 ] &&
    ok "legs failed with prepare_rc 3, nothing measured" ||
    fail "legs: $(jq -c 'select(.t == "leg")' "$tmp/pf/log.jsonl")"
[ ! -e "$tmp/ran2.log" ] && ok "the leg's command did not run" || fail "the command ran"
grep -q "cannot prepare" "$tmp/pf/legs/c-a-r1.out" && ok "prepare's output is in the leg's file" ||
    fail "c-a-r1.out: $(cat "$tmp/pf/legs/c-a-r1.out")"

finish
