#!/bin/bash
# test: needs=sshd
# Legs on another host (the round's "host", the test's own sshd, whose
# sessions live in a mount namespace of their own) with the round's
# "prepare" and "stdin": prepare runs there before each leg (it writes its
# mount namespace: the far side's), the leg's stdin file is read here and
# its content sent with the leg (the leg, cat, writes it back: its output,
# copied back, is the file, and a filter's bytes are counted); a prepare
# that exits 3 is that leg's line (prepare_rc 3, the leg not run, its
# output prepare's); a stdin past the limit stops the round naming the
# file and the limit; "scratch" is made, emptied and measured there (a
# folder under the far side's own /run, which never exists here).
. "$(dirname "$0")/remote_lib.sh"
remote_up
here=$(readlink /proc/self/ns/mnt)
there=$(readlink /proc/"$SSHD_PID"/ns/mnt)
[ "$here" != "$there" ] || { echo "SKIP: the test sshd shares this mount namespace"; exit 77; }

mkdir "$T/ns"
head -c 100000 /dev/urandom | base64 >"$T/in.txt"
size=$(stat -c %s "$T/in.txt")
jq -n --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" --arg host "$RHOST" \
	--arg ns "$T/ns" --arg prep "$T/prep" --arg in "$T/in.txt" '
{"name": "fario", "reps": 2, "baseline": "a", "quiet": false,
 "ssh": $ssh, "agent": [$b, "agent"], "host": $host,
 "command": ["sh", "-c", "readlink /proc/self/ns/mnt >\"$1/ns.$$$$\"; exec cat", "leg", $ns],
 "prepare": ["sh", "-c", "readlink /proc/self/ns/mnt >>\"$1\"; echo prepared; [ -z \"$FAILPREP\" ] || exit 3",
             "prep", $prep],
 "stdin": $in,
 "arms": [{"name": "a"}, {"name": "b"}],
 "cells": [{"name": "c"}]}' >"$T/r.json"
"$BENCHTUI" check "$T/r.json" >"$T/check" 2>&1 || fail "check refused prepare and stdin with host: $(cat "$T/check")"
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
log=$T/out/log.jsonl
jq -e -s --arg h "$RHOST" --argjson n "$size" 'map(select(.t == "leg")) | length == 4 and
	all(.host == $h and .status == "ok" and .prepare_rc == 0 and .output_bytes == $n and .bytes == $n)' \
	"$log" >/dev/null || fail "leg lines: $(jq -c 'select(.t == "leg") | [.arm, .host, .status, .prepare_rc, .output_bytes, .bytes]' "$log")"
[ "$(wc -l <"$T/prep")" -eq 4 ] || fail "prepare ran $(wc -l <"$T/prep") times, not 4"
[ "$(sort -u "$T/prep")" = "$there" ] || fail "prepare ran in $(sort -u "$T/prep" | tr '\n' ' '), not the far side's $there"
for pid in $(jq -r 'select(.t == "leg") | .pid' "$log"); do
	[ "$(cat "$T/ns/ns.$pid" 2>/dev/null)" = "$there" ] || fail "leg pid $pid did not run there"
done
for f in "$T"/out/legs/c-*-r*.out; do
	cmp -s "$f" "$T/in.txt" || fail "$(basename "$f") is not the stdin file (its prepare's words kept?)"
done
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
ok "prepare ran there before each of 4 legs; stdin ($size bytes) went with each leg; verify passes"

# A prepare that exits 3 for arm b: that leg's line, the leg not run.
jq '.reps = 1 | .arms[1].env = {"FAILPREP": "1"}' "$T/r.json" >"$T/f.json"
rm -f "$T/prep" "$T"/ns/*
"$BENCHTUI" run "$T/f.json" --headless --out "$T/f" >"$T/f.stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 5 ] || fail "run with a failed prepare exited $rc: $(tail -3 "$T/f.stdout")"
jq -e -s 'map(select(.t == "leg" and .arm == "b")) | length == 1 and .[0].prepare_rc == 3 and .[0].status != "ok"' \
	"$T/f/log.jsonl" >/dev/null || fail "b's line: $(jq -c 'select(.t == "leg" and .arm == "b")' "$T/f/log.jsonl")"
[ "$(find "$T/ns" -type f | wc -l)" -eq 1 ] || fail "$(find "$T/ns" -type f | wc -l) legs ran, not 1 (b's prepare failed)"
grep -qx prepared "$T/f/legs/c-b-r1.out" || fail "b's output is not its prepare's: $(head -c 200 "$T/f/legs/c-b-r1.out")"
jq -r 'select(.t == "warning") | .msg' "$T/f/log.jsonl" | grep -q 'prepare exited 3; the leg did not run' ||
	fail "no warning of the failed prepare"
ok "a prepare that exits 3 there: prepare_rc 3, the leg not run, its output prepare's (exit $rc)"

# A stdin past the limit: the round stops before that leg, naming both.
head -c 600000 /dev/zero >"$T/big.in"
jq --arg in "$T/big.in" '.reps = 1 | .stdin = $in' "$T/r.json" >"$T/big.json"
"$BENCHTUI" run "$T/big.json" --headless --out "$T/big" >"$T/big.stdout" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "a stdin past the limit: exit $rc, not 3: $(tail -3 "$T/big.stdout")"
grep -q "stdin $T/big.in holds more than 524288 bytes" "$T/big.stdout" ||
	fail "the stop does not name the file and the limit: $(grep -i stdin "$T/big.stdout" | head -3)"
ok "a stdin past 512 KiB stops the round, naming the file and the limit"

# scratch: made and emptied there before each leg, measured there after.
# The folder is under /run, which the test sshd's mount namespace has a
# tmpfs of its own over: it exists there and never here.  Each leg fails
# (exit 7) unless it finds the folder empty but for the marker, then
# writes 1234 bytes into it.
sc=/run/benchtui-scratch-test-$$
[ ! -e "$sc" ] || fail "$sc exists here already"
jq --arg sc "$sc" '.scratch = $sc | del(.stdin) |
	.command = ["sh", "-c", "n=$(ls -A \"$1\" | grep -cv \"^.benchtui-scratch$\"); [ \"$n\" = 0 ] || exit 7; head -c 1234 /dev/zero >\"$1/f\"",
	            "leg", "${SCRATCH}"]' "$T/r.json" >"$T/s.json"
"$BENCHTUI" check "$T/s.json" >"$T/s.out" 2>&1 || fail "check refused scratch with host: $(cat "$T/s.out")"
"$BENCHTUI" run "$T/s.json" --headless --out "$T/s" >"$T/s.stdout" 2>&1 ||
	fail "the round with scratch exited $?: $(tail -3 "$T/s.stdout")"
jq -e -s 'map(select(.t == "leg")) | length == 4 and all(.status == "ok" and .bytes == 1234)' \
	"$T/s/log.jsonl" >/dev/null || fail "scratch legs: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status, .rc, .bytes]' "$T/s/log.jsonl")"
[ ! -e "$sc" ] || fail "the scratch folder $sc was made here"
if command -v nsenter >/dev/null; then
	nsenter -t "$SSHD_PID" -m test -f "$sc/.benchtui-scratch" ||
		fail "no scratch marker in $sc on the far side"
	nsenter -t "$SSHD_PID" -m rm -rf "$sc"
fi
"$BENCHTUI" verify "$T/s" >/dev/null || fail "verify failed (scratch)"
ok "scratch made and emptied there before each of 4 legs, 1234 bytes measured there; none here"
finish
