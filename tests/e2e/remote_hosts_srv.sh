#!/bin/bash
# test: timeout=120 needs=sshd est=15
# One round on two hosts with a cell server (the demo's server cell, no
# server.host): each host runs its own copy of the server, started,
# measured and stopped through that host's agent.  Two sshd instances
# stand in for two machines, each agent in a network namespace of its
# own, so both copies listen on the same port and a leg can reach only
# its own host's copy.  Every leg line is ok with its host, and its
# server figures are those of its host's copy (its pid, its host); the
# legs of one host shared one network, each host another, none this
# one's; each leg's output file came back from its host; verify passes
# and report reads the round.  A cell server whose own host is one of
# the hosts runs there once, for both hosts' legs, in turn.  With the
# quiet gate on, each host's gate holds its own legs.
. "$(dirname "$0")/remote_lib.sh"
remote_up
declare -a H P
hosts_up 2
mkdir -p "$T/ns"
hosts_srv_round "$T/r.json" 200 --arg ns "$T/ns" '
	.reps = 4 |
	.command = ["sh", "-c", "readlink /proc/self/ns/net >\"$1/net.$$$$\"; exec \"$2\" client --port \"$3\" --requests 200",
	            "leg", $ns, "${BIN}", "${PORT}"]'
"$BENCHTUI" check "$T/r.json" --host="${H[1]}" --host="${H[2]}" >"$T/check" 2>&1 ||
	fail "check refuses a server on two hosts: $(tail -3 "$T/check")"
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" --host "${H[1]}" \
	--host "${H[2]}" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
hosts=$(jq -c -n --arg a "${H[1]}" --arg b "${H[2]}" '[$a, $b]')
cell=$(jq -r '.cells[0].name' "$T/r.json")
legs=$(jq '.reps * (.arms | length)' "$T/r.json")

# One copy of the server on each host, ready then stopped, each event
# naming its host.
jq -e -s --argjson h "$hosts" 'map(select(.t == "server")) as $s |
	($s | map(select(.state == "ready")) | length == 2 and (map(.host) | sort) == ($h | sort) and
		all((.pid | type) == "number")) and
	($s | map(select(.state == "stopped")) | (map(.host) | sort) == ($h | sort))' "$log" >/dev/null ||
	fail "not one server per host, ready then stopped: $(jq -c 'select(.t == "server") | [.state, .host, .pid]' "$log")"
ok "each host ran its own copy of the server: $(jq -c -s 'map(select(.t == "server" and .state == "ready") | {host, pid})' "$log")"

# Every leg ok on its host, its server block its own host's copy.
jq -e -s --argjson h "$hosts" --argjson n "$legs" '
	(map(select(.t == "server" and .state == "ready") | {key: .host, value: .pid}) | from_entries) as $pid |
	map(select(.t == "leg")) | length == $n and all(.status == "ok" and
		(.host as $x | $h | index($x)) != null and
		.server.host == .host and .server.pid == $pid[.host] and
		(.server.cpu | type) == "number" and (.server.counters | type) == "object")' "$log" >/dev/null ||
	fail "a leg line lacks its host's server figures: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status, .host, .server.host, .server.pid, .server.cpu]' "$log")"
jq -e -s --argjson h "$hosts" 'map(select(.t == "leg")) | group_by(.rep) |
	all((map(.host) | unique | length) == 1 and .[0].host == $h[(.[0].rep - 1) % 2])' "$log" >/dev/null ||
	fail "a rep did not run whole on its host"
ok "$legs legs ok, each with its host and that host's server figures (pid, cpu, counters)"

# The legs' networks: one per host, not this one's.
here=$(readlink /proc/self/ns/net)
for i in 1 2; do
	nets=$(for pid in $(jq -r --arg h "${H[$i]}" 'select(.t == "leg" and .host == $h) | .pid' "$log"); do
		[ -f "$T/ns/net.$pid" ] || fail "leg pid $pid on ${H[$i]} wrote no network file"
		cat "$T/ns/net.$pid"
	done | sort -u)
	[ "$(echo "$nets" | wc -l)" -eq 1 ] || fail "the legs of ${H[$i]} ran in several networks: $nets"
	[ "$nets" != "$here" ] || fail "the legs of ${H[$i]} ran in this machine's network"
	net[i]=$nets
