#!/bin/bash
# test: asan-covered est=2
# The interval pinned against tests/stats_ref.py, an independent
# implementation (exact integer null distribution, every Walsh average
# listed): n = 6, 7, 10, 50, 200 (exact) and 2500 (normal approximation),
# with tied ratios, ratios of exactly 1 (zero log ratios), legs whose value
# is 0 (no ratio), and levels 0.95 and 0.99.  One python writes every
# case's log and expected figures (N-LEVEL.log, .want), benchtui reports
# each (.got), one python compares them all: two interpreters, not two a
# case, and the reference lists an n's null distribution and a data set's
# Walsh averages once for both levels.
. "$(dirname "$0")/e2e_lib.sh"

cases=$(for n in 6 7 10 50 200 2500; do
	for level in 0.95 0.99; do echo "$n-$level"; done
done)
PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$tmp" $cases <<'PY' ||
import json, random, sys
import stats_ref

def make(n, level, logp, wantp):
    rnd = random.Random(n)
    # Few distinct values, so ratios tie and many are exactly 1.
    grid = [0.96, 0.98, 1.0, 1.0, 1.02, 1.05, 1.1]
    lines = [{"t": "round", "name": "ref", "level": level, "margin": 0.01}]
    pairs = {"x": [], "aa": []}
    zero_reps = {3} if n > 6 else set()      # x's wall is 0 there: no ratio
    for r in range(1, n + 1):
        base = rnd.choice([1.0, 2.0, 4.0])
        vals = {"base": base, "x": base * rnd.choice(grid),
                "aa": base * rnd.choice(grid[1:5])}
        if r in zero_reps:
            vals["x"] = 0.0
        for a, v in vals.items():
            lines.append({"t": "leg", "cell": "c", "arm": a, "rep": r,
                          "status": "ok", "rc": 0, "wall": v, "cpu": v})
        for a in ("x", "aa"):
            pairs[a].append((vals[a], base))
    with open(logp, "w") as f:
        for d in lines:
            f.write(json.dumps(d) + "\n")
    want = {}
    for a in ("x", "aa"):
        rs = stats_ref.ratios(pairs[a])
        est, ci = stats_ref.interval(rs, level)
        want[a] = {"n": len(rs), "estimate": est, "ci": ci,
                   "verdict": stats_ref.verdict(ci, 0.01),
                   "k": stats_ref.wilcoxon_k(len(rs), level)}
    json.dump(want, open(wantp, "w"))

for case in sys.argv[2:]:
    n, level = case.split("-")
    make(int(n), float(level), *("%s/%s.%s" % (sys.argv[1], case, x)
                                 for x in ("log", "want")))
PY
	{ echo "FAIL: the reference failed"; exit 1; }

for case in $cases; do
	"$BENCHTUI" report "$tmp/$case.log" --baseline base --aa aa=base \
		--format json >"$tmp/$case.got" 2>"$tmp/err" ||
		echo "report failed: $(cat "$tmp/err")" >"$tmp/$case.err"
done

python3 - "$tmp" $cases <<'PY' || fails=$((fails + 1))
import json, os, sys
def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-12 * abs(a)
nbad = 0
for case in sys.argv[2:]:
    n, level = case.split("-")
    tag = "n=%s level=%s" % (n, level)
    base = "%s/%s." % (sys.argv[1], case)
    if os.path.exists(base + "err"):
        print("FAIL %s: %s" % (tag, open(base + "err").read().strip()))
        nbad += 1
        continue
    want, got = json.load(open(base + "want")), json.load(open(base + "got"))
    bad = []
    if abs(got["level"] - float(level)) > 1e-15:
        bad.append("level %r" % got["level"])
    for a, w in want.items():
        g = got["cells"]["c"]["arms"][a]["metrics"]["wall"]
        if g["n"] != w["n"]:
            bad.append("%s n %r != %r" % (a, g["n"], w["n"]))
        if not close(w["estimate"], g["estimate"]):
            bad.append("%s estimate %r != %r" % (a, g["estimate"], w["estimate"]))
        # zip stops at the shorter list: the lengths are compared first.
        if (w["ci"] is None) != (g["ci"] is None) or (w["ci"] and (
                len(w["ci"]) != len(g["ci"]) or not all(
                close(x, y) for x, y in zip(w["ci"], g["ci"])))):
            bad.append("%s ci %r != %r (k %d)" % (a, g["ci"], w["ci"], w["k"]))
        if g["verdict"] != w["verdict"]:
            bad.append("%s verdict %r != %r" % (a, g["verdict"], w["verdict"]))
    for b in bad:
        print("FAIL %s: %s" % (tag, b))
    if not bad:
        print("ok %s: x ci %s (k %d), aa ci %s" % (tag, want["x"]["ci"], want["x"]["k"], want["aa"]["ci"]))
    nbad += bool(bad)
sys.exit(1 if nbad else 0)
PY
finish
