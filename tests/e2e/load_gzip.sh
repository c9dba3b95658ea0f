#!/bin/bash
# test: est=4
# benchtui load against nginx with gzip on: a 256 KiB text file comes
# chunked and gzip-coded; --accept-encoding gzip loads it on 2 connections
# and every body's length and sha256 (the coded bytes, after the chunks
# are taken off) is checked against what a reader of our own got, whose
# gunzip is the file.  keepalive_requests 50 makes nginx say
# Connection: close on every 50th response: the load opens a new
# connection each time and counts it.  Over HTTP/2 (prior knowledge),
# where such a body has no length either, the same bodies are checked.
# Without --accept-encoding the coded body is refused.  Skipped (77)
# without nginx.
set -u
. "$(dirname "$0")/load_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }

# nginx's worker runs as another user: it must see into the folder.
chmod 755 "$T"
port=$(free_port)
h2c=$(free_port)
mkdir -p "$T/ng/www" "$T/ng/tmp"
chmod 755 "$T/ng" "$T/ng/www"
head -c 262144 "$BENCHTUI_SOURCE_DIR/assets/data/corpus.txt" >"$T/ng/www/t.txt"
[ "$(stat -c %s "$T/ng/www/t.txt")" = 262144 ] || fail "assets/data/corpus.txt is under 256 KiB"
chmod 644 "$T/ng/www/t.txt"
cat >"$T/ng/nginx.conf" <<CONF
worker_processes 1;
error_log stderr warn;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path $T/ng/tmp;
    default_type text/plain;
    gzip on;
    gzip_types text/plain;
    keepalive_requests 50;
    server {
        listen 127.0.0.1:$port;
        root $T/ng/www;
    }
    server {
        listen 127.0.0.1:$h2c http2;
        root $T/ng/www;
    }
}
CONF
# Its own session: the master and its worker end together, by group.
setsid /usr/sbin/nginx -p "$T/ng" -c "$T/ng/nginx.conf" -e stderr \
	-g "daemon off; pid $T/ng/nginx.pid;" >"$T/nginx.log" 2>&1 &
OWN_PIDS+=("-$!")
disown "$!"
wait_until 20 port_busy "$port" && wait_until 20 port_busy "$h2c" || fail "nginx did not listen: $(cat "$T/nginx.log")"
url=http://127.0.0.1:$port/t.txt

# What a reader of our own gets: the framing, and the coded bytes.
read -r te ce len sha < <(python3 - "$port" "$T/ng/www/t.txt" <<'PY'
import gzip, hashlib, http.client, sys
c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
c.request("GET", "/t.txt", headers={"Accept-Encoding": "gzip"})
r = c.getresponse()
body = r.read()
assert gzip.decompress(body) == open(sys.argv[2], "rb").read()
print(r.getheader("Transfer-Encoding"), r.getheader("Content-Encoding"),
      len(body), hashlib.sha256(body).hexdigest())
PY
)
[ "$te" = chunked ] && [ "$ce" = gzip ] ||
	fail "nginx did not send a chunked gzip body (Transfer-Encoding $te, Content-Encoding $ce)"

"$BENCHTUI" load "$url" --accept-encoding gzip --requests 200 --warmup 10 \
	--connections 2 --expect-sha256 "$sha" --expect-bytes "$len" \
	--evidence "$T/ev.jsonl" --metrics "$T/m.json" >"$T/out" 2>&1 ||
	fail "--accept-encoding gzip: $(cat "$T/out")"
jq -e -s --argjson len "$len" --arg sha "$sha" 'length == 210 and
	all(.framing == "chunked" and .bytes == $len and .sha256 == $sha)' \
	"$T/ev.jsonl" >/dev/null || fail "evidence: $(head -n 2 "$T/ev.jsonl")"
# 210 requests, 50 a connection: nginx closed after each 50th, and said so.
[ "$(jq -c 'select(.closes)' "$T/ev.jsonl" | grep -c .)" -ge 3 ] ||
	fail "no Connection: close seen: $(jq -c 'select(.closes)' "$T/ev.jsonl")"
jq -e --argjson len "$len" '.requests == 200 and .bytes == 200 * $len and
	.connections >= 4' "$T/m.json" >/dev/null || fail "metrics: $(cat "$T/m.json")"
ok "nginx gzip: 210 chunked bodies of $len bytes, each checked; $(jq .connections "$T/m.json") connections"

# 40: below keepalive_requests, after which nginx refuses streams.
"$BENCHTUI" load "http://127.0.0.1:$h2c/t.txt" --h2 --streams 4 \
	--accept-encoding gzip --requests 40 --expect-sha256 "$sha" \
	--expect-bytes "$len" --evidence "$T/h2.jsonl" >"$T/out" 2>&1 ||
	fail "--h2 --accept-encoding gzip: $(cat "$T/out")"
jq -e -s --argjson len "$len" 'length == 40 and
	all(.framing == "chunked" and .bytes == $len)' "$T/h2.jsonl" \
	>/dev/null || fail "h2 evidence: $(head -n 2 "$T/h2.jsonl")"
ok "nginx gzip over HTTP/2: 40 bodies without a length, each checked"

"$BENCHTUI" load "$url" --header 'Accept-Encoding: gzip' --requests 2 >"$T/out" 2>&1
[ $? = 1 ] && grep -q 'request 1: Content-Encoding: gzip, expected none' "$T/out" ||
	fail "a coding not asked for: $(cat "$T/out")"
"$BENCHTUI" load "$url" --accept-encoding br --header 'X: 1' --requests 2 \
	--expect-bytes 262144 >"$T/out" 2>&1 ||
	fail "--accept-encoding br (nginx sends it as it is): $(cat "$T/out")"
ok "a coding not asked for refused; one nginx lacks falls back to identity"
finish
