#!/bin/bash
# Per-leg overhead of a server on another host against the same server
# here, measured in one run.
#
#   bench/remote-overhead.sh [N] [TRIALS]      (defaults: N=200, TRIALS=3)
#
# The "other host" is an sshd this script starts on 127.0.0.1 (as the
# remote_* tests do: tests/e2e/remote_lib.sh), so what is measured is the
# protocol's own cost (ssh's encryption, the agent's work, the round
# trips), not a network's.  Four rounds of N legs of /bin/true, one arm,
# the demo server in the cell, gate off, default counters, headless, their
# order rotated from trial to trial:
#   local-cell    the cell's server here (a window a leg: srvmeter here)
#   remote-cell   the cell's server on the ssh host (open + close a leg)
#   local-leg     a server per leg here (N/4 legs: a start is slow)
#   remote-leg    a server per leg there (N/4 legs)
# Per-leg time is taken from each round's log: the span from the first
# leg_start to the last leg line over the legs between (set-up, the
# connection, provenance and the seal not counted).  Requests per leg are
# the leg lines' server.requests (each request gets one reply line; gate
# samples would add lines, and the gate is off).  The figures are medians
# over trials; the round trip is the handshake's median ping.
#
# Needs: root (the sshd logs in as root), openssh-server and -client, jq,
# a built benchtui and benchtui-demo (make build).  Not part of make
# check: a measurement wants an otherwise idle machine (the 1-minute load
# under 1.0; it is printed first).
set -uo pipefail

N=${1:-200}
TRIALS=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
export BENCHTUI=${BENCHTUI:-$here/build/meson/tui/benchtui}
export BENCHTUI_DEMO=${BENCHTUI_DEMO:-$here/build/meson/assets/benchtui-demo}
export BENCHTUI_SOURCE_DIR=$here
[ -x "$BENCHTUI" ] && [ -x "$BENCHTUI_DEMO" ] ||
	{ echo "remote-overhead: build first (make build)" >&2; exit 1; }
. "$here/tests/e2e/remote_lib.sh"
remote_up >/dev/null
TRUE=$(readlink -f "$(type -P true)")
echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)   N=$N TRIALS=$TRIALS"

# round VARIANT FILE: the round of that variant.
round() {
	local v=$1 n=$N edit
	case $v in
	local-cell)  edit='del(.cells[0].server.host, .cells[0].server.dir)' ;;
	remote-cell) edit='.' ;;
	local-leg)   edit='del(.cells[0].server.host, .cells[0].server.dir) | .arms[0].server_env = {"PER_LEG": "1"}' ;;
	remote-leg)  edit='.arms[0].server_env = {"PER_LEG": "1"}' ;;
	esac
	case $v in *-leg) n=$((N / 4)) ;; esac
	remote_round "$2" 1 --arg t "$TRUE" --argjson n "$n" "
		.reps = \$n | .command = [\$t] | .arms = [{\"name\": \"a\"}] |
		.baseline = \"a\" | del(.counters) | $edit"
}

# per_leg LOG: ms per leg over the legs between the first start and the
# last line.
per_leg() {
	jq -s -r '
		def secs: (.ts | .[0:19] + "Z" | fromdate) + (.ts | .[19:-1] | if . == "" then 0 else tonumber end);
		(map(select(.t == "leg_start"))[0] | secs) as $a |
		(map(select(.t == "leg")) | [(.[-1] | secs), length]) as [$b, $n] |
		(($b - $a) / ($n - 1) * 1000)' "$1"
}

# reqs LOG: the median of the leg lines' server.requests (remote only).
reqs() {
	jq -s -r 'map(select(.t == "leg") | .server.requests // empty) | sort |
		if length == 0 then "-" else .[length / 2 | floor] end' "$1"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

variants=(local-cell remote-cell local-leg remote-leg)
declare -A ms req
rtt=
for t in $(seq 1 "$TRIALS"); do
	for k in 0 1 2 3; do
		v=${variants[$(( (k + t - 1) % 4 ))]}
		round "$v" "$T/$v.json"
		rm -rf "$T/agent"
		if ! "$BENCHTUI" run "$T/$v.json" --headless --out "$T/$v-$t" >"$T/$v-$t.txt" 2>&1; then
			echo "remote-overhead: $v failed: $(tail -3 "$T/$v-$t.txt")" >&2
			exit 1
		fi
		ms[$v]+="$(per_leg "$T/$v-$t/log.jsonl") "
		req[$v]=$(reqs "$T/$v-$t/log.jsonl")
		[ "$v" = remote-cell ] && rtt+="$(jq -r '.hosts[1].rtt_ms.median' "$T/$v-$t/environment.json") "
	done
done

printf '%-12s %12s %14s %14s\n' variant ms_per_leg over_local requests_leg
for v in "${variants[@]}"; do
	m=$(tr ' ' '\n' <<<"${ms[$v]}" | grep . | median)
	base=${v#*-}
	l=$(tr ' ' '\n' <<<"${ms[local-$base]}" | grep . | median)
	printf '%-12s %12.3f %+14.3f %14s\n' "$v" "$m" "$(awk -v a="$m" -v b="$l" 'BEGIN { print a - b }')" "${req[$v]}"
done
echo "ssh round trip (handshake ping, median of trials): $(tr ' ' '\n' <<<"$rtt" | grep . | median) ms"
echo "trials (ms per leg): $(for v in "${variants[@]}"; do printf '%s: %s ' "$v" "${ms[$v]}"; done)"
