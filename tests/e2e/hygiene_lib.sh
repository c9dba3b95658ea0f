# Shared by the quiet_*, server_* and hygiene_* e2e tests (sourced, not run),
# on top of e2e_lib.sh.  They need $BENCHTUI and $BENCHTUI_DEMO (meson sets
# them) and jq.

. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?set BENCHTUI_DEMO to the benchtui-demo binary}"
need jq

T=$tmp
# Pids the test started itself, ended on the way out whatever happened.
OWN_PIDS=()
hygiene_cleanup() {
	local p
	for p in "${OWN_PIDS[@]}"; do
		kill -9 "$p" 2>/dev/null
	done
	e2e_cleanup
}
trap hygiene_cleanup EXIT

fail() {
	echo "FAIL: $*"
	if [ -f "$T/out/log.jsonl" ]; then
		echo "--- log.jsonl"
		cat "$T/out/log.jsonl"
	fi
	if [ -f "$T/stdout" ]; then
		echo "--- benchtui output"
		cat "$T/stdout"
	fi
	exit 1
}

# UTC now in the log's format; ISO strings of one format compare as times.
ts_now() {
	date -u +%Y-%m-%dT%H:%M:%S.%3NZ
}

# Whether pid is a live process (a zombie counts as gone: it runs nothing).
alive() {
	local st
	[ -r "/proc/$1/stat" ] || return 1
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}

# Fail unless every pid listed in the files given is gone.
assert_gone() {
	local f p
	for f in "$@"; do
		[ -s "$f" ] || fail "$f: no pid was recorded"
		while read -r p; do
			[ -n "$p" ] || continue
			[[ "$p" =~ ^[0-9]+$ ]] || fail "$f: \"$p\" is not a pid"
			if alive "$p"; then
				ps -o pid,ppid,pgid,sid,stat,args -p "$p"
				fail "pid $p (from $(basename "$f")) is still running"
			fi
		done <"$f"
	done
}

# Busy cores of the whole machine over $1 seconds, from /proc/stat (the test
# itself is idle meanwhile): the load other people put on this shared box.
busy_cores() {
	local hz a b
	hz=$(getconf CLK_TCK)
	a=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat)
	sleep "$1"
	b=$(awk '/^cpu /{print $2+$3+$4+$7+$8+$9}' /proc/stat)
	awk -v a="$a" -v b="$b" -v hz="$hz" -v s="$1" \
	    'BEGIN{printf "%.3f", (b - a) / hz / s}'
}

# gate_threshold: sets base, the machine's load now (busy cores over 1 s),
# and thr, a gate threshold above it the hog still crosses; skips the test
# on a machine already busier than a hog could show (this box is shared).
gate_threshold() {
	base=$(busy_cores 1)
	if awk -v b="$base" 'BEGIN { exit !(b > 0.7) }'; then
		echo "SKIP: the machine is already busy ($base cores)"
		exit 77
	fi
	thr=$(awk -v b="$base" 'BEGIN { t = b + 0.3; printf "%.2f", t < 0.3 ? 0.3 : t }')
}

# net_cell [PREFIX]: a round's "cells" member: one cell "net" whose server
# is the demo's, serving on $port; with PREFIX, a shell line runs it
# (sh -c "PREFIX demo serve ..."), say to write its pid first.  "$$" is a
# template escape: the shell's $$ is written $$$$.
net_cell() {
	local cmd="\"$BENCHTUI_DEMO\", \"serve\", \"--port\", \"$port\""
	[ -z "${1:-}" ] ||
		cmd="\"sh\", \"-c\", \"$1 '$BENCHTUI_DEMO' serve --port $port\""
	printf '"cells": [{"name": "net", "server": {"cmd": [%s],\n   "ready": {"tcp_port": %s, "timeout_s": 10}}}]' \
	    "$cmd" "$port"
}

# A CPU hog outside the round: a busy loop in its own process, at nice -10
# when we are root so the other builds on this shared machine cannot starve
# it; with CPU, pinned to that cpu (taskset).  Sets HOG to its pid.
start_hog() {
	local -a pin=()
	[ -z "${1:-}" ] || pin=(taskset -c "$1")
	if [ "$(id -u)" = 0 ]; then
		"${pin[@]}" nice -n -10 timeout 60 sh -c 'while :; do :; done' &
	else
		"${pin[@]}" timeout 60 sh -c 'while :; do :; done' &
	fi
	HOG=$!
	OWN_PIDS+=("$HOG")
	wait_until 10 hog_spinning || fail "the hog $HOG never ran"
}

# The cpu time the hog's loop (the child of timeout) has had, in clock
# ticks; 0 before it runs.
hog_ticks() {
	local c t
	c=$(pgrep -P "$HOG" | head -1)
	[ -n "$c" ] && t=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' \
	    "/proc/$c/stat" 2>/dev/null)
	echo "${t:-0}"
}

# Whether the hog's loop has had cpu time.
hog_spinning() { [ "$(hog_ticks)" -gt 0 ]; }

# hog_share TICKS0 SECS0: the share of one cpu the hog's loop has had
# since hog_ticks said TICKS0 at date +%s.%N SECS0, read from /proc (not
# from what benchtui measured of it).
hog_share() {
	awk -v a="$1" -v b="$(hog_ticks)" -v s="$2" -v e="$(date +%s.%N)" \
	    -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (b - a) / hz / (e - s) }'
}

stop_hog() {
	kill "$HOG" 2>/dev/null
	wait "$HOG" 2>/dev/null
	alive "$HOG" && fail "the hog $HOG did not stop"
	return 0
}

# run_round [WANT]: run $T/round.json headless into $T/out, its output in
# $T/stdout (fail prints it); sets rc, and with WANT fails on another exit
# status.
run_round() {
	"$BENCHTUI" run "$T/round.json" --out "$T/out" --headless >"$T/stdout" 2>&1
	rc=$?
	[ -z "${1:-}" ] || [ "$rc" = "$1" ] || fail "benchtui run exited $rc, expected $1"
}

# Events of one type from the round's log, one compact JSON per line.
events() {
	jq -c --arg t "$1" 'select(.t == $t)' "$T/out/log.jsonl"
}
