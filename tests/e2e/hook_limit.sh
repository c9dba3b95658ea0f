#!/bin/bash
# test: needs=jq,timeout
# A cell's setup and cleanup run under a limit (hook_timeout_s, default
# 600 s when the round has no timeout_s) and say what runs: a setup that
# never exits stops the round resumably (exit 3) after its limit instead
# of hanging it with nothing on screen; a cleanup killed by a signal
# names the signal.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<EOF2
{"name": "h", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"], "hook_timeout_s": 1,
 "arms": [{"name": "a"}],
 "cells": [{"name": "c", "setup": ["sleep", "1000"]}]}
EOF2
timeout 60 "$BENCHTUI" run "$tmp/r.json" --out "$tmp/d" --headless >"$tmp/out" 2>&1
rc=$?
[ $rc = 3 ] && ok "a setup that never exits stops the round (exit 3)" ||
	{ cat "$tmp/out"; fail "a setup that never exits: exit $rc"; }
grep -q '^cell c: setup running (at most 1 s; its output in legs/c-setup.out)' "$tmp/out" ||
	{ cat "$tmp/out"; fail "the headless line does not say the setup runs"; }
grep -q 'cell c: setup timed out after 1 s' "$tmp/out" ||
	fail "the stop does not say the setup timed out"
jq -se '[.[] | select(.t == "hook_start")][0] | .hook == "setup" and .timeout_s == 1' \
    "$tmp/d/log.jsonl" >/dev/null || fail "no hook_start event"

# The default: stated by check's plan? The round file without the field
# parses, and a cleanup killed by a signal names it.
jq 'del(.hook_timeout_s) | .cells[0] = {"name": "c",
    "cleanup": ["/bin/sh", "-c", "kill -s TERM 0"]}' "$tmp/r.json" >"$tmp/k.json"
timeout 60 "$BENCHTUI" run "$tmp/k.json" --out "$tmp/k" --headless >"$tmp/k.out" 2>&1
grep -q '^cell c: cleanup running (at most 600 s' "$tmp/k.out" ||
	{ cat "$tmp/k.out"; fail "the default limit is not 600 s"; }
grep -q 'cell c: cleanup was killed by SIGTERM (signal 15)' "$tmp/k.out" &&
    ok "a cleanup killed by a signal names it" ||
	{ cat "$tmp/k.out"; fail "a cleanup killed by SIGTERM"; }
finish
