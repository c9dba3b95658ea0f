#!/bin/bash
# test: est=5 long
# The kill -9 campaign with a server whose child escapes by setsid (and a
# leg whose child does too): benchtui is killed three times mid-round and
# resumed; after the final resume no process of the round is left -- not
# the escapees of the killed runs either, which lived on in the round's
# cgroup (logged as a "cgroup" event, ended by resume), or, without a
# cgroup (BENCHTUI_NO_CGROUP), were logged in the process ledger ("ledger"
# events, ended by resume) -- the round holds every leg exactly once, and
# verify passes.
. "$(dirname "$0")/life_lib.sh"
cp /bin/sleep "$T/escapee"   # its exe names the server's escapees
cp /bin/sleep "$T/legescapee"  # and this the legs' 
port=$(free_port) || fail "no free port"
cat >"$T/r.json" <<EOF
{"name": "orphans", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "setsid -f $T/legescapee 3001; while [ ! -e $T/go ]; do sleep 0.05; done; exec $BENCHTUI_DEMO client --port \$0 --requests 200", "\${PORT}"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "s", "vars": {"PORT": "$port"},
   "server": {"cmd": ["/bin/sh", "-c", "setsid -f $T/escapee 3000; exec $BENCHTUI_DEMO serve --port $port"],
              "ready": {"tcp_port": $port, "timeout_s": 10}}}]}
EOF
# running_as EXE...: the /proc folders of the live (not zombie) processes
# whose exe is one of EXE, one a line (one find over /proc, not a
# readlink per process).
running_as() {
	local e p
	local -a names=()
	for e in "$@"; do
		names+=(${names[0]+-o} -lname "$e")
	done
	find /proc -mindepth 2 -maxdepth 2 -name exe \( "${names[@]}" \) 	    -printf '%h\n' 2>/dev/null |
	while read -r p; do
		grep -q '^State:.*Z' "$p/status" 2>/dev/null || echo "$p"
	done
}
escapees() {
	if [ -z "${BENCHTUI_NO_CGROUP:-}" ]; then
		running_as "$T/escapee" "$T/legescapee"
	else
		running_as "$T/escapee"
	fi | grep -c .
}
# Whether the running leg's escapee is up (resume ended the ones before it
# before it started the leg).
leg_escapee_up() {
	[ -n "$(running_as "$T/legescapee")" ]
}
life_cleanup_hooks+=('for p in /proc/[0-9]*; do case "$(readlink $p/exe 2>/dev/null)" in "$T/escapee"|"$T/legescapee") kill -9 ${p#/proc/} 2>/dev/null;; esac; done')

# leg_start lines in the log so far (0 before it exists).
starts() {
	local n
	n=$(jq -s '[.[] | select(.t == "leg_start")] | length' "$1" 2>/dev/null) || n=0
	echo "${n:-0}"
}

campaign() {
	dir=$T/round-$1
	# A leg waits for $T/go: each kill lands inside the run's first
	# leg however slow the machine, and the final resume's legs run
	# through.
	rm -f "$T/go"
	for k in 1 2 3; do
		# Killed during the run's first leg, while the server's
		# escapee lives (without a cgroup benchtui ends it as a
		# leftover after that leg).
		want=$(( $(starts "$dir/log.jsonl") + 1 ))
		if [ $k -eq 1 ]; then
			"$BENCHTUI" run "$T/r.json" --out "$dir" --headless >>"$T/out" 2>&1 &
		else
			"$BENCHTUI" resume "$dir" --headless >>"$T/out" 2>&1 &
		fi
		pid=$!
		wait_count "$dir/log.jsonl" '.t == "leg_start"' $want 60 ||
			{ kill -9 $pid; cat "$T/out"; fail "run $k never started a leg"; }
		wait_until 5 leg_escapee_up ||
			{ kill -9 $pid; fail "$1: the leg of run $k left no escapee"; }
		kill -9 $pid
		wait $pid 2>/dev/null
		# Not a wait for something: the stretch in which an escapee
		# that went with benchtui would be gone.
		sleep 0.2
		[ "$(escapees)" -gt 0 ] || fail "$1: setup: no escapee outlived the kill -9 of run $k"
	done
	touch "$T/go"
	"$BENCHTUI" resume "$dir" --headless >>"$T/out" 2>&1 || { tail -20 "$T/out"; fail "the final resume failed"; }
	left=$(escapees)
	[ "$left" -eq 0 ] || fail "$1: $left escaped processes of the killed runs are still alive after the final resume"
	check_complete "$dir" 2
	echo "$1: 3 kills, every escapee ended, 2 legs exactly once, verify OK"
}

export DEMO_SPIN_MS=30
if [ -e /sys/fs/cgroup/cgroup.controllers ] || grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	campaign cgroup
else
	echo "no cgroup v2 here: the cgroup campaign is skipped"
fi
# Without a cgroup the ledger looks twice a second: a leg's escapee that
# a kill -9 catches in its first half second is not known to it (see
# benchtui(1)), so this campaign counts the server's escapees only.
export BENCHTUI_NO_CGROUP=1
campaign ledger
exit 0
