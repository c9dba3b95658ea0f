#!/bin/bash
# test: needs=sshd,strace timeout=120 est=15 long
# A server per leg on a round on two hosts (an arm sets server_env; the
# demo's server cell, no server.host): each host starts its own copy for
# each of its legs, through its agent, in its own network namespace
# (remote_hosts_srv.sh's setup).  Every leg line's server figures are
# those of the copy started for it on its own host (its pid, its host),
# whose ready and stopped events name its arm, rep and host; one copy
# per leg, no more.  The arm's syscalls profile is taken on the first
# host, with a copy of its own started there for it (rep 0); verify
# passes.  A server per leg on a host of its
# own is still refused, naming the cell.
. "$(dirname "$0")/remote_lib.sh"
remote_up
declare -a H P
hosts_up 2
hosts_srv_round "$T/r.json" 100 '
	.reps = 2 | .arms = [.arms[0], (.arms[1] | .server_env = {"DEMO_X": "1"})] |
	.profile = {"arms": [.arms[1].name], "syscalls": {}}'
"$BENCHTUI" check "$T/r.json" --host="${H[1]}" --host="${H[2]}" >"$T/check" 2>&1 ||
	fail "check refuses a server per leg on two hosts: $(tail -3 "$T/check")"
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" --host "${H[1]}" \
	--host "${H[2]}" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
hosts=$(jq -c -n --arg a "${H[1]}" --arg b "${H[2]}" '[$a, $b]')

# One copy per leg, on the leg's host, for its arm and rep; each
# stopped.
jq -e -s --argjson h "$hosts" '
	map(select(.t == "server")) as $s |
	($s | map(select(.state == "ready" and .rep > 0))) as $r |
	map(select(.t == "leg")) as $l |
	($l | length) == 4 and ($r | length) == 4 and
	($s | map(select(.state == "stopped" and .rep > 0)) | length) == 4 and
	all($l[]; . as $x | .status == "ok" and (($h | index($x.host)) != null) and
		.server.host == .host and
		([$r[] | select(.host == $x.host and .arm == $x.arm and .rep == $x.rep and .pid == $x.server.pid)] | length) == 1)' \
	"$log" >/dev/null ||
	fail "not one server copy per leg on its host: $(jq -c 'select(.t == "server" or .t == "leg") | [.t, .state, .arm, .rep, .host, .pid, .server.pid]' "$log")"
ok "each host started its own server for each of its legs: $(jq -c -s 'map(select(.t == "leg") | [.arm, .rep, .host[-5:], .server.pid])' "$log")"

arm=$(jq -r '.arms[1].name' "$T/r.json")
jq -e -s --arg h "${H[1]}" --arg arm "$arm" '
	map(select(.t == "server" and .rep == 0)) as $p |
	($p | map(select(.state == "ready")) | length == 1 and .[0].host == $h and .[0].arm == $arm) and
	($p | map(select(.state == "stopped")) | length == 1) and
	(map(select(.t == "profile" and .kind == "syscalls" and .status != "started")) |
		length == 1 and .[0].status == "ok" and .[0].host == $h)' "$log" >/dev/null ||
	fail "the syscalls profile: $(jq -c 'select(.t == "profile" or (.t == "server" and .rep == 0)) | [.t, .kind, .state, .status, .host, .reason]' "$log")"
[ -s "$T/out/legs/sys-$(jq -r '.cells[0].name' "$T/r.json")-$arm.txt" ] || fail "no syscalls table copied back"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
ok "the syscalls profile was taken on ${H[1]} with a server of its own there; verify passes"

# On a host of its own, a server per leg is refused, naming the cell.
jq --arg a "${H[1]}" '.cells[0].server.host = $a' "$T/r.json" >"$T/own.json"
"$BENCHTUI" run "$T/own.json" --headless --out "$T/own.out" --host "${H[1]}" \
	--host "${H[2]}" >"$T/own" 2>&1
[ $? = 2 ] || fail "run took a server per leg on a host of its own: $(tail -3 "$T/own")"
[ ! -e "$T/own.out/log.jsonl" ] || fail "the refused round wrote a log"
grep -q 'cells\[0\].server.*starts a server for each leg' "$T/own" || fail "check's words: $(cat "$T/own")"
ok "a server per leg on a host of its own: refused, naming the cell"
finish
