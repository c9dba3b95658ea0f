#!/bin/bash
# test: alone est=11 needs=taskset long
# The far host's quiet gate runs with the round's settings and spends the
# round's one budget, on the ssh test host (an sshd on 127.0.0.1 this test
# starts).
# (1) A far probe faked slow for the whole round (BENCHTUI_PROBE_SLOW_S in
#     the agent's environment; a slow host cannot be had on demand) holds
#     every leg there, with timeout_s 600 and budget_s 5: the start-up look
#     and the far waits together spend the 5 s, not 600; every leg is
#     marked gate "budget" by the far gate (its server block too), one
#     warning says the budget is spent, the report counts the legs, and
#     environment.json's hosts records the settings the far gate ran with.
# (2) A hog pinned to the server's cpu there holds the far gate on
#     server_busy alone (max_foreign_cores 100), the leg lines carry it,
#     and the console's quiet box says how that host's gate let the legs
#     go.  Decided from the hog's own share of its cpu, not from timing:
#     77 when the hog got too little of it to tell.
. "$(dirname "$0")/remote_lib.sh"
remote_up

# (1) the far probe, and the one budget.
remote_round "$T/r1.json" 300 --arg b "$BENCHTUI" '.reps = 2 | .margin = 0.3 |
	.agent = ["env", "BENCHTUI_PROBE_SLOW_S=600", $b, "agent"] |
	.quiet = {"max_foreign_cores": 100, "window_ms": 200, "timeout_s": 600,
	          "budget_s": 5, "probe": true}'
t0=$(now_s)
"$BENCHTUI" run "$T/r1.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
took=$(awk -v a="$(now_s)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
if [ $rc -eq 2 ] && grep -q "quiet.probe" "$T/stdout"; then
	echo "SKIP: this machine's clock cannot time the probe: $(grep -m1 quiet.probe "$T/stdout")"
	exit 77
fi
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl
far_waits=$(events leg | jq -s 'map(.server.wait_s // 0) | add')
# A leg's wait_s is the local wait (the start-up look's too) and the
# far one.  Skipped only when the local gate itself spent the budget: a
# far gate that never held must fail below, not skip.
local_waits=$(events leg | jq -s 'map(.wait_s - (.server.wait_s // 0)) | add')
if awk -v w="$far_waits" -v l="$local_waits" 'BEGIN { exit !(w < 1 && l >= 4) }'; then
	echo "SKIP: the local gate spent the budget ($local_waits s) before the far one waited ($far_waits s there): this box is too busy to tell"
	exit 77
fi
events quiet | jq -se --arg h "$RHOST" 'any(.[]; .host == $h and .ok == false and
	.probe >= 1.3 and .probe_max == 1.3 and .budget_s == 5)' >/dev/null ||
	fail "no quiet event of $RHOST held on its probe with the round's budget"
[ "$(events leg | jq -r '.server.gate' | sort -u)" = budget ] ||
	fail "not every leg's server block says budget: $(events leg | jq -r .server.gate | sort | uniq -c)"
[ "$(events leg | jq -r '.gate' | sort -u)" = budget ] ||
	fail "not every leg is marked gate budget: $(events leg | jq -r .gate | sort | uniq -c)"
events leg | jq -se 'all(.[]; .server.probe >= 1.3 and .server.probe_us > 0)' >/dev/null ||
	fail "a leg's server block lacks the far probe: $(events leg | jq -c '.server | {gate, wait_s, probe, probe_us}' | head -3)"
total=$(events leg | jq -s 'map(.wait_s) | add')
awk -v w="$total" 'BEGIN { exit !(w >= 4.8 && w < 7) }' ||
	fail "the legs waited $total s in all, not the one budget of 5 s"
secs_under "$took" 60 || fail "the round took $took s: the far gate waited past the budget"
[ "$(events warning | grep -c 'whole budget')" = 1 ] ||
	fail "expected one warning that the budget is spent"
jq -e --arg h "$RHOST" '.hosts[1] | .host == $h and .quiet.budget_s == 5 and
	.quiet.probe == true and .quiet.probe_margin == 0.3 and
	.quiet.max_server_busy == 0.1 and .quiet.timeout_s == 600' \
	"$T/out/environment.json" >/dev/null ||
	fail "hosts[1].quiet: $(jq -c '.hosts[1].quiet' "$T/out/environment.json")"
"$BENCHTUI" report "$T/out" --format json >"$T/report.json" || fail "report"
jq -e '.gate.arms.chunk4k.not_quiet == 2 and .gate.arms.chunk4k.budget == 2 and
	.gate.budget_spent == true' "$T/report.json" >/dev/null ||
	fail "report: $(jq -c .gate "$T/report.json")"
ok "the far gate spent the round's one budget ($far_waits s there, $total s in all, round $took s) and marked every leg budget"

# (2) the server's pinned cpu, busy with a hog there.
cpu=$(( $(getconf _NPROCESSORS_ONLN) - 1 ))
remote_round "$T/r2.json" 300 --arg cpu "$cpu" '.reps = 2 |
	.cells[0].server.cpus = $cpu |
	.quiet = {"max_foreign_cores": 100, "window_ms": 300, "timeout_s": 600,
	          "budget_s": 3, "probe": false}'
start_hog "$cpu"
ticks0=$(hog_ticks) secs0=$(date +%s.%N)
"$BENCHTUI" run "$T/r2.json" --headless --out "$T/out2" >"$T/stdout" 2>&1
rc=$?
# The hog's own cpu time (not what the far gate saw of it): a far gate
# blind to it fails rather than skips.
share=$(hog_share "$ticks0" "$secs0")
stop_hog
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out2/log.jsonl
if awk -v s="$share" 'BEGIN { exit !(s < 0.3) }'; then
	echo "SKIP: the hog got only $share of cpu $cpu there"
	exit 77
fi
jq -s -e --arg h "$RHOST" 'any(.[]; .t == "quiet" and .host == $h and .ok == false and
	.server_busy > .max_server_busy and .foreign < .threshold)' "$log" >/dev/null ||
	fail "no quiet event of $RHOST held on server_busy alone"
jq -s -e 'map(select(.t == "leg")) | length == 6 and all(.gate == "budget" and
	.server.gate == "budget") and any(.server_busy > 0.1)' "$log" >/dev/null ||
	fail "the legs: $(jq -c 'select(.t == "leg") | {gate, server_busy, server: .server.gate}' "$log")"
"$BENCHTUI" report "$T/out2" --format json >"$T/report2.json" || fail "report"
jq -e '.gate.arms.chunk512.not_quiet == 2' "$T/report2.json" >/dev/null ||
	fail "report: $(jq -c .gate "$T/report2.json")"
ok "the hog on the server's cpu $cpu there ($share cores) held the far gate on server_busy"

# The console's quiet box: the host's line says how its gate let the legs
# go (a replay shows the live model).
replay_shows "$T/out2" 200 "$RHOST: budget, busy [0-9.]*, cpus [0-9.]*/0.10" \
	"the quiet box says $RHOST's gate let the last leg go on its budget"
finish
