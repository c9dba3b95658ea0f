#!/bin/bash
# test: timeout=120 needs=sshd est=15 long
# A round on two hosts, each with its own copy of the cell's server
# (hosts_srv_round), stopped two ways while a leg of host B holds:
# - B's ssh killed (by its pid): B's legs and B's server stop (its agent
#   ends it), A runs all its legs and stops its own server; the round
#   stops resumably (exit 3) naming B; resume starts the copies again
#   and runs every leg left, each exactly once.
# - benchtui killed with SIGKILL: both copies end with their agents;
#   resume runs every leg exactly once, each with its host's server.
# - B's copy killed: B's leg in flight fails and B's legs stop, the
#   death logged for B; A runs all its legs; resume completes the round.
. "$(dirname "$0")/remote_lib.sh"
remote_up
declare -a H P
hosts_up 2 2 HOLD=1
touch "$T/long"
hosts_srv_round "$T/r.json" 100 --arg long "$T/long" '
	.reps = 4 |
	.command = ["sh", "-c", "[ -n \"$HOLD\" ] && while [ -e \"$1\" ]; do sleep 0.1; done; exec \"$2\" client --port \"$3\" --requests 100",
	            "leg", $long, "${BIN}", "${PORT}"]'
legs=$(jq '.reps * (.arms | length)' "$T/r.json")
half=$((legs / 2))

# start_held DIR: the round started in the background ($bpid), waiting
# for B's first leg, held.
start_held() {
	"$BENCHTUI" run "$T/r.json" --headless --out "$1" --host "${H[1]}" \
		--host "${H[2]}" >"$1.stdout" 2>&1 &
	bpid=$!
	OWN_PIDS+=("$bpid")
	wait_until 30 sh -c "jq -e -s --arg b '${H[2]}' 'any(.t == \"leg_start\" and .host == \$b)' '$1/log.jsonl' >/dev/null 2>&1" ||
		fail "no leg started on ${H[2]}"
}

# every_leg_once LOG WHAT: each leg once (not aborted), ok, with its
# host's server figures (the server's host is the leg's).
every_leg_once() {
	jq -e -s --argjson n "$legs" '[.[] | select(.t == "leg" and .status != "aborted")] |
		length == $n and all(.status == "ok" and .server.host == .host) and
		(group_by([.cell, .arm, .rep]) | all(length == 1))' "$1" >/dev/null ||
		fail "$2: not every leg ran once with its host's server: $(jq -c 'select(.t == "leg") | [.arm, .rep, .host, .status, .server.host]' "$1")"
}

# resume_all DIR WHAT: resume DIR (exit 0), every leg once, verify.
resume_all() {
	"$BENCHTUI" resume "$1" --headless >"$1.resume" 2>&1 ||
		fail "$2: resume exited $?: $(tail -3 "$1.resume")"
	every_leg_once "$1/log.jsonl" "$2"
	"$BENCHTUI" verify "$1" >/dev/null || fail "$2: verify failed"
}

# b_server LOG: the pid of host B's copy of the server.
b_server() {
	jq -r --arg b "${H[2]}" 'select(.t == "server" and .state == "ready" and .host == $b) | .pid' "$1"
}

# 1. Host B dropped.
log=$T/out/log.jsonl
start_held "$T/out"
bsrv=$(b_server "$log")
[ -n "$bsrv" ] || fail "no server copy on ${H[2]}"
sshpid=$(pgrep -P "$bpid" -f "127.0.0.1:${P[2]}" | head -1)
[ -n "$sshpid" ] || fail "no ssh child of benchtui for ${H[2]}"
kill "$sshpid"
wait "$bpid"
rc=$?
[ $rc -eq 3 ] || fail "run exited $rc after the drop, not 3: $(tail -3 "$T/out.stdout")"
grep -F "${H[2]}" "$T/out.stdout" | grep -q "lost" ||
	fail "the stop does not name ${H[2]}: $(grep -m2 'stopped' "$T/out.stdout")"
