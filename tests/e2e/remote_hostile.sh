#!/bin/bash
# test: est=40 needs=jq long
# test remote_hostile_numbers: est=30 arg=numbers long
# test remote_hostile_all: slow arg=all
# A hostile agent (hostile_agent.py, put in place of benchtui agent
# through the round's "agent" argv, reached over the test's own sshd)
# relays the real agent and, at one request, lies: events of every type
# of its own, replies and leg lines for things never asked, a 100 MB line,
# 1 GB of stderr, a refusal, +-1e308 and NaN for every number of an
# answer (a leg's on the legs' host too), another version, no answer to
# hello.  For each: the round stops
# resumably (exit 3, no done, no seal) naming the host and what was
# wrong; no local process outside the round is signalled (a canary whose
# pid the lies name lives on); the round folder stays within the limits;
# the log holds no event the operator's side did not write.  resume with
# the agent good again completes every leg exactly once and verify passes.
#
# Each lie is a round of its own (2-4 s, an ssh connection and an agent
# each), so the lies come in two tests that run beside each other: the
# lines (no argument) and the numbers ("numbers").  make check sends the
# events of three types, not all fifteen (one check refuses every type
# but quiet), and each number out of range (1e308) to each request but
# -1e308 and NaN to one (a sign, and a line that is not JSON, refused
# before any request's own checks); "all" (remote_hostile_all, suite
# 'slow') sends every lie.
part=${1:-lines}
# part NAME: whether this run sends NAME's lies.
part() { [ "$part" = "$1" ] || [ "$part" = all ]; }
. "$(dirname "$0")/remote_lib.sh"
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) ||
	{ echo "SKIP: no python3 for the hostile agent"; exit 77; }
remote_up
HOSTILE=$BENCHTUI_SOURCE_DIR/tests/e2e/hostile_agent.py

sleep 600 &
canary=$!
OWN_PIDS+=("$canary")
mkdir -p "$T/precious"
echo keep >"$T/precious/file"

# set_mode MODE: what the hostile agent does from its next start.
set_mode() {
	jq -n --arg m "$1" --argjson p "$canary" --arg path "$T/precious" \
		'{mode: $m, pid: $p, path: $path}' >"$T/mode.json"
}

# round FILE: the server cell on the test host, two reps, its agent the
# hostile one.
round() {
	remote_round "$1" 300 --arg py "$PY" --arg h "$HOSTILE" --arg m "$T/mode.json" \
		--arg b "$BENCHTUI" --arg legs "${LEGS_HOST:-}" '.reps = 2 | .arms = .arms[0:2] |
		.agent = [$py, $h, $m, $b, "agent"] | if $legs != "" then .host = $legs else . end'
}

# untouched DIR NAME: the canary lives, the precious folder is whole, no
# line of the log carries the agent's mark, the folder is within limits.
untouched() {
	local dir=$1 name=$2 size
	alive "$canary" || fail "$name: the canary (pid $canary) named by the agent was signalled"
	[ -f "$T/precious/file" ] || fail "$name: the path the agent named was touched"
	# Its words may be quoted in a message (cut, made printable); none
	# of its objects, pids or paths may be a line or a field.
	jq -c --argjson c "$canary" --arg p "$T/precious" 'select([.. | objects |
		select(has("evil") or .pid == $c or .path == $p or .cgroup == $p)] | length > 0)' \
		"$dir/log.jsonl" >"$T/found" || fail "$name: the log is not JSON lines"
	if [ -s "$T/found" ]; then
		head -c 600 "$T/found"
		fail "$name: the log holds something the agent wrote"
	fi
	grep -lq $'\e' "$dir/log.jsonl" && fail "$name: an escape byte reached the log"
	size=$(du -sb "$dir" | cut -f1)
	[ "$size" -lt $((4 * 1024 * 1024)) ] || fail "$name: the round folder holds $size bytes"
}

# stops NAME MODE PATTERN: a round with the agent in MODE stops with exit
# 3, resumably, its message naming the host and matching PATTERN (grep -E).
stops() {
	local name=$1 mode=$2 pat=$3 rc t0 took
	set_mode "$mode"
	round "$T/$name.json"
	t0=$(now_s)
	timeout 120 "$BENCHTUI" run "$T/$name.json" --headless --out "$T/$name" >"$T/$name.out" 2>&1
	rc=$?
	took=$(awk -v a="$(now_s)" -v b="$t0" 'BEGIN { printf "%.1f", a - b }')
	[ $rc -eq 3 ] || fail "$name: run exited $rc, not 3: $(tail -3 "$T/$name.out")"
	grep -Eq "root@127.0.0.1: .*$pat" "$T/$name.out" ||
		fail "$name: the message does not name the host and /$pat/: $(grep -m1 'round stopped' "$T/$name.out")"
	jq -s -e 'map(select(.t == "done" or .t == "seal")) | length == 0' "$T/$name/log.jsonl" >/dev/null ||
		fail "$name: the round was logged as done"
	[ ! -e "$T/$name/SHA256SUMS" ] || fail "$name: the round was sealed"
	untouched "$T/$name" "$name"
	ok "$name: stopped resumably in $took s, naming the host: $(grep -Eo "$pat" "$T/$name.out" | head -1)"
}

