#!/bin/bash
# test life-kill-prof: asan-covered est=10 needs=perf long
# test life-kill-prof-server: est=50 arg=server long
# The kill campaign over the profile phase: kill -9 benchtui while its perf
# profiles run (at a random moment after a profile leg started), resuming
# after each, until the round completes.  Then: every leg counted exactly
# once, every profile taken exactly once (one "profile" event each, ok),
# nothing an interrupted profile left behind (temporary reports, perf's
# .old data), no profile process alive, and the seal holds; first over perf
# profiles, then over the three kinds (perf, server_perf, syscalls) of a
# cell server, each kind killed at least once.  The two campaigns are
# two tests (life-kill-prof, life-kill-prof-server: the argument "server"),
# so they run beside each other.
. "$(dirname "$0")/life_lib.sh"
campaigns=${1:-perf}

export DEMO_SPIN_MS=100
make_round "$T/base.json" killprof 2 0   # 3 arms x 2 cells x 2 reps = 12 legs
# Two profiles (arms a and b of cell c1): the kills restart the first
# until it completes, the second shows the next profile taken once.
jq '.profile = {"arms": ["a", "b"], "cells": ["c1"],
		"perf": {"args": ["-F", "999", "-g"], "min_samples": 300}}' \
	"$T/base.json" >"$T/kill.json"
planned=12 profiles=2

# Polled every 50 ms: grep, not a jq over the whole log each time.
starts() {
	local n
	n=$(grep -c '"t":"profile_start"' "$log" 2>/dev/null)
	echo "${n:-0}"
}
# The kind of the newest profile_start (the kill's target), or "".
last_kind() {
	grep '"t":"profile_start"' "$log" 2>/dev/null | tail -1 | jq -r '.kind'
}
# The kinds the kills aim at in turn (empty: any).
KINDS=()

# check_no_live_profiles LOG: no profile process (perf or strace, or the leg
# under it) outlived its round: no process of any profile_start's process
# group is alive.  A zombie counts as gone (it runs nothing), as in
# life_lib.sh's check_no_live: one whose parent was killed waits for init
# to reap it, which is not at once on every machine.
check_no_live_profiles() {
	local p live
	for p in $(jq -r 'select(.t == "profile_start") | .pid' "$1"); do
		live=$(ps -eo pid,ppid,pgid,stat,args |
		    awk -v g="$p" '$3 == g && $4 !~ /^Z/')
		[ -z "$live" ] || fail "profile process group $p is still alive: $live"
	done
}

# check_no_leftovers DIR: what interrupted profiles left in DIR/legs
# (temporary reports, perf's .old data) was removed.
check_no_leftovers() {
	local left
	left=$(cd "$1/legs" && ls | grep -E '\.(tmp|flat|graph|old)$' || true)
	[ -z "$left" ] || fail "left in legs/: $left"
}

# campaign ROUND DIR: kill -9 inside profile legs (4 times), resuming after
# each, until the round completes.  Sets dir, log, kills, inprof, runs.
campaign() {
	local round=$1 before i last rc pid complete=0 want
	dir=$2
	log=$dir/log.jsonl
	kills=0 inprof=0 runs=0 killed_kinds=""
	while [ $complete -eq 0 ]; do
		runs=$((runs + 1))
		[ $runs -le 40 ] || fail "round not complete after $runs runs"
		before=0
		if [ ! -f "$log" ] || ! grep -q '"t":"round"' "$log"; then
			rm -rf "$dir"
			"$BENCHTUI" run "$round" --out "$dir" --headless \
			    >>"$T/out.txt" 2>&1 &
			pid=$!
		else
			before=$(starts)
			"$BENCHTUI" resume "$dir" --headless >>"$T/out.txt" 2>&1 &
			pid=$!
		fi
		if [ $inprof -lt "${MAXKILLS:-4}" ]; then
			# Wait for the next profile leg to start, then kill
			# somewhere inside it (the tool, the leg, the report or
			# the event).
			i=0
			want=""
			[ ${#KINDS[@]} -gt 0 ] && want=${KINDS[$((inprof % ${#KINDS[@]}))]}
			while kill -0 $pid 2>/dev/null && [ $i -lt 600 ] &&
			    { [ "$(starts)" -le "$before" ] ||
			      { [ -n "$want" ] && [ "$(last_kind)" != "$want" ]; }; }; do
				sleep 0.05
				i=$((i + 1))
			done
			# Anywhere in a perf profile's 0.9 s; early in one
			# aimed at (a syscalls profile of 300 requests lasts a
			# few tenths of a second: a later kill hit the next
			# profile, and the campaign ran out of kills before
			# one landed in it).
			if [ -n "$want" ]; then
				sleep "0.$(printf '%03d' $((RANDOM % 150)))"
			else
				sleep "0.$(printf '%03d' $((RANDOM % 900)))"
			fi
			kill -9 $pid 2>/dev/null
			wait $pid 2>/dev/null
			rc=$?
			# 137: killed.  Else the round ended before the kill
			# (the last profile was shorter than the draw; a zombie
			# takes the kill unharmed): its status stands.
			if [ $rc -eq 137 ]; then
				kills=$((kills + 1))
				# Killed inside a profile when the last profile
				# line is its start.
				last=$(jq -r 'select(.t == "profile_start" or .t == "profile") | .t' \
				    "$log" | tail -1)
				if [ "$last" = profile_start ]; then
					inprof=$((inprof + 1))
					killed_kinds="$killed_kinds $(last_kind)"
				fi
				continue
			fi
		else
			wait $pid
			rc=$?
		fi
		case $rc in
		0) complete=1 ;;
		# A kill after the seal but before the exit left a complete
		# round, which this resume refuses (as life_lib.sh's
		# server_campaign takes it).
		2) [ -f "$dir/SHA256SUMS" ] && grep -q "complete and sealed" "$T/out.txt" ||
			{ tail -20 "$T/out.txt"; fail "run/resume exited 2 (run $runs)"; }
		   complete=1 ;;
		*) tail -20 "$T/out.txt"; fail "run/resume exited $rc (run $runs)" ;;
		esac
	done
}

