# Shared helpers of the lifecycle e2e tests (sourced, not a test itself),
# on top of e2e_lib.sh.
#
# Needs $BENCHTUI and $BENCHTUI_DEMO (meson sets them).  Each test gets a
# private temporary folder $T (e2e_lib.sh's $tmp), removed on exit.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?BENCHTUI_DEMO is not set (run through meson test)}"
need jq

T=$tmp
life_cleanup_hooks=()
life_cleanup() {
	local h
	for h in "${life_cleanup_hooks[@]}"; do eval "$h"; done
	# LIFE_KEEP=1 keeps the folder for a look after a failure.
	if [ -n "${LIFE_KEEP:-}" ]; then echo "kept $T" >&2; else e2e_cleanup; fi
}
trap life_cleanup EXIT

# A lifecycle test stops at its first failure: what follows builds on it.
fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# seed_kills: seed $RANDOM, which draws the kill times, from
# $BENCHTUI_TEST_SEED or a fresh seed, and print it: the same seed replays
# the same kill times (BENCHTUI_TEST_SEED=N meson test NAME).  Call it
# after any other use of $RANDOM (ports), so only the kill times repeat.
seed_kills() {
	local seed=${BENCHTUI_TEST_SEED:-$(( $(date +%s%N) % 1000000007 ))}
	case $seed in
	''|*[!0-9]*) fail "BENCHTUI_TEST_SEED=$seed: not a number" ;;
	esac
	echo "kill times seed: $seed (replay: BENCHTUI_TEST_SEED=$seed)"
	RANDOM=$seed
}

# make_round FILE NAME REPS MIB: a round of the demo workload, 3 arms (a
# baseline, another chunk size, an A/A copy) x 2 cells x REPS reps, no
# quiet gate, software counters only (this VM has no PMU).  DEMO_SPIN_MS
# in the environment sets how long each leg takes.
make_round() {
	local file=$1 name=$2 reps=$3 mib=$4
	cat >"$file" <<EOF
{
  "name": "$name",
  "reps": $reps,
  "bin": "$BENCHTUI_DEMO",
  "command": ["\${BIN}", "work", "--mib", "\${MIB}"],
  "baseline": "a",
  "quiet": false,
  "counters": ["task-clock", "page-faults"],
  "arms": [
    {"name": "a"},
    {"name": "b", "env": {"DEMO_CHUNK": "1024"}},
    {"name": "aa", "aa_of": "a"}
  ],
  "cells": [
    {"name": "c1", "vars": {"MIB": "$mib"}},
    {"name": "c2", "vars": {"MIB": "$mib"}}
  ]
}
EOF
}

# server_campaign ROUND DIR: run ROUND into DIR and kill -9 benchtui at 4
# random moments (seed_kills), resuming after each, until the round is
# complete.  A resumable stop (exit 3: say a restarted server lost a race
# with the dying one for its port) is resumed again, at most 3 times; a
# kill after the seal but before the exit leaves a complete round the next
# resume refuses (exit 2).  Sets kills and runs.
server_campaign() {
	local round=$1 dir=$2 pid rc stops=0 complete=0
	seed_kills
	kills=0 runs=0
	while [ $complete -eq 0 ]; do
		runs=$((runs + 1))
		[ $runs -le 30 ] || fail "round not complete after $runs runs"
		if [ $runs -eq 1 ]; then
			"$BENCHTUI" run "$round" --out "$dir" --headless >>"$T/out.txt" 2>&1 &
			pid=$!
			wait_for_line "$dir/log.jsonl" '.t == "round"' 20 ||
				{ kill -9 $pid; cat "$T/out.txt"; fail "run never logged its round event"; }
		else
			"$BENCHTUI" resume "$dir" --headless >>"$T/out.txt" 2>&1 &
			pid=$!
		fi
		if [ $kills -lt 4 ]; then
			sleep "0.$(printf '%03d' $((100 + RANDOM % 800)))"
			kill -9 $pid 2>/dev/null
		fi
		wait $pid 2>/dev/null
		rc=$?
		case $rc in
		0) complete=1 ;;
		137) kills=$((kills + 1)) ;;
		3)   stops=$((stops + 1))
		     [ $stops -le 3 ] || { tail -20 "$T/out.txt"; fail "too many resumable stops"; }
		     echo "resume stopped resumably (run $runs): $(grep 'benchtui:' "$T/out.txt" | tail -1)" ;;
		2)   [ -f "$dir/SHA256SUMS" ] && grep -q "sealed" "$T/out.txt" ||
			{ tail -20 "$T/out.txt"; fail "run/resume exited 2 (run $runs)"; }
		     complete=1 ;;
		*) tail -20 "$T/out.txt"; fail "run/resume exited $rc (run $runs)" ;;
		esac
	done
}

