#!/bin/bash
# test: needs=sshd,perf timeout=120 long
# An abort during a far recording: the legs' perf profile is taken on the
# round's "host" (the test's own sshd), one of its runs there sleeps for
# 600 s, and benchtui gets SIGTERM (the operator's abort) while it runs.
# The round must not wait for the recording to finish: the client sends
# cancel, the agent ends perf's process group, and prof-repeat ends the
# run under way (its own session) with it.  benchtui exits 3 (resumable)
# long before the run's 600 s, the far run is gone by then, the profile is
# not recorded; resume takes it again, once, and verify passes.
. "$(dirname "$0")/remote_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
need perf
remote_up

# The profile's first run (a profile's leg is rep 0; the timed legs are
# not) sleeps, its pid in $T/pids; the folder $T/long marks it done, so
# no other run sleeps, on resume neither.
jq -n --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" --arg host "$RHOST" \
	--arg hot "$BENCHTUI_PROF_HOT" --arg long "$T/long" --arg pids "$T/pids" '
{"name": "farabort", "reps": 1, "baseline": "off", "quiet": false,
 "ssh": $ssh, "agent": [$b, "agent"], "host": $host, "bin": $hot,
 "command": ["sh", "-c", "if [ \"$4\" = 0 ] && mkdir \"$1\" 2>/dev/null; then echo $$$$ >>\"$2\"; exec sleep 600; fi; exec \"$3\" 300000",
             "leg", $long, $pids, "${BIN}", "${REP}"],
 "arms": [{"name": "off"}, {"name": "on", "env": {"PROF_HOT": "1"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["off", "on"],
             "perf": {"args": ["-F", "999", "-g"], "min_runs": 2,
                      "min_samples": 10, "max_s": 10}}}' >"$T/r.json"
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 &
bpid=$!
OWN_PIDS+=("$bpid")
wait_until 60 test -s "$T/pids" || fail "no run slept there"
farpid=$(head -1 "$T/pids")
alive "$farpid" || fail "the sleeping run (pid $farpid) is not alive"
t0=$(now_s)
kill -TERM "$bpid"
# far below the run's 600 s: the recording was ended there
for _ in $(seq 1 600); do kill -0 "$bpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$bpid" 2>/dev/null && fail "benchtui still waits 60 s after the abort (the far recording runs on)"
wait "$bpid"
rc=$?
t1=$(now_s)
[ $rc -eq 3 ] || fail "run exited $rc after the abort, not 3: $(tail -3 "$T/stdout")"
alive "$farpid" && fail "the far run (pid $farpid) outlived the abort"
jq -e -s 'any(.t == "abort") and (map(select(.t == "profile" and .status == "ok")) | length == 0)' \
	"$log" >/dev/null || fail "the log: $(jq -c 'select(.t == "abort" or .t == "profile")' "$log")"
ok "SIGTERM during the far recording: exit 3 after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s, the far run (pid $farpid) ended, no profile recorded"

"$BENCHTUI" resume "$T/out" --headless >"$T/resume" 2>&1 || fail "resume exited $?: $(tail -3 "$T/resume")"
jq -e -s --arg h "$RHOST" 'map(select(.t == "profile" and .status == "ok")) |
	length == 2 and all(.host == $h)' "$log" >/dev/null ||
	fail "resume did not take the profile once: $(jq -c 'select(.t == "profile") | [.arm, .status, .reason]' "$log")"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed after resume"
ok "resume took the far profile once; verify passes"
finish
