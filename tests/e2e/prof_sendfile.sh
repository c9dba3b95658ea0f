#!/bin/bash
# test: est=6 needs=strace long
# The question a syscalls profile exists for: how many system calls does a
# request cost each server variant?  nginx (Debian's nginx-light) with 2
# workers serving a 64 KiB file, sendfile on (arm on) against off (arm
# off), one server per leg, the profile's default settings.  Every call is
# counted by default: on costs 7 calls per request (recvfrom, openat,
# newfstatat, writev of the header, sendfile, close, epoll_wait) and off 9
# (two pread64 and two writev instead of writev and sendfile), within 1%; each table has a total row; the call that moved is pread64.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
. "$(dirname "$0")/nginx_lib.sh"

port=$(free_port)
mkdir -p "$T/www"
chmod a+rx "$T" "$T/www"
head -c 65536 /dev/urandom >"$T/www/f64k.bin"
nginx_conf "$T/nginx-on.conf" "$port" "$T/www" on
nginx_conf "$T/nginx-off.conf" "$port" "$T/www" off
cat >"$T/round.json" <<EOF
{"name": "sendfile", "reps": 1, "baseline": "on", "quiet": false,
 "workdir": "$T/www",
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f64k.bin",
             "--requests", "2000", "--warmup", "200",
             "--expect-file", "f64k.bin", "--metrics", "\${METRICS}"],
 "arms": [{"name": "on"}, {"name": "off"}],
 "cells": [{"name": "ng", "server": {
     "cmd": ["$nginx", "-p", "$T/run", "-c", "$T/nginx-\${ARM}.conf",
             "-e", "stderr", "-g", "daemon off;"],
     "ready": {"tcp_port": $port, "timeout_s": 20}}}],
 "profile": {"arms": ["on", "off"], "syscalls": {}}}
EOF
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl

want() { # arm, calls per request
	local ev tot
	ev=$(jq -c --arg a "$1" 'select(.t == "profile" and .arm == $a and .kind == "syscalls")' "$log")
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile of $1: $ev"
	echo "$ev" | jq -e '.status == "ok" and .traced_processes == 3 and
		(.top | map(.calls) | add) == .total.calls' >/dev/null ||
		fail "$1: not every call shown, or rows do not add up: $ev"
	tot=$(echo "$ev" | jq '.total.per_request')
	echo "$1: every call per request $tot ($(echo "$ev" | jq -c '[.top[] | [.syscall, .per_request]]'))"
	awk -v x="$tot" -v w="$2" 'BEGIN { exit !(x >= w * 0.99 && x <= w * 1.01) }' ||
		fail "$1: $tot calls per request, not $2 within 1%"
}
want on 7
want off 9

"$BENCHTUI" report "$T/out" --format json >"$T/rep.json" || fail "report json"
jq -e '.profiles.ng.off.syscalls.syscalls_total | .syscall == "total" and
	(.per_request > 8.9) and (.vs_per_request < 7.1)' "$T/rep.json" >/dev/null ||
	fail "json report: no total row: $(jq -c .profiles "$T/rep.json")"
# the call that moved: pread64, none per request with sendfile, 2 without
# (the 64 KiB body read in nginx's 32 KiB output buffers)
jq -e '.profiles.ng.off.syscalls.syscalls | map(select(.syscall == "pread64"))[0] |
	.vs_calls == 0 and .per_request > 1.99 and .diff > 1.99' "$T/rep.json" >/dev/null ||
	fail "pread64 did not move: $(jq -c .profiles.ng.off.syscalls.syscalls "$T/rep.json")"
for f in text markdown csv; do
	"$BENCHTUI" report "$T/out" --format $f >"$T/rep.$f" || fail "report $f"
	grep -q 'pread64' "$T/rep.$f" || fail "$f report names no pread64"
done
grep -Eq '^    total +[0-9]+ +(8\.99[0-9]*|9(\.0[0-9]*)?) +(6\.99[0-9]*|7(\.0[0-9]*)?) ' "$T/rep.text" ||
	fail "text report: no total row of 9 per request: $(sed -n '/^profiles/,$p' "$T/rep.text")"
grep -q '^| `total` |' "$T/rep.markdown" || fail "markdown report: no total row"
grep -q '^profile,ng,off,syscalls,on,ok,total,' "$T/rep.csv" || fail "csv report: no total row"
# the headless summary: each arm's calls per request and what moved
grep -Eq 'every system call, per request: off (9\.0|8\.99)' "$T/stdout" ||
	fail "headless summary: no totals: $(cat "$T/stdout")"
grep -q 'moved most: pread64 +2\.0' "$T/stdout" ||
	fail "headless summary: pread64 not named: $(cat "$T/stdout")"
sed -n '/^profiles/,$p' "$T/stdout"
"$BENCHTUI" verify "$T/out" >/dev/null 2>&1 || fail "verify"
echo ok
