#!/bin/bash
# The kill -9 campaign with a server whose child escapes by setsid (and a
# leg whose child does too): benchtui is killed three times mid-round and
# resumed; after the final resume no process of the round is left -- not
# the escapees of the killed runs either, which lived on in the round's
# cgroup (logged as a "cgroup" event, ended by resume) -- the round holds
# every leg exactly once, and verify passes.
. "$(dirname "$0")/life_lib.sh"

[ -e /sys/fs/cgroup/cgroup.controllers ] || grep -q ' - cgroup2 ' /proc/self/mountinfo ||
	{ echo "SKIP: no cgroup v2 here"; exit 77; }
cp /bin/sleep "$T/escapee"   # its exe names the escapees
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
for _ in $(seq 1 50); do
	port=$((20000 + RANDOM % 20000))
	port_busy $port || break
done
cat >"$T/r.json" <<EOF
{"name": "orphans", "reps": 4, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "setsid -f $T/escapee 3001; exec $BENCHTUI_DEMO client --port \$0 --requests 200", "\${PORT}"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "s", "vars": {"PORT": "$port"},
   "server": {"cmd": ["/bin/sh", "-c", "setsid -f $T/escapee 3000; exec $BENCHTUI_DEMO serve --port $port"],
              "ready": {"tcp_port": $port, "timeout_s": 10}}}]}
EOF
escapees() {
	local p n=0
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/exe" 2>/dev/null)" = "$T/escapee" ] || continue
		grep -q '^State:.*Z' "$p/status" 2>/dev/null && continue
		n=$((n + 1))
	done
	echo $n
}
life_cleanup_hooks+=('for p in /proc/[0-9]*; do [ "$(readlink $p/exe 2>/dev/null)" = "$T/escapee" ] && kill -9 ${p#/proc/} 2>/dev/null; done')

export DEMO_SPIN_MS=30
dir=$T/round
for k in 1 2 3; do
	if [ $k -eq 1 ]; then
		"$BENCHTUI" run "$T/r.json" --out "$dir" --headless >>"$T/out" 2>&1 &
	else
		"$BENCHTUI" resume "$dir" --headless >>"$T/out" 2>&1 &
	fi
	pid=$!
	want=$((2 * k))
	wait_for_line "$dir/log.jsonl" ".t == \"leg\" and .seq == $want" 60 ||
		{ kill -9 $pid; cat "$T/out"; fail "run $k never reached leg $want"; }
	kill -9 $pid
	wait $pid 2>/dev/null
	sleep 0.2
	[ "$(escapees)" -gt 0 ] || fail "setup: no escapee outlived the kill -9 of run $k"
done
"$BENCHTUI" resume "$dir" --headless >>"$T/out" 2>&1 || { tail -20 "$T/out"; fail "the final resume failed"; }
left=$(escapees)
[ "$left" -eq 0 ] || fail "$left escaped processes of the killed runs are still alive after the final resume"
log=$dir/log.jsonl
check_log_whole "$log"
check_exactly_once "$log" 8
check_no_live_legs "$log"
check_sealed "$dir"
echo "3 kills, every escapee ended, 8 legs exactly once, verify OK"
exit 0