# resumes NAME: with the agent good again, resume completes every leg
# exactly once; verify passes; still nothing of the agent's in the log.
resumes() {
	local name=$1 rc
	set_mode good
	"$BENCHTUI" resume "$T/$name" --headless >"$T/$name.resume" 2>&1
	rc=$?
	[ $rc -eq 0 ] || fail "$name: resume exited $rc: $(tail -3 "$T/$name.resume")"
	jq -s -e '[.[] | select(.t == "leg" and .status == "ok")] | group_by([.cell, .arm, .rep]) |
		length == 4 and all(length == 1)' "$T/$name/log.jsonl" >/dev/null ||
		fail "$name: resume did not count every leg exactly once: $(jq -c 'select(.t == "leg") | [.arm, .rep, .status]' "$T/$name/log.jsonl")"
	"$BENCHTUI" verify "$T/$name" >/dev/null || fail "$name: verify failed after resume"
	untouched "$T/$name" "$name"
	ok "$name: resume completed every leg once; verify passes"
}

# Events of every type the log knows, each sent while the gate of the
# first leg is open: only the gate's own samples may pass, rebuilt.
types="leg_start cgroup done"
[ "$part" = all ] && types="round env leg_start leg server cgroup ledger done
	seal abort resume warning look gate prof"
if part lines; then
	for t in $types; do
		stops "event-$t" "event:$t" "a protocol error: the agent's line [0-9]+: an event of type other than quiet"
	done
	resumes event-cgroup
	resumes event-leg_start

	# A gate sample whose values are in range but carries pids and paths of
	# its own: passed on rebuilt, the extras gone; the round completes.
	set_mode "event:quiet"
	round "$T/quiet.json"
	"$BENCHTUI" run "$T/quiet.json" --headless --out "$T/quiet" >"$T/quiet.out" 2>&1 ||
		fail "quiet sample: run exited $?: $(tail -3 "$T/quiet.out")"
	jq -s -e 'map(select(.t == "quiet" and .host == "root@127.0.0.1")) | length == 1 and
		(.[0] | has("pid") or has("path") or has("cgroup") or has("msg") | not)' "$T/quiet/log.jsonl" >/dev/null ||
		fail "quiet sample: not passed on rebuilt: $(grep '"t":"quiet"' "$T/quiet/log.jsonl" | head -2)"
	untouched "$T/quiet" quiet
	ok "a far gate's sample is passed on rebuilt from its checked values, its extras dropped"

	# Answers with more than was asked (events, legs, pids inside them): only
	# the checked fields are kept; the round completes and verify passes.
	set_mode extra
	round "$T/extra.json"
	"$BENCHTUI" run "$T/extra.json" --headless --out "$T/extra" >"$T/extra.out" 2>&1 ||
		fail "extra: run exited $?: $(tail -3 "$T/extra.out")"
	"$BENCHTUI" verify "$T/extra" >/dev/null || fail "extra: verify failed"
	untouched "$T/extra" extra
	ok "answers carrying events, legs and pids of their own: only their checked fields are kept"

	stops stray stray "a protocol error: the agent's line [0-9]+ answers request another while open"
	stops legline legline "a protocol error: the agent's line [0-9]+ is not a reply or an event"
	stops longline longline "a protocol error: the agent's line [0-9]+: longer than 1048576 bytes"
	stops stderr stderr "a protocol error: ssh's stderr passed 1048576 bytes \\(agent_limits.stderr_bytes"
	log_bytes=$(stat -c %s "$T/stderr/servers/ssh-root_127.0.0.1.log")
	[ "$log_bytes" -le 1048576 ] || fail "stderr: the ssh log holds $log_bytes bytes"
	ok "stderr: the ssh log holds $log_bytes bytes of 1 GB"
	stops refuse-open refuse:open "the agent refused open: evil refusal: no open today"
	resumes refuse-open
	stops refuse-close refuse:close "the agent refused close: evil refusal: no close today"
fi

num="a protocol error: .*(out of range|not JSON|not an integer|not a number)"
# nums REQUEST VALUE...: a round whose agent answers REQUEST with VALUE
# for every number, for each VALUE.
nums() {
	local req=$1 v pat=$num
	shift
	[ "$req" = hello ] && pat="(a protocol error|the agent there is benchtui)"
	for v in "$@"; do
		stops "num-$req$v" "num:$req:$v" "$pat"
	done
}
if [ "$part" = all ]; then
	for req in open close start hello; do
		nums "$req" 1e308 -1e308 NaN
	done
elif part numbers; then
	nums open 1e308 -1e308 NaN
	for req in close start hello; do
		nums "$req" 1e308
	done
fi
if part numbers; then
	resumes "num-open1e308"

	# Legs on that host (the round's "host"): a leg's answer lies or is
	# refused.
	LEGS_HOST=$RHOST
	if [ "$part" = all ]; then nums leg 1e308 -1e308 NaN; else nums leg 1e308; fi
	stops refuse-leg refuse:leg "evil refusal: no leg today"
	resumes refuse-leg
	LEGS_HOST=
fi

part lines || finish
version=$("$BENCHTUI" --version | awk '{ print $2 }')
stops version version "the agent there is benchtui 9.9.9-evil \\(protocol [0-9]+\\), this is benchtui $version"

set_mode silent
round "$T/silent.json"
jq '.agent_limits = {"hello_s": 2}' "$T/silent.json" >"$T/silent2.json"
"$BENCHTUI" run "$T/silent2.json" --headless --out "$T/silent" >"$T/silent.out" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "silent: run exited $rc, not 3"
grep -q "root@127.0.0.1: the agent did not answer hello within 2 s (agent_limits.hello_s" "$T/silent.out" ||
	fail "silent: $(grep -m1 'round stopped' "$T/silent.out")"
untouched "$T/silent" silent
ok "an agent that never answers hello: said so, with the limit"
finish
