#!/bin/bash
# test: alone counters asan-covered est=2
# run's edge cases: a non-empty --out is refused and left untouched; a leg
# that exits 3 is recorded failed and the round completes (exit 5, with
# fail_fast off); a leg that
# outlives timeout_s is killed with its whole process group (a grandchild
# too) and recorded timed_out; a missing program is refused before the round.
. "$(dirname "$0")/e2e_lib.sh"

cat > "$tmp/exit.json" <<'EOF'
{
  "name": "exitcodes",
  "reps": 2,
  "command": ["/bin/sh", "-c", "echo leg ${ARM} ${REP}; exit ${RC}"],
  "baseline": "base",
  "arms": [{"name": "base"}, {"name": "aa", "aa_of": "base"}],
  "cells": [{"name": "good", "vars": {"RC": "0"}},
            {"name": "bad", "vars": {"RC": "3"}}],
  "fail_fast": 0,
  "counters": ["task-clock"],
  "quiet": false
}
EOF

# 1. A non-empty --out is refused with exit 2, and left as it was.
mkdir "$tmp/busy"
echo evidence > "$tmp/busy/keep"
"$BENCHTUI" run --headless --out "$tmp/busy" "$tmp/exit.json" \
    > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && ok "non-empty --out: exit 2" || fail "non-empty --out: exit $rc"
grep -q "$tmp/busy" "$tmp/err" && ok "message names the folder" ||
    fail "message: $(cat "$tmp/err")"
[ "$(ls -A "$tmp/busy")" = keep ] && [ "$(cat "$tmp/busy/keep")" = evidence ] &&
    ok "non-empty --out untouched" || fail "busy folder changed"

# 1b. Without --out: a fresh dated folder under ./rounds/, named on stdout;
# a second run in the same second gets its own.
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && { "$BENCHTUI" run --headless "$tmp/exit.json" > "$tmp/d1" 2>&1;
    "$BENCHTUI" run --headless "$tmp/exit.json" > "$tmp/d2" 2>&1; })
d1=$(sed -n 's/^round folder: //p' "$tmp/d1")
d2=$(sed -n 's/^round folder: //p' "$tmp/d2")
case "$d1" in
"$tmp/cwd/rounds/exitcodes-"[0-9]*-[0-9]*) ok "default folder $d1" ;;
*) fail "default folder: '$d1'" ;;
esac
[ -n "$d2" ] && [ "$d1" != "$d2" ] && [ -s "$d2/log.jsonl" ] &&
    ok "second default folder $d2" || fail "second default folder: '$d2'"

# 2. Failing legs are recorded, and the round still completes.
"$BENCHTUI" run --headless --out "$tmp/ex" "$tmp/exit.json" > "$tmp/out1" 2>&1
rc=$?
[ "$rc" -eq 5 ] && ok "round with failing legs: exit 5" ||
    { fail "exit $rc"; cat "$tmp/out1"; }
log="$tmp/ex/log.jsonl"
[ "$(jq -c 'select(.t == "leg" and .cell == "bad" and .status == "failed" and
    .rc == 3 and .signal == null and .timed_out == false)' "$log" | wc -l)" -eq 4 ] &&
    ok "rc 3 legs failed" || fail "bad legs: $(jq -c 'select(.t == "leg" and .cell == "bad") | [.status, .rc]' "$log")"
[ "$(jq -c 'select(.t == "leg" and .cell == "good" and .status == "ok" and
    .rc == 0)' "$log" | wc -l)" -eq 4 ] && ok "rc 0 legs ok" || fail "good legs"
jq -se 'any(.[]; .t == "done")' "$log" > /dev/null && ok "done logged" ||
    fail "no done event"
grep -q '^leg aa 2$' "$tmp/ex/legs/good-aa-r2.out" && ok "output captured" ||
    fail "legs/good-aa-r2.out: $(cat "$tmp/ex/legs/good-aa-r2.out")"
grep -qE '^\[[0-9]+/8\] bad base r1 rc=3 wall=[0-9.]+[mun]?s cpu=[0-9.]+[mun]?s( [a-z-]+=[0-9.]+[a-zA-Z/]*)* failed$' "$tmp/out1" &&
    ok "headless line of a failed leg" || fail "headless: $(grep 'bad base r1' "$tmp/out1")"

# 3. Timeout: the leg's shell and its grandchild (which ignores SIGTERM)
# are ended by process group.
cat > "$tmp/slow.json" <<'EOF'
{
  "name": "slow",
  "reps": 1,
  "command": ["/bin/sh", "-c", "(trap '' TERM; exec sleep 30) & sleep 30; wait"],
  "baseline": "base",
  "arms": [{"name": "base"}],
  "cells": [{"name": "c"}],
  "timeout_s": 0.5,
  "counters": ["task-clock"],
  "quiet": false
}
EOF
start=$(date +%s.%N)
"$BENCHTUI" run --headless --out "$tmp/slow" "$tmp/slow.json" > "$tmp/out2" 2>&1
rc=$?
took=$(echo "$(date +%s.%N) - $start" | bc)
[ "$rc" -eq 5 ] && ok "timeout round: exit 5" || { fail "exit $rc"; cat "$tmp/out2"; }
leg=$(jq -c 'select(.t == "leg")' "$tmp/slow/log.jsonl")
echo "$leg" | jq -e '.status == "timed_out" and .timed_out == true and
    .rc == null and (.signal | type) == "string" and .wall >= 0.5 and
    .wall < 2.5' > /dev/null && ok "leg timed_out: $(echo "$leg" | jq -c '[.signal, .wall]')" ||
    fail "timeout leg: $leg"
