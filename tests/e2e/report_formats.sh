#!/bin/bash
# report's text, csv and markdown formats over the golden logs: text fits
# 100 columns, csv parses with one row per cell/arm/metric, markdown tables
# have a consistent number of columns.
set -u
: "${BENCHTUI:?}" "${BENCHTUI_SOURCE_DIR:?}"
data="$BENCHTUI_SOURCE_DIR/tests/data/report"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

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
	grep -q "noise floor" "$tmp/text" || fail "text: no floor line"

	python3 - "$tmp/csv" "$tmp/json" <<'PY' || fail "csv does not match the json report"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
head = "round,cell,arm,vs,metric,n,median,min,max,geomean,ci_lo,ci_hi,floor,verdict,ratios".split(",")
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
    ratios = [float(x) for x in r[14].split(";")] if r[14] else []
    assert ratios == m["ratios"]
    assert r[13] == m["verdict"]
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

[ "$fails" -eq 0 ] && echo "report_formats: all passed"
exit $((fails > 0))
