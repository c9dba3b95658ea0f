#!/bin/bash
# test: asan-covered
# The floor estimator's A/A false-positive rate on real noise: 1000 rounds
# at each n = 6, 10, 20, 40, resampled in blocks from tests/data/noise (a
# shared VM's bursty legs), through bench/estimate (the reports' own
# functions), seeded so it reads the same on every machine: at most
# (1 - level) + 1% = 6% above or below on identical arms.  The paired
# estimator's rates are printed beside (bench/noise.py; docs/STATISTICS.md).
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_ESTIMATE:?}"

if python3 "$BENCHTUI_SOURCE_DIR/bench/noise.py" --aa-check --estimators floor \
	--rounds 1000 --seed 5 --estimate "$BENCHTUI_ESTIMATE" >"$tmp/out" 2>&1; then
	ok "floor A/A within 6%"
else
	fail "floor A/A: $(cat "$tmp/out")"
fi
cat "$tmp/out"
finish
