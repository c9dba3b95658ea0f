#!/bin/bash
# test: asan-covered est=3
# A server round's summary leads with what it is about: requests/s, p99
# latency and the server's CPU, each with both arms' absolute values (in
# req/s and time) and the verdict with its interval, in the headless
# output and in report's text (and markdown) the same.
set -u
. "$(dirname "$0")/load_lib.sh"

port=$(free_port)
cat >"$T/round.json" <<EOF2
{"name": "srv", "reps": 6, "baseline": "a",
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f.bin",
             "--requests", "\${N}", "--warmup", "5",
             "--expect-sha256", "$FILE_SHA", "--metrics", "\${METRICS}"],
 "arms": [{"name": "a", "vars": {"N": "200"}}, {"name": "b", "vars": {"N": "300"}},
          {"name": "aa", "aa_of": "a"}],
 "cells": [{"name": "net", "server": {
            "cmd": ["python3", "-m", "http.server", "--protocol", "HTTP/1.1",
                    "--bind", "127.0.0.1", "--directory", "$T/www", "$port"],
            "ready": {"tcp_port": $port, "timeout_s": 30}}}],
 "quiet": false}
EOF2
run_round 0
# A line of the summary: the label, two values in unit, and a verdict
# sentence ending with its interval.
line() {
	local label=$1 unit=$2
	echo "^    $label +[0-9.]+k?$unit vs [0-9.]+k?$unit +.*\\[[-+]?[0-9.]+x?%?, [-+]?[0-9.]+x?%?\\]"
}
# The summary wraps at 100 columns: a line continued under its verdict
# (10 or more spaces in) is joined back.
unwrap() {
	awk '/^          / { sub(/^ +/, " "); line = line $0; next }
	    { if (NR > 1) print line; line = $0 } END { print line }' "$1"
}
unwrap "$T/stdout" >"$T/headless.txt"
for f in "$T/headless.txt" report; do
	if [ "$f" = report ]; then
		"$BENCHTUI" report "$T/out" >"$T/report.raw" 2>&1 || fail "report: exit $?"
		unwrap "$T/report.raw" >"$T/report.txt"
		f=$T/report.txt
	fi
	for want in "$(line 'requests/s' ' req/s')" "$(line 'p99 latency' '[mun]?s')" \
	    "$(line 'server cpu' '[mun]?s')" "$(line 'p50 latency' '[mun]?s')"; do
		grep -Eq -- "$want" "$f" || fail "$(basename "$f"): no line like $want: $(grep -A12 '^  b vs a' "$f")"
	done
	# Requests/s, latency and server cpu lead, before wall and cpu.
	order=$(sed -n '/^  b vs a/,/^  aa vs a/p' "$f" | awk '/^    [a-z]/ { print $1 }' | head -6 | tr '\n' ' ')
	[ "$order" = "requests/s p50 p99 server wall cpu " ] &&
	    ok "$(basename "$f"): requests/s, p50, p99, server cpu, wall, cpu" ||
	    fail "$(basename "$f"): order $order"
done
"$BENCHTUI" report "$T/out" --format markdown >"$T/report.md" 2>&1
grep -Eq '^\| requests/s \| [0-9.]+k? req/s \| [0-9.]+k? req/s \| .*\].* \|$' "$T/report.md" &&
    ok "markdown: requests/s with both values" || fail "markdown: $(grep requests "$T/report.md")"
finish
