#!/bin/bash
# test: est=3
# benchtui load against the nginx example's server (assets/rounds/nginx,
# Debian's nginx-light): --duration on 4 connections and 2 threads checks
# every body against the file and keeps 4 ports; --rate sends exactly the
# requests that fell due; HEAD reads the header alone; a POST nginx refuses
# is checked as --expect-status says.  Skipped (77) without nginx.
set -u
. "$(dirname "$0")/load_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx is not installed (apt-get install nginx-light)"; exit 77; }

# nginx's worker runs as another user: it must see into the folder.
chmod 755 "$T"
port=$(free_port)
# Its own session: the master and its worker end together, by group.
TMPDIR=$T SENDFILE=on setsid sh "$BENCHTUI_SOURCE_DIR/assets/rounds/nginx/serve.sh" \
	"$port" >"$T/nginx.log" 2>&1 &
OWN_PIDS+=("-$!")
disown "$!"
wait_until 20 port_busy "$port" || fail "nginx did not listen: $(cat "$T/nginx.log")"
url=http://127.0.0.1:$port/f64k.txt
file=$T/benchtui-nginx-$port/www/f64k.txt

timed_load dur "$url" --duration 1 --connections 4 --threads 2 --warmup 100 \
	--expect-file "$file" --evidence "$T/ev.jsonl" --metrics "$T/m.json"
[ "$rc" = 0 ] || fail "--duration on nginx: exit $rc: $(cat "$T/dur.out")"
[ "$(jq -r .local_port "$T/ev.jsonl" | sort -u | grep -c .)" = 4 ] ||
	fail "4 connections did not keep 4 ports"
jq -e '.requests > 100 and .bytes == 65536 * .requests' "$T/m.json" \
	>/dev/null || fail "metrics: $(cat "$T/m.json")"
ok "nginx: $(jq .requests "$T/m.json") requests in 1 s on 4 connections, 2 threads, each body checked"

"$BENCHTUI" load "$url" --rate 500 --duration 1 --connections 2 \
	--expect-file "$file" --metrics "$T/r.json" >"$T/r.out" 2>&1 ||
	fail "--rate on nginx: $(cat "$T/r.out")"
jq -e '.requests == 500' "$T/r.json" >/dev/null ||
	fail "--rate 500 --duration 1: $(cat "$T/r.json")"
"$BENCHTUI" load "$url" --method HEAD --expect-bytes 65536 --requests 200 \
	>"$T/h.out" 2>&1 || fail "HEAD on nginx: $(cat "$T/h.out")"
"$BENCHTUI" load "$url" --body "$file" --expect-status 405 --requests 20 \
	>"$T/p.out" 2>&1 || fail "POST to a static file: $(cat "$T/p.out")"
ok "nginx: --rate, HEAD and a refused POST"
finish
