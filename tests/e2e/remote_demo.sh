#!/bin/bash
# test: est=22 long
# A cell's server on another host: the demo's server cell with its server
# on the ssh test host (an sshd on 127.0.0.1 this test starts).  The round
# completes; its ratios hold server_cpu with an interval; the server's pid
# and sha256 come from the agent (the ready event, every leg line's server
# block); environment.json's hosts holds both hosts, each with its facts,
# binaries and gate settings; the agent wrote only into its folder; check
# prints how the host is reached; the console's quiet box lists the host;
# nothing is left running.
. "$(dirname "$0")/remote_lib.sh"
remote_up

# (Profiles of a far server: remote_prof.sh, with a lighter load.)
prof='.'
remote_round "$T/r.json" 4000 '.reps = 6 | .quiet = {"max_foreign_cores": 8,
	"window_ms": 100, "timeout_s": 2, "on_timeout": "proceed"} | '"$prof"
"$BENCHTUI" check "$T/r.json" >"$T/check.out" 2>&1 || fail "check: $(cat "$T/check.out")"
grep -q "^    server tcp_port .* host $RHOST dir $T/agent\$" "$T/check.out" ||
	fail "check does not print the server's host and folder: $(grep server "$T/check.out")"
grep -qF -- "    server-ssh ssh -F /dev/null -o BatchMode=yes" "$T/check.out" &&
	grep -qF -- "$RHOST '$BENCHTUI agent --dir $T/agent'" "$T/check.out" ||
	fail "check does not print the ssh command line: $(grep server-ssh "$T/check.out")"
ok "check prints the host, the folder and the ssh command line"

"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl
ok "the round completed (exit 0)"

# The server's pid and sha256 are the agent's.
want=$(sha256sum "$BENCHTUI_DEMO" | cut -d' ' -f1)
jq -s -e --arg h "$RHOST" --arg sha "$want" 'map(select(.t == "server" and
	.state == "ready")) | length == 1 and all(.host == $h and .sha256 == $sha and
	(.pid | type) == "number" and (.log | endswith("/agent/demo-net.log")))' \
	"$log" >/dev/null || fail "the ready event lacks the agent's host, pid, sha256 or log: $(jq -c 'select(.t == "server")' "$log")"
pid=$(server_pids "$log")
[ "$(wc -l <<<"$pid")" -eq 1 ] || fail "not one server for the cell: $pid"
# Two requests a leg (open, close); the first leg's count has the start.
jq -s -e --argjson pid "$pid" --arg h "$RHOST" 'map(select(.t == "leg")) |
	length == 18 and all(.server.pid == $pid and .server.host == $h and
	(.server.rtt_ms | type) == "number" and .server.cpu >= 0 and
	.server.counters["task-clock"] > 0) and
	.[0].server.requests == 3 and all(.[1:][]; .server.requests == 2)' "$log" >/dev/null ||
	fail "a leg line's server block is not the agent's (pid $pid, host, requests 3 then 2): $(jq -c 'select(.t == "leg") | .server' "$log" | head -3)"
jq -s -e --arg h "$RHOST" 'any(.t == "quiet" and .host == $h)' "$log" >/dev/null ||
	fail "no quiet sample from the server's host"
ok "server pid $pid and its sha256 come from the agent"

# server_cpu: a ratio with an interval for each compared arm.
"$BENCHTUI" report "$T/out" --format json >"$T/report.json" || fail "report failed"
jq -e '.cells.net.arms.chunk512.metrics.server_cpu as $m |
	$m.n == 6 and ($m.ci | length) == 2 and ($m.ci[0] | type) == "number" and
	($m.estimate | type) == "number"' "$T/report.json" >/dev/null ||
	fail "no server_cpu ratio with an interval: $(jq -c '.cells.net.arms.chunk512.metrics.server_cpu' "$T/report.json")"
ok "server_cpu has ratios with intervals"

# hosts: this machine (client) and the server's host, each whole.
env=$T/out/environment.json
jq -e --arg h "$RHOST" --arg demo "$(realpath "$BENCHTUI_DEMO")" --arg sha "$want" '
	.hosts | length == 2 and
	(.[0] | .host == null and .role == "client" and .facts.kernel != null and
	 .bins[$demo] == $sha and .quiet.max_foreign_cores == 8) and
	(.[1] | .host == $h and .role == "server" and .cells == ["net"] and
	 .facts.kernel != null and .facts.hostname != null and
	 .bins[$demo] == $sha and .quiet.max_foreign_cores == 8 and
	 .agent.version != null and (.agent.pid | type) == "number" and
	 .rtt_ms.n == 5 and .rtt_ms.min > 0 and (.dir | endswith("/agent")))' \
	"$env" >/dev/null || fail "environment.json's hosts: $(jq -c '.hosts | map(del(.facts))' "$env")"
jq -s -e 'map(select(.t == "env")) | .[0].hosts | length == 2' "$log" >/dev/null ||
	fail "the env event does not carry hosts"
ok "environment.json's hosts holds both hosts"

# The agent wrote into its folder alone: the server's log.
[ "$(ls "$T/agent")" = "demo-net.log" ] || fail "the agent's folder holds: $(ls "$T/agent")"
grep -q 'listening on 127.0.0.1' "$T/agent/demo-net.log" || fail "no server log in the agent's folder"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
alive "$pid" && fail "server pid $pid still runs after the round"
[ -z "$(pgrep -f "agent --dir $T/agent")" ] || fail "an agent still runs: $(pgrep -af "agent --dir $T/agent")"
ok "the agent wrote only its folder; nothing is left running; verify passes"

# The console's quiet box lists the host (a replay shows the live model).
# (Its state is the gate's: busy, or "budget" once a loaded box spent it.)
replay_shows "$T/out" 140 "$RHOST: [a-z]" "the quiet box lists $RHOST"
finish
