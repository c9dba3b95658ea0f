#!/bin/bash
# test:
# The calibration probe on a clock that cannot time it (clocksource
# jiffies, faked through BENCHTUI_SYSFS_CLOCKSOURCE): "probe": true is a
# check error naming the field and the clock; "auto" passes check and runs
# without a probe, saying so in a warning, and no leg line carries a
# probe.  The gate's threshold is out of any load's reach and no probe
# runs, so this runs beside other tests (quiet_probe, the probe timed,
# runs alone).
set -u
. "$(dirname "$0")/hygiene_lib.sh"

round() {   # round NAME PROBE
	cat >"$T/$1.json" <<EOF2
{"name": "$1", "reps": 3, "baseline": "a",
 "command": ["$BENCHTUI_DEMO", "work", "--mib", "2"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "quiet": {"max_foreign_cores": 100, "window_ms": 200, "timeout_s": 30,
           "budget_s": 60, "probe": $2}}
EOF2
}
round on true
round busy '"auto"'

echo jiffies >"$T/clocksource"
export BENCHTUI_SYSFS_CLOCKSOURCE=$T/clocksource
"$BENCHTUI" check "$T/on.json" >"$T/check.out" 2>"$T/check.err"
rc=$?
[ "$rc" = 2 ] || fail "check of probe true on jiffies: exit $rc"
grep -q "on.json: quiet.probe: true, but .*clocksource jiffies" "$T/check.err" ||
	fail "check does not name quiet.probe and the clock: $(cat "$T/check.err")"
"$BENCHTUI" check "$T/busy.json" >/dev/null 2>&1 || fail "check of auto on jiffies failed"
"$BENCHTUI" run "$T/busy.json" --out "$T/out" --headless >"$T/stdout" 2>&1 ||
	fail "run auto on jiffies: exit $?"
events warning | grep -q "probe is off: .*clocksource jiffies" ||
	fail "no warning that the probe is off"
# (With no leg lines at all the any() below would pass.)
[ "$(events leg | grep -c .)" = 6 ] || fail "jiffies: $(events leg | grep -c .) leg lines, not 6"
events leg | jq -se 'any(.[]; .probe != null)' >/dev/null &&
	fail "a leg was probed on a clock that cannot time it"
echo "ok"
