#!/bin/bash
# test: est=16 needs=python3,jq,setsid,pgrep long
# Servers whose listener escapes the server's process tree, per leg (each
# leg starts the next server on the same port), with the round's cgroup
# and without one (BENCHTUI_NO_CGROUP, the /proc way):
#   - a listener in a session of its own (setsid) that ignores SIGTERM and
#     holds 300 MB: SIGKILLed at the stop, it keeps the port until its
#     memory is torn down, so the stop waits for it to be gone; the next
#     server used to find the port taken (5 of 5 runs);
#   - a daemon's double fork (setsid -f: reparented to benchtui) is the
#     server's own listener, not a foreign one, and is ended at the stop.
# Every round completes with 6 servers ready and stopped, and nothing of
# theirs is left running.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?set BENCHTUI_DEMO to the benchtui-demo binary}"
T=$tmp

cat >"$T/big.py" <<'EOF'
import signal, socket, sys
signal.signal(signal.SIGTERM, signal.SIG_IGN)
b = bytearray(int(sys.argv[2]) << 20)
for i in range(0, len(b), 4096):
    b[i] = 1
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
while True:
    c, _ = s.accept()
    c.close()
EOF
cp "$BENCHTUI_DEMO" "$T/daemon-demo"   # its path names what is left

# round FILE PORT SERVER_CMD_JSON
round() {
	cat >"$1" <<EOF
{"name": "escaped", "reps": 3, "baseline": "a", "quiet": false,
 "counters": ["task-clock"], "command": ["/bin/true"],
 "arms": [{"name": "a", "server_env": {"ARM": "a"}},
          {"name": "b", "server_env": {"ARM": "b"}}],
 "cells": [{"name": "net", "server": {"cmd": $3,
            "ready": {"tcp_port": $2, "timeout_s": 30}}}]}
EOF
}

none_left() { ! pgrep -f "$T/" >/dev/null; }

for mode in cgroup nocgroup; do
	if [ $mode = nocgroup ]; then export BENCHTUI_NO_CGROUP=1; else unset BENCHTUI_NO_CGROUP; fi
	for kind in big daemon; do
		port=$(free_port)
		if [ $kind = big ]; then
			cmd="[\"/bin/sh\", \"-c\", \"setsid python3 $T/big.py $port 300 & exec sleep 1000\"]"
		else
			cmd="[\"/bin/sh\", \"-c\", \"setsid -f $T/daemon-demo serve --port $port; exec sleep 1000\"]"
		fi
		round "$T/$kind.json" "$port" "$cmd"
		out=$T/$mode-$kind
		"$BENCHTUI" run "$T/$kind.json" --out "$out" --headless >"$out.txt" 2>&1
		rc=$?
		if [ $rc -ne 0 ]; then
			fail "$mode $kind: exit $rc: $(grep 'benchtui:' "$out.txt" | head -2)"
			continue
		fi
		n=$(jq -s '[.[] | select(.t == "server" and .state == "ready")] | length' "$out/log.jsonl")
		s=$(jq -s '[.[] | select(.t == "server" and .state == "stopped")] | length' "$out/log.jsonl")
		[ "$n" = 6 ] && [ "$s" = 6 ] || fail "$mode $kind: $n servers ready, $s stopped, expected 6"
		wait_until 5 none_left ||
			fail "$mode $kind: left running: $(pgrep -af "$T/")"
		echo "ok: $mode $kind: 6 servers on port $port, each ready and stopped"
	done
done
finish