pgid=$(echo "$leg" | jq -r .pid)
if ! [[ "$pgid" =~ ^[0-9]+$ ]]; then
	fail "the timed-out leg's line names no pid: $leg"
elif pgrep -g "$pgid" > /dev/null; then
	fail "process group $pgid still has members: $(pgrep -g "$pgid")"
else
	ok "process group $pgid is gone"
fi
[ "$(echo "$took < 5" | bc)" -eq 1 ] && ok "timeout round took ${took}s" ||
    fail "timeout round took ${took}s"

# 4. A program that does not exist: run refuses it up front (exit 2, the
# field and the program named) and creates no folder.  (A program that
# goes missing mid-round is run_late.sh's.)
jq '.command = ["/nonexistent/prog"] | del(.timeout_s)' "$tmp/slow.json" > "$tmp/noexec.json"
"$BENCHTUI" run --headless --out "$tmp/noexec" "$tmp/noexec.json" > "$tmp/out3" 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok "missing program: exit 2" || fail "missing program: exit $rc"
grep -q 'command\[0\].*/nonexistent/prog' "$tmp/out3" &&
    ok "missing program named with its field" || fail "message: $(cat "$tmp/out3")"
[ ! -e "$tmp/noexec" ] && ok "no folder for a refused round" ||
    fail "a refused round left $tmp/noexec"

# 5. scratch: emptied before each leg (a stale file goes, the folder stays),
# its byte count recorded after; settle_s waits before each leg.
mkdir -p "$tmp/scratch/c"
echo stale > "$tmp/scratch/c/stale"
# A folder an earlier round made (its marker): only such a folder is
# emptied with files in it (harden_scratch covers the refusals).
touch "$tmp/scratch/c/.benchtui-scratch"
cat > "$tmp/scratch.json" <<'EOF'
{
  "name": "scratchy",
  "reps": 2,
  "command": ["/bin/sh", "-c", "ls ${SCRATCH}; head -c ${N} /dev/zero > ${SCRATCH}/f"],
  "baseline": "base",
  "arms": [{"name": "base"}],
  "cells": [{"name": "c", "vars": {"N": "1000"}}],
  "scratch": "scratch/${CELL}",
  "settle_s": 0.2,
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" run --headless --out "$tmp/scr" "$tmp/scratch.json" > "$tmp/out4" 2>&1
[ "$(jq -s '[.[] | select(.t == "leg") | .bytes] == [1000, 1000]' "$tmp/scr/log.jsonl")" = true ] &&
    ok "scratch bytes recorded" ||
    fail "scratch bytes: $(jq -c 'select(.t == "leg") | .bytes' "$tmp/scr/log.jsonl")"
# ls in the leg sees an empty folder both times: rep 1's stale file and
# rep 1's own output are gone before rep 2.
[ ! -s "$tmp/scr/legs/c-base-r1.out" ] && [ ! -s "$tmp/scr/legs/c-base-r2.out" ] &&
    ok "scratch emptied before each leg" ||
    fail "scratch not emptied: $(cat "$tmp/scr/legs/c-base-r1.out")"
[ ! -e "$tmp/scratch/c/stale" ] && [ -f "$tmp/scratch/c/f" ] &&
    ok "scratch folder kept, contents replaced" || fail "scratch folder state"
# settle_s: the gap between the first leg's end and the second's start.
gap=$(jq -rs '[.[] | select(.t == "leg" or .t == "leg_start") | .ts |
    sub("Z$"; "") | split(":") | (.[1] | tonumber) * 60 + (.[2] | tonumber)] |
    .[2] - .[1]' "$tmp/scr/log.jsonl")
[ "$(echo "$gap >= 0.19" | bc)" -eq 1 ] && ok "settle_s ($gap s)" ||
    fail "settle_s: only $gap s between a leg and the next"

# 6. cpus.client and nice reach the leg; the arm's env is merged over the
# inherited one; the leg runs in the workdir.
last=$(( $(nproc --all) - 1 ))
cat > "$tmp/pin.json" <<EOF
{
  "name": "pinned",
  "reps": 1,
  "command": ["/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status; cut -d' ' -f19 /proc/self/stat; echo knob=\$KNOB home=\$HOME; pwd"],
  "baseline": "base",
  "arms": [{"name": "base", "env": {"KNOB": "7"}}],
  "cells": [{"name": "c"}],
  "cpus": {"client": "$last"},
  "nice": 5,
  "counters": ["task-clock"],
  "quiet": false
}
EOF
"$BENCHTUI" run --headless --out "$tmp/pin" "$tmp/pin.json" > "$tmp/out5" 2>&1
pinout="$tmp/pin/legs/c-base-r1.out"
grep -qE "^Cpus_allowed_list:[[:space:]]+$last\$" "$pinout" && ok "pinned to cpu $last" ||
    fail "pinning: $(cat "$pinout")"
sed -n 2p "$pinout" | grep -qx 5 && ok "nice 5" || fail "nice: $(sed -n 2p "$pinout")"
grep -qx "knob=7 home=$HOME" "$pinout" && ok "env merged over the inherited one" ||
    fail "env: $(sed -n 3p "$pinout")"
grep -qx "$tmp" "$pinout" && ok "runs in the workdir" || fail "cwd: $(sed -n 4p "$pinout")"

finish
