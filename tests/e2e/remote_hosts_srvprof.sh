#!/bin/bash
# test: needs=sshd,strace,perf timeout=120 est=15 long
# Server profiles on a round on two hosts (the demo's server cell, no
# server.host: each host runs its own copy, each agent in a network
# namespace of its own, as remote_hosts_srv.sh sets up).  "syscalls" and
# "server_perf" of an arm are taken on the first host, with that host's
# copy of the server: its agent attaches the profiler there, the
# profile's loads run there (their output files in that host's agent
# folder, none in the other's), the files come back into legs/ and are
# sealed, and each profile event names the first host.  verify passes.
. "$(dirname "$0")/remote_lib.sh"
need strace perf
remote_up
declare -a H P
hosts_up 2
hosts_srv_round "$T/r.json" 100 '
	.reps = 1 | .arms = [.arms[0], .arms[1]] |
	.profile = {"arms": [.arms[0].name], "syscalls": {},
	            "server_perf": {"args": ["-F", "199"], "min_runs": 2,
	                            "min_samples": 20, "max_s": 3}}'
"$BENCHTUI" check "$T/r.json" --host="${H[1]}" --host="${H[2]}" >"$T/check" 2>&1 ||
	fail "check refuses server profiles on two hosts: $(tail -3 "$T/check")"
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" --host "${H[1]}" \
	--host "${H[2]}" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
cell=$(jq -r '.cells[0].name' "$T/r.json")
arm=$(jq -r '.arms[0].name' "$T/r.json")
jq -e -s 'map(select(.t == "leg")) | length == 2 and all(.status == "ok")' "$log" >/dev/null ||
	fail "the timed legs: $(jq -c 'select(.t == "leg") | [.arm, .host, .status]' "$log")"

# Each host ran its own copy; the profiles' agent (the first host's)
# profiles its own.
jq -e -s --arg a "${H[1]}" --arg b "${H[2]}" 'map(select(.t == "server" and .state == "ready") | .host) | sort == ([$a, $b] | sort)' "$log" >/dev/null ||
	fail "not one server per host: $(jq -c 'select(.t == "server") | [.state, .host]' "$log")"

ev=$(jq -c 'select(.t == "profile" and .kind == "syscalls" and .status != "started")' "$log")
[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile: $ev"
echo "$ev" | jq -e --arg h "${H[1]}" '.status == "ok" and .host == $h and
	.traced_threads >= 1 and .detach.server_alive and
	.detach.traced_after == 0 and .total.calls > 0 and
	(.copied | length) == 2' >/dev/null || fail "syscalls: $ev"
jq -e -s --arg h "${H[1]}" 'map(select(.t == "profile")) | all(.host == $h)' "$log" >/dev/null ||
	fail "a profile event does not name ${H[1]}: $(jq -c 'select(.t == "profile") | [.kind, .status, .host]' "$log")"
[ -s "$T/out/legs/sys-$cell-$arm.txt" ] || fail "no legs/sys-$cell-$arm.txt copied back"
ev=$(jq -c 'select(.t == "profile" and .kind == "server_perf" and .status != "started")' "$log")
[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one server_perf profile: $ev"
# (a busy box may leave perf without samples: a failure that says so)
echo "$ev" | jq -e --arg h "${H[1]}" '.host == $h and
	((.status == "ok" and .samples > 0 and .runs >= 1 and
	  (.copied | length) == 2 * .runs) or
	 (.status == "failed" and (.reason | test("blocked|paranoid|PMU|no samples"))))' \
	>/dev/null || fail "server_perf: $ev"
echo "server_perf on ${H[1]}: $(echo "$ev" | jq -c '[.status, .runs, .samples, .reason]')"

# The profiles' loads ran on the first host: their output in its
# agent's folder, none in the other's.
n=0
for f in "$T"/out/legs/prof-"$cell-$arm"-server.r*.load.out "$T/out/legs/sys-$cell-$arm.out"; do
	[ -e "$f" ] || continue
	b=$(basename "$f")
	far=$(find "$T/agent1" -name "*_$b" | head -1)
	[ -n "$far" ] && [ -s "$far" ] || fail "$b: no load output in ${H[1]}'s agent folder"
	cmp -s "$far" "$f" || fail "$b differs from the one on ${H[1]}"
	[ -z "$(find "$T/agent2" -name "*_$b")" ] || fail "$b: a profile load ran on ${H[2]}"
	n=$((n + 1))
done
[ "$n" -ge 1 ] || fail "the profiles' load outputs: $(ls "$T/out/legs")"
ok "syscalls and server_perf taken on ${H[1]} with its copy of the server, their $n loads run there"

"$BENCHTUI" verify "$T/out" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
grep -q "sys-$cell-$arm.txt" "$T/out/SHA256SUMS" || fail "the syscalls table is not sealed"
ok "the profiles' files are copied back and sealed; verify passes"
finish
