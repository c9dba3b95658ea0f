#!/bin/bash
# test: alone est=10 long
# Profiles after the timed round: two arms of a CPU-bound program
# (tests/e2e/prof_hot.c) that take one of two code paths of equal length.
# Each profiled arm's leg is repeated under one perf record until it has
# 2000 samples (more than one run: a run is about 20 ms); the
# differential view (report text, markdown, csv and json) names the moved
# symbol prof_hot_extra with its caller prof_hot_path and an interval
# that excludes 0, and marks what did not move as noise (prof_base,
# prof_small: the same in both arms);
# the profile files are sealed with the round; check names a missing
# perf.  Where this machine has no hardware PMU, the report says perf
# sampled its software clock.  A 1 ms leg still gets its samples, from
# many runs, within max_s.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }

cat >"$T/round.json" <<EOF
{"name": "profhot", "reps": 1, "baseline": "off", "quiet": false,
 "bin": "$BENCHTUI_PROF_HOT",
 "command": ["\${BIN}", "6000000"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["on", "off"], "perf": {"args": ["-F", "999", "-g"],
                                            "min_samples": 2000, "max_s": 60}}}
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
[ "$order" = "leg:off leg:on profile:off profile:on " ] ||
	[ "$order" = "leg:on leg:off profile:off profile:on " ] ||
	fail "events in the wrong order: $order"
jq -e -s 'map(select(.t == "profile")) | length == 2 and
	all(.kind == "perf" and .status == "ok" and (.top | length) >= 1 and
	    (.top | length) <= 20)' "$log" >/dev/null ||
	fail "profile events: $(jq -c 'select(.t == "profile")' "$log")"
# enough samples, from more than one run, recorded; or, on a box so busy
# that max_s came first, the profile says it has too few
jq -e -s 'map(select(.t == "profile")) | all(.runs > 1 and .min_samples == 2000 and
	((.stopped == "samples" and .samples >= 2000 and .under_min_samples == false) or
	 (.stopped == "max_s" and .under_min_samples == (.samples < 2000))))' \
	"$log" >/dev/null || fail "samples and runs: $(jq -c 'select(.t == "profile") | [.arm, .samples, .runs, .stopped]' "$log")"
jq -r 'select(.t == "profile") | "\(.arm): \(.samples) samples from \(.runs) runs"' "$log"
# the arms' runs took turns under one recording, in mirror order
for ext in data out runs plan; do
	[ -s "$T/out/legs/prof-cpu-off+on.$ext" ] || fail "no legs/prof-cpu-off+on.$ext"
done
order=$(jq -r '[.list[0:8][] | .arm | tostring] | join("")' "$T/out/legs/prof-cpu-off+on.runs")
[ "$order" = 01100110 ] || fail "runs not in mirror order: $order"
jq -e -s 'map(select(.t == "profile")) | all((.runs >= 10 or .stopped == "max_s") and .min_runs == 10 and
	(.per_run.samples | length) == .runs and (.per_run.samples | add) == .samples and
	.order == "mirror")' "$log" >/dev/null ||
	fail "per-run samples: $(jq -c 'select(.t == "profile") | [.arm, .runs, .per_run.samples]' "$log")"
# the data is perf's own format: perf report reads it by name
perf report -i "$T/out/legs/prof-cpu-off+on.data" --stdio >/dev/null 2>&1 ||
	fail "perf report cannot read legs/prof-cpu-off+on.data"
for a in on off; do
	[ -s "$T/out/legs/prof-cpu-$a.report" ] || fail "no legs/prof-cpu-$a.report"
	grep -q '===== flat profile by symbol and shared object' "$T/out/legs/prof-cpu-$a.report" ||
		fail "prof-cpu-$a.report has no flat profile"
	grep -q '===== caller call graph' "$T/out/legs/prof-cpu-$a.report" ||
		fail "prof-cpu-$a.report has no call graph"
done
grep -Eq '<- prof_hot_path' "$T/out/legs/prof-cpu-on.report" ||
	fail "the report does not name prof_hot_extra's caller"
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
jq -e -s 'map(select(.t == "profile" and .arm == "on"))[0].top |
	any(.symbol == "prof_hot_extra" and .share > 25 and
	    .callers[0].caller == "prof_hot_path")' "$log" >/dev/null ||
	fail "on's top lacks prof_hot_extra: $(jq -c 'select(.t == "profile" and .arm == "on") | .top' "$log")"

