#!/bin/bash
# kill -9 of benchtui mid-round: nothing it could say reaches the agent,
# yet the server's whole tree on the "remote" side (the server and the
# child it forked) is gone within 2 s: ssh dies with benchtui
# (PR_SET_PDEATHSIG), sshd closes the agent's input, and the agent ends
# the tree.  resume then completes the round, every leg exactly once.
. "$(dirname "$0")/remote_lib.sh"
remote_up

touch "$T/long"
remote_round "$T/r.json" 300 --arg long "$T/long" '
	.reps = 2 |
	.command = ["sh", "-c", "[ -e \"$1\" ] && sleep 30; exec \"$2\" client --port \"$3\" --requests 300",
	            "leg", $long, "${BIN}", "${VAL}"] |
	.cells[0].server.cmd = ["sh", "-c", "sleep 600 & exec \"$0\" serve --port \"$1\"",
	                        "${BIN}", .cells[0].vars.VAL]'
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 &
bpid=$!
OWN_PIDS+=("$bpid")
wait_until 30 grep -q '"t":"leg_start"' "$log" 2>/dev/null || fail "no leg started"
spid=$(server_pids "$log")
cat /proc/"$spid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . >"$T/tree"
echo "$spid" >>"$T/tree"
[ "$(wc -l <"$T/tree")" -ge 2 ] || fail "the server's tree is not two processes: $(cat "$T/tree")"
agent=$(pgrep -f "agent --dir $T/agent" | head -1)
[ -n "$agent" ] || fail "no agent runs"
echo "$agent" >"$T/agent.pid"
kill -9 "$bpid"
wait "$bpid" 2>/dev/null
rm -f "$T/long"
wait_until 2 tree_gone "$T/tree" ||
	fail "the server's tree outlived kill -9 of benchtui by 2 s: $(ps -o pid,args -p "$(paste -sd, "$T/tree")")"
assert_gone "$T/tree"
wait_until 5 tree_gone "$T/agent.pid" || fail "the agent (pid $agent) outlived benchtui"
ok "kill -9 of benchtui: the server's tree (pids $(paste -sd' ' "$T/tree")) and the agent are gone within 2 s"

"$BENCHTUI" resume "$T/out" --headless >"$T/resume.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "resume exited $rc: $(tail -5 "$T/resume.out")"
jq -s -e 'map(select(.t == "leg" and .status != "aborted")) |
	length == 6 and (map("\(.cell) \(.arm) \(.rep)") | unique | length) == 6' \
	"$log" >/dev/null || fail "resume did not count every leg exactly once"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed after resume"
ok "resume completed every leg exactly once; verify passes"
finish
