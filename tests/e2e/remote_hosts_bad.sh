#!/bin/bash
# test: timeout=60 needs=sshd
# One round on several hosts, bad input: a host given twice; --host with
# a cell whose server runs on a host that is not one of them; "hosts"
# beside "host"; a cell server whose own host is not one of the hosts,
# or one per leg with a host of its own, on several hosts (one with no
# host of its own passes: each host runs a copy); a host that cannot be reached (before any
# leg, in ssh's words).
. "$(dirname "$0")/remote_lib.sh"
remote_up
declare -a H P
hosts_up 1
A=${H[1]}
hosts_round "$T/r.json" 2

"$BENCHTUI" run "$T/r.json" --headless --out "$T/twice" --host "$A" --host "$A" >"$T/o1" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a host given twice exited $rc, not 2"
grep -F "$A" "$T/o1" | grep -q "twice" || fail "the error does not name the host given twice: $(cat "$T/o1")"
[ ! -e "$T/twice/log.jsonl" ] || fail "a round ran with a host given twice"
ok "a host given twice is a usage error naming it"

remote_round "$T/s.json" 100
cell=$(jq -r '.cells[0].name' "$T/s.json")
"$BENCHTUI" run "$T/s.json" --headless --out "$T/srv" --host "$A" >"$T/o2" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--host beside another server host exited $rc, not 2"
grep -q "cell $cell runs its server on \"$RHOST\"" "$T/o2" ||
	fail "the error does not name the cell and its host: $(cat "$T/o2")"
ok "--host with a cell whose server runs elsewhere names the cell"

jq --arg a "$A" '.hosts = [$a] | .host = $a' "$T/r.json" >"$T/both.json"
"$BENCHTUI" check "$T/both.json" >"$T/o3" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "check of hosts beside host exited $rc, not 2"
grep -q 'hosts: and "host" are both set' "$T/o3" || fail "check does not name hosts and host: $(cat "$T/o3")"
ok "check refuses \"hosts\" beside \"host\""
jq --arg a "$A" '.hosts = [$a, "u@h2"]' "$T/r.json" >"$T/two.json"
"$BENCHTUI" check "$T/two.json" 2>/dev/null | grep -qxF "hosts $A u@h2 (rep r on the ((r-1) mod 2)-th)" ||
	fail "check does not print the hosts the reps are dealt to: $("$BENCHTUI" check "$T/two.json" 2>&1 | head -8)"

# A cell server with no host of its own: each host runs its own copy.
jq --arg a "$A" --arg b "$RHOST" '.hosts = [$a, $b] | del(.cells[0].server.host) | del(.cells[0].server.dir)' \
	"$T/s.json" >"$T/srv2.json"
"$BENCHTUI" check "$T/srv2.json" >"$T/o4" 2>&1 ||
	fail "a cell server on several hosts: check exited $?: $(tail -3 "$T/o4")"
grep -q "server-hosts: each host runs its own copy" "$T/o4" ||
	fail "check does not say each host runs its own copy: $(grep -m3 server "$T/o4")"
ok "a cell server on several hosts passes check: each host runs its own copy"
# One with a host of its own runs there once: that host must be one of
# the hosts, from the round file as from --host.
jq --arg a "$A" '.hosts = [$a, "u@h2"]' "$T/s.json" >"$T/srv3.json"
"$BENCHTUI" check "$T/srv3.json" >"$T/o6" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "hosts without the server's host: check exited $rc, not 2"
grep -q "cell $cell runs its server on \"$RHOST\", which is not one of the round's hosts" "$T/o6" ||
	fail "check does not name the cell and its server's host: $(cat "$T/o6")"
"$BENCHTUI" run "$T/s.json" --headless --out "$T/srv4" --host "$A" --host "u@h2" >"$T/o7" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "--host twice without the server's host exited $rc, not 2"
grep -q "cell $cell runs its server on \"$RHOST\"" "$T/o7" ||
	fail "the error does not name the cell and its host: $(cat "$T/o7")"
# check --host=HOST refuses it as run --host does.
"$BENCHTUI" check "$T/s.json" --host="$A" --host="u@h2" >"$T/o7c" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "cell $cell runs its server on \"$RHOST\"" "$T/o7c" ||
	fail "check --host twice without the server's host: exit $rc: $(cat "$T/o7c")"
"$BENCHTUI" check "$T/s.json" --host="$A" --host="$RHOST" >"$T/o8" 2>&1 ||
	fail "--host with the server's host among them: check exited $?: $(tail -3 "$T/o8")"
ok "a server's own host must be one of the hosts (file or --host), naming the cell"
# A server per leg runs on several hosts as each host's own; not on a
# host of its own.
jq '.arms[0].server_env = {"X": "1"}' "$T/srv2.json" >"$T/srv5.json"
"$BENCHTUI" check "$T/srv5.json" >"$T/o9" 2>&1 ||
	fail "a server per leg on several hosts: check exited $?: $(tail -3 "$T/o9")"
jq --arg a "$A" --arg b "$RHOST" '.hosts = [$a, $b] | .arms[0].server_env = {"X": "1"}' \
	"$T/s.json" >"$T/srv6.json"
"$BENCHTUI" check "$T/srv6.json" >"$T/o10" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a server per leg on a host of its own: check exited $rc, not 2"
grep -q "cell $cell starts a server for each leg" "$T/o10" ||
	fail "check does not name the server per leg's cell: $(cat "$T/o10")"
ok "a server per leg on several hosts passes check; on a host of its own it is refused, naming the cell"

dead=$(free_port)
"$BENCHTUI" run "$T/r.json" --headless --out "$T/dead" --host "$A" \
	--host "ssh://root@127.0.0.1:$dead" >"$T/o5" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "an unreachable host exited $rc, not 3: $(tail -3 "$T/o5")"
grep -q "Connection refused" "$T/o5" || fail "the stop lacks ssh's words: $(grep -m2 stopped "$T/o5")"
grep -q '"t":"leg_start"' "$T/dead/log.jsonl" && fail "a leg started before every host was reached"
ok "an unreachable host stops the round before any leg, in ssh's words"
finish
