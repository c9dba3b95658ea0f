#!/bin/bash
# test:
# report --format json against an independent Python implementation of
# SPEC.md's arithmetic, over random logs (seeded, so a failure reproduces):
# random statuses (ok, failed, timed_out, aborted then rerun), missing
# values, legacy rows, A/A arms, ratios landing exactly on the floor.
. "$(dirname "$0")/e2e_lib.sh"

# One python writes every seed's log, report arguments and expected json
# (SEED.log, SEED.args, SEED.want), benchtui reports each (SEED.got), and
# one python compares them all: two interpreters, not two a seed.
seeds=$(seq 1 16)
PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$tmp" $seeds <<'PY' ||
import json, math, random, sys
import stats_ref

def make(seed, logp, wantp, argsp):
    rnd = random.Random(seed)
    ncells, reps = rnd.randint(1, 3), rnd.randint(1, 9)
    arms = ["base", "x", "y", "aa"][: rnd.randint(2, 4)]
    aa = {"aa": "base"} if "aa" in arms else {}
    metrics = ["wall", "cpu", "cycles", "instructions"]
    # Values from a small grid of binary fractions, so ratios often tie; a 0
    # gives no ratio.
    grid = [0.0, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0]
    lines, counted = [], {}
    for c in range(ncells):
        cell = "c%d" % c
        for r in range(1, reps + 1):
            order = arms[:] if rnd.random() < 0.5 else arms[::-1]
            for a in order:
                legacy = rnd.random() < 0.2
                st = rnd.choices(["ok", "failed", "timed_out", "aborted"], [8, 1, 1, 1])[0]
                if legacy and st in ("timed_out", "aborted"):
                    st = "ok"
                vals = {m: (None if rnd.random() < 0.1 else rnd.choice(grid)) for m in metrics}
                if st == "aborted":
                    lines.append({"t": "leg", "cell": cell, "arm": a, "rep": r, "status": "aborted", **vals})
                    st = "ok"            # the rerun
                if legacy:
                    d = {"cell": cell, "arm": a, "rep": r, "rc": 0 if st == "ok" else 1, **vals}
                else:
                    d = {"t": "leg", "cell": cell, "arm": a, "rep": r, "status": st, **vals}
                lines.append(d)
                counted[(cell, a, r)] = (st, vals)
    with open(logp, "w") as f:
        for d in lines:
            f.write(json.dumps(d) + "\n")
    with open(argsp, "w") as f:
        f.write(" ".join("--aa %s=%s" % kv for kv in aa.items()))

    def ratios(cell, a, b, m):
        out = []
        for r in range(1, reps + 1):
            la, lb = counted.get((cell, a, r)), counted.get((cell, b, r))
            if not la or not lb or la[0] != "ok" or lb[0] != "ok":
                continue
            x, y = la[1][m], lb[1][m]
            out.append((x, y))
        return out

    def median(v):
        s = sorted(v); n = len(s)
        if not n:
            return None
        return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2

    want = {"level": 0.95, "margin": 0.01, "cells": {}}
    ncmp = 0
    for c in range(ncells):
        cell = "c%d" % c
        floor, biased = {}, []
        for m in metrics:
            f = None
            for a, of in aa.items():
                rr = stats_ref.ratios(ratios(cell, a, of, m))
                if rr:
                    x = max(abs(q - 1) for q in rr)
                    f = x if f is None else max(f, x)
                est, ci = stats_ref.interval(rr, 0.95)
                if ci and (ci[0] > 1 or ci[1] < 1):
                    biased.append(m)
            floor[m] = f
        out = {}
        for a in arms:
            b = aa.get(a, None if a == "base" else "base")
            if b is None:
                continue
            ms = {}
            for m in metrics:
                pp = [p for p in ratios(cell, a, b, m)
                      if p[0] is not None and p[1] is not None and p[0] > 0 and p[1] > 0]
                rr = stats_ref.ratios(pp); n = len(rr)
                est, ci = stats_ref.interval(rr, 0.95)
                ms[m] = {"n": n, "median": stats_ref.median(rr),
                         "min": min(rr) if rr else None,
                         "max": max(rr) if rr else None,
                         "geomean": math.exp(sum(map(math.log, rr)) / n) if rr else None,
                         "ratios": rr,
                         "abs": stats_ref.median([p[0] for p in pp]),
                         "vs_abs": stats_ref.median([p[1] for p in pp]),
                         "estimate": est, "ci": ci,
                         "spread": max(abs(q - 1) for q in rr) if a in aa and rr else None,
                         "verdict": stats_ref.verdict(ci, 0.01),
                         "suspect": m in biased}
                ncmp += 1
            out[a] = {"vs": b, "aa_of": aa.get(a), "metrics": ms}
        want["cells"][cell] = {"floor": floor, "biased": sorted(biased), "arms": out}
    want["comparisons"] = ncmp
    json.dump(want, open(wantp, "w"))
for seed in sys.argv[2:]:
    make(int(seed), *("%s/%s.%s" % (sys.argv[1], seed, x)
                      for x in ("log", "want", "args")))
PY
	{ echo "FAIL: the reference failed"; exit 1; }
for seed in $seeds; do
	# The first arm seen must be base for the reference's "first arm" rule:
	# every cell's rep 1 may start with any arm, so name it explicitly.
	# shellcheck disable=SC2046
	"$BENCHTUI" report "$tmp/$seed.log" --baseline base $(cat "$tmp/$seed.args") \
		--format json >"$tmp/$seed.got" 2>"$tmp/err" ||
		echo "report exit $?: $(cat "$tmp/err")" >"$tmp/$seed.err"
done
python3 - "$tmp" $seeds <<'PY' || fails=$((fails + 1))
import json, os, sys
nbad = 0
for seed in sys.argv[2:]:
    base = "%s/%s." % (sys.argv[1], seed)
    if os.path.exists(base + "err"):
        print("FAIL seed %s: %s" % (seed, open(base + "err").read().strip()))
        nbad += 1
        continue
    want, got = json.load(open(base + "want")), json.load(open(base + "got"))
    bad = []
    def cmp(a, b, path):
        if isinstance(a, dict):
            for k in a:            # the reference holds SPEC's keys only
                if not isinstance(b, dict) or k not in b:
                    bad.append(path + "." + k + " missing"); continue
                cmp(a[k], b[k], path + "." + k)
            if isinstance(b, dict) and path.endswith(".arms") and set(b) != set(a):
                bad.append(path + ": arms %s != %s" % (sorted(b), sorted(a)))
        elif isinstance(a, list):
            if len(a) != len(b):
                bad.append(path + ": length"); return
            for i, (x, y) in enumerate(zip(a, b)):
                cmp(x, y, "%s[%d]" % (path, i))
        elif isinstance(a, float) or isinstance(b, float):
            if a is None or b is None or abs(a - b) > 1e-9 * max(1, abs(a)):
                bad.append("%s: want %r got %r" % (path, a, b))
        elif a != b:
            bad.append("%s: want %r got %r" % (path, a, b))
    cmp(want, got, "$")
    for b in bad[:10]:
        print("FAIL seed %s: %s" % (seed, b))
    nbad += bool(bad)
print("%d seeds, %d failed" % (len(sys.argv) - 2, nbad))
sys.exit(1 if nbad else 0)
PY

finish
