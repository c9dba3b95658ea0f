#!/bin/bash
# test: est=5 long
# The nginx-remote example really runs: assets/rounds/nginx-remote.json with
# its host, ssh and agent pointed at the ssh test host (an sshd on
# 127.0.0.1 this test starts), its serve.sh taken from this source tree,
# one rep, the gate off.  Every leg is ok, each arm got its own nginx there
# (a ready event per leg with the agent's pid and sha256), the server's
# CPU and the load's requests/s are measured, and no nginx is left.
. "$(dirname "$0")/remote_lib.sh"
[ -x /usr/sbin/nginx ] || { echo "SKIP: /usr/sbin/nginx absent (apt-get install nginx-light)"; exit 77; }
remote_up

port=$(free_port)
jq --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" --arg host "$RHOST" \
	--arg dir "$T/agent" --arg serve "$BENCHTUI_SOURCE_DIR/assets/rounds/nginx/serve.sh" \
	--arg port "$port" --arg wd "$BENCHTUI_SOURCE_DIR/assets/rounds" '
	.reps = 1 | .quiet = false | .workdir = $wd | .ssh = $ssh | .agent = [$b, "agent"] |
	.vars.SERVER_ADDR = "127.0.0.1" | .vars.PORT = $port |
	.cells[0].server.host = $host | .cells[0].server.dir = $dir |
	.cells[0].server.cmd[1] = $serve |
	.cells[0].server.ready.tcp_port = ($port | tonumber)' \
	"$BENCHTUI_SOURCE_DIR/assets/rounds/nginx-remote.json" >"$T/r.json"
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl
jq -s -e --arg h "$RHOST" 'map(select(.t == "leg")) | length == 3 and
	all(.status == "ok" and .server.host == $h and .server.cpu > 0 and
	    .metrics.rps > 0 and .metrics.requests == 5000)' "$log" >/dev/null ||
	fail "a leg is not ok, or lacks the remote server's cpu or the load's rps"
jq -s -e --arg h "$RHOST" 'map(select(.t == "server" and .state == "ready")) |
	length == 3 and (map(.pid) | unique | length) == 3 and
	all(.host == $h and (.sha256 | length) == 64)' "$log" >/dev/null ||
	fail "not one nginx per leg started by the agent"
server_pids "$log" >"$T/pids"
assert_gone "$T/pids"
ok "nginx-remote ran: 3 ok legs, one nginx per leg on the ssh host, measured, none left"
finish
