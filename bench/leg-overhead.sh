#!/bin/bash
# Per-leg overhead of benchtui against hyperfine -N, measured in one run.
#
#   bench/leg-overhead.sh [N] [TRIALS]        (defaults: N=300, TRIALS=3)
#
# Each trial times N legs of /bin/true two ways, alternating so that both
# see the same machine:
#   - hyperfine -N --runs N true (no shell; its mean time per run), and
#   - benchtui run on a round of one arm, one cell, N reps of /bin/true,
#     quiet gate off, default counters (cycles, instructions), headless.
# benchtui's per-leg time is taken from its own log: the span from the first
# leg_start to the last leg line, over N-1 legs (so round set-up, provenance
# hashing and sealing are not counted), and also as the whole command's wall
# time over N.  The figure reported is the median over trials of
#   ratio = benchtui per-leg time / hyperfine per-run time.
#
# Measured 2026-11-29 on the 2-core Debian 12 VM (no PMU, libperf backend,
# N=500, 5 trials, machine otherwise lightly loaded): hyperfine 0.58 ms per
# run, benchtui 1.25 ms per leg, median ratio 2.13 (2.24 for the whole
# command).  Under load from other work the ratio spreads to 2-4.
#
# Needs: a built benchtui (BENCHTUI=path, default build/meson/tui/benchtui;
# `make build` makes it), hyperfine and jq.  Not part of `make check`: it is
# a measurement, not a test, and it wants an otherwise idle machine.
set -euo pipefail

N=${1:-300}
TRIALS=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
BENCHTUI=${BENCHTUI:-$here/build/meson/tui/benchtui}
TRUE=$(readlink -f "$(type -P true)")

for tool in hyperfine jq; do
	command -v "$tool" >/dev/null || { echo "leg-overhead: $tool is not installed" >&2; exit 1; }
done
[ -x "$BENCHTUI" ] || { echo "leg-overhead: $BENCHTUI: not built (make build)" >&2; exit 1; }

tmp=$(mktemp -d /tmp/benchtui-overhead.XXXXXX)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

cat >"$tmp/round.json" <<EOF
{
  "name": "overhead",
  "reps": $N,
  "command": ["$TRUE"],
  "baseline": "t",
  "arms": [{"name": "t"}],
  "cells": [{"name": "c"}],
  "quiet": false
}
EOF

# ISO 8601 with milliseconds -> seconds since the epoch.
to_s() { date -u -d "$1" +%s.%N; }
calc() { awk "BEGIN { printf \"%.9f\", $* }"; }

ratios=() ratios_whole=()
printf '%-6s %12s %14s %14s %8s %8s\n' trial hyperfine_ms benchtui_leg_ms benchtui_all_ms ratio ratio_all
for t in $(seq 1 "$TRIALS"); do
	hyperfine -N --runs "$N" --export-json "$tmp/hf.json" --style none "$TRUE" >/dev/null 2>&1
	hf=$(jq '.results[0].mean' "$tmp/hf.json")

	out="$tmp/round-$t"
	t0=$(date +%s.%N)
	if ! "$BENCHTUI" run "$tmp/round.json" --out "$out" --headless >"$tmp/run-$t.txt" 2>&1; then
		echo "leg-overhead: benchtui run failed (exit $?):" >&2
		tail -5 "$tmp/run-$t.txt" >&2
		exit 1
	fi
	t1=$(date +%s.%N)
	first=$(jq -rn 'first(inputs | select(.t == "leg_start") | .ts)' "$out/log.jsonl")
	last=$(jq -rn '[inputs | select(.t == "leg") | .ts] | last' "$out/log.jsonl")
	legs=$(jq -rn '[inputs | select(.t == "leg" and .status == "ok")] | length' "$out/log.jsonl")
	[ "$legs" -eq "$N" ] || { echo "leg-overhead: $legs of $N legs ok in $out" >&2; exit 1; }
	leg=$(calc "($(to_s "$last") - $(to_s "$first")) / ($N - 1)")
	all=$(calc "($t1 - $t0) / $N")
	r=$(calc "$leg / $hf")
	ra=$(calc "$all / $hf")
	ratios+=("$r") ratios_whole+=("$ra")
	printf '%-6s %12.3f %14.3f %14.3f %8.2f %8.2f\n' "$t" \
	    "$(calc "$hf * 1000")" "$(calc "$leg * 1000")" \
	    "$(calc "$all * 1000")" "$r" "$ra"
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
printf 'median ratio (benchtui per leg / hyperfine -N per run): %.2f  (whole command: %.2f)\n' \
    "$(median "${ratios[@]}")" "$(median "${ratios_whole[@]}")"