# check_no_live LOG FILTER WHAT: no process whose pid a LOG line matching
# the jq FILTER names is alive: every such pid is gone, a zombie, or now
# another program's than benchtui-demo (pid reuse).  WHAT names it in the
# failure.
check_no_live() {
	local log=$1 filter=$2 what=$3 pid exe
	for pid in $(jq -r "select($filter) | .pid" "$log" | sort -u); do
		[ -d "/proc/$pid" ] || continue
		grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null && continue
		exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
		[ "$exe" != "$(readlink -f "$BENCHTUI_DEMO")" ] ||
			fail "$what $pid is still alive ($exe)"
	done
}

# No server process LOG names is alive.
check_no_live_servers() {
	check_no_live "$1" '.t == "server" and .pid != null' server
}

# mount_tmpfs DIR SIZE: a small file system at DIR (a full disk on demand),
# unmounted on exit; the test is skipped where mounting needs root.
mount_tmpfs() {
	local out
	mkdir -p "$1"
	if ! out=$(mount -t tmpfs -o size="$2" tmpfs "$1" 2>&1); then
		echo "SKIP: cannot mount a tmpfs here ($out); needs root"
		exit 77
	fi
	life_cleanup_hooks+=("umount -l '$1' 2>/dev/null")
}

# check_output_fills_disk ROUND DIR MESSAGE: ROUND (cell c, arms a and b,
# 2 reps) run into DIR, on a small tmpfs, with $T/flag there, while which
# its leg c b r1 fills the disk writing its output: the round stops
# resumably (exit 3) naming legs/c-b-r1.out and MESSAGE, its log whole,
# that leg not counted; then, $T/flag gone, resume runs it again, every
# leg counted once, and seals.
check_output_fills_disk() {
	local round=$1 dir=$2 msg=$3 out=$T/${2##*/}.out rc
	local log=$dir/log.jsonl
	touch "$T/flag"
	"$BENCHTUI" run "$round" --out "$dir" --headless >"$out" 2>&1
	rc=$?
	[ $rc -eq 3 ] || { cat "$out"; fail "a leg's output filled the disk: exit $rc, expected 3"; }
	grep -q "legs/c-b-r1.out: $msg" "$out" ||
		{ cat "$out"; fail "the stop does not name the output file and $msg"; }
	check_log_whole "$log"
	[ "$(jq -s '[.[] | select(.t == "leg" and .arm == "b" and .rep == 1 and .status != "aborted")] | length' "$log")" -eq 0 ] ||
		fail "the leg whose output hit the full disk was recorded: $(grep '"arm":"b","rep":1' "$log")"
	echo "ok: stopped with: $(grep -o 'legs/c-b-r1.out: No space[^;]*' "$out" | head -1)"
	rm -f "$T/flag"
	"$BENCHTUI" resume "$dir" --headless >"$out.resume" 2>&1 ||
		{ cat "$out.resume"; fail "resume after the disk had room again failed"; }
	check_exactly_once "$log" 4
	check_sealed "$dir"
}

# check_complete DIR N: the round in DIR completed with its N planned legs
# counted exactly once, every log line whole, no leg process left, and the
# seal holds.
check_complete() {
	local log=$1/log.jsonl
	check_log_whole "$log"
	check_exactly_once "$log" "$2"
	check_no_live_legs "$log"
	check_sealed "$1"
}

# check_aborted DIR: the round in DIR was aborted resumably: its log whole,
# one abort event, the leg in flight logged as aborted, no done, no seal,
# and no leg process left.
check_aborted() {
	local log=$1/log.jsonl
	check_log_whole "$log"
	jq -s -e 'map(select(.t == "leg" and .status == "aborted")) | length == 1' "$log" >/dev/null ||
		fail "$log: expected one aborted leg line"
	jq -s -e 'map(select(.t == "abort")) | length == 1' "$log" >/dev/null ||
		fail "$log: expected one abort event"
	jq -s -e 'map(select(.t == "done")) | length == 0' "$log" >/dev/null ||
		fail "$log: an aborted round logged done"
	[ ! -e "$1/SHA256SUMS" ] || fail "an aborted round was sealed"
	check_no_live_legs "$log"
}

# Every line of LOG is a whole JSON object ending in a newline.
check_log_whole() {
	local log=$1
	[ -s "$log" ] || fail "$log is empty"
	[ "$(tail -c 1 "$log" | od -An -c | tr -d ' ')" = '\n' ] ||
		fail "$log: last line has no newline (torn)"
	# One jq over the lines (not one a line): the first that is not one
	# JSON object, with its number.
	local bad
	bad=$(jq -R -r '(try fromjson catch null) as $v |
	    if ($v | type) == "object" then empty
	    else "\(input_line_number): not a JSON object: \(.)" end' "$log" |
	    head -n 1)
	[ -z "$bad" ] || fail "$log:$bad"
}

# Exactly one counted leg line for each of the EXPECTED planned legs.
check_exactly_once() {
	local log=$1 expected=$2 counted dups
	counted=$(jq -s '[.[] | select(.t == "leg" and .status != "aborted")] | length' "$log")
	[ "$counted" -eq "$expected" ] ||
		fail "$log: $counted counted leg lines, expected $expected"
	dups=$(jq -s -r '[.[] | select(.t == "leg" and .status != "aborted")
	    | "\(.cell)/\(.arm)/r\(.rep)"] | group_by(.) | map(select(length > 1)
	    | .[0]) | join(" ")' "$log")
	[ -z "$dups" ] || fail "$log: legs counted more than once: $dups"
}

# No leg process of the round is alive (a leg_start line's pid).
check_no_live_legs() {
	check_no_live "$1" '.t == "leg_start"' "leg process"
}

# The seal holds, by benchtui verify and by sha256sum -c.
check_sealed() {
	local dir=$1 out
	[ -f "$dir/SHA256SUMS" ] || fail "$dir is not sealed (no SHA256SUMS)"
	out=$("$BENCHTUI" verify "$dir") || fail "verify $dir failed: $out"
	printf '%s\n' "$out" | grep -q '^OK: [0-9]* files' ||
		fail "verify $dir printed: $out"
	(cd "$dir" && sha256sum --quiet -c SHA256SUMS) ||
		fail "sha256sum -c disagrees in $dir"
	# The seal covers every file but itself.
	local listed actual
	listed=$(wc -l <"$dir/SHA256SUMS")
	actual=$(cd "$dir" && find . -type f ! -name SHA256SUMS ! -name SHA256SUMS.sig | wc -l)
	[ "$listed" -eq "$actual" ] ||
		fail "$dir/SHA256SUMS lists $listed files, the folder has $actual"
}

# wait_count FILE FILTER N [S]: wait (up to S seconds) until FILE holds at
# least N lines matching the jq filter.
wait_count() {
	local file=$1 filter=$2 want=$3 s=${4:-30} i
	for ((i = 0; i < s * 20; i++)); do
		[ -f "$file" ] && [ "$(jq -c "select($filter)" "$file" 2>/dev/null |
		    grep -c .)" -ge "$want" ] && return 0
		sleep 0.05
	done
	return 1
}

# wait_no_live_legs LOG [S]: wait (up to S seconds) until no leg process
# LOG names is alive, then check_no_live_legs.
wait_no_live_legs() {
	local log=$1 s=${2:-10} i
	for ((i = 0; i < s * 20; i++)); do
		(check_no_live_legs "$log") >/dev/null 2>&1 && return 0
		sleep 0.05
	done
	check_no_live_legs "$log"
}

# Wait (up to S seconds) until FILE holds a line matching the jq filter.
wait_for_line() {
	local file=$1 filter=$2 s=${3:-30} i
	for ((i = 0; i < s * 20; i++)); do
		if [ -f "$file" ] && jq -e "select($filter)" "$file" 2>/dev/null |
		    grep -q .; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}
