#!/bin/bash
# A full disk is the write's own error, not a free-space guess.  On a
# small tmpfs holding the round folder:
#   - a leg fills the disk, prints while it is full, then frees it before
#     it exits: the write of its output failed (ENOSPC), so the round
#     stops resumably naming the file and ENOSPC, the leg is not recorded
#     "ok" with its output lost, and resume runs it again;
#   - a leg that writes fine but leaves less than 64 KiB free is no
#     reason to stop: the round completes.
. "$(dirname "$0")/life_lib.sh"

mnt=$T/mnt
mount_tmpfs "$mnt" 1m

# Leg b r1, while $T/flag exists (once): fill, print, free.
cat >"$T/brief.json" <<EOF
{"name": "brief", "reps": 2, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "if [ \${ARM}\${REP} = b1 ] && rm $T/flag 2>/dev/null; then dd if=/dev/zero of=$mnt/fill bs=4k >/dev/null 2>&1; echo written while full; sleep 0.3; rm -f $mnt/fill; fi; echo done"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
touch "$T/flag"
"$BENCHTUI" run "$T/brief.json" --out "$mnt/d1" --headless >"$T/o1" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/o1"; fail "a leg's output hit a full disk: exit $rc, expected 3"; }
grep -q 'legs/c-b-r1.out: No space left on device (ENOSPC)' "$T/o1" ||
	{ cat "$T/o1"; fail "the stop does not name the output file and ENOSPC"; }
log=$mnt/d1/log.jsonl
check_log_whole "$log"
[ "$(jq -s '[.[] | select(.t == "leg" and .arm == "b" and .rep == 1 and .status != "aborted")] | length' "$log")" -eq 0 ] ||
	fail "the leg whose output was lost was recorded: $(grep '"arm":"b","rep":1' "$log")"
echo "ok: stopped with: $(grep -o 'legs/c-b-r1.out: No space[^;]*' "$T/o1" | head -1)"
"$BENCHTUI" resume "$mnt/d1" --headless >"$T/o1r" 2>&1 ||
	{ cat "$T/o1r"; fail "resume after the disk had room again failed"; }
check_exactly_once "$log" 4
grep -qx done "$mnt/d1/legs/c-b-r1.out" || fail "the rerun leg's output is not whole"
check_sealed "$mnt/d1"
chmod -R u+w "$mnt/d1"
rm -rf "$mnt/d1"
echo "ok: resume ran the leg again, sealed"

# Leg a r1 writes fine, then leaves 56 KiB free (less than 64) for good.
cat >"$T/low.json" <<EOF
{"name": "low", "reps": 2, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "echo abc; if [ \${ARM}\${REP} = a1 ]; then k=\$(df -k --output=avail $mnt | tail -1); dd if=/dev/zero of=$mnt/low bs=1k count=\$((k - 56)) >/dev/null 2>&1; fi"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/low.json" --out "$mnt/d2" --headless >"$T/o2" 2>&1
rc=$?
echo "free after the run: $(df -k --output=avail "$mnt" | tail -1) KiB"
[ $rc -eq 0 ] || { cat "$T/o2"; fail "a leg that left < 64 KiB free stopped the round: exit $rc"; }
check_sealed "$mnt/d2"
echo "ok: a leg leaving < 64 KiB free is no stop"
exit 0
