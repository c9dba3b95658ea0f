#!/bin/bash
# test: needs=jq,sha256sum,timeout
# Kept files are hashed again at resume and at the seal: a change stops
# the round resumably (exit 3) naming the file and both sha256, or with
# --accept-changed-files goes on and is recorded in the resume event.
# Files under /proc and /sys are refused at check; a fifo is refused
# without blocking.
. "$(dirname "$0")/e2e_lib.sh"

echo "level=1" >"$tmp/conf.txt"
# A leg of rep 3 changes the kept file: the seal must notice.
cat >"$tmp/r.json" <<EOF2
{"name": "k", "reps": 3, "baseline": "a", "quiet": false,
 "command": ["/bin/sh", "-c", "[ \${REP} != 3 ] || echo level=2 >>$tmp/conf.txt"],
 "counters": ["task-clock"], "files": ["$tmp/conf.txt"],
 "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF2
old=$(sha256sum <"$tmp/conf.txt" | cut -d' ' -f1)
timeout 60 "$BENCHTUI" run "$tmp/r.json" --out "$tmp/d" --headless >"$tmp/run.out" 2>&1
rc=$?
new=$(sha256sum <"$tmp/conf.txt" | cut -d' ' -f1)
[ $rc = 3 ] && grep -q "files: conf.txt ($tmp/conf.txt) changed since the round kept it: sha256 $old then, $new now" "$tmp/run.out" &&
    ok "a file changed during the round stops it before the seal (exit 3)" ||
	{ cat "$tmp/run.out"; fail "changed during the round: exit $rc"; }
[ ! -e "$tmp/d/SHA256SUMS" ] || fail "sealed over a changed file"
timeout 60 "$BENCHTUI" resume "$tmp/d" --headless >"$tmp/res.out" 2>&1
rc=$?
[ $rc = 3 ] && grep -q "sha256 $old then, $new now.*resume refuses.*--accept-changed-files" "$tmp/res.out" &&
    ok "resume refuses a changed file, naming both sha256" ||
	{ cat "$tmp/res.out"; fail "resume over a changed file: exit $rc"; }
timeout 60 "$BENCHTUI" resume "$tmp/d" --headless --accept-changed-files >"$tmp/acc.out" 2>&1
rc=$?
[ $rc = 0 ] && [ -e "$tmp/d/SHA256SUMS" ] && ok "--accept-changed-files seals" ||
	{ cat "$tmp/acc.out"; fail "resume --accept-changed-files: exit $rc"; }
jq -se --arg o "$old" --arg n "$new" '[.[] | select(.t == "resume")][0] |
    .files_changed[0] | .file == "conf.txt" and .was == $o and .now == $n' \
    "$tmp/d/log.jsonl" >/dev/null && ok "the resume event records the change" ||
	fail "no files_changed in the resume event"

# /proc and /sys: refused at check, naming the entry.
jq '.files = ["/proc/kmsg"] | .command = ["/bin/true"]' "$tmp/r.json" >"$tmp/p.json"
timeout 20 "$BENCHTUI" check "$tmp/p.json" >/dev/null 2>"$tmp/p.err"
rc=$?
[ $rc = 2 ] && grep -q 'files\[0\]: /proc/kmsg: a file of /proc or /sys' "$tmp/p.err" &&
    ok "/proc/kmsg refused at check" || { cat "$tmp/p.err"; fail "/proc/kmsg: exit $rc"; }
jq '.files = ["//sys/kernel/notes"] | .command = ["/bin/true"]' "$tmp/r.json" >"$tmp/s.json"
"$BENCHTUI" check "$tmp/s.json" >/dev/null 2>&1 && fail "/sys accepted"
# A fifo: refused at once, not read (no writer would ever come).
mkfifo "$tmp/fifo"
jq --arg f "$tmp/fifo" '.files = [$f] | .command = ["/bin/true"]' "$tmp/r.json" >"$tmp/f.json"
timeout 20 "$BENCHTUI" run "$tmp/f.json" --out "$tmp/fd" --headless >"$tmp/f.out" 2>&1
rc=$?
[ $rc != 124 ] && grep -q "fifo: not a regular file" "$tmp/f.out" &&
    ok "a fifo is refused without blocking" || { cat "$tmp/f.out"; fail "a fifo: exit $rc"; }
finish
