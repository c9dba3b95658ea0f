#!/bin/bash
# lz4 and zstd at levels -1 and -9 on a few MB of /usr/share/doc text,
# measured twice: by hyperfine (-N --warmup 3 --runs 10, the usual way)
# and by a benchtui round (10 reps, mirrored order, an A/A copy, the
# output size compared as bytes).  Prints both outputs one after the
# other, for a person to read side by side.  Wants an idle machine
# (cat /proc/loadavg under 1.0).
# usage: bench/compress-compare.sh [BENCHTUI]
#   COMPARE_QUIET=false switches the quiet gate off (a trial on a busy
#   machine; not for the record).
set -eu
quiet=${COMPARE_QUIET:-'{"max_foreign_cores": 0.25, "timeout_s": 30}'}
bt=$(realpath "${1:-build/meson/tui/benchtui}")
for p in lz4 zstd hyperfine; do
	command -v "$p" >/dev/null || { echo "compress-compare: $p is not installed" >&2; exit 1; }
done
work=$(mktemp -d /tmp/benchtui-compress.XXXXXX)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
# The text of the docs (not their gzips), 8 MiB of it, in a fixed order.
find /usr/share/doc -type f ! -name '*.gz' -size -2M -print0 | sort -z |
    xargs -0 cat 2>/dev/null | head -c 8388608 >"$work/input.txt"
echo "input: $(wc -c <"$work/input.txt") bytes of /usr/share/doc text; load $(cut -d' ' -f1-3 /proc/loadavg)"

echo "=== hyperfine -N --warmup 3 --runs 10"
hyperfine -N --warmup 3 --runs 10 \
    "lz4 -1 -c -f $work/input.txt" "lz4 -9 -c -f $work/input.txt" \
    "zstd -1 -c -f -q $work/input.txt" "zstd -9 -c -f -q $work/input.txt" \
    --output=null

cat >"$work/round.json" <<EOF2
{"name": "compress", "reps": 10, "baseline": "lz4_1",
 "stdin": "$work/input.txt", "command": ["\${PROG}", "\${LEVEL}", "-c"],
 "arms": [{"name": "lz4_1", "vars": {"PROG": "lz4", "LEVEL": "-1"}},
          {"name": "lz4_9", "vars": {"PROG": "lz4", "LEVEL": "-9"}},
          {"name": "zstd_1", "vars": {"PROG": "zstd", "LEVEL": "-1"}},
          {"name": "zstd_9", "vars": {"PROG": "zstd", "LEVEL": "-9"}},
          {"name": "aa", "aa_of": "lz4_1"}],
 "cells": [{"name": "doc"}],
 "warmup": 3, "quiet": $quiet}
EOF2
echo "=== benchtui (10 reps, mirrored, an A/A copy of lz4_1)"
(cd "$work" && "$bt" run --headless --out "$work/out" "$work/round.json" |
    sed -n '/^summary:/,$p')
