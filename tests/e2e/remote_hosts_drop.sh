#!/bin/bash
# test: timeout=120 needs=sshd est=5
# One round on three hosts, one of them dropped: host C's ssh is killed
# (by its pid) while a leg runs there.  C's legs stop; A and B go on to
# the end of theirs; the round then stops resumably (exit 3) naming C.
# resume reconnects and runs every leg left, each exactly once, on the
# host its rep was dealt to; verify passes.
. "$(dirname "$0")/remote_lib.sh"
remote_up
declare -a H P
hosts_up 3 3 HOLD=1
touch "$T/long"
hosts_round "$T/r.json" 6 --arg long "$T/long" '
	.command = ["sh", "-c", "[ -n \"$HOLD\" ] && [ -e \"$1\" ] && sleep 30; exec awk \"BEGIN { for (i = 0; i < 20000; i++) s += i }\"", "leg", $long]'
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" --host "${H[1]}" \
	--host "${H[2]}" --host "${H[3]}" >"$T/stdout" 2>&1 &
bpid=$!
OWN_PIDS+=("$bpid")
wait_until 30 sh -c "jq -e -s --arg c '${H[3]}' 'any(.t == \"leg_start\" and .host == \$c)' '$log' >/dev/null 2>&1" ||
	fail "no leg started on ${H[3]}"
sshpid=$(pgrep -P "$bpid" -f "127.0.0.1:${P[3]}" | head -1)
[ -n "$sshpid" ] || fail "no ssh child of benchtui for ${H[3]}"
kill "$sshpid"
wait "$bpid"
rc=$?
rm -f "$T/long"
[ $rc -eq 3 ] || fail "run exited $rc after the drop, not 3: $(tail -3 "$T/stdout")"
grep -F "${H[3]}" "$T/stdout" | grep -q "lost" ||
	fail "the stop does not name ${H[3]}: $(grep -m2 'stopped' "$T/stdout")"
for i in 1 2; do
	n=$(jq -s --arg h "${H[$i]}" 'map(select(.t == "leg" and .host == $h and .status == "ok")) | length' "$log")
	[ "$n" -eq 4 ] || fail "${H[$i]} ran $n of its 4 legs before the round stopped"
done
n=$(jq -s --arg h "${H[3]}" 'map(select(.t == "leg" and .host == $h and .status != "aborted")) | length' "$log")
[ "$n" -lt 4 ] || fail "${H[3]} finished all its legs although its ssh was killed"
ok "the dropped host stopped its own legs ($n of 4 done); the others ran theirs; exit 3: $(grep -m1 -F "${H[3]}" "$T/stdout" | cut -c1-300)"
"$BENCHTUI" resume "$T/out" --headless >"$T/resume" 2>&1 ||
	fail "resume exited $?: $(tail -3 "$T/resume")"
jq -e -s '[.[] | select(.t == "leg" and .status != "aborted")] | group_by([.cell, .arm, .rep]) |
	length == 12 and all(length == 1)' "$log" >/dev/null ||
	fail "resume did not run every leg exactly once: $(jq -c -s 'map(select(.t == "leg") | [.arm, .rep, .host, .status])' "$log")"
jq -e -s --arg a "${H[1]}" --arg b "${H[2]}" --arg c "${H[3]}" '[$a, $b, $c] as $h |
	map(select(.t == "leg")) | all(.host == $h[(.rep - 1) % 3])' "$log" >/dev/null ||
	fail "a leg ran on another host than its rep's"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed after resume"
ok "resume reconnected and ran every leg left once, each on its rep's host; verify passes"
finish
