#!/bin/bash
# test: counters asan-covered raw-asan-covered est=21
# The demo round, headless, end to end: the round folder, the log (one leg
# line per planned leg, every SPEC.md field), the legs' output files, the
# headless lines, and the seal.  The quiet gate is off: the machine is
# shared with builds.  3 reps (18 legs): every check here is per leg or
# per round, so the demo's 6 add time, not cover.
. "$(dirname "$0")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?}"

demo_json '.quiet = false | .reps = 3' > "$tmp/demo.json" || exit 1
# DEMO_PROFILE_SAMPLES (the raw backend's copy, run_demo-raw, sets it): the
# profiles' min_samples.  perf(1) takes the profiles, not counters.c, the
# one file that copy is for; nothing here reads their size.
if [ -n "${DEMO_PROFILE_SAMPLES:-}" ]; then
	jq --argjson n "$DEMO_PROFILE_SAMPLES" '.profile.perf.min_samples = $n' \
	    "$tmp/demo.json" > "$tmp/demo1.json" && mv "$tmp/demo1.json" "$tmp/demo.json"
fi
grep -q 47311 "$tmp/demo.json" && { echo "FAIL: port not rewritten"; exit 1; }

out="$tmp/out"
"$BENCHTUI" run --headless --out "$out" "$tmp/demo.json" \
    > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
[ "$rc" -eq 0 ] && ok "exit 0" || { fail "exit $rc"; cat "$tmp/stderr"; }

log="$out/log.jsonl"
[ -s "$log" ] || { fail "no log.jsonl"; exit 1; }

planned=$(jq '.reps * (.arms | length) * (.cells | length)' "$tmp/demo.json")
legs=$(jq -c 'select(.t == "leg")' "$log" | wc -l)
[ "$legs" -eq "$planned" ] && ok "$legs leg lines" ||
    fail "$legs leg lines, $planned planned"
uniq=$(jq -r 'select(.t == "leg") | "\(.cell)/\(.arm)/\(.rep)"' "$log" |
    sort -u | wc -l)
[ "$uniq" -eq "$planned" ] && ok "one leg line per planned leg" ||
    fail "$uniq distinct legs, $planned planned"
total=$(jq -r 'select(.t == "round") | .legs_total' "$log")
[ "$total" = "$planned" ] && ok "round.legs_total" ||
    fail "round.legs_total $total"

# Every SPEC.md field of a leg line, on every one.
missing=$(jq -r 'select(.t == "leg") | . as $l |
    ["cell","arm","rep","seq","status","rc","signal","timed_out","wall",
     "utime","stime","cpu","maxrss_kb","minflt","majflt","cycles",
     "instructions","counters","bytes","foreign","bin"][] |
    select(. as $k | $l | has($k) | not) | "\($l.seq): \(.)"' "$log")
[ -z "$missing" ] && ok "every SPEC field on every leg line" ||
    fail "fields missing: $missing"
bad=$(jq -r 'select(.t == "leg") | select(.status != "ok" or .rc != 0 or
    .timed_out != false or (.wall | type) != "number" or .wall <= 0 or
    (.cpu - .utime - .stime | fabs) > 0.000002 or
    (.counters | type) != "object" or (.seq | type) != "number") |
    .seq' "$log")
[ -z "$bad" ] && ok "leg values sane" || fail "odd leg lines: $bad"
badts=$(jq -r 'select(.ts | test("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$") | not) | .t' "$log")
[ -z "$badts" ] && ok "timestamps" || fail "bad ts on: $badts"
for t in round env leg_start leg server done; do
	jq -se --arg t "$t" 'any(.[]; .t == $t)' "$log" > /dev/null ||
	    fail "no $t event"
done
jq -se 'map(select(.t == "round"))[0] | .name and .spec_sha256 and .dir and
    .workdir and (.arms | length) == 3 and (.cells | length) == 2' \
    "$log" > /dev/null && ok "round event" || fail "round event fields"
[ "$(jq -r 'select(.t == "server") | .state' "$log" | tr '\n' ' ')" = \
    "starting ready stopped " ] && ok "server starting/ready/stopped" ||
    fail "server states"

cmp -s "$out/round.json" "$tmp/demo.json" && ok "round.json byte-identical" ||
    fail "round.json differs from the round file"
sha=$(sha256sum < "$tmp/demo.json" | cut -d' ' -f1)
[ "$(jq -r 'select(.t == "round") | .spec_sha256' "$log")" = "$sha" ] &&
    ok "spec_sha256" || fail "spec_sha256 is not the file's"
for k in kernel cpu_model perf_event_paranoid bins settings; do
	jq -e --arg k "$k" 'has($k)' "$out/environment.json" > /dev/null ||
	    fail "environment.json has no $k"
done
jq -e --arg b "$BENCHTUI_DEMO" '.bins | keys | any(. == $b)' \
    "$out/environment.json" > /dev/null && ok "environment.json bins" ||
    fail "environment.json bins lacks the demo binary"

while read -r f; do
	[ -s "$out/$f" ] || fail "leg output $f missing or empty"
done < <(jq -r 'select(.t == "leg_start") | .out' "$log")
[ "$(ls "$out/legs" | grep -vc '^prof-')" -eq "$planned" ] && ok "legs/*.out" ||
    fail "legs/ holds $(ls "$out/legs" | grep -vc '^prof-') leg files"
# The demo profiles two arms of its work cell, their runs taking turns
# under one recording: its data, output, runs and plan (prof-work-A+B.*)
# and each arm's report.
[ "$(ls "$out/legs" | grep -c '^prof-work-')" -eq 6 ] && ok "legs/prof-work-*" ||
    fail "legs/ holds $(ls "$out/legs" | grep -c '^prof-work-') profile files"
jq -e '.profiles.work.chunk512.perf.vs == "chunk4k"' "$out/summary.json" \
    > /dev/null && ok "summary.json: chunk512's profile beside chunk4k's" ||
    fail "summary.json has no differential profile"
[ -s "$out/servers/net.log" ] && ok "servers/net.log" || fail "no server log"

# Headless lines: one per leg, in the documented format.
# Values in adaptive units (12.7ms, 2.04k); a counter only where it
# counted or the round names it.
lines=$(grep -cE '^\[[0-9]+/'"$planned"'\] [A-Za-z][A-Za-z0-9_-]* [A-Za-z][A-Za-z0-9_-]* r[0-9]+ rc=[0-9]+ wall=[0-9.]+[mun]?s cpu=[0-9.]+[mun]?s( [a-z-]+=([0-9.]+[kMGTPE]?|[0-9.]+[mun]?s|n/a))*( server_cpu=[0-9.]+[mun]?s)?$' "$tmp/stdout")
[ "$lines" -eq "$planned" ] && ok "headless leg lines" ||
    { fail "$lines headless leg lines"; cat "$tmp/stdout"; }
grep -q 'chunk512' "$tmp/stdout" && grep -q 'A/A floor' "$tmp/stdout" &&
    ok "closing table" || fail "no closing table"

# Sealed: sha256sum agrees, and nothing of the round is left running.
(cd "$out" && sha256sum -c --quiet SHA256SUMS) && ok "sha256sum -c" ||
    fail "SHA256SUMS does not check"
for pid in $(jq -r 'select(.t == "leg_start" or (.t == "server" and .pid)) |
    .pid' "$log"); do
	kill -0 "$pid" 2> /dev/null && fail "pid $pid of the round still alive"
done

finish