n=$(jq -s --arg a "${H[1]}" 'map(select(.t == "leg" and .host == $a and .status == "ok" and .server.host == $a)) | length' "$log")
[ "$n" -eq "$half" ] || fail "${H[1]} ran $n of its $half legs with its server"
jq -e -s --arg a "${H[1]}" 'any(.t == "server" and .state == "stopped" and .host == $a)' "$log" >/dev/null ||
	fail "${H[1]}'s server was not stopped"
wait_until 10 sh -c "! kill -0 $bsrv 2>/dev/null" || fail "${H[2]}'s server (pid $bsrv) outlived its host's connection"
ok "the dropped host's legs and server stopped; ${H[1]} ran its $half legs and stopped its server; exit 3"
rm -f "$T/long"
resume_all "$T/out" "resume after the drop"
ok "resume ran every leg left once, each with its host's server; verify passes"

# 2. benchtui killed with SIGKILL.
touch "$T/long"
log=$T/k/log.jsonl
start_held "$T/k"
server_pids "$log" >"$T/k.pids"
[ "$(wc -l <"$T/k.pids")" -eq 2 ] || fail "not two server copies: $(cat "$T/k.pids")"
kill -9 "$bpid"
wait "$bpid" 2>/dev/null
wait_until 10 tree_gone "$T/k.pids" || fail "a server copy outlived benchtui's SIGKILL: $(cat "$T/k.pids")"
ok "both copies ended with their agents after benchtui's SIGKILL"
rm -f "$T/long"
resume_all "$T/k" "resume after SIGKILL"
ok "resume after SIGKILL ran every leg once; verify passes"

# 3. Host B's copy killed (by its pid) under a held leg: that leg fails,
# B's legs stop with the death logged for B; A runs all of its own.
touch "$T/long"
log=$T/d/log.jsonl
start_held "$T/d"
bsrv=$(b_server "$log")
[ -n "$bsrv" ] || fail "no server copy on ${H[2]}"
kill -9 "$bsrv"
rm -f "$T/long"
wait "$bpid"
rc=$?
[ $rc -eq 3 ] || fail "run exited $rc after B's server died, not 3: $(tail -3 "$T/d.stdout")"
grep -F "${H[2]}" "$T/d.stdout" | grep -q "died" ||
	fail "the stop does not say B's server died: $(grep -m3 'stopped\|died' "$T/d.stdout")"
jq -e -s --arg b "${H[2]}" 'any(.t == "server" and .state == "died" and .host == $b)' "$log" >/dev/null ||
	fail "no died event for ${H[2]}'s server"
n=$(jq -s --arg a "${H[1]}" 'map(select(.t == "leg" and .host == $a and .status == "ok")) | length' "$log")
[ "$n" -eq "$half" ] || fail "${H[1]} ran $n of its $half legs after B's server died"
ok "B's server died: B's legs stopped, the death logged for B; ${H[1]} ran its $half legs; exit 3"
# The leg its server died under is recorded failed (as with one host),
# so the completed round exits 5.
"$BENCHTUI" resume "$T/d" --headless >"$T/d.resume" 2>&1
rc=$?
[ $rc -eq 5 ] || fail "resume after B's server died exited $rc, not 5: $(tail -3 "$T/d.resume")"
jq -e -s --argjson n "$legs" --arg b "${H[2]}" '[.[] | select(.t == "leg" and .status != "aborted")] |
	length == $n and (group_by([.cell, .arm, .rep]) | all(length == 1)) and
	(map(select(.status != "ok")) | length == 1 and .[0].host == $b)' "$log" >/dev/null ||
	fail "resume after B's server died: not every leg once: $(jq -c 'select(.t == "leg") | [.arm, .rep, .host, .status]' "$log")"
"$BENCHTUI" verify "$T/d" >/dev/null || fail "verify failed after B's server died and resume"
ok "resume started B's copy again and ran every leg left once (the one B's server died under failed); verify passes"
finish
