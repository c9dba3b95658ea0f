#!/bin/bash
# test: est=8 needs=/usr/bin/time long
# benchtui load's wrk-style options against load_server.py, every response
# still checked: --duration runs for a time with the warm-up outside it;
# --connections C keeps C requests in flight at once (the server's /hold
# answers only then); --threads T runs T threads; --rate R sends every
# request that falls due and measures latency from its due time (a 1 s
# stall shows in p90, no coordinated omission); --method and --body send
# what they say; bad combinations exit 2.
set -u
. "$(dirname "$0")/load_lib.sh"
start_load_server

# --duration, warm-up excluded.
timed_load dur "$LS/ok?n=100" --duration 1 --warmup 20 --connections 2 \
	--evidence "$T/dur.jsonl" --metrics "$T/dur.json"
[ "$rc" = 0 ] || fail "--duration 1: exit $rc: $(cat "$T/dur.out")"
awk -v w="$wall" 'BEGIN { exit !(w >= 1 && w < 4) }' ||
	fail "--duration 1 took $wall s"
[ "$(jq -c 'select(.warmup)' "$T/dur.jsonl" | grep -c .)" = 20 ] ||
	fail "--duration: not 20 warm-up lines"
counted=$(jq -c 'select(.warmup | not)' "$T/dur.jsonl" | grep -c .)
jq -e --argjson n "$counted" '.requests == $n and .requests > 20 and
	.bytes == 100 * .requests and .rps > 0' "$T/dur.json" >/dev/null ||
	fail "--duration metrics: $(cat "$T/dur.json") ($counted counted lines)"
ok "--duration 1: $counted requests in $wall s, warm-up outside"

# Truly concurrent: /hold?c=4 answers only with 4 requests inside at once.
"$BENCHTUI" load "$LS/hold?c=4" --connections 4 --requests 40 --timeout 20 \
	--evidence "$T/hold.jsonl" >"$T/hold.out" 2>&1 ||
	fail "4 connections were not 4 requests in flight: $(cat "$T/hold.out")"
[ "$(jq -r '"\(.conn) \(.local_port)"' "$T/hold.jsonl" | sort -u | grep -c .)" = 4 ] ||
	fail "4 connections did not keep a port each"
"$BENCHTUI" load "$LS/hold?c=4" --connections 4 --threads 2 --requests 40 \
	--timeout 20 >"$T/hold2.out" 2>&1 ||
	fail "4 connections on 2 threads: $(cat "$T/hold2.out")"
ok "--connections 4 keeps 4 requests in flight, on 1 and 2 threads"

# --threads 3: the process runs 3 threads beside its main one.
"$BENCHTUI" load "$LS/trickle?n=100" --connections 3 --threads 3 \
	--requests 3 --timeout 30 >"$T/thr.out" 2>&1 &
pid=$!
OWN_PIDS+=("$pid")
threads_of() { [ "$(ls "/proc/$pid/task" 2>/dev/null | grep -c .)" -ge 4 ]; }
wait_until 20 threads_of || fail "--threads 3: no 3 threads seen"
kill "$pid"
wait "$pid" 2>/dev/null
ok "--threads 3 runs 3 threads"

# --rate: every due request is sent and counted; a stall's queue shows.
timed_load rate "$LS/ok?n=10" --rate 200 --duration 1 --metrics "$T/rate.json"
[ "$rc" = 0 ] || fail "--rate 200: exit $rc: $(cat "$T/rate.out")"
jq -e '.requests == 200 and .rps > 150 and .rps < 210' "$T/rate.json" \
	>/dev/null || fail "--rate 200 --duration 1: $(cat "$T/rate.json")"
"$BENCHTUI" load "$LS/ok?n=10" --rate 500 --requests 300 --threads 2 \
	--connections 2 --metrics "$T/rate2.json" >"$T/rate2.out" 2>&1 ||
	fail "--rate --requests: $(cat "$T/rate2.out")"
jq -e '.requests == 300' "$T/rate2.json" >/dev/null ||
	fail "--rate 500 --requests 300: $(cat "$T/rate2.json")"
"$BENCHTUI" load "$LS/stall?at=50&ms=1000&n=10" --rate 100 --duration 3 \
	--metrics "$T/co.json" --timeout 10 >"$T/co.out" 2>&1 ||
	fail "the stalled rate run: $(cat "$T/co.out")"
jq -e '.requests == 300 and .lat_max_ms >= 1000 and .lat_p90_ms > 200' \
	"$T/co.json" >/dev/null ||
	fail "a 1 s stall at 100/s hid its queue: $(cat "$T/co.json")"
ok "--rate: 200 due, 200 sent; a 1 s stall puts p90 at $(jq .lat_p90_ms "$T/co.json") ms"

# --method, --body: what reaches the server (its /echo answers "METHOD
# sha256(body)").
echo_sha() { printf '%s %s' "$1" "$2" | sha256sum | cut -d' ' -f1; }
head -c 3000000 /dev/urandom >"$T/body.bin"
body_sha=$(sha256sum "$T/body.bin" | cut -d' ' -f1)
empty_sha=$(printf '' | sha256sum | cut -d' ' -f1)
"$BENCHTUI" load "$LS/echo" --body "$T/body.bin" --requests 5 --connections 2 \
	--expect-sha256 "$(echo_sha POST "$body_sha")" >"$T/m.out" 2>&1 ||
	fail "--body (POST by default): $(cat "$T/m.out")"
"$BENCHTUI" load "$LS/echo" --method PUT --body "$T/body.bin" --requests 5 \
	--expect-sha256 "$(echo_sha PUT "$body_sha")" >"$T/m.out" 2>&1 ||
	fail "--method PUT --body: $(cat "$T/m.out")"
"$BENCHTUI" load "$LS/echo" --method DELETE --requests 5 \
	--expect-sha256 "$(echo_sha DELETE "$empty_sha")" >"$T/m.out" 2>&1 ||
	fail "--method DELETE: $(cat "$T/m.out")"
"$BENCHTUI" load "$LS/ok?n=100000" --method HEAD --requests 20 \
	--expect-bytes 100000 >"$T/m.out" 2>&1 ||
	fail "--method HEAD: $(cat "$T/m.out")"
ok "--method and --body reach the server as given; HEAD reads no body"

# The server closing a connection is named.
"$BENCHTUI" load "$LS/close" --requests 3 >"$T/c.out" 2>&1
[ $? = 1 ] && grep -q 'request 2: the server closed connection 1 after 1 responses' \
	"$T/c.out" || fail "a closed connection: $(cat "$T/c.out")"

for bad in "--requests 5 --duration 1" "--threads 2" "--threads 3 --connections 2" \
	"--rate 0" "--rate -1" "--duration 1e3" "--timeout 0" "--method GET\ X" \
	"--method CONNECT" "--method HEAD --expect-sha256 $empty_sha" \
	"--body $T/none" "--header Content-Length:5" "--requests +5"; do
	eval "set -- $bad"
	"$BENCHTUI" load "$LS/ok" "$@" >"$T/bad.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] || fail "load $bad: exit $rc, not 2: $(cat "$T/bad.out")"
done
ok "bad combinations exit 2"
finish
