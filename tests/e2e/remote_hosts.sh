#!/bin/bash
# test: timeout=120 needs=sshd tui est=6
# One round on three hosts (run --host A --host B --host C): three sshd
# instances on 127.0.0.1 stand in for three machines, each agent in a
# folder of its own; host B's sessions set SLOW, which makes arm b's leg
# three times longer there only.  Every leg line carries its host, each
# rep ran whole on one host (rep r on the (r-1) mod 3-th), every leg ran
# exactly once, verify passes; the report shows each host's estimate and
# says the effect depends on the machine, naming B.
. "$(dirname "$0")/remote_lib.sh"
# The report's per-host part (hosts, depends_on_machine, hosts_differ)
# is the arithmetic's; 0 checks the engine's part alone.
check_host_report=1
remote_up
declare -a H P
hosts_up 3 2 SLOW=1
hosts_round "$T/r.json" 18
log=$T/out/log.jsonl
"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" --host "${H[1]}" \
	--host "${H[2]}" --host "${H[3]}" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
hosts=$(jq -c -n --arg a "${H[1]}" --arg b "${H[2]}" --arg c "${H[3]}" '[$a, $b, $c]')
jq -e -s --argjson h "$hosts" 'map(select(.t == "round")) | .[0] |
	.hosts == $h and .hosts_given == true and .deal == "rep"' "$log" >/dev/null ||
	fail "the round event does not record the hosts: $(grep -m1 '"t":"round"' "$log" | cut -c1-300)"
n=$(jq -s 'map(select(.t == "leg")) | length' "$log")
[ "$n" -eq 36 ] || fail "$n leg lines, not 36"
jq -e -s --argjson h "$hosts" 'map(select(.t == "leg")) |
	all(.status == "ok" and (.host as $x | $h | index($x)) != null)' "$log" >/dev/null ||
	fail "a leg line lacks its host: $(grep -m1 '"t":"leg"' "$log" | cut -c1-300)"
jq -e -s --argjson h "$hosts" 'map(select(.t == "leg_start")) | length == 36 and
	all((.host as $x | $h | index($x)) != null and .pid == null)' "$log" >/dev/null ||
	fail "a leg_start lacks its host"
jq -e -s 'map(select(.t == "leg")) | group_by([.cell, .arm, .rep]) | length == 36 and all(length == 1)' \
	"$log" >/dev/null || fail "not every leg ran exactly once"
jq -e -s --argjson h "$hosts" 'map(select(.t == "leg")) | group_by(.rep) |
	all((map(.host) | unique | length) == 1 and length == 2 and .[0].host == $h[(.[0].rep - 1) % 3])' \
	"$log" >/dev/null || fail "a rep did not run whole on its host: $(jq -c -s 'map(select(.t == "leg") | [.rep, .arm, .host])' "$log")"
ok "36 legs on three hosts, each once, every rep whole on its host, every line with its host"
# All at once: legs of different hosts overlapped in time.
jq -e -s 'map(select(.t == "leg_start" or .t == "leg")) |
	reduce .[] as $e ({n: 0, max: 0}; if $e.t == "leg_start" then .n += 1 | .max = ([.max, .n] | max) else .n -= 1 end) |
	.max >= 2' "$log" >/dev/null || fail "no two legs were ever in flight at once"
ok "the hosts ran their legs at the same time"
"$BENCHTUI" verify "$T/out" >/dev/null || fail "verify failed"
"$BENCHTUI" report "$T/out" >"$T/report" 2>&1 || fail "report failed: $(tail -3 "$T/report")"
ok "verify passes, report reads the round"
# The console: each host its line in the quiet box, the legs a host column.
replay_shows "$T/out" 130 "${H[2]#ssh://}: 12 legs" "host B has its line in the quiet box"
replay_shows "$T/out" 130 "rep  *host " "the legs table has a host column"
if [ "$check_host_report" = 1 ]; then
	"$BENCHTUI" report "$T/out" --format json >"$T/report.json" ||
		fail "report --format json failed"
	jq -e --argjson h "$hosts" --arg b "${H[2]}" '.cells.c.arms.b.metrics.cpu as $m |
		($m.hosts | keys | sort) == ($h | sort) and
		($m.hosts | to_entries | all(.value | has("estimate") and has("lo") and has("hi") and .n == 6)) and
		$m.depends_on_machine == true and $m.hosts_differ == [$b]' "$T/report.json" >/dev/null ||
		fail "the json report lacks each host's estimate or names the wrong host: $(jq -c '.cells.c.arms.b.metrics.cpu | {hosts, depends_on_machine, hosts_differ}' "$T/report.json" 2>&1 | cut -c1-600)"
	grep "depends on the machine" "$T/report" | grep -qF "${H[2]}" ||
		fail "the text report does not say the effect depends on the machine, naming ${H[2]}: $(grep -i -m3 'host\|machine' "$T/report")"
	ok "the report shows each host's estimate and names ${H[2]} as the host that differs"
fi
finish
