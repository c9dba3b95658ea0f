#!/bin/bash
# test: needs=sshd,perf timeout=120 long
# The legs' perf profile with the legs on another host (the round's
# "host", the test's own sshd): two arms of the prof-hot program, their
# runs taking turns under one perf record of benchtui prof-repeat THERE
# (the agent's prof_legs).  The recording, perf's words, the runs and the plan
# come back into legs/, perf report runs there, and the split by run and
# the differential view are made here: both profile events ok with the
# host, each arm's report, the report's "on vs off" view naming
# prof_hot_extra; verify passes.  Its scratch folder, under the far
# side's own /run (the test sshd's mount namespace), is made and emptied
# there only.  Then the demo round with
# "host", where no leg process runs here (checked through the mount
# namespace each leg process writes); then a round on two hosts, whose
# profile is taken on the first.
. "$(dirname "$0")/remote_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
need perf
remote_up

sc=/run/benchtui-legprof-$$
jq -n --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" --arg host "$RHOST" \
	--arg hot "$BENCHTUI_PROF_HOT" --arg sc "$sc" '
{"name": "farlegprof", "reps": 1, "baseline": "off", "quiet": false,
 "scratch": $sc,
 "ssh": $ssh, "agent": [$b, "agent"], "host": $host,
 "bin": $hot, "command": ["${BIN}", "3000000"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["off", "on"],
             "perf": {"args": ["-F", "999", "-g"], "min_runs": 2,
                      "min_samples": 50, "max_s": 10}}}' >"$T/r.json"
"$BENCHTUI" check "$T/r.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
grep -qx 'profile cpu on perf' "$T/check" || fail "check lists no profile of on: $(cat "$T/check")"

# perf is looked for there, not here: check passes without it here
mkdir "$T/nobin"
ln -s "$(command -v ssh)" "$T/nobin/ssh"
PATH=$T/nobin "$BENCHTUI" check "$T/r.json" >"$T/check2" 2>&1 ||
	fail "check without perf here: $(cat "$T/check2")"
ok "check takes perf with host (without perf here)"

# The agent's prof_legs refuses a plan it cannot run, in its own words.
mkdir "$T/ag"
printf '%s\n' '{"id":1,"op":"hello","protocol":2,"version":"'"$("$BENCHTUI" --version | awk '{print $2}')"'"}' \
	'{"id":2,"op":"prof_legs","plan":{"arms":[{"argv":["no-such-prog"],"env":[],"cwd":"/"}]},"args":[],"timeout_s":5}' \
	'{"id":3,"op":"prof_legs","timeout_s":5}' \
	'{"id":4,"op":"prof_legs","plan":{"arms":[]},"args":[],"timeout_s":5}' \
	'{"id":5,"op":"prof_report","args":[]}' |
	timeout 20 "$BENCHTUI" agent --dir "$T/ag" >"$T/ag.out" 2>&1
jq -e -s 'length == 5 and .[0].ok and (.[1:] | all(.ok == false)) and
	(.[1].error | test("no program \"no-such-prog\"")) and .[2].cause == "malformed" and
	(.[3].error | test("plan.arms")) and .[4].cause == "malformed"' "$T/ag.out" >/dev/null ||
	fail "prof_legs refusals: $(cut -c1-200 "$T/ag.out")"
ok "prof_legs refuses a missing program, a missing plan, no arms"

"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
log=$T/out/log.jsonl
jq -e -s --arg h "$RHOST" 'map(select(.t == "profile" and .status == "ok")) |
	length == 2 and all(.kind == "perf" and .host == $h and .runs >= 2 and
	.samples > 0 and (.copied | length) == 3)' "$log" >/dev/null ||
	fail "profile events: $(jq -c 'select(.t == "profile")' "$log")
--- perf's words there: $(head -c 3000 "$T/out/legs/prof-cpu-off+on.out" 2>&1)
--- the runs: $(head -c 500 "$T/out/legs/prof-cpu-off+on.runs" 2>&1)"
jq -e -s --arg h "$RHOST" 'any(.t == "profile_start" and .kind == "perf" and .host == $h)' \
	"$log" >/dev/null || fail "no profile start naming the host: $(jq -c 'select(.t == "profile")' "$log")"
