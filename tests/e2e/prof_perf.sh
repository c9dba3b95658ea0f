#!/bin/bash
# Profiles after the timed round: two arms of a CPU-bound program
# (tests/e2e/prof_hot.c) that differ in one hot function.  Each profiled arm
# gets one perf record leg after the cell's timed legs; the differential
# view (report text, markdown and json) shows prof_hot_extra's share moving
# by more than 20 points; the profile files are sealed with the round; and
# check names a missing perf.  Where this machine has no hardware PMU, the
# report must say perf sampled its software clock.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }

cat >"$T/round.json" <<EOF
{"name": "profhot", "reps": 1, "baseline": "off", "quiet": false,
 "bin": "$BENCHTUI_PROF_HOT",
 "command": ["\${BIN}", "60000000"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["on", "off"], "perf": {"args": ["-F", "999", "-g"]}}}
EOF

# check: the plan lists the profiles; without perf it is an error
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
grep -qx 'profile cpu off perf' "$T/check" || fail "check lists no profile of off: $(cat "$T/check")"
grep -qx 'profile cpu on perf' "$T/check" || fail "check lists no profile of on"
mkdir "$T/nobin"
PATH=$T/nobin "$BENCHTUI" check "$T/round.json" >"$T/check2" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "check without perf in PATH exited $rc, not 2"
grep -q 'profile.perf: perf is not installed' "$T/check2" ||
	fail "check without perf: $(cat "$T/check2")"

"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl

# one profile per arm, after the timed legs, in the round file's arm order
order=$(jq -r 'select(.t == "leg" or .t == "profile") | .t + ":" + .arm' "$log" | tr '\n' ' ')
[ "$order" = "leg:off leg:on profile:off profile:on " ] &&
	[ "$(jq -c 'select(.t == "profile")' "$log" | wc -l)" -eq 2 ] ||
	[ "$order" = "leg:on leg:off profile:off profile:on " ] ||
	fail "events in the wrong order: $order"
jq -e -s 'map(select(.t == "profile")) | length == 2 and
	all(.kind == "perf" and .status == "ok" and (.top | length) >= 1 and
	    (.top | length) <= 20)' "$log" >/dev/null ||
	fail "profile events: $(jq -c 'select(.t == "profile")' "$log")"
for a in on off; do
	for ext in data report out; do
		[ -s "$T/out/legs/prof-cpu-$a.$ext" ] || fail "no legs/prof-cpu-$a.$ext"
	done
	grep -q '===== flat profile by symbol' "$T/out/legs/prof-cpu-$a.report" ||
		fail "prof-cpu-$a.report has no flat profile"
	grep -q '===== caller call graph' "$T/out/legs/prof-cpu-$a.report" ||
		fail "prof-cpu-$a.report has no call graph"
done
# the event the machine sampled; without a PMU it is the software clock
ev=$(jq -r 'select(.t == "profile" and .arm == "on") | .event' "$log")
echo "sampled event: $ev"
if [ ! -e /sys/bus/event_source/devices/cpu/events/cycles ] ||
	[[ "$ev" == cpu-clock* ]]; then
	[[ "$ev" == cpu-clock* || "$ev" == task-clock* ]] ||
		fail "no PMU here, yet the event is '$ev'"
	jq -e -s 'map(select(.t == "profile")) | all(.software_clock)' "$log" >/dev/null ||
		fail "software_clock is not set"
	grep -q 'no hardware PMU' "$T/out/legs/prof-cpu-on.report" ||
		fail "the report does not say perf fell back to its software clock"
fi
# the hot function is on top of on's profile and absent from off's
jq -e -s 'map(select(.t == "profile" and .arm == "on"))[0].top |
	any(.symbol == "prof_hot_extra" and .share > 25)' "$log" >/dev/null ||
	fail "on's top lacks prof_hot_extra: $(jq -c 'select(.t == "profile" and .arm == "on") | .top' "$log")"

