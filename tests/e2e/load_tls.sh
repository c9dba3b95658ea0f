#!/bin/bash
# test: est=8
# benchtui load over TLS against nginx (assets/rounds/nginx-tls, Debian's
# nginx-light, with a self-signed certificate the server script makes with
# `openssl req`): keep-alive on 2 connections, every body checked and the
# certificate verified with --cacert; --new-connection with --tls-resume
# (a handshake per request, nearly all of them resumed); a wrong CA ends
# the run at request 1 with OpenSSL's reason; the usage errors.  Skipped
# (77) without nginx or openssl.
set -u
. "$(dirname "$0")/load_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: openssl is not installed (apt-get install openssl)"; exit 77; }

start_nginx_tls
url=https://127.0.0.1:$port/f64k.txt
file=$run/www/f64k.txt

# Keep-alive: 2 connections, 2 handshakes, the certificate and the address
# checked against --cacert.
"$BENCHTUI" load "$url" --requests 300 --warmup 20 --connections 2 \
	--cacert "$run/cert.pem" --expect-file "$file" --evidence "$T/ev.jsonl" \
	--metrics "$T/m.json" >"$T/ka.out" 2>&1 || fail "keep-alive over TLS: $(cat "$T/ka.out")"
jq -e '.requests == 300 and .bytes == 65536 * 300 and .handshakes == 2 and .resumed == 0' \
	"$T/m.json" >/dev/null || fail "keep-alive metrics: $(cat "$T/m.json")"
[ "$(jq -r .local_port "$T/ev.jsonl" | sort -u | grep -c .)" = 2 ] ||
	fail "2 connections did not keep 2 ports"
jq -e 'select(.tls != "TLSv1.3" or (.cipher | length) == 0)' "$T/ev.jsonl" | grep -q . &&
	fail "evidence without TLS 1.3 and a cipher: $(head -1 "$T/ev.jsonl")"
grep -Eq 'TLSv1\.3 TLS_[A-Z0-9_]+, 2 TLS handshakes \(0 resumed\)' "$T/ka.out" ||
	fail "summary: $(cat "$T/ka.out")"
ok "TLS keep-alive: 320 bodies checked on 2 connections, 2 handshakes, $(jq -r .cipher "$T/ev.jsonl" | head -1)"

# The host name is checked too: localhost is in the certificate, a name
# that is not fails.
"$BENCHTUI" load "https://localhost:$port/f64k.txt" --requests 5 \
	--cacert "$run/cert.pem" --expect-file "$file" >"$T/ln.out" 2>&1 ||
	fail "localhost: $(cat "$T/ln.out")"

# A handshake per request, resumed after the first ones.
"$BENCHTUI" load "$url" --requests 100 --warmup 10 --connections 2 \
	--new-connection --tls-resume --cacert "$run/cert.pem" --expect-file "$file" \
	--evidence "$T/nc.jsonl" --metrics "$T/nc.json" >"$T/nc.out" 2>&1 ||
	fail "--new-connection --tls-resume: $(cat "$T/nc.out")"
jq -e '.requests == 100 and .connects == 110 and .handshakes == 110 and .resumed >= 106' \
	"$T/nc.json" >/dev/null || fail "--new-connection metrics: $(cat "$T/nc.json")"
[ "$(jq -r .local_port "$T/nc.jsonl" | sort -u | grep -c .)" = 110 ] ||
	fail "--new-connection: not a port per request"
[ "$(jq -r 'select(.resumed) | .req' "$T/nc.jsonl" | grep -c .)" -ge 106 ] ||
	fail "evidence: fewer than 106 resumed"
ok "--new-connection --tls-resume: 110 handshakes, $(jq .resumed "$T/nc.json") resumed"
# Without --tls-resume, none is.
"$BENCHTUI" load "$url" --requests 20 --new-connection --insecure \
	--metrics "$T/nr.json" >"$T/nr.out" 2>&1 || fail "--new-connection: $(cat "$T/nr.out")"
jq -e '.handshakes == 20 and .resumed == 0' "$T/nr.json" >/dev/null ||
	fail "--new-connection without resume: $(cat "$T/nr.json")"

# A wrong CA (another self-signed certificate), and the system's store:
# request 1 fails with OpenSSL's reason.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
	-days 1 -subj /CN=other -keyout "$T/other.key" -out "$T/other.pem" 2>/dev/null ||
	fail "openssl req"
for ca in "--cacert $T/other.pem" ""; do
	# shellcheck disable=SC2086
	"$BENCHTUI" load "$url" --requests 5 $ca >"$T/bad.out" 2>&1
	rc=$?
	[ "$rc" = 1 ] || fail "a wrong CA (${ca:-system store}): exit $rc: $(cat "$T/bad.out")"
	grep -q '^benchtui load: request 1: connection 1 to 127.0.0.1:[0-9]*: TLS handshake: certificate verify failed: self-signed certificate$' \
		"$T/bad.out" || fail "a wrong CA: $(cat "$T/bad.out")"
done
ok "a wrong CA and the system store fail at request 1 with OpenSSL's reason"

# --new-connection on http:// too: a port per request.
hp=$(free_port)
start_http "$hp" HTTP/1.1
"$BENCHTUI" load "http://127.0.0.1:$hp/f.bin" --requests 20 --new-connection \
	--expect-sha256 "$FILE_SHA" --evidence "$T/hp.jsonl" --metrics "$T/hp.json" \
	>"$T/hp.out" 2>&1 || fail "--new-connection on http://: $(cat "$T/hp.out")"
jq -e '.requests == 20 and .connects == 20 and (has("handshakes") | not)' "$T/hp.json" \
	>/dev/null || fail "--new-connection on http:// metrics: $(cat "$T/hp.json")"
[ "$(jq -r .local_port "$T/hp.jsonl" | sort -u | grep -c .)" = 20 ] ||
	fail "--new-connection on http://: not a port per request"
ok "--new-connection on http://: 20 connections, 20 bodies checked"

# --insecure takes the self-signed certificate.
"$BENCHTUI" load "https://127.0.0.1:$port/f64k.txt" --insecure --requests 3 \
	--expect-file "$file" >/dev/null 2>&1 || fail "--insecure"

# Usage errors.
for bad in "--insecure http://x/" "--tls-resume http://x/" "--cacert f http://x/" \
    "--cacert f --insecure https://x/" "--streams 4 http://x/" \
    "--h2 --streams 0 http://x/" "--h2 --streams 1001 http://x/" \
    "--h2 --new-connection http://x/" "--cacert /nonexistent https://127.0.0.1:1/"; do
	# shellcheck disable=SC2086
	"$BENCHTUI" load $bad >"$T/u.out" 2>&1
	[ $? = 2 ] || fail "'load $bad' did not exit 2: $(cat "$T/u.out")"
done
"$BENCHTUI" load --h2 --new-connection http://x/ 2>&1 | grep -q -- '--h2 and --new-connection' ||
	fail "--h2 --new-connection does not name both"
ok "usage errors"
finish
