#!/bin/bash
# benchtui report over a log of 1,000,000 legs: wall time and peak RSS in
# every format, against `jq -c 'select(.t=="leg")'` over the same file (the
# reference for "just reading the leg lines", as in bench/bench.py), in
# the same run.  Targets (issue 10): report <= 0.5x jq, peak RSS <= 128 MiB
# in every format.  Not part of make check.
#
# usage: bench/report-1m.sh [BENCHTUI] [LEGS]
#   BENCHTUI defaults to build/meson/tui/benchtui; LEGS to 1000000.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/meson/tui/benchtui}
legs=${2:-1000000}
work=${BENCH_TMP:-$(mktemp -d)}
log="$work/legs-$legs.jsonl"

[ -x "$bin" ] || { echo "report-1m: $bin: not built" >&2; exit 2; }
[ -s "$log" ] || python3 "$here/bench/gen-legs.py" "$log" --legs "$legs"
ls -l "$log"

# measure LABEL CMD...: prints "LABEL wall_s rss_kb cpu_s" from GNU time
# (cpu = user + sys, steadier than wall on a shared machine).
measure() {
	local label=$1
	shift
	/usr/bin/time -f "%e %M %U %S" -o "$work/time" "$@" >/dev/null 2>"$work/err" || {
		echo "report-1m: $label failed:" >&2
		cat "$work/err" >&2
		exit 1
	}
	read -r wall rss user sys <"$work/time"
	echo "$label $wall $rss $(echo "$user + $sys" | bc)"
}

cat "$log" >/dev/null   # warm the page cache for both
for fmt in json csv markdown; do
	measure "benchtui-report-$fmt" "$bin" report "$log" --aa aa=base --format "$fmt"
done
j=$(measure "jq-select-leg" jq -c 'select(.t=="leg")' "$log")
echo "$j"
b=$(measure "benchtui-report-text" "$bin" report "$log" --aa aa=base)
echo "$b"
python3 - "$b" "$j" <<'PY'
import sys
b = sys.argv[1].split(); j = sys.argv[2].split()
bw, br, bc = float(b[1]), int(b[2]), float(b[3])
jw, jr, jc = float(j[1]), int(j[2]), float(j[3])
print("report (text): %.2f s wall, %.2f s cpu, peak RSS %.1f MiB" % (bw, bc, br / 1024))
print("jq select leg: %.2f s wall, %.2f s cpu, peak RSS %.1f MiB" % (jw, jc, jr / 1024))
print("ratio report/jq: wall %.2f, cpu %.2f (target <= 0.5)" % (bw / jw, bc / jc))
PY
[ -n "${BENCH_TMP:-}" ] || rm -rf "$work"
