#!/bin/bash
# The floor estimator pinned against tests/stats_ref.py, written from
# benchtui(1) STATISTICS alone (exact binomial fractions, a plain scan for
# u): n = 4, 5, 6, 10, 21, 41, 200 and 2500, levels 0.95 and 0.99, with
# tied values, legs whose value is 0 (no pair), and the round event's
# "estimator": "floor" choosing the verdict while "alt" carries the paired
# one (and the other way round with "paired").
. "$(dirname "$0")/e2e_lib.sh"

for n in 4 5 6 10 21 41 200 2500; do
	for level in 0.95 0.99; do
		est=floor
		[ "$n" = 10 ] && [ "$level" = 0.99 ] && est=paired
		PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$n" "$level" "$est" \
			"$tmp/log.jsonl" "$tmp/want.json" <<'PY'
import json, random, sys
import stats_ref
n, level, est = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
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
with open(sys.argv[4], "w") as f:
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
json.dump(want, open(sys.argv[5], "w"))
PY
		if ! "$BENCHTUI" report "$tmp/log.jsonl" --baseline base --aa aa=base \
			--format json >"$tmp/got.json" 2>"$tmp/err"; then
			fail "n=$n level=$level: report failed: $(cat "$tmp/err")"
			continue
		fi
		python3 - "$tmp/want.json" "$tmp/got.json" "$n $level $est" <<'PY' || fails=$((fails + 1))
import json, sys
want, got = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
tag = sys.argv[3]
bad = []
def close(a, b):
    return a is not None and b is not None and abs(a - b) <= 1e-12 * abs(a)
def same_ci(w, g):
    # zip stops at the shorter list: the lengths are compared first.
    return (w is None) == (g is None) and (w is None or (
        len(w) == len(g) and all(close(x, y) for x, y in zip(w, g))))
if got.get("estimator") != json.load(open(sys.argv[1]))["x"]["estimator"]:
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
sys.exit(1 if bad else 0)
PY
	done
done
finish
