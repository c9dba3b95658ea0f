#!/bin/bash
# test: est=7 long
# The scratch folder is emptied before every leg, so it must be nobody
# else's: refused (exit 3, resumable once fixed, nothing deleted) when it
# holds an input the command names, the leg's program, the round file, a
# user's files without benchtui's marker, when it is a system folder, a
# symlink, or another round's; a leg that turns it into a link stops the
# round rather than reading "0 bytes"; a tree thousands of levels deep in
# it is emptied, so it never blocks a resume.
. "$(dirname "$0")/life_lib.sh"

# round FILE NAME SCRATCH [COMMAND...]: one arm, one cell, two reps.
round() {
	local file=$1 name=$2 scratch=$3 cmd=${4:-'"/bin/sh", "-c", "echo x >${SCRATCH}/f"'}
	cat >"$file" <<EOF
{"name": "$name", "reps": 2, "quiet": false, "counters": ["task-clock"],${EXTRA:-}
 "scratch": "$scratch", "command": [$cmd],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
}
# expect_refused TAG OUTFILE WORDS: run exited 3 naming WORDS, before a leg.
expect_refused() {
	local tag=$1 rc=$2 out=$3 words=$4 dir=$5
	[ "$rc" -eq 3 ] || { cat "$out"; fail "$tag: exit $rc, expected 3"; }
	grep -q "$words" "$out" || { cat "$out"; fail "$tag: no '$words' in the message"; }
	[ "$(jq -s '[.[] | select(.t == "leg_start")] | length' "$dir/log.jsonl")" -eq 0 ] ||
		fail "$tag: a leg ran"
}

# 1. A scratch folder holding an input the command names.
mkdir -p "$T/data"; echo input >"$T/data/in.txt"
round "$T/r1.json" s1 "$T/data" '"/bin/cat", "'"$T"'/data/in.txt"'
"$BENCHTUI" run "$T/r1.json" --out "$T/d1" --headless >"$T/o1" 2>&1
expect_refused input $? "$T/o1" "holds a path the leg's command names $T/data/in.txt" "$T/d1"
[ "$(cat "$T/data/in.txt")" = input ] || fail "the input was deleted"

# 2. ... the leg's program.
mkdir -p "$T/tools"; cp /bin/true "$T/tools/mytrue"
round "$T/r2.json" s2 "$T/tools" '"'"$T"'/tools/mytrue"'
"$BENCHTUI" run "$T/r2.json" --out "$T/d2" --headless >"$T/o2" 2>&1
expect_refused program $? "$T/o2" "leg's program" "$T/d2"
[ -x "$T/tools/mytrue" ] || fail "the program was deleted"

# 3. ... the round file (its workdir elsewhere).
mkdir -p "$T/rf"
EXTRA=' "workdir": "'"$T"'",' round "$T/rf/r3.json" s3 "$T/rf"
"$BENCHTUI" run "$T/rf/r3.json" --out "$T/d3" --headless >"$T/o3" 2>&1
expect_refused roundfile $? "$T/o3" "holds the round file" "$T/d3"
[ -f "$T/rf/r3.json" ] || fail "the round file was deleted"

# 4. A user's folder with files and no marker.
mkdir -p "$T/mine"; echo keep >"$T/mine/notes.txt"
round "$T/r4.json" s4 "$T/mine"
"$BENCHTUI" run "$T/r4.json" --out "$T/d4" --headless >"$T/o4" 2>&1
expect_refused unmarked $? "$T/o4" "holds files but no .benchtui-scratch marker" "$T/d4"
[ "$(cat "$T/mine/notes.txt")" = keep ] || fail "a user's file was deleted"
# Emptied by its owner, it is claimed and the round resumes to the end.
rm "$T/mine/notes.txt"
"$BENCHTUI" resume "$T/d4" --headless >"$T/o4r" 2>&1 || { cat "$T/o4r"; fail "resume after emptying scratch"; }
[ -f "$T/mine/.benchtui-scratch" ] || fail "no marker in a claimed scratch folder"
check_sealed "$T/d4"

# 5. A system folder (one that holds nothing to lose if this test is
# wrong): refused when the round file is read, by check and by run (exit
# 2), before any folder is made, templated scratch too (its expansion).
round "$T/r5.json" s5 "/proc/sys"
"$BENCHTUI" check "$T/r5.json" >"$T/o5c" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'scratch: "/proc/sys" is inside a system folder' "$T/o5c" ||
	{ cat "$T/o5c"; fail "system: check exit $rc, expected 2 naming the system folder"; }
"$BENCHTUI" run "$T/r5.json" --out "$T/d5" --headless >"$T/o5" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "system folder" "$T/o5" && [ ! -e "$T/d5" ] ||
	{ cat "$T/o5"; fail "system: run exit $rc, expected 2 and no folder"; }
jq '.scratch = "${SYS}" | .vars = {"SYS": "/etc/benchtui-scratch"}' "$T/r5.json" >"$T/r5t.json"
"$BENCHTUI" run "$T/r5t.json" --out "$T/d5t" --headless >"$T/o5t" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q 'scratch: "/etc/benchtui-scratch" is inside a system folder' "$T/o5t" ||
	{ cat "$T/o5t"; fail "system, templated: exit $rc, expected 2"; }
[ ! -e /etc/benchtui-scratch ] || fail "a scratch folder was made in /etc"

# 6. A symlink.
mkdir -p "$T/real"; echo keep >"$T/real/k"; ln -s "$T/real" "$T/link"
round "$T/r6.json" s6 "$T/link"
"$BENCHTUI" run "$T/r6.json" --out "$T/d6" --headless >"$T/o6" 2>&1
expect_refused symlink $? "$T/o6" "is a symlink" "$T/d6"
[ -f "$T/real/k" ] || fail "emptied through a symlink"

# 7. A leg that turns its scratch into a link: the round stops (not "0
#    bytes"), and the folder linked to is untouched.
mkdir -p "$T/other"; echo keep >"$T/other/k"
round "$T/r7.json" s7 "$T/s7" '"/bin/sh", "-c", "rm -rf ${SCRATCH} && ln -s '"$T"'/other ${SCRATCH}"'
"$BENCHTUI" run "$T/r7.json" --out "$T/d7" --headless >"$T/o7" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/o7"; fail "scratch became a link: exit $rc, expected 3"; }
grep -q "became a symlink" "$T/o7" || { cat "$T/o7"; fail "no 'became a symlink' message"; }
[ -f "$T/other/k" ] || fail "the folder the link points to was emptied"
[ "$(jq -s '[.[] | select(.t == "leg" and .status != "aborted")] | length' "$T/d7/log.jsonl")" -eq 0 ] ||
	fail "a leg whose scratch became a link was recorded"

# 8. Two rounds on one scratch folder: the second is refused.  The first
#    round's legs last until the test has tried the second (or is gone).
round "$T/r8.json" s8 "$T/s8" '"/bin/sh", "-c", "while [ -d '"$T"' ] && [ ! -e '"$T"'/go8 ]; do sleep 0.05; done"'
"$BENCHTUI" run "$T/r8.json" --out "$T/d8a" --headless >"$T/o8a" 2>&1 &
first=$!
wait_for_line "$T/d8a/log.jsonl" '.t == "leg_start"' 30 || fail "the first round never started a leg"
"$BENCHTUI" run "$T/r8.json" --out "$T/d8b" --headless >"$T/o8b" 2>&1
expect_refused shared $? "$T/o8b" "in use by another round" "$T/d8b"
touch "$T/go8"
wait $first || { cat "$T/o8a"; fail "the first round failed"; }

# 9. A tree thousands of levels deep, which a path-based walk cannot
#    empty: emptied before the next leg, and the round completes.
command -v perl >/dev/null || { echo "SKIP deep tree: no perl"; exit 0; }
round "$T/r9.json" s9 "$T/s9" '"perl", "-e", "chdir $ARGV[0] or die; for (1..3000) { mkdir q(d) or die; chdir q(d) or die } open F, q(>f) or die", "${SCRATCH}"'
"$BENCHTUI" run "$T/r9.json" --out "$T/d9" --headless >"$T/o9" 2>&1 || { cat "$T/o9"; fail "a deep tree in scratch stopped the round"; }
check_sealed "$T/d9"
exit 0
