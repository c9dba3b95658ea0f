#!/bin/bash
# test: alone asan-covered est=4 needs=taskset
# The client's pinned cpu busy with foreign work holds the legs, however
# generous max_foreign_cores is (the workaround that blinded the gate
# before): a hog pinned to the client cpu, max_foreign_cores 100, budget_s
# 3.  The first leg waits out the budget (the hog never stops), every leg
# is marked gate "budget" with the hog on its client_busy, the quiet
# events name client_busy over max_client_busy, and the report counts the
# legs.  Decided from the hog's own share of its cpu, not from timing.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cpu=$(( $(getconf _NPROCESSORS_ONLN) - 1 ))
cat >"$T/round.json" <<EOF
{"name": "pinned", "reps": 2, "baseline": "a",
 "command": ["/bin/true"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}],
 "cpus": {"client": "$cpu"},
 "quiet": {"max_foreign_cores": 100, "window_ms": 300, "timeout_s": 600,
           "budget_s": 3}}
EOF
start_hog "$cpu"
ticks0=$(hog_ticks) secs0=$(date +%s.%N)
run_round 0
share=$(hog_share "$ticks0" "$secs0")
stop_hog

# The hog's share of its cpu decides whether there was anything to see:
# its own cpu time, so that a gate blind to it fails rather than skips.
if awk -v s="$share" 'BEGIN { exit !(s < 0.3) }'; then
	echo "SKIP: the hog got only $share of cpu $cpu"
	exit 77
fi
echo "the hog had $share of cpu $cpu; client_busy up to $(events quiet | jq -s 'map(.client_busy // 0) | max')"
[ "$(events leg | jq -r .gate | sort -u)" = budget ] ||
	fail "the legs are not all gate budget: $(events leg | jq -r .gate | sort | uniq -c)"
events leg | jq -se 'any(.[]; .client_busy > 0.1)' >/dev/null ||
	fail "no leg line shows the hog on client_busy"
events leg | jq -se 'length == 4 and all(.[]; .server_busy == null)' >/dev/null ||
	fail "a leg's server_busy is not null without a server: $(events leg | jq -c .server_busy)"
events quiet | jq -se 'any(.[]; .ok == false and .client_busy > .max_client_busy
    and .foreign < .threshold)' >/dev/null ||
	fail "no quiet event held on client_busy alone"
first=$(events leg | head -1 | jq .wait_s)
awk -v w="$first" 'BEGIN { exit !(w >= 2.9) }' ||
	fail "the first leg waited $first s, not the budget"
"$BENCHTUI" report "$T/out" --format json >"$T/report.json" || fail "report"
jq -e '.gate.arms.a.not_quiet == 2 and .gate.arms.b.not_quiet == 2' \
    "$T/report.json" >/dev/null || fail "report: $(jq -c .gate "$T/report.json")"
echo "ok"
