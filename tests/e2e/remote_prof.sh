#!/bin/bash
# test: needs=sshd,strace,perf,python3 timeout=120 long
# Profiles of a server on another host: python3 -m http.server on the ssh
# test host (an sshd on 127.0.0.1 this test starts), `benchtui load`
# against it from here, "syscalls" and "server_perf" of an arm.  The
# agent attaches strace and perf there and stops them; the files come
# back into legs/ (the strace table with its total row, perf report's
# text); the events carry the host and what the far side's checked
# answers said; verify passes.  Then a far side that sends a profile file
# larger than agent_limits.profile_bytes: the copy stops at the limit.
set -u
. "$(dirname "$0")/remote_lib.sh"
need strace perf python3
remote_up

port=$(free_port)
mkdir "$T/www"
head -c 65536 /dev/urandom >"$T/www/f.bin"
round() {
	jq -n --arg port "$port" --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" \
		--arg host "$RHOST" --arg dir "$T/agent" --arg wd "$T/www" '
	{"name": "farprof", "reps": 1, "baseline": "a", "quiet": false,
	 "workdir": $wd, "ssh": $ssh, "agent": [$b, "agent"],
	 "command": ["${BENCHTUI}", "load", ("http://127.0.0.1:" + $port + "/f.bin"),
	             "--requests", "300", "--warmup", "20",
	             "--metrics", "${METRICS}"],
	 "arms": [{"name": "a"}, {"name": "b"}],
	 "cells": [{"name": "http", "server": {"host": $host, "dir": $dir,
	     "cmd": ["python3", "-m", "http.server", "--protocol", "HTTP/1.1",
	             "--directory", $wd, "-b", "127.0.0.1", $port],
	     "ready": {"tcp_port": ($port | tonumber), "timeout_s": 20}}}],
	 "profile": {"arms": ["a"], "syscalls": {},
	             "server_perf": {"args": ["-F", "199"], "min_runs": 2,
	                             "min_samples": 20, "max_s": 5}}}' | jq "$@"
}
round '.agent_limits = {"profile_bytes": 100}' >"$T/small.json"
"$BENCHTUI" check "$T/small.json" >"$T/small.out" 2>&1 &&
	fail "check took a profile_bytes of 100"
grep -q 'agent_limits.profile_bytes' "$T/small.out" ||
	fail "check does not name agent_limits.profile_bytes: $(cat "$T/small.out")"
round . >"$T/round.json"
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check: $(cat "$T/check")"
"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc: $(tail -5 "$T/stdout")"
log=$T/out/log.jsonl

for a in a; do
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "syscalls")' "$log")
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile of $a: $ev"
	echo "$ev" | jq -e --arg h "$RHOST" '.status == "ok" and .host == $h and
		.traced_threads >= 1 and .detach.server_alive and
		.detach.server_answers and .detach.traced_after == 0 and
		.contaminated == false and .total.calls > 0 and
		.total.per_request > 0 and .requests == 300 and
		(.copied | length) == 2' >/dev/null || fail "$a: syscalls: $ev"
	txt=$T/out/legs/sys-http-$a.txt
	[ -f "$txt" ] && [ ! -L "$txt" ] || fail "no legs/sys-http-$a.txt"
	sum=$(awk 'NF >= 5 && $1 ~ /^[0-9]/ && $NF != "total" { s += $4 } END { print s + 0 }' "$txt")
	tot=$(awk 'NF >= 5 && $NF == "total" { print $4 }' "$txt")
	[ -n "$tot" ] && [ "$sum" = "$tot" ] || fail "$txt: rows add up to $sum, total '$tot'"
	# min_runs 2 within max_s 5: a loaded box under the sanitizer once
	# had time for one run, which the event marks under_min_runs.
	ev=$(jq -c --arg a "$a" 'select(.t == "profile" and .arm == $a and .kind == "server_perf")' "$log")
	[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one server_perf profile of $a: $ev"
	echo "$ev" | jq -e --arg h "$RHOST" '(.status == "ok" and .host == $h and
		.samples > 0 and (.top | length) > 0 and .processes >= 1 and
		(.runs >= 2 or (.stopped == "max_s" and .under_min_runs and
		 .runs >= 1)) and (.per_run.samples | length) == .runs and
		(.copied | length) == 2 * .runs) or
		(.status == "failed" and (.reason | test("blocked|paranoid|PMU")))' \
		>/dev/null || fail "$a: server_perf: $ev"
	echo "$a far server_perf: $(echo "$ev" | jq -c '[.status, .runs, .samples, .reason]')"
	if echo "$ev" | jq -e '.status == "ok"' >/dev/null; then
		rep=$T/out/legs/prof-http-$a-server.report
		grep -q 'flat profile by symbol' "$rep" || fail "$rep holds no flat profile"
		grep -q 'python' "$rep" || fail "$rep names no python symbol or object"
	fi
