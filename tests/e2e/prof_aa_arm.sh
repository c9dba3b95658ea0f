#!/bin/bash
# test: tui needs=perf timeout=120 est=10 long
# A round that profiles its A/A arm: prof-hot, arms off and on (PROF_HOT:
# the hot path), and drift, an A/A copy of off that takes the hot path all
# the same (its name reaches the program through ${ARM}: an A/A pair
# whose arms are not alike).  The A/A pair's profile is shown beside the
# real one, and what moved in it (prof_hot_extra, prof_cold_extra) is
# marked unstable wherever it appears: the report in every format, the
# headless summary and the console's f pane.
. "$(dirname "$0")/tui_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
need perf jq

cat >"$tmp/round.json" <<EOF
{"name": "profaa", "reps": 1, "baseline": "off", "quiet": false,
 "bin": "$BENCHTUI_PROF_HOT", "command": ["\${BIN}", "3000000", "\${ARM}"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}},
          {"name": "drift", "aa_of": "off"}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["off", "on", "drift"],
             "perf": {"min_samples": 300, "min_runs": 4}}}
EOF
"$BENCHTUI" run "$tmp/round.json" --headless --out "$tmp/out" >"$tmp/stdout" 2>&1 ||
	fail "run: $(cat "$tmp/stdout")"
log=$tmp/out/log.jsonl
jq -e -s 'map(select(.t == "profile")) | length == 3 and all(.status == "ok")' \
	"$log" >/dev/null || fail "profiles: $(jq -c 'select(.t == "profile") | [.arm, .status, .reason]' "$log")"
"$BENCHTUI" report "$tmp/out" --format json >"$tmp/rep.json" || fail "report json"
echo "A/A pair beside on vs off: $(jq -c '.profiles.cpu.on.perf.aa' "$tmp/rep.json")"
jq -e '.profiles.cpu.on.perf.aa | .arm == "drift" and .vs == "off" and
	(.moved | map(.symbol) | index("prof_hot_extra") != null)' "$tmp/rep.json" >/dev/null ||
	fail "the A/A pair is not beside on vs off: $(jq -c .profiles.cpu.on.perf.aa "$tmp/rep.json")"
# marked unstable in the real pair, and in the A/A pair itself
for a in on drift; do
	jq -e --arg a "$a" '.profiles.cpu[$a].perf.symbols[] | select(.symbol == "prof_hot_extra") |
		.unstable == true' "$tmp/rep.json" >/dev/null ||
		fail "$a: prof_hot_extra not unstable: $(jq -c --arg a "$a" '.profiles.cpu[$a].perf.symbols[0:3]' "$tmp/rep.json")"
done
for f in text markdown csv; do
	"$BENCHTUI" report "$tmp/out" --format $f >"$tmp/rep.$f" || fail "report $f"
done
grep -Eq '^    A/A pair \(drift vs off\):.* prof_hot_extra .*\(marked unstable wherever they appear\)' "$tmp/rep.text" ||
	fail "text: no A/A pair: $(sed -n '/^profiles/,$p' "$tmp/rep.text")"
grep -Eq 'prof_hot_extra \(prof-hot\) .* unstable$' "$tmp/rep.text" ||
	fail "text: prof_hot_extra not unstable"
grep -q '^A/A pair (drift vs off):.*prof_hot_extra' "$tmp/rep.markdown" ||
	fail "markdown: no A/A pair"
grep -Eq '^\| `prof_hot_extra \(prof-hot\)` \|.*unstable' "$tmp/rep.markdown" ||
	fail "markdown: prof_hot_extra not unstable"
grep -Eq '^profile,cpu,on,perf,off,ok,prof_hot_extra,prof-hot,.*,(noise )?unstable,' "$tmp/rep.csv" ||
	fail "csv: prof_hot_extra not unstable: $(grep prof_hot_extra "$tmp/rep.csv")"
grep -q 'prof_hot_extra (prof-hot) .* UNSTABLE (it moved in the A/A pair too)' "$tmp/stdout" ||
	fail "headless: $(sed -n '/^profiles/,$p' "$tmp/stdout")"

# the console: the A/A pair beside, the unstable rows marked "!"
start 110 50 "$BENCHTUI" --replay "$log" --instant
wait_for 'round complete' 20 || fail "the replay never ended"
tm send-keys f
wait_for 'Profiles beside the comparison arm' 5 || fail "f shows no profiles"
tm send-keys Tab
: >"$tmp/screen"
for _ in $(seq 1 40); do
	screen >>"$tmp/screen"
	grep -q 'A/A pair (drift vs off):' "$tmp/screen" &&
		grep -Eq 'prof_hot_extra +[0-9]+ +[0-9.]+ .*[0-9] ?~?!' "$tmp/screen" && break
	tm send-keys j
	sleep 0.1
done
grep -q '! A/A pair (drift vs off): .*prof_hot_extra' "$tmp/screen" ||
	fail "the f pane shows no A/A pair: $(grep -i 'a/a' "$tmp/screen" | head -3)"
grep -Eq 'prof_hot_extra +[0-9]+ +[0-9.]+ .*[0-9] ?~?!' "$tmp/screen" ||
	fail "the f pane does not mark prof_hot_extra: $(grep prof_hot_extra "$tmp/screen" | head -3)"
ok "the f pane shows the A/A pair and marks prof_hot_extra"
tm send-keys q
wait_exit 10 >/dev/null
finish
