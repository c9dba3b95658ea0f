#!/bin/bash
# test: est=7 needs=python3,bc
# Small gaps, each its own case:
#   - a failed warm-up leg warns at once;
#   - a server that cannot start names its cell once in the stop message;
#   - ${SCRATCH} in server.cmd gives the right reason with scratch set;
#   - server_bin templates are expanded (its vars, as bin's);
#   - a leg line with a wall of the wrong type is named in the warnings;
#   - a deleted environment.json stops resume (exit 2, naming it);
#   - a full log disk's stop is printed once;
#   - a 10,000-cell matrix of long names checks in well under a second
#     (0.5 s of cpu).
. "$(dirname "$0")/life_lib.sh"

# --- a failed warm-up leg ---
cat >"$T/warm.json" <<'EOF'
{"name": "warm", "reps": 1, "warmup": 1, "baseline": "a", "quiet": false,
 "counters": ["task-clock"], "fail_fast": 0,
 "command": ["/bin/sh", "-c", "[ \"$0\" = a ] || { echo broken >&2; exit 1; }", "${ARM}"],
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/warm.json" --out "$T/w" --headless >"$T/w.out" 2>&1
grep -q 'warning: warm-up leg c b w1 failed; it is not counted, but the arm.s counted legs may fail the same way (its output is in legs/c-b-w1.out)' "$T/w.out" ||
	{ cat "$T/w.out"; fail "no warning for the failed warm-up leg"; }
echo "ok: a failed warm-up leg warns"

# --- the cell named once when its server cannot start ---
port=$(free_port)
python3 -c "
import socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $port)); s.listen(4); open('$T/held', 'w').close(); time.sleep(60)" &
holder=$!
life_cleanup_hooks+=("kill $holder 2>/dev/null")
wait_until 10 test -e "$T/held" || fail "the port holder did not start"
cat >"$T/srv.json" <<EOF
{"name": "srv", "reps": 1, "baseline": "a", "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/true"], "arms": [{"name": "a"}],
 "cells": [{"name": "net", "server": {"cmd": ["/bin/sleep", "30"], "ready": {"tcp_port": $port, "timeout_s": 2}}}]}
EOF
"$BENCHTUI" run "$T/srv.json" --out "$T/s" --headless >"$T/s.out" 2>&1
line=$(grep 'server not started' "$T/s.out")
[ -n "$line" ] && [ "$(grep -o 'cell net' <<<"$line" | wc -l)" = 1 ] ||
	{ cat "$T/s.out"; fail "the cell is not named once: $line"; }
echo "ok: $line"
kill $holder 2>/dev/null

# --- ${SCRATCH} in server.cmd, with scratch set ---
jq '.scratch = "scr" | .cells[0].server.cmd = ["/bin/sleep", "${SCRATCH}"]' "$T/srv.json" >"$T/scr.json"
"$BENCHTUI" check "$T/scr.json" >"$T/scr.out" 2>&1
grep -q 'has no value here: the scratch folder is a leg.s, emptied before each leg, and a cell.s server outlives its legs' "$T/scr.out" ||
	fail "the reason for \${SCRATCH} in server.cmd: $(cat "$T/scr.out")"
echo "ok: \${SCRATCH} in server.cmd: the right reason"

# --- server_bin with templates ---
mkdir -p "$T/tools"
cp "$BENCHTUI_DEMO" "$T/tools/srv"
port=$(free_port)
cat >"$T/sb.json" <<EOF
{"name": "sb", "reps": 1, "baseline": "a", "quiet": false, "counters": ["task-clock"],
 "vars": {"TOOLS": "$T/tools"},
 "command": ["$BENCHTUI_DEMO", "client", "--port", "$port", "--requests", "5"],
 "arms": [{"name": "a", "server_bin": "\${TOOLS}/srv"}, {"name": "b", "server_bin": "\${TOOLS}/srv"}],
 "cells": [{"name": "c", "server": {"cmd": ["\${SERVER_BIN}", "serve", "--port", "$port"], "ready": {"tcp_port": $port, "timeout_s": 10}}}]}
EOF
"$BENCHTUI" run "$T/sb.json" --out "$T/sb" --headless >"$T/sb.out" 2>&1 ||
	{ cat "$T/sb.out"; fail "a server_bin with templates did not run"; }
[ "$(jq -r 'select(.t == "server" and .state == "starting") | .argv[0]' "$T/sb/log.jsonl" | sort -u)" = "$T/tools/srv" ] ||
	fail "the server ran as $(jq -r 'select(.t == "server" and .state == "starting") | .argv[0]' "$T/sb/log.jsonl" | sort -u)"
echo "ok: server_bin \${TOOLS}/srv expanded"

