#!/bin/bash
# test: est=4
# A dropped connection mid-leg: the ssh client killed by its pid while a
# leg runs.  benchtui stops the round resumably (exit 3) within seconds,
# naming the host, long before the leg would have ended; the server's whole
# tree on the "remote" side (the server and the child it forked) is gone
# within 2 s; the leg is not counted.  resume reconnects and completes the
# round with every leg exactly once, and verify passes.
. "$(dirname "$0")/remote_lib.sh"
remote_up

remote_tree_start
sshpid=$(pgrep -P "$bpid" -x ssh)
[ -n "$sshpid" ] || fail "no ssh child of benchtui"
t0=$(now_s)
kill "$sshpid"
rm -f "$T/long"
wait_until 2 tree_gone "$T/tree" ||
	fail "the server's tree outlived the dropped connection by 2 s: $(ps -o pid,args -p "$(paste -sd, "$T/tree")")"
assert_gone "$T/tree"
ok "the server's tree (pids $(paste -sd' ' "$T/tree")) is gone within 2 s"

wait "$bpid"
rc=$?
took=$(awk -v a="$(now_s)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
[ $rc -eq 3 ] || fail "run exited $rc after the drop, not 3"
secs_under "$took" 10 || fail "benchtui took $took s to stop after the drop"
grep -q "root@127.0.0.1: the connection to the agent was lost" "$T/stdout" ||
	fail "the message does not name the host and the loss: $(tail -3 "$T/stdout")"
jq -s -e 'map(select(.t == "abort")) | .[0].reason | test("root@127.0.0.1: .*lost.*leg net chunk4k r1.*resume reconnects")' \
	"$log" >/dev/null || fail "the abort event does not name the host and the leg"
jq -s -e 'map(select(.t == "leg" and .status != "aborted")) | length == 0' "$log" >/dev/null ||
	fail "a leg was counted across the drop"
ok "exit 3 $took s after the drop, naming the host and the leg"

"$BENCHTUI" resume "$T/out" --headless >"$T/resume.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "resume exited $rc: $(tail -5 "$T/resume.out")"
jq -s -e 'map(select(.t == "leg" and .status != "aborted")) |
	length == 6 and (map("\(.cell) \(.arm) \(.rep)") | unique | length) == 6 and
	all(.status == "ok")' "$log" >/dev/null ||
	fail "resume did not count every leg exactly once: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status]' "$log")"
jq -s -e 'map(select(.t == "resume")) | .[0].hosts[0].host == "root@127.0.0.1" and
	(.[0].hosts[0].facts.kernel | type) == "string"' "$log" >/dev/null ||
	fail "the resume event lacks the reconnected host"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed after resume"
server_pids "$log" >"$T/all"
assert_gone "$T/all"
ok "resume reconnected and completed every leg exactly once; verify passes"
finish
