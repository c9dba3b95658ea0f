#!/bin/bash
# test: asan-covered
# A round on several hosts, read from its log alone: benchtui report's
# json pinned against tests/stats_ref.py's hosts_rule, an independent
# implementation (pairs within a host, the pooled and each host's
# Wilcoxon interval with every Walsh average listed, each host against
# the others compared by tests/compare_ref.py's Mann-Whitney interval at
# the shared level).  Synthetic logs: one host slowed on three hosts (6
# reps a host, and 4), two alike hosts, a 2-2 split on four at 0.99, tied ratios and zero values (the
# normal approximation of the two-sample rule), 60 reps a host (beyond
# its exact table), a rep whose legs name different hosts (never
# paired, warned).  Then the formats: text and markdown say the effect
# depends on the machine and name the host, csv has a row per host, and
# a log with one host (or none) carries no host keys.
. "$(dirname "$0")/e2e_lib.sh"

cases="odd3 few3 alike2 split4 ties3 big3 cross2"
PYTHONPATH="$BENCHTUI_SOURCE_DIR/tests" python3 - "$tmp" $cases <<'PY' ||
import json, random, sys
import stats_ref

def make(case, d):
    rnd = random.Random(case)
    level, margin = 0.95, 0.01
    grid = None
    if case == "odd3":
        hosts, reps, eff = ["hA", "hB", "hC"], 18, {"hB": 1.3}
    elif case == "few3":
        hosts, reps, eff = ["hA", "hB", "hC"], 12, {"hB": 1.3}
    elif case == "alike2":
        hosts, reps, eff = ["one", "two"], 20, {}
    elif case == "split4":
        hosts, reps, eff = ["w", "x", "y", "z"], 96, {"x": 1.1, "y": 1.1}
        level = 0.99
    elif case == "ties3":
        hosts, reps, eff = ["p", "q", "r"], 24, {"r": 1.05}
        grid = [0.98, 1.0, 1.0, 1.02, 1.04]
    elif case == "big3":
        hosts, reps, eff = ["m1", "m2", "m3"], 180, {"m1": 0.97}
    else:
        hosts, reps, eff = ["lo", "hi"], 16, {"hi": 1.2}
    lines = [{"t": "round", "name": case, "level": level,
              "margin": margin}]
    legs = {}
    for r in range(1, reps + 1):
        h = hosts[(r - 1) % len(hosts)]
        base = rnd.uniform(0.9, 1.1) * (1 + hosts.index(h))
        noise = rnd.choice(grid) if grid else rnd.uniform(0.97, 1.03)
        vals = {"b": base, "a": base * eff.get(h, 1.0) * noise}
        if case == "ties3" and r in (5, 11):
            vals["a"] = 0.0                      # no ratio
        hb = {"b": h, "a": h}
        if case == "cross2" and r == 3:
            hb["a"] = hosts[1 - hosts.index(h)]  # never paired
        for arm in ("b", "a"):
            lines.append({"t": "leg", "cell": "c", "arm": arm, "rep": r,
                          "host": hb[arm], "status": "ok", "rc": 0,
                          "wall": vals[arm], "cpu": vals[arm]})
        legs[r] = {arm: (hb[arm], vals[arm]) for arm in ("a", "b")}
    with open(d + case + ".log", "w") as f:
        for x in lines:
            f.write(json.dumps(x) + "\n")
    pooled, parts, dep, differ = stats_ref.hosts_rule(legs, level, margin)
    for p in [pooled] + list(parts.values()):
        del p["ratios"]
    json.dump({"pooled": pooled, "hosts": parts, "depends": dep,
               "differ": differ}, open(d + case + ".want", "w"))

for case in sys.argv[2:]:
    make(case, sys.argv[1] + "/")
PY
	{ echo "FAIL: the reference failed"; exit 1; }

