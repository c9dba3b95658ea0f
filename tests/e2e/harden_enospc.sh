#!/bin/bash
# test:
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
check_output_fills_disk "$T/brief.json" "$mnt/d1" 'No space left on device (ENOSPC)'
grep -qx done "$mnt/d1/legs/c-b-r1.out" || fail "the rerun leg's output is not whole"
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
chmod -R u+w "$mnt/d2"
rm -rf "$mnt/d2" "$mnt/low"

# The disk full at the seal: the round's last leg (a r2: mirror, 2 arms)
# fills it so that its own leg line and "done" still fit in the log's
# last page, and the summaries do not.  The round is complete, so exit
# 3 with a resume hint (not 1), and resume seals it once there is room.
cat >"$T/fill.sh" <<'EOF'
#!/bin/sh
[ "$1" = a2 ] || exit 0
log=$2/log.jsonl
s=$(stat -c %s "$log")
l=$(grep '"t":"leg"' "$log" | tail -1 | wc -c)
room=$(( (4096 - s % 4096) % 4096 ))
keep=0
[ "$room" -ge $((l + 300)) ] || keep=1
free=$(df -B4096 --output=avail "$3" | tail -1)
dd if=/dev/zero of="$3/full" bs=4096 count=$((free - keep)) >/dev/null 2>&1
EOF
cat >"$T/seal.json" <<EOF
{"name": "seal", "reps": 2, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "$T/fill.sh", "\${ARM}\${REP}", "\${ROUND_DIR}", "$mnt"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/seal.json" --out "$mnt/d3" --headless >"$T/o3" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$T/o3"; fail "the disk full at the seal: exit $rc, expected 3"; }
grep -q 'No space left on device' "$T/o3" && grep -q 'resume seals it' "$T/o3" &&
	grep -q "resume with: benchtui resume $mnt/d3" "$T/o3" ||
	{ cat "$T/o3"; fail "the disk full at the seal: no ENOSPC or no resume hint"; }
jq -s -e 'any(.t == "done")' "$mnt/d3/log.jsonl" >/dev/null || fail "no done before the seal failed"
[ ! -e "$mnt/d3/SHA256SUMS" ] || fail "sealed on a full disk?"
echo "ok: stopped with: $(grep -o 'summary[^ ]*: [^;]*' "$T/o3" | head -1)"
rm -f "$mnt/full"
"$BENCHTUI" resume "$mnt/d3" --headless >"$T/o3r" 2>&1 ||
	{ cat "$T/o3r"; fail "resume did not seal the complete round"; }
check_exactly_once "$mnt/d3/log.jsonl" 4
check_sealed "$mnt/d3"
echo "ok: resume sealed it"
exit 0
