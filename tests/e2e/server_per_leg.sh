#!/bin/bash
# test: asan-covered est=9 long
# A per-leg server: python3 -m http.server (HTTP/1.1) in two arms that differ
# by server_env, loaded by `benchtui load` through ${BENCHTUI}.  check says
# the cell runs a server per leg; every leg gets a server of its own (a
# distinct pid), started and ready before its leg_start, stopped after its
# leg line, with the arm's environment; every leg line has the server's
# tree measured (server.cpu > 0) and the load's own metrics (metrics.rps >
# 0, from ${METRICS}); the report has rps and server_cpu ratios with
# intervals (6 reps at 0.95); nothing is left running.
set -u
. "$(dirname "$0")/load_lib.sh"

port=$(free_port)
cat >"$T/round.json" <<EOF2
{"name": "perleg", "reps": 6, "baseline": "a",
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f.bin",
             "--requests", "300", "--warmup", "5",
             "--expect-sha256", "$FILE_SHA", "--metrics", "\${METRICS}"],
 "arms": [{"name": "a", "server_env": {"BENCHTUI_TEST_ARM": "a"}},
          {"name": "b", "server_env": {"BENCHTUI_TEST_ARM": "b"}}],
 "cells": [{"name": "net", "server": {
            "cmd": ["sh", "-c", "echo \"\$\$\$\$ \$BENCHTUI_TEST_ARM \$0\" >>$T/servers.txt; exec python3 -m http.server --protocol HTTP/1.1 --bind 127.0.0.1 --directory $T/www $port", "\${ARM}"],
            "ready": {"tcp_port": $port, "timeout_s": 30}}}],
 "counters": ["task-clock"],
 "quiet": false}
EOF2
"$BENCHTUI" check "$T/round.json" >"$T/check.txt" 2>&1 || fail "check: $(cat "$T/check.txt")"
grep -q 'server-per-leg' "$T/check.txt" || fail "check does not say the server runs per leg"
grep -q 'server-env (arm b): BENCHTUI_TEST_ARM=b' "$T/check.txt" || fail "check does not show arm b's server_env"

run_round 0
[ "$(events leg | grep -c .)" = 12 ] || fail "expected 12 legs"
[ "$(events leg | jq -r .status | sort -u)" = ok ] || fail "legs did not all succeed"
ready=$(events server | jq -r 'select(.state == "ready") | .pid')
[ "$(echo "$ready" | grep -c .)" = 12 ] || fail "expected 12 ready servers, got: $ready"
[ "$(echo "$ready" | sort -u | grep -c .)" = 12 ] || fail "server pids repeat: $ready"
[ "$(events server | jq -r 'select(.state == "stopped") | .pid' | sort -u | grep -c .)" = 12 ] ||
	fail "not every server was stopped"
# Each server ran with its leg's arm: ${ARM} and server_env agree.
while read -r pid env arm; do
	[ "$env" = "$arm" ] || fail "server $pid: server_env says $env, \${ARM} says $arm"
done <"$T/servers.txt"
[ "$(awk '{print $2}' "$T/servers.txt" | sort | uniq -c | awk '{print $1}' | sort -u)" = 6 ] ||
	fail "expected 6 servers per arm: $(cat "$T/servers.txt")"
# Order: starting, ready, leg_start, leg, stopped -- for every leg.
seq_types=$(jq -r 'select(.t == "server" or .t == "leg_start" or .t == "leg") |
	if .t == "server" then .state else .t end' "$T/out/log.jsonl" | tr '\n' ' ')
want=$(for i in $(seq 12); do printf 'starting ready leg_start leg stopped '; done)
[ "$seq_types" = "$want" ] || fail "event order: $seq_types"
# The leg's arm is its server's.
jq -s -e '[.[] | select(.t == "server" and .state == "ready")] as $s |
	[.[] | select(.t == "leg")] as $l |
	[range(0; 12) | select($s[.].arm != $l[.].arm or $s[.].rep != $l[.].rep)] | length == 0' \
	"$T/out/log.jsonl" >/dev/null || fail "a server's arm/rep differs from its leg's"
# The server's tree and the load's own numbers, in every leg line.
events leg | jq -e -s 'length == 12 and all(.[]; .server.cpu > 0 and
	.server.pid > 0 and .metrics.rps > 0 and .metrics.requests == 300)' \
	>/dev/null || fail "a leg line lacks server.cpu > 0 or metrics.rps > 0: $(events leg | jq -c '{server, metrics}')"
# python's http.server serves each connection on a thread it creates during
# the leg: the counters opened before the leg (inherit) count that thread
# too, so the server's task-clock is of the order of its CPU time, not the
# idle main thread's few milliseconds.
events leg | jq -e -s 'all(.[]; .server.counters["task-clock"] / 1e9 >= 0.5 * .server.cpu)' \
	>/dev/null || fail "the server's task-clock misses threads made during the leg: $(events leg | jq -c '.server')"
[ "$(events leg | jq -r .server.pid | sort -u | grep -c .)" = 12 ] ||
	fail "the server blocks do not name 12 servers"
ls "$T/out/legs/"net-a-r1.metrics.json >/dev/null || fail "no metrics file in legs/"
"$BENCHTUI" report "$T/out" --format json >"$T/report.json" || fail "report failed"
for m in rps server_cpu server_task-clock lat_p50_ms; do
	jq -e --arg m "$m" '.cells.net.arms.b.metrics[$m] |
		.n == 6 and (.ci | length) == 2 and .ci[0] > 0 and .ci[0] <= .ci[1]' \
		"$T/report.json" >/dev/null ||
		fail "report: no $m ratio with an interval: $(jq -c --arg m "$m" '.cells.net.arms.b.metrics[$m]' "$T/report.json")"
done
"$BENCHTUI" report "$T/out" >"$T/report.txt"
grep -q 'server_cpu' "$T/report.txt" && grep -q ' rps ' "$T/report.txt" ||
	fail "the text report lacks server_cpu or rps"
grep -q 'server_cpu=' "$T/stdout" && grep -q ' rps=' "$T/stdout" ||
	fail "the headless lines lack server_cpu or rps"
for pid in $ready; do
	alive "$pid" && fail "server $pid is still running"
done
awk '{print $1}' "$T/servers.txt" >"$T/server.pids"
assert_gone "$T/server.pids"
echo ok
