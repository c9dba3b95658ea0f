#!/bin/bash
# test: alone asan-covered est=12 long
# The calibration probe, end to end.  A machine slowed by what the guest
# cannot see cannot be had on demand: BENCHTUI_PROBE_SLOW_S makes every
# probe of the first seconds read half as slow again, so the tests decide
# from that, not from the load.  (1) "probe": true holds the first leg
# until the probe is back at its floor, and every leg line carries the
# probe's slowdown and time.  (2) "auto" probes CPU-bound legs each time,
# legs that mostly wait only the first time of each cell and arm.  A
# clock that cannot time a probe is quiet_probe_clock's, which needs no
# quiet machine.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

round() {   # round NAME PROBE COMMAND-JSON
	cat >"$T/$1.json" <<EOF
{"name": "$1", "reps": 3, "baseline": "a",
 "command": $3,
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 100, "window_ms": 200, "timeout_s": 30,
           "budget_s": 60, "probe": $2}}
EOF
}
work='["'"$BENCHTUI_DEMO"'", "work", "--mib", "2"]'

# (1) held on a slow probe, then recorded on every leg.
round on true "$work"
BENCHTUI_PROBE_SLOW_S=4 "$BENCHTUI" run "$T/on.json" --out "$T/out" \
    --headless >"$T/stdout" 2>&1 || fail "run: exit $?"
first=$(events leg | head -1 | jq .wait_s)
awk -v w="$first" 'BEGIN { exit !(w >= 1.0) }' ||
	fail "the first leg waited $first s on a probe faked slow for its first 4 s (2 s of them the start-up look)"
events quiet | jq -se 'any(.[]; .ok == false and .probe >= 1.3 and
    .probe_max <= 1.02)' >/dev/null || fail "no quiet event held on the probe"
# Every leg quiet once the fake slowness is over, unless the box itself
# stayed busy for the whole 60 s budget (the gate says so with a budget
# event): then this test cannot tell, as quiet_comego cannot.
if [ -n "$(events gate | jq -c 'select(.kind == "budget")')" ]; then
	echo "SKIP: the budget ran out: the box stayed busier than the gate's threshold"
	exit 77
fi
[ "$(events leg | jq -r '.gate' | sort -u)" = quiet ] || fail "not every leg quiet"
events leg | jq -se 'any(.[]; (.probe | type) != "number" or .probe_us <= 0)' \
    >/dev/null && fail "a leg line without the probe's figures"
events leg | jq -se 'any(.[]; .probe >= 1.3)' >/dev/null &&
	fail "a leg ran on a probe that was still slow"
echo "ok: held $first s on the probe"
rm -rf "$T/out"

# (2) auto: a leg that sleeps is probed the first time only.
round sleepy '"auto"' '["sleep", "0.05"]'
"$BENCHTUI" run "$T/sleepy.json" --out "$T/out" --headless >"$T/stdout" 2>&1 ||
	fail "run sleepy: exit $?"
[ "$(events leg | jq -c 'select(.probe != null)' | grep -c .)" = 2 ] ||
	fail "auto probed $(events leg | jq -c 'select(.probe != null)' | grep -c .) sleeping legs, not the first of each arm"
events leg | jq -se 'any(.[]; .rep == 1 and .probe == null)' >/dev/null &&
	fail "auto did not probe a first leg"
rm -rf "$T/out"
round busy '"auto"' "$work"
"$BENCHTUI" run "$T/busy.json" --out "$T/out" --headless >"$T/stdout" 2>&1 ||
	fail "run busy: exit $?"
# (With no leg lines at all the any() below would pass.)
[ "$(events leg | grep -c .)" = 6 ] || fail "busy: $(events leg | grep -c .) leg lines, not 6"
events leg | jq -se 'any(.[]; .probe == null)' >/dev/null &&
	fail "auto left a CPU-bound leg unprobed"
echo "ok: auto"
rm -rf "$T/out"

