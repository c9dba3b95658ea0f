#!/bin/bash
# test: est=20
# Legs on another host: the round's "host" runs every leg there through
# the agent (the test's own sshd, whose sessions live in a mount namespace
# of their own).  Each leg writes its mount namespace into a file named by
# its pid: every leg ran in the sshd's namespace, never this one's, and
# its pid is the one on its leg line (no leg process ran locally).  Every
# leg line carries the host and the far side's counters; leg_start names
# the host and no local pid; the console's log, arithmetic and seal stay
# here: report reads the round, verify passes.  With the gate on, that
# host's gate holds each leg there.  A connection dropped mid-leg stops
# the round resumably and ends the far leg; resume runs every leg once.
. "$(dirname "$0")/remote_lib.sh"
remote_up
mkdir -p "$T/ns"
remote_round "$T/r.json" 300 --arg ns "$T/ns" --arg h "$RHOST" '
	.reps = 3 | .host = $h |
	.command = ["sh", "-c", "readlink /proc/self/ns/mnt >\"$1/ns.$$$$\"; exec \"$2\" client --port \"$3\" --requests 300",
	            "leg", $ns, "${BIN}", "${PORT}"]'
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
here=$(readlink /proc/self/ns/mnt)
there=$(readlink /proc/"$SSHD_PID"/ns/mnt)
[ "$here" != "$there" ] || { echo "SKIP: the test sshd shares this mount namespace"; exit 77; }
n=$(jq -s 'map(select(.t == "leg")) | length' "$log")
[ "$n" -eq 9 ] || fail "$n leg lines, not 9"
jq -e -s --arg h "$RHOST" 'map(select(.t == "leg")) | all(.host == $h and .status == "ok" and (.pid | type) == "number")' \
	"$log" >/dev/null || fail "a leg line lacks the host: $(grep '"t":"leg"' "$log" | head -1)"
jq -e -s --arg h "$RHOST" 'map(select(.t == "leg_start")) | length == 9 and all(.host == $h and .pid == null)' \
	"$log" >/dev/null || fail "a leg_start names a local pid: $(grep '"t":"leg_start"' "$log" | head -1)"
for pid in $(jq -r 'select(.t == "leg") | .pid' "$log"); do
	[ -f "$T/ns/ns.$pid" ] || fail "leg pid $pid wrote no namespace file: the pid is not the leg's ($(ls "$T/ns"); $(cat "$T"/agent/*.leg-* | head -3))"
	[ "$(cat "$T/ns/ns.$pid")" = "$there" ] || fail "leg pid $pid ran in $(cat "$T/ns/ns.$pid"), not the far side's $there"
done
[ "$(find "$T/ns" -type f | wc -l)" -eq 9 ] || fail "not 9 legs ran: $(ls "$T/ns")"
ok "9 legs ran on the far side (mount namespace $there, this one $here), each pid its leg line's"
jq -e -s 'map(select(.t == "leg")) | all(.counters | type == "object" and length > 0)' "$log" >/dev/null ||
	fail "a leg line has no counters from the far side"
tc=$(jq -s 'map(select(.t == "leg") | .counters["task-clock"]) | map(select(. != null)) | length' "$log")
ok "counters from the far side on every leg line (task-clock on $tc of 9)"
jq -e '.hosts[1].role == "legs and servers"' "$T/out/environment.json" >/dev/null ||
	fail "environment.json's host is not the legs' host: $(jq -c '.hosts[1].role' "$T/out/environment.json")"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
"$BENCHTUI" report "$T/out" >"$T/report" 2>&1 || fail "report failed: $(tail -3 "$T/report")"
ok "the round is sealed here; verify passes and report reads it"

# With the quiet gate on, that host's gate holds each leg there (one that
# never holds on a busy box: the thresholds are far above two cores):
# each leg line says how it let the leg go and its foreign load there.
jq --arg h "$RHOST" '.reps = 1 | .quiet = {"max_foreign_cores": 64, "max_client_busy": 64,
	"max_server_busy": 64, "timeout_s": 5, "probe": false}' "$T/r.json" >"$T/q.json"
"$BENCHTUI" run "$T/q.json" --headless --out "$T/q" >"$T/q.stdout" 2>&1 ||
	fail "gated run exited $?: $(tail -5 "$T/q.stdout")"
jq -e -s 'map(select(.t == "leg")) | length == 3 and all(.gate == "quiet" and (.wait_s | type) == "number" and
	(.foreign | type) == "number")' "$T/q/log.jsonl" >/dev/null ||
	fail "a gated leg line lacks the far gate: $(grep '"t":"leg"' "$T/q/log.jsonl" | head -1 | cut -c1-600)"
"$BENCHTUI" verify "$T/q" >/dev/null || fail "verify failed (gated)"
ok "the legs' host's gate held each leg there: gate, wait_s and foreign on every line"

# The connection dropped while a leg runs there (ssh killed by its pid):
# the round stops resumably naming the host, the far leg is ended (its
# agent's input closed), and resume runs every leg exactly once.
touch "$T/long"
jq --arg long "$T/long" --arg pids "$T/farpid" '.reps = 2 |
	.command = ["sh", "-c", "echo $$$$ >>\"$3\"; [ -e \"$1\" ] && sleep 60; exec \"$2\" client --port \"$4\" --requests 300",
	            "leg", $long, "${BIN}", $pids, "${PORT}"]' "$T/r.json" >"$T/d.json"
"$BENCHTUI" run "$T/d.json" --headless --out "$T/d" >"$T/d.stdout" 2>&1 &
bpid=$!
OWN_PIDS+=("$bpid")
wait_until 30 test -s "$T/farpid" || fail "no leg started there"
farpid=$(head -1 "$T/farpid")
sshpid=$(pgrep -P "$bpid" -x ssh)
[ -n "$sshpid" ] || fail "no ssh child of benchtui"
kill "$sshpid"
rm -f "$T/long"
wait "$bpid"
rc=$?
[ $rc -eq 3 ] || fail "run exited $rc after the drop, not 3: $(tail -3 "$T/d.stdout")"
grep -q "root@127.0.0.1: the connection to the agent was lost" "$T/d.stdout" ||
	fail "the stop does not name the host: $(grep -m1 'round stopped' "$T/d.stdout")"
wait_until 5 sh -c "! kill -0 $farpid 2>/dev/null" || fail "the far leg (pid $farpid) outlived its connection"
"$BENCHTUI" resume "$T/d" --headless >"$T/d.resume" 2>&1 || fail "resume exited $?: $(tail -3 "$T/d.resume")"
jq -e -s '[.[] | select(.t == "leg" and .status == "ok")] | group_by([.arm, .rep]) | length == 6 and all(length == 1)' \
	"$T/d/log.jsonl" >/dev/null || fail "resume did not run every leg once: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status]' "$T/d/log.jsonl")"
"$BENCHTUI" verify "$T/d" >/dev/null || fail "verify failed after resume"
ok "a drop mid-leg there stops the round resumably (the far leg ended); resume ran every leg once"
finish