done
[ "${net[1]}" != "${net[2]}" ] || fail "both hosts' legs shared one network"
ok "each host's legs ran in that host's network (${net[1]}, ${net[2]}), where only its own copy listens"

# The legs' output files came back from their hosts, whole.
for f in $(jq -r 'select(.t == "leg") | "\(.cell)-\(.arm)-r\(.rep).out:\(.output_bytes)"' "$log"); do
	file=$T/out/legs/${f%%:*}
	[ -f "$file" ] || fail "legs/${f%%:*} was not copied back"
	[ "$(stat -c %s "$file")" = "${f##*:}" ] || fail "legs/${f%%:*} holds $(stat -c %s "$file") bytes, its leg line says ${f##*:}"
	grep -q '^client: 200 requests' "$file" || fail "legs/${f%%:*} is not the client's output: $(head -c 200 "$file")"
done
ok "each leg's output file was copied back from its host"

"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
"$BENCHTUI" report "$T/out" >"$T/report" 2>&1 || fail "report failed: $(tail -3 "$T/report")"
grep -qi "server" "$T/report" || fail "the report shows nothing of the server: $(head -20 "$T/report")"
ok "verify passes, report reads the round (with $cell's server)"

# A server with a host of its own, one of the hosts, runs there once for
# every host's legs (the agents in this machine's network, where the
# other host's legs reach it): the legs take turns, never two at once,
# and every leg line's server figures are that one server's.
jq --arg a "${H[1]}" --arg b "$BENCHTUI" '.reps = 2 | .cells[0].server.host = $a |
	.agent = ["sh", "-c", "cd \"$AGENT_HOME\" && exec \"$0\" agent \"$@\"", $b]' \
	"$T/r.json" >"$T/one.json"
"$BENCHTUI" run "$T/one.json" --headless --out "$T/one" --host "${H[1]}" \
	--host "${H[2]}" >"$T/one.stdout" 2>&1 ||
	fail "run with the server on ${H[1]} exited $?: $(tail -5 "$T/one.stdout")"
jq -e -s --arg a "${H[1]}" --argjson h "$hosts" '
	map(select(.t == "server" and .state == "ready")) as $r |
	($r | length == 1 and .[0].host == $a) and
	(map(select(.t == "leg")) | length == 6 and (map(.host) | unique | sort) == ($h | sort) and
		all(.status == "ok" and .server.host == $a and .server.pid == $r[0].pid)) and
	(map(select(.t == "leg_start" or .t == "leg")) |
		reduce .[] as $e ({n: 0, max: 0}; if $e.t == "leg_start" then .n += 1 | .max = ([.max, .n] | max) else .n -= 1 end) |
		.max == 1)' "$T/one/log.jsonl" >/dev/null ||
	fail "the one server on ${H[1]} did not serve both hosts' legs in turn: $(jq -c 'select(.t == "leg_start" or .t == "leg" or .t == "server") | [.t, .arm, .rep, .host, .server.host, .state]' "$T/one/log.jsonl")"
"$BENCHTUI" verify "$T/one" >/dev/null || fail "verify failed (one server)"
ok "a server on ${H[1]} ran once for both hosts' legs, one leg at a time"

# With the quiet gate on, each host's gate holds its own legs (one that
# never holds on a busy box: the thresholds are far above two cores).
jq '.reps = 2 | .quiet = {"max_foreign_cores": 64, "max_client_busy": 64,
	"max_server_busy": 64, "timeout_s": 5, "probe": false}' "$T/r.json" >"$T/q.json"
"$BENCHTUI" run "$T/q.json" --headless --out "$T/q" --host "${H[1]}" \
	--host "${H[2]}" >"$T/q.stdout" 2>&1 ||
	fail "gated run exited $?: $(tail -5 "$T/q.stdout")"
jq -e -s 'map(select(.t == "leg")) | length == 6 and all(.status == "ok" and .gate == "quiet" and
	.server.host == .host)' "$T/q/log.jsonl" >/dev/null ||
	fail "a gated leg line lacks its host's gate or server: $(grep -m1 '"t":"leg"' "$T/q/log.jsonl" | cut -c1-600)"
ok "gated: each host's gate held its legs, each with its own server's figures"
finish
