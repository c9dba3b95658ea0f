#!/bin/bash
# test: asan-covered
# compare of two rounds run on several hosts: the effect is compared over
# the pairs of each round (never a pair across hosts) and, host by host,
# on each host both rounds ran on (METRIC@HOST in text, csv, markdown).
# A real round's folder, its leg lines given hosts and walls by hand and
# resealed: in B the arm is 30% slower on host hB only.
. "$(dirname "$0")/e2e_lib.sh"
need jq sha256sum

cat >"$tmp/r.json" <<EOF2
{"name": "h", "reps": 12, "command": ["/bin/true"], "baseline": "base",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "x"}], "cells": [{"name": "c"}]}
EOF2
"$BENCHTUI" run "$tmp/r.json" --out "$tmp/a" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "run a"; finish; }
cp -r "$tmp/a" "$tmp/b"
chmod -R u+w "$tmp/a" "$tmp/b"
# Hosts dealt rep by rep (hA, hB, hC); walls made up: B's x 30% slower on
# hB.  Every other field of the real line is kept.
for side in a b; do
	python3 - "$tmp/$side/log.jsonl" "$side" <<'PY'
import json, sys
path, side = sys.argv[1], sys.argv[2]
out = []
for line in open(path):
    d = json.loads(line)
    if d.get("t") == "leg" and not d.get("warmup"):
        r = d["rep"]
        h = ["hA", "hB", "hC"][(r - 1) % 3]
        base = 0.01 * (1 + (r % 3)) * (1 + 0.001 * r)
        noise = 1 + 0.002 * ((r * 7) % 5 - 2)
        slow = 1.3 if side == "b" and h == "hB" else 1.0
        d["host"] = h
        d["wall"] = base * (noise * slow if d["arm"] == "x" else 1.0)
    out.append(json.dumps(d, separators=(",", ":")))
open(path, "w").write("\n".join(out) + "\n")
PY
	(cd "$tmp/$side" && find . -type f ! -name 'SHA256SUMS*' |
	    sed 's|^\./||' | LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
	"$BENCHTUI" verify "$tmp/$side" >/dev/null ||
		fail "the resealed folder $side does not verify"
done

"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format json >"$tmp/cmp.json" \
	2>"$tmp/cmp.err" || fail "compare a b: exit $?: $(cat "$tmp/cmp.err")"
jq -e '.cells.c.arms.x.effect.wall.hosts.hB.verdict == "above"' \
	"$tmp/cmp.json" >/dev/null ||
	fail "the effect on hB did not change: $(jq -c .cells.c.arms.x.effect.wall "$tmp/cmp.json")"
for h in hA hC; do
	jq -e ".cells.c.arms.x.effect.wall.hosts.$h.verdict != \"above\" and
	    .cells.c.arms.x.effect.wall.hosts.$h.n_a == 4" "$tmp/cmp.json" \
		>/dev/null || fail "the effect on $h: $(jq -c ".cells.c.arms.x.effect.wall.hosts.$h" "$tmp/cmp.json")"
done
jq -e '.cells.c.arms.x.effect.wall.n_a == 12 and
    (.cells.c.arms.x.metrics.wall | has("hosts") | not)' "$tmp/cmp.json" \
	>/dev/null || fail "pooled effect or metrics wrong"
"$BENCHTUI" compare "$tmp/a" "$tmp/b" >"$tmp/cmp.txt" 2>&1
grep -q '^  x/wall@hB ' "$tmp/cmp.txt" ||
	{ cat "$tmp/cmp.txt"; fail "text: no x/wall@hB row"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format csv >"$tmp/cmp.csv" 2>&1
grep -q ',c,x,wall@hB,effect,4,4,' "$tmp/cmp.csv" ||
	{ cat "$tmp/cmp.csv"; fail "csv: no wall@hB effect row"; }
"$BENCHTUI" compare "$tmp/a" "$tmp/b" --format markdown 2>&1 |
	grep -q '^| x | wall@hB | 4 | 4 |' || fail "markdown: no wall@hB row"
# The report of B says where the effect lives.
"$BENCHTUI" report "$tmp/b" >"$tmp/rep.txt" 2>&1
grep -q 'depends on the machine.*hB' "$tmp/rep.txt" ||
	{ cat "$tmp/rep.txt"; fail "report b does not name hB"; }
finish
