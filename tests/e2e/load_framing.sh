#!/bin/bash
# test: est=4
# benchtui load against servers that close and that send interim
# responses: python3 -m http.server speaking HTTP/1.0 (it closes after each
# response) is loaded with a new connection per request, counted as such
# in the evidence and the metrics; a body without a length ends at the
# close; 100 Continue and 103 Early Hints before the 200 are skipped; 101
# Switching Protocols is refused unless --expect-status 101 asks for it,
# and then each request gets a new connection.
set -u
. "$(dirname "$0")/load_lib.sh"

port=$(free_port)
start_http "$port" HTTP/1.0
"$BENCHTUI" load "http://127.0.0.1:$port/f.bin" --requests 30 --warmup 5 \
	--expect-file "$T/www/f.bin" --evidence "$T/ev.jsonl" \
	--metrics "$T/m.json" >"$T/stdout" 2>&1 ||
	fail "an HTTP/1.0 server: exit $?: $(cat "$T/stdout")"
[ "$(jq -c 'select(.new_conn and .closes and .bytes == 65536)' \
	"$T/ev.jsonl" | grep -c .)" = 35 ] ||
	fail "not a new connection for each of the 35 requests: $(head -n 3 "$T/ev.jsonl")"
[ "$(jq -r .sha256 "$T/ev.jsonl" | sort -u)" = "$FILE_SHA" ] ||
	fail "evidence digests differ from the file's"
jq -e '.requests == 30 and .connections == 30 and .bytes == 30 * 65536' \
	"$T/m.json" >/dev/null || fail "metrics: $(cat "$T/m.json")"
ok "python3 -m http.server (HTTP/1.0): 35 requests on 35 connections, each counted"

start_load_server
want=$(head -c 5000 < <(yes benchtui | tr -d '\n') | sha256sum | cut -d' ' -f1)
"$BENCHTUI" load "$LS/nolen?n=5000" --requests 20 --connections 2 \
	--expect-sha256 "$want" --evidence "$T/nolen.jsonl" \
	--metrics "$T/nolen.json" >"$T/stdout" 2>&1 ||
	fail "a body that ends at close: $(cat "$T/stdout")"
jq -e -s 'length == 20 and all(.framing == "close" and .new_conn and
	.bytes == 5000)' "$T/nolen.jsonl" >/dev/null ||
	fail "evidence of close-delimited bodies: $(head -n 2 "$T/nolen.jsonl")"
jq -e '.connections == 20' "$T/nolen.json" >/dev/null ||
	fail "metrics: $(cat "$T/nolen.json")"
ok "a body without a length, ended by the close: 20 on 20 connections"

for code in 100 103; do
	"$BENCHTUI" load "$LS/interim?code=$code&n=100" --requests 20 \
		--expect-bytes 100 --evidence "$T/i$code.jsonl" \
		--metrics "$T/i$code.json" >"$T/stdout" 2>&1 ||
		fail "$code then 200: $(cat "$T/stdout")"
	jq -e -s 'length == 20 and all(.interim == 1 and .status == 200)' \
		"$T/i$code.jsonl" >/dev/null || fail "$code: $(head -n 2 "$T/i$code.jsonl")"
	jq -e '.connections == 1' "$T/i$code.json" >/dev/null ||
		fail "$code then 200 did not keep its connection: $(cat "$T/i$code.json")"
done
ok "100 Continue and 103 Early Hints, then 200: skipped, the connection kept"

"$BENCHTUI" load "$LS/upgrade" --requests 3 >"$T/stdout" 2>&1
[ $? = 1 ] && grep -q 'request 1: status 101 Switching Protocols, expected 200' \
	"$T/stdout" || fail "101 not refused: $(cat "$T/stdout")"
"$BENCHTUI" load "$LS/upgrade" --requests 5 --expect-status 101 \
	--evidence "$T/up.jsonl" >"$T/stdout" 2>&1 ||
	fail "--expect-status 101: $(cat "$T/stdout")"
jq -e -s 'length == 5 and all(.framing == "upgrade" and .new_conn)' \
	"$T/up.jsonl" >/dev/null || fail "101: $(cat "$T/up.jsonl")"
"$BENCHTUI" load "$LS/ok" --expect-status 100 >"$T/stdout" 2>&1
[ $? = 2 ] && grep -q 'interim response is never the final one' "$T/stdout" ||
	fail "--expect-status 100: $(cat "$T/stdout")"
ok "101 refused unless asked for; then a new connection per request"
finish
