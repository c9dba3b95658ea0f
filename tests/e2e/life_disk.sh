#!/bin/bash
# test life-disk: asan-covered est=2
# Full disk: the round folder sits on a 256 KiB tmpfs that the test fills
# (a filler file) while the round runs.  benchtui must stop with a clear
# error (naming the file and "No space left on device") and exit 3, with
# every line already in the log intact.  Once the filler is deleted, resume
# completes the round, exactly once, and the seal holds.
. "$(dirname "$0")/life_lib.sh"

mnt=$T/mnt
mount_tmpfs "$mnt" 256k

export DEMO_SPIN_MS=100
make_round "$T/disk.json" disk 2 0   # 12 legs
dir=$mnt/round
"$BENCHTUI" run "$T/disk.json" --out "$dir" --headless >"$T/out.txt" 2>&1 &
pid=$!
wait_for_line "$dir/log.jsonl" '.t == "leg_start" and .seq == 2' 30 ||
	{ kill -9 $pid; cat "$T/out.txt"; fail "the second leg never started"; }
# Fill what is left of the tmpfs.
dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1
[ "$(df --output=avail -k "$mnt" | tail -1 | tr -d ' ')" -eq 0 ] ||
	fail "could not fill $mnt"
wait $pid
rc=$?
[ $rc -eq 3 ] || { tail -5 "$T/out.txt"; fail "full disk: exit $rc, expected 3"; }
grep -q 'No space left on device' "$T/out.txt" ||
	{ tail -5 "$T/out.txt"; fail "no 'No space left on device' in the error"; }
grep 'No space left on device' "$T/out.txt" | grep -q "$dir/" ||
	{ tail -5 "$T/out.txt"; fail "the error does not name the file"; }
log=$dir/log.jsonl
check_log_whole "$log"
check_no_live_legs "$log"
[ ! -e "$dir/SHA256SUMS" ] || fail "a round stopped by a full disk was sealed"
before=$(jq -s '[.[] | select(.t == "leg" and .status != "aborted")] | length' "$log")
echo "stopped by the full disk after $before counted legs: $(grep 'No space' "$T/out.txt" | head -1)"

# Resume while still full: still a clear error, still resumable.
"$BENCHTUI" resume "$dir" --headless >"$T/out2.txt" 2>&1
rc=$?
[ $rc -eq 3 ] || { tail -5 "$T/out2.txt"; fail "resume on a full disk: exit $rc, expected 3"; }
grep -q 'No space left on device' "$T/out2.txt" ||
	{ tail -5 "$T/out2.txt"; fail "resume on a full disk: no clear error"; }
check_log_whole "$log"

# Free the space; resume completes.
rm -f "$mnt/filler"
"$BENCHTUI" resume "$dir" --headless >"$T/out3.txt" 2>&1 ||
	{ tail -5 "$T/out3.txt"; fail "resume after freeing space failed"; }
check_log_whole "$log"
check_exactly_once "$log" 12
check_sealed "$dir"
exit 0
