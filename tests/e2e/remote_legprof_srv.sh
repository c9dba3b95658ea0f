#!/bin/bash
# test: needs=sshd,strace,perf,python3 timeout=120 long
# Profiles of a cell server that runs with the legs on another host (the
# round's "host", the test's own sshd): python3 -m http.server there,
# `benchtui load` as the legs there too.  "syscalls" and "server_perf" of
# an arm are taken there through the agent, their load a leg the agent
# runs there (its output written in the agent's folder, copied back),
# which attaches the profiler when the load stops after its warm-up (the
# event's "attach"), then prof_stop and prof_get; the check that the
# server still answers a request made there; the files come back into
# legs/ and are sealed; verify passes.
set -u
. "$(dirname "$0")/remote_lib.sh"
need strace perf python3
remote_up

port=$(free_port)
mkdir "$T/www"
head -c 65536 /dev/urandom >"$T/www/f.bin"
jq -n --arg port "$port" --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" \
	--arg host "$RHOST" --arg dir "$T/agent" --arg wd "$T/www" '
{"name": "farlegsrv", "reps": 1, "baseline": "a", "quiet": false,
 "workdir": $wd, "ssh": $ssh, "agent": [$b, "agent"], "host": $host,
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
                             "min_samples": 20, "max_s": 5}}}' >"$T/round.json"
"$BENCHTUI" check "$T/round.json" >"$T/check" 2>&1 || fail "check refused server profiles with host: $(cat "$T/check")"
"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1 ||
	fail "run exited $?: $(tail -5 "$T/stdout")"
log=$T/out/log.jsonl
jq -e -s --arg h "$RHOST" 'map(select(.t == "leg")) | length == 2 and all(.host == $h and .status == "ok")' \
	"$log" >/dev/null || fail "the timed legs did not run there: $(jq -c 'select(.t == "leg") | [.arm, .host, .status]' "$log")"

ev=$(jq -c 'select(.t == "profile" and .kind == "syscalls")' "$log")
[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one syscalls profile: $ev"
echo "$ev" | jq -e --arg h "$RHOST" '.status == "ok" and .host == $h and
	.traced_threads >= 1 and .detach.server_alive and
	.detach.server_answers and (.detach.check | test("on the legs. host")) and
	.detach.traced_after == 0 and .total.calls > 0 and
	(.attach | startswith("after the load") and endswith("warm-up")) and (.copied | length) == 2' >/dev/null ||
	fail "syscalls: $ev"
[ -s "$T/out/legs/sys-http-a.txt" ] || fail "no legs/sys-http-a.txt copied back"
ev=$(jq -c 'select(.t == "profile" and .kind == "server_perf")' "$log")
[ "$(grep -c . <<<"$ev")" = 1 ] || fail "not one server_perf profile: $ev"
echo "$ev" | jq -e --arg h "$RHOST" '(.status == "ok" and .host == $h and
	.samples > 0 and .runs >= 1 and (.copied | length) == 2 * .runs and
	(.attach | startswith("after the load"))) or
	(.status == "failed" and (.reason | test("blocked|paranoid|PMU")))' \
	>/dev/null || fail "server_perf: $ev"
echo "far server_perf: $(echo "$ev" | jq -c '[.status, .runs, .samples, .reason]')"
# Each load leg ran there: its output was written in the agent's folder
# (and copied back into legs/).
for f in "$T"/out/legs/prof-http-a-server.r*.load.out "$T"/out/legs/sys-http-a.out; do
	[ -e "$f" ] || continue
	# (named by its agent's pid: PID.leg-legs_NAME)
	far=$(find "$T/agent" -name "*.leg-legs_$(basename "$f")" | head -1)
	[ -s "$far" ] || fail "$(basename "$f"): no load output in the agent's folder ($(ls "$T/agent"))"
	cmp -s "$far" "$f" || fail "$(basename "$f") differs from the far one"
	n=$((${n:-0} + 1))
done
# server_perf's runs (a loaded box may stop it at max_s after its
# first) and syscalls' one.
want=$(( $(echo "$ev" | jq '.runs // 0') + 1 ))
[ "${n:-0}" -ge "$want" ] ||
	fail "the profiles' load outputs ($n, not $want): $(ls "$T/out/legs")"
ok "syscalls and server_perf of the server there with the legs: taken there, its $n loads run there"

"$BENCHTUI" verify "$T/out" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
grep -q 'sys-http-a.txt' "$T/out/SHA256SUMS" || fail "the syscalls table is not sealed"
ok "the profiles' files are sealed; verify passes"

# On several hosts a server's profiles are taken on the first host
# (remote_hosts_srvprof.sh runs one): check takes them.
jq --arg h "$RHOST" '.hosts = [$h, "other@127.0.0.2"] | del(.host)' "$T/round.json" >"$T/two.json"
"$BENCHTUI" check "$T/two.json" >"$T/two.out" 2>&1 || fail "check refused server profiles on two hosts: $(cat "$T/two.out")"
ok "server profiles on several hosts: check takes them"
finish
