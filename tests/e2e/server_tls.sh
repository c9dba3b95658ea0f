#!/bin/bash
# test: est=38 long
# A server round over TLS: nginx (assets/rounds/nginx-tls, Debian's
# nginx-light, a self-signed certificate of its own) loaded by benchtui
# load over https:// with keep-alive (the baseline), with a handshake per
# request (--new-connection) and over HTTP/2.  Headless, the summary leads
# with requests/s, p99 and the server's CPU; the TLS server's syscalls
# profile is taken after the load's warm-up, and the server checked
# afterwards with an HTTPS request.  Skipped (77) without nginx, openssl
# or strace.
set -u
. "$(dirname "$0")/load_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }
command -v openssl >/dev/null || { echo "SKIP: openssl is not installed (apt-get install openssl)"; exit 77; }
command -v strace >/dev/null || { echo "SKIP: strace is not installed (apt-get install strace)"; exit 77; }

port=$(free_port)
chmod 755 "$T"
run=$T/benchtui-nginx-tls-$port
cat >"$T/round.json" <<EOF2
{"name": "tls", "reps": 6, "baseline": "ka",
 "command": ["\${BENCHTUI}", "load", "https://127.0.0.1:$port/f64k.txt",
             "--cacert", "$run/cert.pem", "\${MODE}",
             "--requests", "150", "--warmup", "20",
             "--expect-bytes", "65536", "--metrics", "\${METRICS}"],
 "arms": [{"name": "ka", "vars": {"MODE": "--tls-resume"}},
          {"name": "nc", "vars": {"MODE": "--new-connection"}},
          {"name": "h2", "vars": {"MODE": "--h2"}}],
 "cells": [{"name": "ngtls", "server": {
            "cmd": ["env", "TMPDIR=$T", "sh",
                    "$BENCHTUI_SOURCE_DIR/assets/rounds/nginx-tls/serve.sh", "$port"],
            "ready": {"tcp_port": $port, "timeout_s": 30}}}],
 "profile": {"arms": ["ka", "nc"],
             "syscalls": {"trace": ["write", "writev", "read", "pread64",
                                    "sendfile", "recvfrom", "accept4",
                                    "epoll_wait", "close"]}},
 "quiet": false}
EOF2
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
run_round 0
log=$T/out/log.jsonl

# Every leg's load passed with its own TLS figures.
jq -e -s '[.[] | select(.t == "leg" and .metrics != null)] | length >= 18' "$log" \
	>/dev/null || fail "fewer than 18 legs with metrics"
jq -e -s '[.[] | select(.t == "leg" and .arm == "nc") | .metrics.handshakes] |
	all(. == 170)' "$log" >/dev/null || fail "nc: not a handshake per request"
jq -e -s '[.[] | select(.t == "leg" and .arm == "ka") | .metrics.handshakes] |
	all(. == 1)' "$log" >/dev/null || fail "ka: not one handshake"

# The summary leads with requests/s, p50, p99 and the server's cpu.
unwrap() {
	awk '/^          / { sub(/^ +/, " "); line = line $0; next }
	    { if (NR > 1) print line; line = $0 } END { print line }' "$1"
}
unwrap "$T/stdout" >"$T/headless.txt"
for b in nc h2; do
	order=$(sed -n "/^  $b vs ka/,/^  [a-z0-9]* vs /p" "$T/headless.txt" |
		awk '/^    [a-z]/ { print $1 }' | head -4 | tr '\n' ' ')
	[ "$order" = "requests/s p50 p99 server " ] ||
		fail "$b vs ka: the summary leads with $order"
	for want in '^    requests/s +[0-9.]+k? req/s vs [0-9.]+k? req/s +.*\[' \
	    '^    p99 latency +[0-9.]+[mun]?s vs [0-9.]+[mun]?s +.*\[' \
	    '^    server cpu +[0-9.]+[mun]?s vs [0-9.]+[mun]?s +.*\['; do
		grep -A12 "^  $b vs ka" "$T/headless.txt" | grep -Eq -- "$want" ||
			fail "$b vs ka: no line like $want"
	done
done
ok "summary: requests/s, p50, p99, server cpu first; $(grep -A1 '^  nc vs ka' "$T/headless.txt" | tail -1 | tr -s ' ')"

# The TLS server's syscalls, after the warm-up; then an HTTPS request.
for a in ka nc; do
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "syscalls")' "$log")
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile of $a: $ev"
	echo "$ev" | jq -e '.status == "ok" and .traced_processes == 2 and
		.attach == "after the load'"'"'s warm-up" and .detach.server_answers and
		(.detach.check | test("an HTTP request for https://")) and
		.detach.traced_after == 0 and (.top | length) > 0' >/dev/null ||
		fail "$a: syscalls profile: $ev"
	echo "$a syscalls per request: $(echo "$ev" | jq -c '[.top[0:4][] | "\(.syscall) \(.per_request)"]')"
done
# A handshake per request costs the server an accept per request.
acc=$(jq -r 'select(.t == "profile" and .arm == "nc" and .kind == "syscalls") |
	.top[] | select(.syscall == "accept4") | .per_request' "$log")
awk -v x="${acc:-0}" 'BEGIN { exit !(x >= 0.98 && x <= 1.02) }' ||
	fail "nc: accept4 per request is ${acc:-none}, not 1"
ok "syscalls profiles of the TLS server: nc accepts once per request"
finish