for case in $cases; do
	"$BENCHTUI" report "$tmp/$case.log" --baseline b --format json \
		>"$tmp/$case.got" 2>"$tmp/err" ||
		echo "report failed: $(cat "$tmp/err")" >"$tmp/$case.err"
done

python3 - "$tmp" $cases <<'PY' || fails=$((fails + 1))
import json, os, sys
def close(a, b):
    if a is None or b is None:
        return a is b
    return abs(a - b) <= 1e-12 * abs(a)
def same_ci(w, lo, hi):
    return (lo, hi) == (None, None) if w is None else (
        close(w[0], lo) and close(w[1], hi))
nbad = 0
for case in sys.argv[2:]:
    base = "%s/%s." % (sys.argv[1], case)
    if os.path.exists(base + "err"):
        print("FAIL %s: %s" % (case, open(base + "err").read().strip()))
        nbad += 1
        continue
    want, got = json.load(open(base + "want")), json.load(open(base + "got"))
    m = got["cells"]["c"]["arms"]["a"]["metrics"]["wall"]
    bad = []
    p = want["pooled"]
    if m["n"] != p["n"] or not close(p["estimate"], m["estimate"]):
        bad.append("pooled n/estimate %r %r != %r %r" % (
            m["n"], m["estimate"], p["n"], p["estimate"]))
    ci = m["ci"] or [None, None]
    if not same_ci(p["ci"], *ci) or m["verdict"] != p["verdict"]:
        bad.append("pooled ci %r %r != %r %r" % (m["ci"], m["verdict"],
                                                 p["ci"], p["verdict"]))
    if sorted(m.get("hosts", {})) != sorted(want["hosts"]):
        bad.append("hosts %r != %r" % (sorted(m.get("hosts", {})),
                                       sorted(want["hosts"])))
    for h, w in want["hosts"].items():
        g = m.get("hosts", {}).get(h)
        if g is None:
            continue
        if g["n"] != w["n"] or not close(w["estimate"], g["estimate"]) or \
                not same_ci(w["ci"], g["lo"], g["hi"]) or \
                g["verdict"] != w["verdict"]:
            bad.append("host %s %r != %r" % (h, g, w))
    if m.get("depends_on_machine") != want["depends"] or \
            sorted(m.get("hosts_differ", [])) != sorted(want["differ"]):
        bad.append("depends %r %r != %r %r" % (
            m.get("depends_on_machine"), m.get("hosts_differ"),
            want["depends"], want["differ"]))
    for b in bad:
        print("FAIL %s: %s" % (case, b))
    if not bad:
        print("ok %s: pooled %.4f, depends %s %s" % (
            case, m["estimate"], want["depends"], want["differ"]))
    nbad += bool(bad)
# What the cases are for: the reference agreeing is not enough if the
# figures never reach the branches that matter.
w = {c: json.load(open("%s/%s.want" % (sys.argv[1], c)))
     for c in sys.argv[2:]}
for c, dep, diff in (("odd3", True, ["hB"]), ("few3", True, ["hB"]),
                     ("alike2", False, []), ("split4", True, ["x", "y"]),
                     ("cross2", True, ["hi", "lo"])):
    if c in w and (w[c]["depends"], sorted(w[c]["differ"])) != (dep, diff):
        print("FAIL %s: the case no longer shows %r %r" % (c, dep, diff))
        nbad += 1
sys.exit(1 if nbad else 0)
PY

# The warning for the rep whose legs ran on different hosts.
grep -q "different hosts (rep 3" "$tmp/cross2.got" ||
	fail "cross2: no warning for the rep paired across hosts"

# The formats say it in words, naming the host.
"$BENCHTUI" report "$tmp/odd3.log" --baseline b >"$tmp/odd3.txt" 2>&1 ||
	fail "text report failed: $(cat "$tmp/odd3.txt")"
grep -q "depends on the machine.*hB" "$tmp/odd3.txt" ||
	fail "text: no 'depends on the machine' naming hB: $(cat "$tmp/odd3.txt")"