# side by side: json, text, markdown
"$BENCHTUI" report "$T/out" --format json >"$T/rep.json" || fail "report json"
d=$(jq '.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") | .diff' "$T/rep.json")
echo "prof_hot_extra moved by $d points (on vs off)"
jq -e '.profiles.cpu.on.perf.vs == "off" and
	(.profiles.cpu.on.perf.symbols[0].symbol == "prof_hot_extra" or
	 .profiles.cpu.on.perf.symbols[0].symbol == "prof_base") and
	(.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") |
	 .diff > 20 and .vs_share == 0)' "$T/rep.json" >/dev/null ||
	fail "json profiles: $(jq -c .profiles "$T/rep.json")"
# profiles never enter the ratios: the cells are what they would be without
jq -e '.cells.cpu.arms | keys == ["on"]' "$T/rep.json" >/dev/null ||
	fail "report cells changed: $(jq -c .cells "$T/rep.json")"
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report text"
grep -q 'cpu  perf  on vs off' "$T/rep.txt" || fail "text report: $(cat "$T/rep.txt")"
grep -Eq 'prof_hot_extra +[0-9.]+ +0\.0 +\+[0-9.]+' "$T/rep.txt" ||
	fail "text report lacks prof_hot_extra's row: $(cat "$T/rep.txt")"
"$BENCHTUI" report "$T/out" --format markdown >"$T/rep.md" || fail "report markdown"
grep -q '^| `prof_hot_extra` |' "$T/rep.md" || fail "markdown lacks the symbol row"
grep -q '### Profiles' "$T/out/summary.md" || fail "summary.md has no profiles"

# sealed with the round
grep -q 'legs/prof-cpu-on.data' "$T/out/SHA256SUMS" || fail "prof data not sealed"
grep -q 'legs/prof-cpu-off.report' "$T/out/SHA256SUMS" || fail "prof report not sealed"
"$BENCHTUI" verify "$T/out" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
# environment.json records the tools and the kernel settings
jq -e '.profilers.perf.sha256 | length == 64' "$T/out/environment.json" >/dev/null ||
	fail "environment.json: $(jq -c .profilers "$T/out/environment.json")"
jq -e '.profilers | has("perf_event_paranoid") and has("ptrace_scope") and
	(.perf.version | test("perf"))' "$T/out/environment.json" >/dev/null ||
	fail "environment.json lacks the settings"

# A perf that cannot profile (as a blocked perf_event_paranoid makes it) is
# a failed profile event with the reason, never a failed round.
mkdir "$T/fakebin"
printf '#!/bin/sh\necho "perf_event_open(..., PERF_FLAG_FD_CLOEXEC) failed: Permission denied" >&2\nexit 255\n' \
	>"$T/fakebin/perf"
chmod +x "$T/fakebin/perf"
PATH=$T/fakebin:$PATH "$BENCHTUI" run "$T/round.json" --headless --out "$T/out2" >"$T/stdout2" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "a failing perf failed the round: exit $rc: $(cat "$T/stdout2")"
jq -e -s 'map(select(.t == "profile")) | length == 2 and
	all(.status == "failed" and (.reason | test("perf record exited")))' \
	"$T/out2/log.jsonl" >/dev/null ||
	fail "failed profiles: $(jq -c 'select(.t == "profile")' "$T/out2/log.jsonl")"
grep -q 'Permission denied' "$T/out2/legs/prof-cpu-on.out" ||
	fail "perf's message is not kept in legs/prof-cpu-on.out"
grep -q 'profile cpu on perf failed: perf record exited non-zero' "$T/stdout2" ||
	fail "headless does not print the failed profile: $(cat "$T/stdout2")"
"$BENCHTUI" report "$T/out2" >"$T/rep2.txt" || fail "report of failed profiles"
grep -q 'cpu  perf  on: failed -- perf record exited non-zero' "$T/rep2.txt" ||
	fail "the report does not show the failed profile: $(cat "$T/rep2.txt")"
"$BENCHTUI" verify "$T/out2" >/dev/null 2>&1 || fail "verify of the second round"
echo "ok"