# side by side: json, text, markdown, csv
"$BENCHTUI" report "$T/out" --format json >"$T/rep.json" || fail "report json"
jq -c '.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra" or .symbol == "prof_base" or .symbol == "prof_small") |
	[.symbol, .samples, .share, .vs_samples, .vs_share, .diff, .diff_ci, .noise]' "$T/rep.json"
jq -e '.profiles.cpu.on.perf.vs == "off" and
	(.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") |
	 .diff > 20 and .vs_share == 0 and .diff_ci[0] > 0 and .noise == false) and
	(.profiles.cpu.on.perf.symbols[] | select(.symbol == "prof_hot_extra") | .runs > 1) and
	(.profiles.cpu.on.perf.callers | any(.symbol == "prof_hot_extra" and
	 .callers[0].caller == "prof_hot_path" and .moved_most == "prof_hot_path" and
	 .split[0].diff_ci[0] > 0))' "$T/rep.json" >/dev/null ||
	fail "json profiles: $(jq -c .profiles.cpu.on "$T/rep.json")"
# profiles never enter the ratios: the cells are what they would be without
jq -e '.cells.cpu.arms | keys == ["on"]' "$T/rep.json" >/dev/null ||
	fail "report cells changed: $(jq -c .cells "$T/rep.json")"
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report text"
grep -q 'cpu  perf  on vs off' "$T/rep.txt" || fail "text report: $(cat "$T/rep.txt")"
grep -Eq 'prof_hot_extra \(prof-hot\) +[0-9]+ +[0-9.]+ \[' "$T/rep.txt" ||
	fail "text report lacks prof_hot_extra's row: $(cat "$T/rep.txt")"
# (prof_small may rank below the 20 rows text shows: any noise row here)
grep -Eq ' noise$' "$T/rep.txt" || fail "text report marks no row as noise"
grep -q 'prof_hot_extra (prof-hot) by immediate caller: prof_hot_path moved it most' "$T/rep.txt" ||
	fail "text report does not name the caller"
# -g in args: frame pointers, and the report says what they get wrong
grep -q 'call chains: fp; no caller recorded' "$T/rep.txt" || fail "text report: no unwind line"
grep -q 'a leaf function that keeps no frame' "$T/rep.txt" || fail "text report: no frame-pointer note"
"$BENCHTUI" report "$T/out" --format markdown >"$T/rep.md" || fail "report markdown"
grep -q '^| `prof_hot_extra (prof-hot)` |' "$T/rep.md" || fail "markdown lacks the symbol row"
"$BENCHTUI" report "$T/out" --format csv >"$T/rep.csv" || fail "report csv"
grep -q '^profile,cpu,on,perf,off,ok,prof_hot_extra,prof-hot,' "$T/rep.csv" ||
	fail "csv lacks the profile rows: $(cat "$T/rep.csv")"
grep -q '### Profiles' "$T/out/summary.md" || fail "summary.md has no profiles"

# sealed with the round
grep -q 'legs/prof-cpu-off+on.data' "$T/out/SHA256SUMS" || fail "prof data not sealed"
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
grep -q 'Permission denied' "$T/out2/legs/prof-cpu-off+on.out" ||
	fail "perf's message is not kept in legs/prof-cpu-off+on.out"
grep -q 'profile cpu on perf failed: perf record exited non-zero' "$T/stdout2" ||
	fail "headless does not print the failed profile: $(cat "$T/stdout2")"
"$BENCHTUI" report "$T/out2" >"$T/rep2.txt" || fail "report of failed profiles"
grep -q 'cpu  perf  on: failed -- perf record exited non-zero' "$T/rep2.txt" ||
	fail "the report does not show the failed profile: $(cat "$T/rep2.txt")"
"$BENCHTUI" verify "$T/out2" >/dev/null 2>&1 || fail "verify of the second round"

# A perf that cannot unwind from DWARF: with no call-graph method in args
# check warns, naming the fallback to frame pointers.
mkdir "$T/nodwarf"
real_perf=$(command -v perf)
printf '#!/bin/sh\nif [ "$1" = version ]; then echo "perf version 6.1"; echo "  libunwind: [ OFF ]  # HAVE_LIBUNWIND_SUPPORT"; echo "  libdw-dwarf-unwind: [ OFF ]  # HAVE_DWARF_SUPPORT"; exit 0; fi\nexec %s "$@"\n' "$real_perf" \
	>"$T/nodwarf/perf"