jq -r 'select(.t == "profile" and .status == "ok") | "\(.arm): \(.samples) samples from \(.runs) runs on \(.host)"' "$log"
for ext in data out runs plan; do
	[ -s "$T/out/legs/prof-cpu-off+on.$ext" ] || fail "no legs/prof-cpu-off+on.$ext"
done
for a in off on; do
	grep -q '===== flat profile by symbol and shared object' "$T/out/legs/prof-cpu-$a.report" ||
		fail "legs/prof-cpu-$a.report has no flat profile"
done
grep -q '^benchtui perf profile of cell cpu, arm on: perf record -F 999 -g -- the leg' \
	"$T/out/legs/prof-cpu-on.report" || fail "the report's head: $(head -2 "$T/out/legs/prof-cpu-on.report")"
grep -q 'prof_hot_extra' "$T/out/legs/prof-cpu-on.report" ||
	fail "the on arm's report does not name prof_hot_extra"
jq -e '.runs >= 4 and (.list | length) == .runs' "$T/out/legs/prof-cpu-off+on.runs" \
	>/dev/null || fail "the runs' account: $(head -c 300 "$T/out/legs/prof-cpu-off+on.runs")"
[ ! -e "$sc" ] || fail "the scratch folder $sc was made here"
if command -v nsenter >/dev/null; then
	nsenter -t "$SSHD_PID" -m test -f "$sc/.benchtui-scratch" ||
		fail "the scratch folder $sc was not made there"
fi
ok "the legs' perf profile was taken on $RHOST and its files copied back"

"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report"
grep -q 'cpu  perf  on vs off' "$T/rep.txt" || fail "no differential view: $(cat "$T/rep.txt")"
grep -q 'prof_hot_extra' "$T/rep.txt" || fail "the view lacks prof_hot_extra"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
ok "the report shows on vs off; verify passes"

# The demo round with "host": its work cell's perf profile (chunk4k vs
# chunk512) taken there, the net cell's server there with the legs.  The
# demo's command runs through sh, which writes its mount namespace and
# cgroup into files named by its pid and then execs the demo's own argv
# (the pid stays the leg's): the test sshd's sessions live in a mount
# namespace of their own, so each file says where that leg ran.
port=$(free_port)
mkdir "$T/ns"
jq --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" --arg host "$RHOST" \
	--arg demo "$BENCHTUI_DEMO" --arg port "$port" --arg ns "$T/ns" \
	--arg wd "$BENCHTUI_SOURCE_DIR/assets/demo" '
	.bin = $demo | .workdir = $wd | del(.cpus) | .reps = 2 | .quiet = false |
	.ssh = $ssh | .agent = [$b, "agent"] | .host = $host |
	.command = ["sh", "-c", "readlink /proc/self/ns/mnt >\"$1/ns.$$$$\"; cat /proc/self/cgroup >\"$1/cg.$$$$\"; shift; exec \"$@\"",
	            "leg", $ns] + .command |
	.cells |= map(if .server then .vars.PORT = $port |
		.vars.ARGS = ["--port", $port, "--requests", "300"] |
		.server.cmd[3] = $port | .server.ready.tcp_port = ($port | tonumber)
		else . end) |
	.profile.perf += {"min_runs": 2, "min_samples": 50, "max_s": 10}' \
	"$BENCHTUI_SOURCE_DIR/assets/demo/demo.json" >"$T/demo.json"
"$BENCHTUI" check "$T/demo.json" >"$T/demo.check" 2>&1 ||
	fail "check of the demo with host: $(cat "$T/demo.check")"
"$BENCHTUI" run "$T/demo.json" --headless --out "$T/demo" >"$T/demo.stdout" 2>&1 ||
	fail "the demo with host exited $?: $(grep -Ei 'stop|fail|lost' "$T/demo.stdout" | head -5)"
jq -e -s --arg h "$RHOST" 'map(select(.t == "profile" and .kind == "perf")) |
	length == 2 and all(.status == "ok" and .host == $h and .cell == "work")' \
	"$T/demo/log.jsonl" >/dev/null ||
	fail "demo profiles: $(jq -c 'select(.t == "profile") | [.arm, .status, .reason]' "$T/demo/log.jsonl")"
for a in chunk4k chunk512; do
	[ -s "$T/demo/legs/prof-work-$a.report" ] || fail "no legs/prof-work-$a.report"
