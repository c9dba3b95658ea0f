#!/bin/bash
# test: asan-covered est=3
# kill -9 of benchtui mid-round: nothing it could say reaches the agent,
# yet the server's whole tree on the "remote" side (the server and the
# child it forked) is gone within 2 s: ssh dies with benchtui
# (PR_SET_PDEATHSIG), sshd closes the agent's input, and the agent ends
# the tree.  resume then completes the round, every leg exactly once.
. "$(dirname "$0")/remote_lib.sh"
remote_up

remote_tree_start
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