grep -q "paired reps on 3 hosts" "$tmp/odd3.txt" ||
	fail "text: the summary does not say the round ran on 3 hosts"
grep -q "depends on the machine (hB differs)" "$tmp/odd3.txt" ||
	fail "text: the summary's verdict does not say it depends on hB"
grep -q "host hA" "$tmp/odd3.txt" ||
	fail "text: no line of host hA: $(cat "$tmp/odd3.txt")"
"$BENCHTUI" report "$tmp/odd3.log" --baseline b --format markdown \
	>"$tmp/odd3.md" 2>&1 || fail "markdown report failed"
grep -q "depends on the machine.*hB" "$tmp/odd3.md" ||
	fail "markdown: no 'depends on the machine' naming hB"
"$BENCHTUI" report "$tmp/odd3.log" --baseline b --format csv \
	>"$tmp/odd3.csv" 2>&1 || fail "csv report failed"
python3 - "$tmp/odd3.csv" <<'PY' || fails=$((fails + 1))
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wall = [r for r in rows if r["arm"] == "a" and r["metric"] == "wall"]
hosts = sorted(r["host"] for r in wall)
if hosts != ["", "hA", "hB", "hC"]:
    sys.exit("FAIL csv: the wall rows' hosts are %r" % hosts)
diff = {r["host"]: r["differs"] for r in wall}
if diff != {"": "true", "hA": "false", "hB": "true", "hC": "false"}:
    sys.exit("FAIL csv: differs %r" % diff)
print("ok csv: a row per host")
PY

# More than 64 hosts: each host's estimate, but no search for the odd
# ones (a warning says so), so a crafted log cannot take hours.
python3 - "$tmp/many.log" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for r in range(1, 211):
        for arm, v in (("b", 1 + r / 1000), ("a", 1.01 + r / 1000)):
            f.write(json.dumps({"t": "leg", "cell": "c", "arm": arm,
                                "rep": r, "host": "h%d" % (r % 70),
                                "status": "ok", "wall": v}) + "\n")
PY
"$BENCHTUI" report "$tmp/many.log" --baseline b --format json \
	>"$tmp/many.json" 2>&1 || fail "many: report failed"
python3 - "$tmp/many.json" <<'PY' || fails=$((fails + 1))
import json, sys
d = json.load(open(sys.argv[1]))
m = d["cells"]["c"]["arms"]["a"]["metrics"]["wall"]
if len(m["hosts"]) != 70 or m["depends_on_machine"] or m["hosts_differ"]:
    sys.exit("FAIL many: %d hosts, %r" % (len(m["hosts"]),
                                          m["depends_on_machine"]))
if not any("70 hosts, more than 64" in w for w in d["warnings"]):
    sys.exit("FAIL many: no warning: %r" % d["warnings"])
print("ok many: 70 hosts listed, the search left out and said")
PY

# One host, or none: the report as it always was.
sed 's/"host": "h[ABC]"/"host": "solo"/' "$tmp/odd3.log" >"$tmp/solo.log"
sed 's/, "host": "h[ABC]"//' "$tmp/odd3.log" >"$tmp/none.log"
for f in solo none; do
	"$BENCHTUI" report "$tmp/$f.log" --baseline b --format json \
		>"$tmp/$f.json" 2>&1 || fail "$f: report failed"
	if grep -q '"hosts"\|depends_on_machine' "$tmp/$f.json"; then
		fail "$f: host keys in a round on one host"
	fi
	"$BENCHTUI" report "$tmp/$f.log" --baseline b --format csv \
		>"$tmp/$f.csv" 2>&1 || fail "$f: csv report failed"
	head -1 "$tmp/$f.csv" | grep -q ',host,' &&
		fail "$f: a host column in a round on one host"
done
cmp -s "$tmp/solo.json" "$tmp/none.json" ||
	fail "one host and none report differently"
finish
