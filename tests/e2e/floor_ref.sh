#!/bin/bash
# test: est=8 long
# The floor estimator pinned against tests/stats_ref.py, written from
# benchtui(1) STATISTICS alone (exact binomial fractions, a plain scan for
# u): n = 4, 5, 6, 10, 21, 41, 200 and 2500, levels 0.95 and 0.99, with
# tied values, legs whose value is 0 (no pair), and the round event's
# "estimator": "floor" choosing the verdict while "alt" carries the paired
# one (and the other way round with "paired").  One python writes every
# case's log and expected figures (N-LEVEL.log, .want), benchtui reports
# each (.got), one python compares them all: two interpreters, not two a
# case.
. "$(dirname "$0")/e2e_lib.sh"

cases=$(for n in 4 5 6 10 21 41 200 2500; do
	for level in 0.95 0.99; do echo "$n-$level"; done
done)
PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$tmp" $cases <<'PY' ||
import json, random, sys
import stats_ref

def make(n, level, est, logp, wantp):
    rnd = random.Random(n * 7 + int(level * 100))
    # Few distinct values, so the order statistics tie.
    grid = [1.0, 1.0, 1.01, 1.02, 1.05, 1.3, 2.0]
    lines = [{"t": "round", "name": "ref", "level": level, "margin": 0.01,
              "estimator": est}]
    pairs = {"x": [], "aa": []}
    zero_reps = {2} if n > 6 else set()      # x's wall is 0 there: no pair
    for r in range(1, n + 1):
        vals = {"base": 2.0 * rnd.choice(grid), "x": 2.1 * rnd.choice(grid),
                "aa": 2.0 * rnd.choice(grid)}
        if r in zero_reps:
            vals["x"] = 0.0
        for a, v in vals.items():
            lines.append({"t": "leg", "cell": "c", "arm": a, "rep": r,
                          "status": "ok", "rc": 0, "wall": v, "cpu": v})
        for a in ("x", "aa"):
            if vals[a] > 0:
                pairs[a].append((vals[a], vals["base"]))
    with open(logp, "w") as f:
        for d in lines:
            f.write(json.dumps(d) + "\n")
    want = {}
    for a in ("x", "aa"):
        va = [p[0] for p in pairs[a]]
        vb = [p[1] for p in pairs[a]]
        f_est, f_ci = stats_ref.floor_interval(va, vb, level)
        p_est, p_ci = stats_ref.interval([x / y for x, y in pairs[a]], level)
        by = {"floor": (f_est, f_ci), "paired": (p_est, p_ci)}
        other = "paired" if est == "floor" else "floor"
        want[a] = {"n": len(va), "estimator": est, "other": other,
                   "estimate": by[est][0], "ci": by[est][1],
                   "verdict": stats_ref.verdict(by[est][1], 0.01),
                   "alt": {"estimator": other, "estimate": by[other][0],
                           "ci": by[other][1],
                           "verdict": stats_ref.verdict(by[other][1], 0.01)},
                   "u": stats_ref.floor_u(len(va), level)}
    json.dump(want, open(wantp, "w"))

for case in sys.argv[2:]:
    n, level = case.split("-")
    # One case reads "paired" from the round event, the rest "floor".
    est = "paired" if case == "10-0.99" else "floor"
    make(int(n), float(level), est, *("%s/%s.%s" % (sys.argv[1], case, x)
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
def same_ci(w, g):
    # zip stops at the shorter list: the lengths are compared first.
    return (w is None) == (g is None) and (w is None or (
        len(w) == len(g) and all(close(x, y) for x, y in zip(w, g))))
nbad = 0
for case in sys.argv[2:]:
    base = "%s/%s." % (sys.argv[1], case)
    if os.path.exists(base + "err"):
        print("FAIL n-level %s: %s" % (case, open(base + "err").read().strip()))
        nbad += 1
        continue
    want, got = json.load(open(base + "want")), json.load(open(base + "got"))
    tag = "%s %s" % (case.replace("-", " "), want["x"]["estimator"])
    bad = []
    if got.get("estimator") != want["x"]["estimator"]:
        bad.append("report estimator %r" % got.get("estimator"))
    for a, w in want.items():
        g = got["cells"]["c"]["arms"][a]["metrics"]["wall"]
        if g["n"] != w["n"]:
            bad.append("%s n %r != %r" % (a, g["n"], w["n"]))
        for obj, ref, what in ((g, w, "chosen"), (g.get("alt") or {}, w["alt"], "alt")):
            if not close(ref["estimate"], obj.get("estimate")):
                bad.append("%s %s estimate %r != %r" % (a, what, obj.get("estimate"), ref["estimate"]))
            if not same_ci(ref["ci"], obj.get("ci")):
                bad.append("%s %s ci %r != %r (u %d)" % (a, what, obj.get("ci"), ref["ci"], w["u"]))
            if obj.get("verdict") != ref["verdict"]:
                bad.append("%s %s verdict %r != %r" % (a, what, obj.get("verdict"), ref["verdict"]))
        if g.get("alt", {}).get("estimator") != w["other"]:
            bad.append("%s alt estimator %r" % (a, g.get("alt")))
    for b in bad:
        print("FAIL %s: %s" % (tag, b))
    if not bad:
        print("ok %s: x ci %s (u %d), alt %s" % (tag, want["x"]["ci"], want["x"]["u"], want["x"]["alt"]["verdict"]))
    nbad += bool(bad)
sys.exit(1 if nbad else 0)
PY
finish
