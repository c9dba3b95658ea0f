#!/bin/bash
# test: tui est=20 needs=perf,jq long
# Which caller moved memcpy, on a program built as users build theirs:
# prof-memcpy, -O2 -g WITHOUT frame pointers, copies through memcpy from
# header_copy and stage_offer; arm big (PROF_MEMCPY=big) copies 8 times
# more from stage_offer.  With the profile's default settings (DWARF
# unwinding, runs interleaved, intervals over runs), memcpy moved and the
# report splits it by immediate caller: stage_offer moved (its interval
# excludes 0), header_copy did not (noise); the console's f pane names
# stage_offer.  The same binary with -g (frame pointers): the report says
# why callers may be missing or skipped.
. "$(dirname "$0")/tui_lib.sh"
: "${BENCHTUI_PROF_MEMCPY:?set BENCHTUI_PROF_MEMCPY to the prof-memcpy program}"

round() { # FILE, perf settings
	cat >"$1" <<EOF
{"name": "memcpy", "reps": 1, "baseline": "small", "quiet": false,
 "bin": "$BENCHTUI_PROF_MEMCPY", "command": ["\${BIN}"],
 "arms": [{"name": "small"}, {"name": "big", "env": {"PROF_MEMCPY": "big"}}],
 "cells": [{"name": "c"}],
 "profile": {"arms": ["small", "big"], "perf": $2}}
EOF
}
round "$tmp/round.json" '{}'
"$BENCHTUI" run "$tmp/round.json" --headless --out "$tmp/out" >"$tmp/stdout" 2>&1 ||
	fail "run: $(cat "$tmp/stdout")"
log=$tmp/out/log.jsonl
jq -e -s 'map(select(.t == "profile")) | length == 2 and all(.status == "ok" and
	.unwind == "dwarf" and .runs >= 10)' "$log" >/dev/null ||
	fail "profiles: $(jq -c 'select(.t == "profile") | [.arm, .status, .reason, .unwind, .runs]' "$log")"
"$BENCHTUI" report "$tmp/out" --format json >"$tmp/rep.json" || fail "report json"
c=$(jq -c '.profiles.c.big.perf.callers[] | select(.symbol | test("mem(move|cpy)"))' "$tmp/rep.json" | head -1)
[ -n "$c" ] || fail "memcpy did not move: $(jq -c '.profiles.c.big.perf.symbols[0:4]' "$tmp/rep.json")"
# Every run's chains go through libc: perf keeps a process's maps from
# before its exec, and perf 6.1 takes a library's base from the lowest of
# them, so a run whose libc lay above the runner's lost every caller of
# memcpy (half the runs, by ASLR's draw).  The runner lays itself out at
# the top (fixed layout), each run below it: no run loses its callers.
lost=$(echo "$c" | jq '[.split[] | select(.caller | startswith("(none")) | .samples][0] // 0')
all=$(echo "$c" | jq '[.split[] | .samples] | add // 0')
echo "memcpy in arm big: $lost of $all samples with no caller recorded"
[ "$all" -gt 0 ] && [ $((lost * 20)) -le "$all" ] ||
	fail "memcpy's callers lost in arm big: $lost of $all samples"
echo "memcpy by caller: $(echo "$c" | jq -c '[.symbol, .moved_most, (.split[] | [.caller, .diff, .diff_ci, .per_run_diff, .per_run_diff_ci, .noise])]')"
echo "$c" | jq -e '.moved_most == "stage_offer" and
	(.split[] | select(.caller == "stage_offer") | .noise == false and
	 .diff_ci[0] > 0 and .per_run_diff_ci[0] > 0)' >/dev/null ||
	fail "stage_offer is not named as the caller that moved: $c"
# header_copy copies what it copied in both arms, in a region of its
# own, after arithmetic that drains the big arm's stores: its interval
# holds 0
echo "$c" | jq -e '[.split[] | select(.caller == "header_copy")][0].noise == true' >/dev/null ||
	fail "header_copy is not marked noise: $c"
for f in text markdown csv; do
	"$BENCHTUI" report "$tmp/out" --format $f >"$tmp/rep.$f" || fail "report $f"
done
grep -q 'by immediate caller: stage_offer moved it most' "$tmp/rep.text" ||
	fail "text report: $(sed -n '/^profiles/,$p' "$tmp/rep.text")"
grep -Eq '^ +stage_offer .* MOVED$' "$tmp/rep.text" || fail "text: stage_offer not MOVED"
grep -Eq '^ +header_copy .* noise$' "$tmp/rep.text" ||
	fail "text: header_copy not noise"
grep -Eq '^\| `stage_offer` \|.*\| moved \|$' "$tmp/rep.markdown" || fail "markdown: no caller rows"
grep -Eq '^profile,c,big,perf,small,ok,[^,]*<-stage_offer,.*,caller moved,' "$tmp/rep.csv" ||
	fail "csv: no caller row"
grep -q 'by its caller stage_offer' "$tmp/stdout" || fail "headless: $(cat "$tmp/stdout")"
grep -q 'call chains: dwarf; no caller recorded' "$tmp/rep.text" || fail "text: no unwind line"

# the console: f shows the profiles; the caller that moved most is named
start 100 40 "$BENCHTUI" --replay "$log" --instant
wait_for 'round complete' 20 || fail "the replay never ended"
tm send-keys f
wait_for 'Profiles beside the comparison arm' 5 || fail "f shows no profiles"
tm send-keys Tab
: >"$tmp/screen"
for _ in $(seq 1 30); do
	screen >>"$tmp/screen"
	grep -q '<- stage_offer' "$tmp/screen" && break
	tm send-keys j
	sleep 0.1
done
grep -Eq 'mem(move|cpy)[^ ]* <- stage_offer: \+[0-9.]+ pts \[\+[0-9.]+' "$tmp/screen" &&
	ok "the f pane names stage_offer with its move" ||
	fail "the f pane does not name stage_offer: $(grep -- '<-' "$tmp/screen")"
tm send-keys q
wait_exit 10 >/dev/null

# the same binary with frame pointers asked for: the report says why
round "$tmp/fp.json" '{"args": ["-F", "999", "-g"], "min_samples": 300, "min_runs": 3}'
"$BENCHTUI" run "$tmp/fp.json" --headless --out "$tmp/fp" >"$tmp/stdout2" 2>&1 ||
	fail "run -g: $(cat "$tmp/stdout2")"
"$BENCHTUI" report "$tmp/fp" >"$tmp/fp.txt" || fail "report -g"
grep -q 'call chains: fp; no caller recorded: [0-9.]*%' "$tmp/fp.txt" ||
	fail "-g: no unwind line: $(sed -n '/^profiles/,$p' "$tmp/fp.txt")"
grep -q 'a leaf function that keeps no frame .* skips its immediate caller.*--call-graph dwarf gets the callers right' "$tmp/fp.txt" ||
	fail "-g: the report does not say why callers may be missing"
grep -q 'NOTE: call chains by frame pointers' "$tmp/fp/legs/prof-c-big.report" ||
	fail "-g: the arm's report file does not say it"
echo "with -g: $(grep -m1 'call chains: fp' "$tmp/fp.txt")"
finish
