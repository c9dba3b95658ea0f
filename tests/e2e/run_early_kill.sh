#!/bin/bash
# test: needs=jq
# A run killed (kill -9) before its round event, here while it connects
# to a server's host (an ssh that never answers), leaves only its own
# unstarted files: run may use the folder again, as if it were empty.  A
# SIGTERM at the same point leaves a resumable round (exit 3).
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/far.json" <<EOF2
{"name": "far", "reps": 2, "command": ["/bin/true"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"],
 "ssh": ["/bin/sh", "-c", "exec sleep 1000"],
 "files": ["$tmp/far.json"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"host": "far", "cmd": ["/bin/true"],
   "ready": {"tcp_port": 9}}}]}
EOF2
jq 'del(.ssh) | del(.files) | .cells[0] = {"name": "c"}' "$tmp/far.json" >"$tmp/near.json"
# started DIR: the folder exists with its log, and the ssh that never
# answers has been started (its log), so the round waits on it.
started() { [ -e "$1/log.jsonl" ] && [ -e "$1/servers/ssh-far.log" ]; }

"$BENCHTUI" run "$tmp/far.json" --out "$tmp/d" --headless >"$tmp/d.out" 2>&1 &
pid=$!
wait_until 30 started "$tmp/d" || fail "the folder never appeared"
kids=$(ps -o pid= --ppid $pid)
kill -9 $pid
for k in $kids; do kill -9 "$k" 2>/dev/null; done
wait $pid 2>/dev/null
[ ! -s "$tmp/d/log.jsonl" ] || fail "the log is not empty: the test missed its moment"
"$BENCHTUI" run "$tmp/near.json" --out "$tmp/d" --headless >"$tmp/again.out" 2>&1
rc=$?
[ $rc = 0 ] && [ -e "$tmp/d/SHA256SUMS" ] && ok "run uses a folder killed before its round event" ||
	{ cat "$tmp/again.out"; fail "run --out over an unstarted folder: exit $rc"; }
"$BENCHTUI" verify "$tmp/d" >/dev/null || fail "the new round does not verify"
# A folder that holds anything else is still refused.
mkdir "$tmp/other"
echo x >"$tmp/other/note.txt"
"$BENCHTUI" run "$tmp/near.json" --out "$tmp/other" --headless >/dev/null 2>&1
[ $? = 2 ] || fail "a folder with a file of its own was not refused"

# SIGTERM at the same moment: the round event and an abort, resumable.
"$BENCHTUI" run "$tmp/far.json" --out "$tmp/t" --headless >"$tmp/t.out" 2>&1 &
pid=$!
wait_until 30 started "$tmp/t" || fail "the folder never appeared"
kill -TERM $pid
wait $pid
rc=$?
[ $rc = 3 ] && jq -se 'map(.t) | index("round") == 0 and any(. == "abort")' \
    "$tmp/t/log.jsonl" >/dev/null && ok "SIGTERM before the first leg: resumable" ||
	{ cat "$tmp/t.out"; fail "SIGTERM while connecting: exit $rc"; }
finish