# --- a wrong-type wall ---
cat >"$T/wt.jsonl" <<'EOF'
{"t":"round","name":"r","reps":2}
{"t":"leg","cell":"c","arm":"a","rep":1,"status":"ok","wall":1}
{"t":"leg","cell":"c","arm":"b","rep":1,"status":"ok","wall":"2"}
{"t":"leg","cell":"c","arm":"a","rep":2,"status":"ok","wall":1}
{"t":"leg","cell":"c","arm":"b","rep":2,"status":"ok","wall":true}
EOF
"$BENCHTUI" report "$T/wt.jsonl" --format json >"$T/wt.json" 2>/dev/null || fail "report of the wrong-type log"
jq -r '.warnings[]' "$T/wt.json" | grep -q 'c b rep 1: wall (a string, not a number)' &&
	jq -r '.warnings[]' "$T/wt.json" | grep -q 'c b rep 2: wall (a boolean, not a number)' ||
	fail "wrong-type walls are not named: $(jq -c .warnings "$T/wt.json")"
echo "ok: wrong-type walls are named in the warnings"

# --- a deleted environment.json at resume ---
jq '.reps = 200 | .warmup = 0 | .command = ["/bin/sh", "-c", "sleep 0.01"]' "$T/warm.json" >"$T/env.json"
set -m
"$BENCHTUI" run "$T/env.json" --out "$T/e" --headless >"$T/e.out" 2>&1 &
pid=$!
wait_for_line "$T/e/log.jsonl" '.t == "leg"' 20 || { kill -9 $pid; fail "no leg ran"; }
kill -INT $pid
wait $pid
set +m
rm "$T/e/environment.json"
"$BENCHTUI" resume "$T/e" --headless >"$T/e2.out" 2>&1
rc=$?
[ $rc -eq 2 ] && grep -q "environment.json: missing" "$T/e2.out" && [ ! -e "$T/e/SHA256SUMS" ] ||
	{ cat "$T/e2.out"; fail "resume without environment.json: exit $rc"; }
echo "ok: resume notices the deleted environment.json"

# --- a full log disk, said once ---
mnt=$T/mnt
mount_tmpfs "$mnt" 256k
jq '.reps = 100000' "$T/env.json" >"$T/full.json"
"$BENCHTUI" run "$T/full.json" --out "$mnt/d" --headless >"$T/f.out" 2>&1 &
pid=$!
wait_for_line "$mnt/d/log.jsonl" '.t == "leg"' 20 || { kill -9 $pid; fail "no leg on the tmpfs"; }
dd if=/dev/zero of="$mnt/filler" bs=4k >/dev/null 2>&1
wait $pid
n=$(grep -c 'No space left on device' "$T/f.out")
[ "$n" = 1 ] || { cat "$T/f.out"; fail "the full disk is said $n times"; }
echo "ok: the full disk is said once"

# --- a 10,000-cell matrix ---
# mx N FILE: a matrix of N x 100 cells.
mx() {
	python3 - "$2" "$1" <<'EOF'
import json, sys
json.dump({"name": "mx", "reps": 1, "command": ["/bin/true", "${A}", "${B}"],
           "baseline": "a", "arms": [{"name": "a"}], "quiet": False,
           "matrix": {"name": "averylongcommonprefixofcellnamesforthis-${A}-${B}",
                      "vars": {"A": ["a%d" % i for i in range(int(sys.argv[2]))],
                               "B": ["b%d" % i for i in range(100)]}}},
          open(sys.argv[1], "w"))
EOF
}
# check_cpu FILE: check's cpu seconds for FILE (user + system).
check_cpu() {
	local t
	TIMEFORMAT=%U+%S
	t=$( { time "$BENCHTUI" check "$1" >"$T/mx.out" 2>&1; } 2>&1 )
	[ $? -eq 0 ] || fail "check of the matrix failed: $(tail -2 "$T/mx.out")"
	echo "$t" | bc
}
mx 25 "$T/mx25.json"
mx 100 "$T/mx.json"
small=$(check_cpu "$T/mx25.json")
cpu=$(check_cpu "$T/mx.json")
grep -q '^leg 10000 ' "$T/mx.out" || fail "the matrix does not have 10,000 legs"
echo "check of a 10,000-cell matrix: $cpu s of cpu (2,500 cells: $small s)"
# Linear, 4 times the cells cost about 4 times the cpu; quadratic, 16
# (0.77 s against 0.17 s on one machine, 0.4 to 0.6 s linear on a slower
# one: a bound in seconds said more of the machine than of check).  A
# sanitizer build's times say nothing of that.
if ldd "$BENCHTUI" 2>/dev/null | grep -q libasan; then
	echo "(a sanitizer build: its cpu time is not held to the bound)"
else
	[ "$(echo "$cpu < 8 * ($small + 0.01)" | bc)" = 1 ] ||
		fail "check took $cpu s of cpu for 10,000 cells, $small s for 2,500: not linear"
	echo "ok: 4 times the cells, $(echo "scale=1; $cpu / ($small + 0.001)" | bc) times the cpu"
fi
exit 0
