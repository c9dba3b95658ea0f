#!/bin/bash
# test: est=2
# report's text, csv and markdown formats over the golden logs: text fits
# 100 columns, csv parses with one row per cell/arm/metric, markdown tables
# have a consistent number of columns.
. "$(dirname "$0")/e2e_lib.sh"
data="$BENCHTUI_SOURCE_DIR/tests/data/report"

# Names at their longest (49 characters) and long counter names must still
# fit the text table in 100 columns.
long_a=Aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1
long_b=Bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2
long_c=Cccccccccccccccccccccccccccccccccccccccccccccccc3
for r in 1 2 3 4 5 6 7; do
	for arm in "$long_a" "$long_b" "$long_c"; do
		printf '{"t":"leg","cell":"%s","arm":"%s","rep":%d,"status":"ok","wall":%d.5,"cpu":1,"cycles":%d,"instructions":12345678901,"counters":{"context-switches":%d,"cpu-migrations":1,"a-very-long-counter-name-indeed":3}}\n' \
			"$long_c" "$arm" "$r" "$r" $((1000000000 + r)) "$r"
	done
done >"$tmp/long.jsonl"

for input in "$data/golden.jsonl --aa aa=l3" "$data/round" "$tmp/long.jsonl --aa $long_c=$long_a"; do
	# shellcheck disable=SC2086
	set -- $input
	"$BENCHTUI" report "$@" >"$tmp/text" 2>/dev/null || fail "text: exit $? for $input"
	"$BENCHTUI" report "$@" --format json >"$tmp/json" 2>/dev/null
	"$BENCHTUI" report "$@" --format csv >"$tmp/csv" 2>/dev/null || fail "csv: exit $?"
	"$BENCHTUI" report "$@" --format markdown >"$tmp/md" 2>/dev/null || fail "markdown: exit $?"

	wide=$(awk 'length($0) > 100' "$tmp/text" | wc -l)
	[ "$wide" -eq 0 ] || fail "text: $wide lines wider than 100 columns"
	grep -q "verdict" "$tmp/text" || fail "text: no table header"
	grep -q "A/A floor" "$tmp/text" || fail "text: no floor line"

	python3 - "$tmp/csv" "$tmp/json" <<'PY' || fail "csv does not match the json report"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
head = ("round,cell,arm,vs,metric,n,median,min,max,geomean,abs,vs_abs,estimate,"
        "ci_lo,ci_hi,level,margin,spread,floor,verdict,suspect,ratios").split(",")
assert rows[0] == head, rows[0]
want = [(c, a, m) for c, cell in rep["cells"].items() for a, arm in cell["arms"].items() for m in arm["metrics"]]
got = [(r[1], r[2], r[4]) for r in rows[1:]]
assert got == want, (got[:3], want[:3])
for r in rows[1:]:
    assert len(r) == len(head)
    m = rep["cells"][r[1]]["arms"][r[2]]["metrics"][r[4]]
    assert int(r[5]) == m["n"]
    assert (r[6] == "") == (m["median"] is None)
    if m["median"] is not None:
        assert abs(float(r[6]) - m["median"]) <= 1e-12
    col = dict(zip(head, r))
    ratios = [float(x) for x in col["ratios"].split(";")] if col["ratios"] else []
    assert ratios == m["ratios"]
    assert col["verdict"] == m["verdict"]
    assert col["suspect"] == ("true" if m["suspect"] else "false")
    for k in ("estimate", "abs", "vs_abs", "spread"):
        assert (col[k] == "") == (m[k] is None), k
        if m[k] is not None:
            assert abs(float(col[k]) - m[k]) <= 1e-12 * abs(m[k]), k
    ci = m["ci"] or [None, None]
    for k, v in zip(("ci_lo", "ci_hi"), ci):
        assert (col[k] == "") == (v is None), k
        if v is not None:
            assert abs(float(col[k]) - v) <= 1e-12 * abs(v), k
PY

	python3 - "$tmp/md" <<'PY' || fail "markdown tables are not consistent"
import sys
lines = open(sys.argv[1]).read().split("\n")
assert lines[0].startswith("# "), lines[0]
tables = 0
i = 0
while i < len(lines):
    if lines[i].startswith("|"):
        block = []
        while i < len(lines) and lines[i].startswith("|"):
            block.append(lines[i]); i += 1
        cols = {l.count("|") for l in block}
        assert len(cols) == 1, block
        assert set(block[1].replace("|", "").replace("-", "").replace(":", "")) <= {""}, block[1]
        assert len(block) >= 3
        tables += 1
    i += 1
assert tables >= 1
PY
done

# A round folder whose round.json names a relative workdir that is not
# there where the folder is read (moved, copied to another machine):
# report and --replay both still take vs and aa_of from round.json.
cp -r "$data/round" "$tmp/moved"
jq '.workdir = "../no-such-folder"' "$data/round/round.json" >"$tmp/moved/round.json"
"$BENCHTUI" report "$tmp/moved" --format json 2>"$tmp/rep.err" |
	jq -e '.cells.second.arms.l9.vs == "l1" and .cells.second.arms.aa.aa_of == "l3"' >/dev/null ||
	fail "report of a moved folder: vs/aa_of not from round.json: $(cat "$tmp/rep.err")"
"$BENCHTUI" replay "$tmp/moved/log.jsonl" --headless >"$tmp/replay.out" 2>"$tmp/replay.err" ||
	fail "replay of a moved folder: exit $?"
grep -q '^cell second' "$tmp/replay.out" && grep -q '^  l9 vs l1, ' "$tmp/replay.out" &&
    grep -q 'A/A floor' "$tmp/replay.out" ||
	fail "replay of a moved folder: vs/aa_of not from round.json: $(cat "$tmp/replay.err")"

# Headless replay of legacy rows (no t, status, seq, nor a round total):
# each leg is numbered, and its status is the one report reads.
printf '%s\n' '{"cell":"c","arm":"a","rep":1,"rc":0,"wall":1}' \
    '{"cell":"c","arm":"b","rep":1,"rc":2,"wall":2}' >"$tmp/legacy.jsonl"
"$BENCHTUI" replay "$tmp/legacy.jsonl" --headless >"$tmp/legacy.out" 2>&1
grep -q '^\[1\] c a r1 rc=0 wall=1.00s cpu=n/a$' "$tmp/legacy.out" &&
    grep -q '^\[2\] c b r1 rc=2 .* failed$' "$tmp/legacy.out" ||
	fail "headless replay of legacy rows: $(head -2 "$tmp/legacy.out")"

finish