done
ok "syscalls and server_perf of the far server: taken there, copied back, with the host"

"$BENCHTUI" report "$T/out" --format text >"$T/report.txt" || fail "report failed"
grep -qi 'total' "$T/report.txt" || fail "the report has no syscall total: $(head -40 "$T/report.txt")"
"$BENCHTUI" verify "$T/out" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
ok "the report shows the profiles and verify passes"

# A far side that says its profile file holds 100 MiB and sends every
# piece full, against a limit of 1 MiB: the copy stops at the limit.
echo '{"mode": "bigfile"}' >"$T/mode.json"
round --arg h "$BENCHTUI_SOURCE_DIR/tests/e2e/hostile_agent.py" --arg m "$T/mode.json" \
	'.agent = ["python3", $h, $m] + .agent | .agent_limits = {"profile_bytes": 1048576} |
	.profile = {"arms": ["a"], "syscalls": {}}' >"$T/big.json"
"$BENCHTUI" run "$T/big.json" --headless --out "$T/big" >"$T/big.stdout" 2>&1
size=$(stat -c %s "$T/big/legs/sys-http-a.txt")
[ "$size" -eq 1048576 ] || fail "the far table was copied to $size bytes, not cut at 1048576"
jq -s -e 'map(select(.t == "profile" and .kind == "syscalls")) | length == 1 and
	(.[0] | .status == "failed" and (.copied[0] | .cut == true and
	 .bytes == 1048576 and .size == 104857600))' \
	"$T/big/log.jsonl" >/dev/null || fail "the event does not say the copy was cut: $(jq -c 'select(.t == "profile")' "$T/big/log.jsonl")"
du -s "$T/big" | awk '{ exit !($1 < 4096) }' || fail "the round folder grew past the limit: $(du -sh "$T/big")"
ok "a far profile file past agent_limits.profile_bytes is cut at the limit"

# A far host without strace: the profile fails there with its reason, and
# the round completes (check here cannot see that host's tools).
mkdir "$T/emptybin"
py=$(command -v python3)
[ -x /usr/bin/python3 ] && py=/usr/bin/python3
round --arg e "$T/emptybin" --arg py "$py" '.agent = ["env", ("PATH=" + $e)] + .agent |
	.cells[0].server.cmd[0] = $py | .profile = {"arms": ["a"], "syscalls": {}}' >"$T/none.json"
"$BENCHTUI" check "$T/none.json" >/dev/null 2>&1 || fail "check refused a far server's profile"
"$BENCHTUI" run "$T/none.json" --headless --out "$T/none" >"$T/none.stdout" 2>&1 ||
	fail "a far host without strace failed the round: $(tail -3 "$T/none.stdout")"
jq -s -e --arg h "$RHOST" 'map(select(.t == "profile")) | length == 1 and
	(.[0] | .status == "failed" and (.reason | test("strace is not installed on this host")) and
	 (.reason | contains($h)))' "$T/none/log.jsonl" >/dev/null ||
	fail "no failed profile naming the host and the missing strace: $(jq -c 'select(.t == "profile")' "$T/none/log.jsonl")"
ok "a far host without strace: the profile fails with its reason, the round completes"

# Legs on the far host (the round's "host"): each leg's output, kept
# there, is copied into legs/ here, as a local leg's would be.
round --arg h "$RHOST" '.host = $h | del(.profile)' >"$T/legs.json"
"$BENCHTUI" run "$T/legs.json" --headless --out "$T/legs" >"$T/legs.stdout" 2>&1 ||
	fail "the round on the far host failed: $(tail -3 "$T/legs.stdout")"
for a in a b; do
	f=$T/legs/legs/http-$a-r1.out
	want=$(jq -r --arg a "$a" 'select(.t == "leg" and .arm == $a) | .output_bytes' "$T/legs/log.jsonl")
	[ -f "$f" ] && [ ! -L "$f" ] || fail "no legs/http-$a-r1.out copied back"
	[ "$want" -gt 0 ] && [ "$(stat -c %s "$f")" = "$want" ] ||
		fail "legs/http-$a-r1.out holds $(stat -c %s "$f") bytes, the leg line says $want"
done
"$BENCHTUI" verify "$T/legs" >/dev/null 2>&1 || fail "verify of the far legs' round failed"
ok "a far leg's output is copied back into legs/"
