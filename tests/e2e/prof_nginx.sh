#!/bin/bash
# test: est=18 needs=strace,perf long
# Profiles of a pre-forked server: nginx (Debian's nginx-light) as a master
# and 2 workers, serving a 4 KiB file once per request to benchtui load.
# The syscalls profile attaches to every task of all 3 processes (each
# task's TracerPid), after the load's 200 warm-up requests, so sendfile
# per request is exactly 1 (within 2%); the server_perf profile records
# the workers and names nginx or kernel symbols, in at least min_runs (3)
# load runs per arm taken in mirror order, each run's samples its own, so
# every symbol's share has an interval over runs; after each, the server
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
             "server_perf": {"args": ["-F", "999", "-g"], "min_runs": 3,
                             "min_samples": 20, "max_s": 20},
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
	# the runs: at least min_runs, each with its own recording and its
	# samples counted apart; in mirror order with the other arm
	echo "$ev" | jq -e '.runs >= .min_runs and .min_runs == 3 and
		.under_min_runs == false and .order == "mirror" and
		(.per_run.samples | length) == .runs and
		(.per_run.samples | add) == .samples and
		([.files[] | select(test("-server[.]r[0-9]+[.]data$"))] | length) == .runs' \
		>/dev/null || fail "$a: server_perf runs: $ev"
	for f in $(echo "$ev" | jq -r '.files[]'); do
		[ -f "$T/out/$f" ] || fail "$a: server_perf names $f, which is missing"
	done
	echo "$a server_perf: $(echo "$ev" | jq -c '[.runs, .samples, .per_run.samples, (.top[0:3] | map(.symbol + " (" + .object + ")"))]')"
	[ -s "$T/out/legs/prof-ng-$a-server.report" ] || fail "no legs/prof-ng-$a-server.report"
done
# nothing of the server is traced now (its pids were in the events)
for p in $(jq -r 'select(.t == "profile" and .kind == "server_perf") | .pids' "$log" | tr ',' ' '); do
	[ -r "/proc/$p/status" ] || continue
	grep -q '^TracerPid:[[:space:]]*0$' "/proc/$p/status" || fail "pid $p is still traced"
done
# the runs took turns: a b b a ...
order=$(jq -r 'select(.t == "profile_start" and .kind == "server_perf" and .pids != null) | .arm' "$log" | tr -d '\n')
case $order in abbaab*) ;; *) fail "server_perf runs not in mirror order: $order" ;; esac
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report"
# the report's server_perf rows carry intervals over runs
"$BENCHTUI" report "$T/out" --format json >"$T/rep.json" || fail "report json"
jq -e '.profiles.ng.b.server_perf | .vs == "a" and .runs >= 3 and
	.vs_runs >= 3 and ([.symbols[] | select(.kind != "object")] |
	length > 0 and all(.runs >= 3 and .vs_runs >= 3 and
	(.diff_ci | length) == 2 and (.noise | type) == "boolean"))' \
	"$T/rep.json" >/dev/null ||
	fail "json server_perf: $(jq -c .profiles.ng.b.server_perf "$T/rep.json")"
grep -q 'ng  server_perf  b vs a' "$T/rep.txt" || fail "text report: no server_perf"
grep -Eq 'server_perf.*from [0-9]+ runs' "$T/rep.txt" ||
	fail "text report: server_perf runs: $(grep -A2 server_perf "$T/rep.txt")"
grep -Eq '^profile ng b server_perf ok \([0-9]+ samples from [0-9]+ runs\): ' "$T/stdout" ||
	fail "headless line: $(grep '^profile' "$T/stdout")"
grep -Eq 'ng server_perf b vs a \([0-9]+ samples from [0-9]+ runs; a [0-9]+ from [0-9]+\)' "$T/stdout" ||
	fail "headless summary: $(grep server_perf "$T/stdout")"
grep -q 'ng  syscalls  b vs a' "$T/rep.txt" || fail "text report: $(cat "$T/rep.txt")"
sed -n "/^profiles/,\$p" "$T/rep.txt" | head -40
"$BENCHTUI" verify "$T/out" >/dev/null 2>&1 || fail "verify"
echo ok
