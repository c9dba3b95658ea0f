# Shared by the load_* and server_round* e2e tests (sourced, not run): a
# python3 http.server in a folder of our own, and the file it serves.
. "$(dirname "$0")/hygiene_lib.sh"
need python3

# The 64 KiB file the servers serve, in $T/www.
mkdir -p "$T/www"
head -c 65536 /dev/urandom >"$T/www/f.bin"
FILE_SHA=$(sha256sum "$T/www/f.bin" | cut -d' ' -f1)

# start_http PORT [PROTOCOL]: python3 -m http.server on 127.0.0.1:PORT
# serving $T/www (HTTP/1.0 unless PROTOCOL says otherwise); waits until it
# accepts.  Sets HTTP_PID.
start_http() {
	local port=$1 proto=${2:-HTTP/1.0} i
	(cd "$T/www" && exec python3 -m http.server --protocol "$proto" \
		--bind 127.0.0.1 "$port") >"$T/http.log" 2>&1 &
	HTTP_PID=$!
	OWN_PIDS+=("$HTTP_PID")
	for i in $(seq 100); do
		python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" \
			2>/dev/null && return 0
		sleep 0.1
	done
	fail "python3 -m http.server did not listen on $port"
}

# start_load_server: tests/e2e/load_server.py (a server whose paths are
# the behaviours the load tests need) on a port the kernel picked; waits
# until it listens.  Sets LS_PID and LS (its base URL).
start_load_server() {
	python3 "$BENCHTUI_SOURCE_DIR/tests/e2e/load_server.py" "$T/ls.port" \
		>"$T/ls.log" 2>&1 &
	LS_PID=$!
	disown "$LS_PID"
	OWN_PIDS+=("$LS_PID")
	wait_until 20 test -s "$T/ls.port" ||
		fail "load_server.py did not start: $(cat "$T/ls.log")"
	LS="http://127.0.0.1:$(cat "$T/ls.port")"
}

# timed_load NAME ARGS...: benchtui load ARGS under GNU time; its exit
# status in $rc, its output in $T/NAME.out, wall seconds in $wall and peak
# RSS (KiB) in $rss.
timed_load() {
	local name=$1
	shift
	/usr/bin/time -f '%e %M' -o "$T/$name.time" "$BENCHTUI" load "$@" \
		>"$T/$name.out" 2>&1
	rc=$?
	read -r wall rss < <(tail -n 1 "$T/$name.time")
}

# start_nginx_tls [H2C]: nginx over TLS on a free port ($port), and with
# H2C HTTP/2 by prior knowledge on a second one ($h2c); $run its prefix.
start_nginx_tls() {
	port=$(free_port)
	h2c=
	[ -z "${1:-}" ] || h2c=$(free_port)
	run=$T/benchtui-nginx-tls-$port
	# nginx's worker runs as another user: it must see into the folder.
	chmod 755 "$T"
	TMPDIR=$T setsid sh "$BENCHTUI_SOURCE_DIR/assets/rounds/nginx-tls/serve.sh" \
		"$port" $h2c >"$T/nginx.log" 2>&1 &
	OWN_PIDS+=("-$!")
	disown "$!"
	wait_until 20 port_busy "$port" || fail "nginx did not listen: $(cat "$T/nginx.log")"
	[ -z "$h2c" ] || wait_until 20 port_busy "$h2c" || fail "nginx h2c: $(cat "$T/nginx.log")"
}
