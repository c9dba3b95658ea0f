#!/bin/bash
# test: est=9 needs=strace,perf
# Profiles of a pre-forked server: nginx (Debian's nginx-light) as a master
# and 2 workers, serving a 4 KiB file once per request to benchtui load.
# The syscalls profile attaches to every task of all 3 processes (each
# task's TracerPid), after the load's 200 warm-up requests, so sendfile
# per request is exactly 1 (within 2%); the server_perf profile records
# the workers and names nginx or kernel symbols; after each, the server
# answers an HTTP request and nothing is left traced.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
. "$(dirname "$0")/nginx_lib.sh"

port=$(free_port)
mkdir -p "$T/www"
# nginx's workers run as another user: they must reach the file
chmod a+rx "$T" "$T/www"
head -c 4096 /dev/urandom >"$T/www/f4k.bin"
nginx_conf "$T/nginx.conf" "$port" "$T/www" on
cat >"$T/round.json" <<EOF
{"name": "profnginx", "reps": 1, "baseline": "a", "quiet": false,
 "workdir": "$T/www",
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f4k.bin",
             "--requests", "1000", "--warmup", "200",
             "--expect-file", "f4k.bin", "--metrics", "\${METRICS}"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "ng", "server": {
     "cmd": ["$nginx", "-p", "$T/run", "-c", "$T/nginx.conf", "-e", "stderr",
             "-g", "daemon off;"],
     "ready": {"tcp_port": $port, "timeout_s": 20}}}],
 "profile": {"arms": ["a", "b"],
             "server_perf": {"args": ["-F", "999", "-g"]},
             "syscalls": {"trace": ["sendfile", "writev", "recvfrom", "epoll_wait"]}}}
EOF
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
grep -qx 'profile ng a syscalls' "$T/check" || fail "check lists no syscalls profile: $(cat "$T/check")"
grep -qx 'profile ng a server_perf' "$T/check" || fail "check lists no server_perf profile"
"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl

for a in a b; do
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "syscalls")' "$log")
	# One event: of several lines, each jq -e below would judge the last.
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile of $a: $ev"
	echo "$ev" | jq -e '.status == "ok"' >/dev/null || fail "$a: $ev"
	# the master and both workers, every task of them
	echo "$ev" | jq -e '.traced_processes == 3 and .traced_threads >= 3 and
		.attach == "after the load'"'"'s warm-up" and
		.detach.server_alive and .detach.server_answers and
		(.detach.check | test("an HTTP request")) and
		.detach.traced_after == 0 and (.contaminated == false)' >/dev/null ||
		fail "$a: attach/detach: $ev"
	# every call counted: the rows trace names hold less than the total
	echo "$ev" | jq -e '(.top | map(.calls) | add) < .total.calls and
		(.trace | length) == 4' >/dev/null ||
		fail "$a: rows not narrowed, or the total not every call: $ev"
	# one sendfile per counted request (the warm-up's are not counted)
	spr=$(echo "$ev" | jq '.top[] | select(.syscall == "sendfile") | .per_request')
	echo "$a: sendfile per request $spr, $(echo "$ev" | jq -c '[.traced_processes, .traced_threads, .requests]') (processes, tasks, requests)"
	awk -v x="$spr" 'BEGIN { exit !(x >= 0.98 && x <= 1.02) }' ||
		fail "$a: sendfile per request is $spr, not 1 within 2%"
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "server_perf")' "$log")
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one server_perf profile of $a: $ev"
	echo "$ev" | jq -e '.status == "ok" and .processes == 3 and .samples > 0 and
		(.check | test("an HTTP request")) and (.contaminated == false)' >/dev/null ||
		fail "$a: server_perf: $ev"
	echo "$ev" | jq -e '[.top[] | select(.object == "nginx" or .object == "[kernel.kallsyms]")] | length >= 1' \
		>/dev/null || fail "$a: server_perf names neither nginx nor the kernel: $ev"
	echo "$a server_perf: $(echo "$ev" | jq -c '[.samples, (.top[0:3] | map(.symbol + " (" + .object + ")"))]')"
	[ -s "$T/out/legs/prof-ng-$a-server.report" ] || fail "no legs/prof-ng-$a-server.report"
done
# nothing of the server is traced now (its pids were in the events)
for p in $(jq -r 'select(.t == "profile" and .kind == "server_perf") | .pids' "$log" | tr ',' ' '); do
	[ -r "/proc/$p/status" ] || continue
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$p/status" || fail "pid $p is still traced"
done
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report"
grep -q 'ng  syscalls  b vs a' "$T/rep.txt" || fail "text report: $(cat "$T/rep.txt")"
sed -n "/^profiles/,\$p" "$T/rep.txt" | head -40
"$BENCHTUI" verify "$T/out" >/dev/null 2>&1 || fail "verify"
echo ok