chmod +x "$T/nodwarf/perf"
jq '.profile.perf = {"min_samples": 300}' "$T/round.json" >"$T/dwarf.json"
PATH=$T/nodwarf:$PATH "$BENCHTUI" check "$T/dwarf.json" >"$T/check4" 2>&1 ||
	fail "check without DWARF: $(cat "$T/check4")"
grep -q 'cannot unwind call chains from DWARF.*fall back to frame pointers' "$T/check4" ||
	fail "check does not warn of the fallback: $(cat "$T/check4")"
PATH=$T/nodwarf:$PATH "$BENCHTUI" check "$T/round.json" >"$T/check5" 2>&1
grep -q 'cannot unwind call chains from DWARF' "$T/check5" &&
	fail "check warns though args choose -g: $(cat "$T/check5")"
# ... and the profile falls back to frame pointers, saying so
jq '.command[1] = "300000" | .profile.perf = {"min_samples": 100, "min_runs": 2, "max_s": 5}' \
	"$T/round.json" >"$T/fallback.json"
PATH=$T/nodwarf:$PATH "$BENCHTUI" run "$T/fallback.json" --headless --out "$T/out5" \
	>"$T/stdout5" 2>&1 || fail "run without DWARF: $(cat "$T/stdout5")"
jq -e -s 'map(select(.t == "profile")) | length == 2 and all(.status == "ok" and
	.unwind == "fp" and (.unwind_fallback | test("fall back to frame pointers")))' \
	"$T/out5/log.jsonl" >/dev/null ||
	fail "no fallback: $(jq -c 'select(.t == "profile") | [.arm, .status, .unwind, .unwind_fallback]' "$T/out5/log.jsonl")"
"$BENCHTUI" report "$T/out5" >"$T/rep5.txt" || fail "report without DWARF"
grep -q 'cannot unwind call chains from DWARF.*fall back to frame pointers' "$T/rep5.txt" ||
	fail "the report does not say it fell back: $(sed -n '/^profiles/,$p' "$T/rep5.txt")"
grep -q 'NOTE: this perf cannot unwind call chains from DWARF' "$T/out5/legs/prof-cpu-on.report" ||
	fail "the arm's report file does not say it fell back"

# A 1 ms leg: many runs give it its samples, and max_s bounds them.
cat >"$T/short.json" <<EOF
{"name": "profshort", "reps": 1, "baseline": "off", "quiet": false,
 "bin": "$BENCHTUI_PROF_HOT", "command": ["\${BIN}", "300000", "\${REP}"],
 "arms": [{"name": "off"}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["off"], "perf": {"args": ["-F", "999", "-g"],
                                       "min_samples": 300, "max_s": 8}}}
EOF
# ${REP} with a profile: check says what it is in the profile legs
"$BENCHTUI" check "$T/short.json" >"$T/check3" 2>&1 || fail "check: $(cat "$T/check3")"
grep -q 'command\[2\]: ${REP} is 0 in the profile legs' "$T/check3" ||
	fail "check says nothing of \${REP}: $(cat "$T/check3")"
"$BENCHTUI" run "$T/short.json" --headless --out "$T/out3" >"$T/stdout3" 2>&1 ||
	fail "the short round failed: $(cat "$T/stdout3")"
ev=$(jq -c 'select(.t == "profile")' "$T/out3/log.jsonl")
# One event: of several lines, the jq -e below would judge the last.
[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one profile of the short leg: $ev"
echo "1 ms leg: $(echo "$ev" | jq -c '[.samples, .runs, .stopped, .wall]') (samples, runs, stopped, seconds)"
# (a busy box may stop it at max_s with fewer runs; the pass under way
# and perf's writing come after max_s)
echo "$ev" | jq -e '.status == "ok" and (.runs > 50 or .stopped == "max_s") and .wall < 8 + 60 and
	((.samples >= 300 and .stopped == "samples") or
	 (.stopped == "max_s" and .under_min_samples == (.samples < 300)))' >/dev/null ||
	fail "short leg: $ev"
echo "ok"