# The campaign over perf profiles (life-kill-prof).
perf_campaign() {
	campaign "$T/kill.json" "$T/round"
	echo "kill campaign over profiles: $kills kills, $inprof inside a profile, $runs runs"
	[ $inprof -ge 3 ] || fail "only $inprof kills landed inside a profile"

	check_complete "$dir" $planned
	# Each profile exactly once, and ok.
	jq -s -e --argjson n $profiles 'map(select(.t == "profile")) |
		length == $n and all(.status == "ok") and
		(map(.cell + "/" + .arm + "/" + .kind) | unique | length == $n)' "$log" >/dev/null ||
		fail "profile events: $(jq -c 'select(.t == "profile") | [.cell, .arm, .status]' "$log")"
	restarted=$(jq -s 'map(select(.t == "profile_start")) | length' "$log")
	echo "profile legs started: $restarted for $profiles profiles"
	[ "$restarted" -gt $profiles ] || fail "no profile was taken again after a kill"
	# What interrupted profiles left was removed before they were taken again.
	check_no_leftovers "$dir"
	for a in a b; do
		[ -s "$dir/legs/prof-c1-$a.report" ] || fail "no prof-c1-$a.report"
	done
	[ ! -e "$dir/legs/prof-c2-a.report" ] || fail "c2 was profiled"
	# The kills landed in the arms' interleaved runs: one recording of
	# both arms' runs, in mirror order, taken once to its end.
	jq -e '[.list[0:4][] | .arm] == [0, 1, 1, 0]' "$dir/legs/prof-c1-a+b.runs" \
		>/dev/null || fail "the runs were not interleaved: $(jq -c '[.list[] | .arm]' \
		"$dir/legs/prof-c1-a+b.runs")"
	# (The arms' runs share one recording, prof-c1-A+B.data.)
	! ls "$dir/legs" | grep -Eq '^prof-c1-(aa[.+]|.*\+aa\.)' ||
		fail "aa was profiled: $(ls "$dir/legs" | grep '^prof-c1-')"
	check_no_live_profiles "$log"
	jq -e '.profiles.c1.b.perf.vs == "a"' "$dir/summary.json" >/dev/null ||
		fail "summary.json lacks the profiles"
}

# The same over syscalls profiles (life-kill-prof-server): a cell server
# (python3 -m http.server) traced by strace under a benchtui load leg, perf
# and syscalls for two arms.  A kill takes strace and the server with
# benchtui (they die with their parent); resume starts the server again and
# takes the profile again.
server_campaign_kinds() {
	need strace python3
	# free_port draws in a subshell: the kill times' $RANDOM goes on as seeded.
	port=$(free_port) || fail "no free port"
	mkdir "$T/www"
	# 64 KiB: a smaller body waits on delayed ACKs (40 ms a request here)
	head -c 65536 /dev/urandom >"$T/www/f.bin"
	cat >"$T/sys.json" <<EOF
{"name": "killsys", "reps": 2, "baseline": "a", "quiet": false,
 "workdir": "$T/www", "counters": ["task-clock"],
 "command": ["\${BENCHTUI}", "load", "http://127.0.0.1:$port/f.bin",
             "--requests", "300", "--warmup", "50",
             "--metrics", "\${METRICS}"],
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "http", "server": {
     "cmd": ["python3", "-m", "http.server", "--protocol", "HTTP/1.1",
             "-b", "127.0.0.1", "$port"],
     "ready": {"tcp_port": $port, "timeout_s": 20}}}],
 "profile": {"arms": ["a", "b"], "perf": {"min_samples": 300},
             "server_perf": {"min_runs": 2, "min_samples": 50, "max_s": 5},
             "syscalls": {"trace": ["read", "sendto", "recvfrom", "close"]}}}
EOF
	KINDS=(perf server_perf syscalls) MAXKILLS=6
	campaign "$T/sys.json" "$T/sysround"
	echo "server campaign: $kills kills, $inprof inside a profile ($killed_kinds), $runs runs"
	for k in perf server_perf syscalls; do
		case " $killed_kinds " in
		*" $k "*) ;;
		*) fail "no kill landed inside a $k profile ($killed_kinds)" ;;
		esac
	done
	# Its live-legs look sees only benchtui-demo legs: none here (the legs
	# are benchtui load), so the profile process groups are checked below.
	check_complete "$dir" 4
	jq -s -e 'map(select(.t == "profile")) | length == 6 and
		all(.status == "ok") and
		(map(.arm + "/" + .kind) | unique | length == 6) and
		(map(select(.kind == "syscalls")) | all(.detach.traced_after == 0 and
		    .detach.server_answers and .total.per_request > 0))' "$log" >/dev/null ||
		fail "syscalls profiles: $(jq -c 'select(.t == "profile") | [.arm, .kind, .status, .reason]' "$log")"
	check_no_live_profiles "$log"
	check_no_leftovers "$dir"
	"$BENCHTUI" verify "$dir" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
}

seed_kills
case $campaigns in
perf) perf_campaign ;;
server) server_campaign_kinds ;;
*) fail "usage: life_kill_prof.sh [perf|server]" ;;
esac
exit 0
