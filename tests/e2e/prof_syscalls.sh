#!/bin/bash
# test: est=3 needs=strace,python3
# A syscalls profile: a round whose cell server is python3 -m http.server
# --protocol HTTP/1.1 and whose legs are `benchtui load` against it,
# profiled with "syscalls" for two arms.  strace attaches to every server
# thread, one load leg runs, strace detaches on SIGINT to it alone; the
# table's rows add up to its total, calls per request are present, the
# server answers after the detach and no thread is still traced; the side
# by side view in the report holds both arms' calls per request.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

port=$(free_port)
mkdir "$T/www"
head -c 65536 /dev/urandom >"$T/www/f.bin"
cat >"$T/round.json" <<EOF
{"name": "profsys", "reps": 1, "baseline": "a", "quiet": false,
 "workdir": "$T/www",
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f.bin",
             "--requests", "200", "--expect-file", "f.bin",
             "--metrics", "\${METRICS}"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "http", "server": {
     "cmd": ["python3", "-m", "http.server", "--protocol", "HTTP/1.1",
             "-b", "127.0.0.1", "$port"],
     "ready": {"tcp_port": $port, "timeout_s": 20}}}],
 "profile": {"arms": ["a", "b"],
             "syscalls": {"trace": ["read", "write", "sendto", "recvfrom",
                                    "sendfile", "accept4", "close",
                                    "openat", "fstat", "newfstatat"]}}}
EOF
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
grep -qx 'profile http a syscalls' "$T/check" || fail "check lists no syscalls profile"
run_round 0
log=$T/out/log.jsonl
events profile

for a in a b; do
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "syscalls")' "$log")
	# One event: of several lines, each jq -e below would judge the last.
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile of $a: $ev"
	echo "$ev" | jq -e '.status == "ok"' >/dev/null || fail "$a: $ev"
	# every thread traced, then none; the server alive and answering
	echo "$ev" | jq -e '.traced_threads >= 1 and .detach.server_alive and
		.detach.server_answers and .detach.traced_after == 0 and
		.detach.signal == "SIGINT to strace alone" and
		(.contaminated == false)' >/dev/null || fail "$a: detach: $ev"
	# every call counted, the rows narrowed to trace's (the total stays
	# every call's)
	echo "$ev" | jq -e '(.top | map(.calls) | add) <= .total.calls and
		.total.calls > 0 and (.trace | length) == 10 and
		(.top | all(.syscall as $s | ["read", "write", "sendto",
		"recvfrom", "sendfile", "accept4", "close", "openat", "fstat",
		"newfstatat"] | index($s)))' >/dev/null ||
		fail "$a: rows not narrowed to trace, or more than the total: $ev"
	txt=$T/out/legs/sys-http-$a.txt
	[ -s "$txt" ] || fail "no legs/sys-http-$a.txt"
	sum=$(awk 'NF >= 5 && $1 ~ /^[0-9]/ && $NF != "total" { s += $4 } END { print s + 0 }' "$txt")
	tot=$(awk 'NF >= 5 && $NF == "total" { print $4 }' "$txt")
	[ "$sum" = "$tot" ] || fail "$txt: rows add up to $sum, total $tot"
	# calls divided by the leg's verified requests
	echo "$ev" | jq -e '.requests == 200 and (.top | all(.per_request != null)) and
		(.top | map(select(.per_request > 0)) | length >= 1)' >/dev/null ||
		fail "$a: no calls per request: $ev"
	[ -s "$T/out/legs/sys-http-$a.strace.log" ] || fail "no strace diagnostics for $a"
	grep -q 'attached' "$T/out/legs/sys-http-$a.strace.log" ||
		fail "strace's log does not show the attach"
	echo "$a: $(echo "$ev" | jq -c '[.traced_threads, .total.calls, .total.per_request]') (threads, calls, calls/request)"
done
# the trace is outside the timed legs: one leg line per planned leg
[ "$(jq -c 'select(.t == "leg")' "$log" | wc -l)" -eq 2 ] || fail "leg lines"

"$BENCHTUI" report "$T/out" --format json >"$T/rep.json" || fail "report json"
jq -e '.profiles.http.b.syscalls.vs == "a" and
	(.profiles.http.b.syscalls.syscalls | length >= 1) and
	(.profiles.http.b.syscalls.syscalls | all(.per_request != null and .vs_per_request != null))' \
	"$T/rep.json" >/dev/null || fail "report: $(jq -c .profiles "$T/rep.json")"
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report text"
grep -q "http  syscalls  b vs a" "$T/rep.txt" || fail "text report: $(cat "$T/rep.txt")"
sed -n "/^profiles/,\$p" "$T/rep.txt"
"$BENCHTUI" verify "$T/out" >/dev/null 2>&1 || fail "verify"
grep -q 'legs/sys-http-a.txt' "$T/out/SHA256SUMS" || fail "the trace is not sealed"
echo ok
