#!/bin/bash
# test: est=6
# benchtui load over HTTP/2 against nginx (assets/rounds/nginx-tls,
# Debian's nginx-light): ALPN h2 over TLS with 8 streams on each of 2
# connections (2 threads), every body checked; prior knowledge on http://
# at a constant rate; a handshake per request with --new-connection
# --tls-resume; a body of the wrong size fails at request 1; a TLS server
# that does not offer h2 is refused.  Skipped (77) without nginx or
# openssl.
set -u
. "$(dirname "$0")/load_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: openssl is not installed (apt-get install openssl)"; exit 77; }

start_nginx_tls h2c
url=https://127.0.0.1:$port/f64k.txt
file=$run/www/f64k.txt

"$BENCHTUI" load "$url" --h2 --streams 8 --connections 2 --threads 2 \
	--requests 1000 --warmup 50 --cacert "$run/cert.pem" --expect-file "$file" \
	--evidence "$T/ev.jsonl" --metrics "$T/m.json" >"$T/h2.out" 2>&1 ||
	fail "--h2 over TLS: $(cat "$T/h2.out")"
jq -e '.requests == 1000 and .bytes == 65536 * 1000 and .handshakes == 2' "$T/m.json" \
	>/dev/null || fail "--h2 metrics: $(cat "$T/m.json")"
[ "$(grep -c . "$T/ev.jsonl")" = 1050 ] || fail "evidence: not 1050 lines"
[ "$(jq -r .local_port "$T/ev.jsonl" | sort -u | grep -c .)" = 2 ] ||
	fail "2 connections did not keep 2 ports"
# Streams are odd and rise on a connection: every request its own.
[ "$(jq -r '"\(.conn) \(.stream)"' "$T/ev.jsonl" | sort -u | grep -c .)" = 1050 ] ||
	fail "a stream carried two requests"
jq -e 'select(.stream % 2 != 1 or .tls != "TLSv1.3" or .sha256 == "")' "$T/ev.jsonl" |
	grep -q . && fail "evidence: $(head -1 "$T/ev.jsonl")"
grep -q 'HTTP/2, 8 streams per connection; TLSv1.3 ' "$T/h2.out" || fail "summary: $(cat "$T/h2.out")"
ok "--h2 over TLS: 1050 bodies checked on 2 connections x 8 streams"

"$BENCHTUI" load "http://127.0.0.1:$h2c/f64k.txt" --h2 --streams 4 --rate 400 \
	--duration 1 --expect-file "$file" --metrics "$T/r.json" >"$T/r.out" 2>&1 ||
	fail "--h2 by prior knowledge: $(cat "$T/r.out")"
jq -e '.requests == 400 and (has("handshakes") | not)' "$T/r.json" >/dev/null ||
	fail "--h2 --rate 400 --duration 1: $(cat "$T/r.json")"
ok "--h2 on http:// (prior knowledge) at --rate 400: 400 requests"

"$BENCHTUI" load "$url" --h2 --new-connection --tls-resume --insecure --requests 30 \
	--expect-file "$file" --metrics "$T/nc.json" >"$T/nc.out" 2>&1 ||
	fail "--h2 --new-connection: $(cat "$T/nc.out")"
jq -e '.handshakes == 30 and .resumed >= 25 and .connects == 30' "$T/nc.json" >/dev/null ||
	fail "--h2 --new-connection metrics: $(cat "$T/nc.json")"
ok "--h2 --new-connection --tls-resume: 30 handshakes, $(jq .resumed "$T/nc.json") resumed"

"$BENCHTUI" load "$url" --h2 --streams 4 --insecure --requests 10 --expect-bytes 1000 \
	>"$T/bad.out" 2>&1
rc=$?
[ "$rc" = 1 ] && grep -q '^benchtui load: request [1-4]: .*65536.*1000' "$T/bad.out" ||
	fail "a body of the wrong size over h2: exit $rc: $(cat "$T/bad.out")"
ok "a wrong size fails at the first requests: $(cat "$T/bad.out")"

# A TLS server that speaks HTTP/1.1 only (openssl s_server offering
# http/1.1 by ALPN): --h2 refuses it.
sp=$(free_port)
openssl s_server -accept "$sp" -cert "$run/cert.pem" -key "$run/key.pem" \
	-alpn http/1.1 -www -quiet >"$T/s_server.log" 2>&1 &
OWN_PIDS+=("$!")
wait_until 20 port_busy "$sp" || fail "openssl s_server did not listen"
"$BENCHTUI" load "https://127.0.0.1:$sp/" --h2 --insecure --requests 1 >"$T/alpn.out" 2>&1
rc=$?
# (s_server ends the handshake with an alert; a server that went on
# without ALPN would be told it did not agree to HTTP/2.)
[ "$rc" = 1 ] && grep -Eq '^benchtui load: request 1: connection 1: TLS handshake: .*no application protocol' \
	"$T/alpn.out" || fail "no h2 by ALPN: exit $rc: $(cat "$T/alpn.out")"
ok "a server without h2: $(cat "$T/alpn.out")"
finish
