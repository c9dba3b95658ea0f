#!/bin/bash
# test:
# Full disks and racing runs.  A disk that fills while a leg writes its own
# output fails the harness's file, not the leg: the round stops resumably
# (exit 3), the leg is not recorded as failed, and resume runs it again.
# A disk full at run start leaves no stub folder: --out can be used again.
# Two runs racing on one --out: one runs, the other gets exit 2.
. "$(dirname "$0")/life_lib.sh"

mnt=$T/mnt
mount_tmpfs "$mnt" 512k

cat >"$T/r.json" <<EOF
{"name": "disk", "reps": 2, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "if [ -e $T/flag ] && [ \${ARM}\${REP} = b1 ]; then head -c 4M /dev/zero; fi; echo done"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF

# --- a leg's output fills the disk ---
check_output_fills_disk "$T/r.json" "$mnt/d1" 'No space left on device'
[ "$(jq -rs '[.[] | select(.t == "leg" and .arm == "b" and .rep == 1 and .status != "aborted")][0].status' "$mnt/d1/log.jsonl")" = ok ] ||
	fail "leg c b r1 did not run again to ok"
rm -rf "$mnt/d1"

# --- a disk full at run start ---
dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1
"$BENCHTUI" run "$T/r.json" --out "$mnt/d2" --headless >"$T/o2" 2>&1
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 3 ] || { cat "$T/o2"; fail "run on a full disk: exit $rc (nothing to resume, so not 0 or 3)"; }
grep -q 'No space left on device' "$T/o2" || { cat "$T/o2"; fail "run on a full disk: no clear error"; }
[ ! -e "$mnt/d2" ] || fail "a run that could not start left a stub: $(ls -A "$mnt/d2")"
rm -f "$mnt/filler"
"$BENCHTUI" run "$T/r.json" --out "$mnt/d2" --headless >"$T/o2b" 2>&1 ||
	{ cat "$T/o2b"; fail "--out could not be used again after the full disk"; }
check_sealed "$mnt/d2"

# --- two runs racing on one --out ---
for i in 1 2 3; do
	"$BENCHTUI" run "$T/r.json" --out "$T/race$i" --headless >"$T/ra$i" 2>&1 &
	p1=$!
	"$BENCHTUI" run "$T/r.json" --out "$T/race$i" --headless >"$T/rb$i" 2>&1 &
	p2=$!
	wait $p1; r1=$?
	wait $p2; r2=$?
	codes=$(printf '%s\n' $r1 $r2 | sort | tr '\n' ' ')
	[ "$codes" = "0 2 " ] || { cat "$T/ra$i" "$T/rb$i"; fail "race $i: exit codes $codes, expected 0 and 2"; }
	check_sealed "$T/race$i"
done
exit 0
