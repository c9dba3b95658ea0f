#!/bin/bash
# test life-sigint: est=6
# SIGINT headless: the running leg is ended and logged as aborted, an abort
# event is logged, exit 3.  Then, on copies of that aborted folder:
#   - resume refuses a changed round.json (exit 2, naming the file);
#   - seal --partial seals it on purpose (summary says partial, verify
#     passes, and it can then be neither resumed nor sealed again);
# and the original resumes to completion, exactly once, sealed.
. "$(dirname "$0")/life_lib.sh"

# Job control, so the background benchtui does not start with SIGINT
# ignored (as a non-interactive shell's background jobs do) -- as if a user
# pressed ^C.
set -m

export DEMO_SPIN_MS=400
make_round "$T/int.json" sigint 2 0  # 12 legs of ~0.4 s
dir=$T/round
"$BENCHTUI" run "$T/int.json" --out "$dir" --headless >"$T/out.txt" 2>&1 &
pid=$!
# Once a leg has been counted and the next runs:
wait_for_line "$dir/log.jsonl" '.t == "leg_start" and .seq == 2' 30 ||
	{ kill -9 $pid; cat "$T/out.txt"; fail "the second leg never started"; }
# While it runs, the folder is locked: no second resume, no partial seal.
"$BENCHTUI" resume "$dir" --headless >"$T/busy1.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/busy1.out"; fail "resume of a running round: exit $rc, expected 2"; }
grep -q 'another benchtui' "$T/busy1.out" || { cat "$T/busy1.out"; fail "resume of a running round: no clear message"; }
"$BENCHTUI" seal "$dir" --partial >"$T/busy2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/busy2.out"; fail "seal --partial of a running round: exit $rc, expected 2"; }
grep -q 'another benchtui' "$T/busy2.out" || { cat "$T/busy2.out"; fail "seal --partial of a running round: no clear message"; }
# Then interrupt just after the next leg starts.
n=$(jq -s 'map(select(.t == "leg_start")) | length' "$dir/log.jsonl")
wait_for_line "$dir/log.jsonl" ".t == \"leg_start\" and .seq == $((n + 1))" 30 ||
	{ kill -9 $pid; cat "$T/out.txt"; fail "no leg after the lock checks"; }
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 3 ] || { cat "$T/out.txt"; fail "SIGINT: exit $rc, expected 3"; }
# The message says why it stopped, and nothing else.
grep -qi 'SIGINT\|interrupt' "$T/out.txt" || { cat "$T/out.txt"; fail "SIGINT: no message saying so"; }
! grep -q 'out of memory' "$T/out.txt" || { grep benchtui: "$T/out.txt"; fail "SIGINT: a bogus 'out of memory' message"; }
log=$dir/log.jsonl
check_aborted "$dir"
counted=$(jq -s '[.[] | select(.t == "leg" and .status != "aborted")] | length' "$log")
echo "aborted after $counted counted legs"

# A lock that only a dead benchtui's child still holds (the child of a
# run killed a moment ago, between clone and execve with a copy of the
# log's descriptor): resume and seal --partial wait for it to go rather
# than refuse.  Here the taker exits at once and its child holds the lock
# 1 s more.
cp -a "$dir" "$T/orphan"
python3 - "$T/orphan/log.jsonl" <<'PY'
import fcntl, os, sys, time
f = open(sys.argv[1])
fcntl.flock(f, fcntl.LOCK_EX)
if os.fork() == 0:
    time.sleep(1)
    os._exit(0)
os._exit(0)
PY
"$BENCHTUI" seal "$T/orphan" --partial >"$T/orphan.out" 2>&1 ||
	{ cat "$T/orphan.out"; fail "seal --partial refused a lock its taker no longer held"; }

# A changed round file: resume refuses and names it.
cp -a "$dir" "$T/changed"
printf ' ' >>"$T/changed/round.json"
"$BENCHTUI" resume "$T/changed" --headless >"$T/changed.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/changed.out"; fail "resume of a changed round.json: exit $rc, expected 2"; }
grep -q 'round.json' "$T/changed.out" ||
	{ cat "$T/changed.out"; fail "resume's refusal does not name round.json"; }

# seal --partial on a copy; a bad signing key is refused before anything
# is written.
cp -a "$dir" "$T/partial"
printf 'not a key\n' >"$T/bad.pem"
"$BENCHTUI" seal "$T/partial" --partial --sign "$T/bad.pem" >"$T/badkey.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/badkey.out"; fail "seal --partial with a bad key: exit $rc, expected 2"; }
grep -q 'bad.pem' "$T/badkey.out" || { cat "$T/badkey.out"; fail "seal --partial with a bad key: no message naming it"; }
[ ! -e "$T/partial/summary.json" ] || fail "seal --partial wrote a summary before refusing the key"
"$BENCHTUI" seal "$T/partial" --partial >"$T/partial.out" 2>&1 ||
	{ cat "$T/partial.out"; fail "seal --partial failed"; }
check_sealed "$T/partial"
jq -e '.partial == true' "$T/partial/summary.json" >/dev/null ||
	fail "summary.json of a partial seal does not say partial: true"
grep -qi 'partial' "$T/partial/summary.md" ||
	fail "summary.md of a partial seal does not say partial"
"$BENCHTUI" resume "$T/partial" --headless >"$T/p2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/p2.out"; fail "resume of a sealed round: exit $rc, expected 2"; }
grep -q 'sealed unfinished' "$T/p2.out" && ! grep -q 'complete' "$T/p2.out" ||
	{ cat "$T/p2.out"; fail "resume of a partial seal does not say it was sealed unfinished"; }
"$BENCHTUI" seal "$T/partial" --partial >"$T/p3.out" 2>&1
rc=$?
[ $rc -eq 2 ] || { cat "$T/p3.out"; fail "second seal --partial: exit $rc, expected 2"; }
grep -q 'already sealed' "$T/p3.out" || { cat "$T/p3.out"; fail "second seal --partial: no clear message"; }

# The original resumes to the end and seals.
"$BENCHTUI" resume "$dir" --headless >"$T/resume.out" 2>&1 ||
	{ cat "$T/resume.out"; fail "resume after SIGINT failed"; }
check_log_whole "$log"
check_exactly_once "$log" 12
check_sealed "$dir"
# The aborted leg was run again: its cell/arm/rep has an aborted line and
# a counted one.
jq -s -e '(map(select(.t == "leg" and .status == "aborted"))[0]) as $a
    | map(select(.t == "leg" and .status != "aborted" and .cell == $a.cell
      and .arm == $a.arm and .rep == $a.rep)) | length == 1' "$log" >/dev/null ||
	fail "$log: the aborted leg was not run again exactly once"
# A complete round cannot be sealed partially.
"$BENCHTUI" seal "$dir" --partial >"$T/p4.out" 2>&1
[ $? -eq 2 ] || fail "seal --partial of a complete round did not refuse"
exit 0