done
"$BENCHTUI" report "$T/demo" >"$T/demo.rep" || fail "report of the demo"
grep -q 'work  perf  chunk512 vs chunk4k' "$T/demo.rep" ||
	fail "the demo's report has no differential view: $(grep perf "$T/demo.rep")"
"$BENCHTUI" verify "$T/demo" >/dev/null || fail "verify of the demo failed"
ok "the demo round with host: its perf profiles taken there, verify passes"

# No leg process ran here: every leg line carries the host, its pid is a
# process that wrote its namespace from the far side's (the sshd's), its
# cgroup the far agent's legs group, its counters the far side's; and
# every process the leg command started (the profile's runs too) ran there.
here=$(readlink /proc/self/ns/mnt)
there=$(readlink /proc/"$SSHD_PID"/ns/mnt)
[ "$here" != "$there" ] || { echo "SKIP: the test sshd shares this mount namespace"; exit 77; }
dlog=$T/demo/log.jsonl
jq -e -s --arg h "$RHOST" 'map(select(.t == "leg")) | length == 12 and
	all(.host == $h and .status == "ok" and (.pid | type) == "number" and
	(.counters | type == "object" and length > 0))' "$dlog" >/dev/null ||
	fail "a demo leg line lacks the host, a pid or counters: $(grep -m1 '"t":"leg"' "$dlog" | cut -c1-400)"
jq -e -s 'map(select(.t == "leg_start")) | length == 12 and all(.pid == null)' "$dlog" >/dev/null ||
	fail "a demo leg_start names a local pid"
apid=$(jq -r '.hosts[] | select(.role == "legs and servers") | .agent.pid' "$T/demo/environment.json")
[ -n "$apid" ] && [ "$apid" != null ] || fail "environment.json names no agent for the legs"
for pid in $(jq -r 'select(.t == "leg") | .pid' "$dlog"); do
	[ -f "$T/ns/ns.$pid" ] || fail "leg pid $pid wrote no namespace file: not the leg's pid"
	grep -q "/benchtui-agent-$apid/legs\$" "$T/ns/cg.$pid" ||
		fail "leg pid $pid ran in cgroup $(cat "$T/ns/cg.$pid"), not the far agent's (pid $apid) legs group"
done
nfiles=$(find "$T/ns" -name 'ns.*' | wc -l)
[ "$nfiles" -gt 12 ] || fail "$nfiles processes ran the leg command: the profile's runs are missing"
for f in "$T"/ns/ns.*; do
	[ "$(cat "$f")" = "$there" ] || fail "${f##*/} ran in $(cat "$f"), not the far side's $there"
done
ok "no demo leg ran here: $nfiles leg processes (12 timed, the rest the profile's) in $there (this one $here), the timed ones in agent $apid's cgroup"

# On several hosts the legs' perf profile is taken on the first.
hosts_up 2
hosts_round "$T/h.json" 2 --arg h1 "${H[1]}" --arg h2 "${H[2]}" '.hosts = [$h1, $h2] |
	.profile = {"arms": ["a", "b"], "perf": {"min_runs": 2, "min_samples": 20, "max_s": 5}}'
"$BENCHTUI" run "$T/h.json" --headless --out "$T/h" >"$T/h.stdout" 2>&1 ||
	fail "the round on two hosts exited $?: $(grep -Ei 'stop|fail|lost' "$T/h.stdout" | head -5)"
jq -e -s --arg h "${H[1]}" 'map(select(.t == "profile" and .kind == "perf")) |
	length == 2 and all(.status == "ok" and .host == $h)' "$T/h/log.jsonl" >/dev/null ||
	fail "profiles on two hosts: $(jq -c 'select(.t == "profile") | [.arm, .status, .host, .reason]' "$T/h/log.jsonl")"
# (The agent's own files are named by its pid: PID.prof.runs.)
[ -n "$(find "$T/agent1/benchtui-agent" -name '*.prof.runs' -size +0)" ] &&
	[ -z "$(find "$T/agent2/benchtui-agent" -name '*.prof.runs')" ] ||
	fail "the recording was not made on the first host alone: $(ls "$T"/agent*/benchtui-agent)"
"$BENCHTUI" verify "$T/h" >/dev/null || fail "verify of the round on two hosts failed"
ok "on two hosts the legs' perf profile was taken on the first (${H[1]})"
finish
