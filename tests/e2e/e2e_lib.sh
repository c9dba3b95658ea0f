# Shared by the e2e tests (sourced, not a test itself; life_lib.sh and
# hygiene_lib.sh build on it): the binary meson names, a private temporary
# folder $tmp removed on exit, failures counted (fail, ok, finish), the
# tools a test needs, free loopback ports and the demo round on one.
[ -z "${E2E_LIB:-}" ] || return 0   # sourced once, whichever lib asks
E2E_LIB=1
set -u
: "${BENCHTUI:?BENCHTUI is not set (run through meson test)}"
: "${BENCHTUI_SOURCE_DIR:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"

# need CMD...: skip the test (exit 77) when a tool it uses is missing.
need() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "SKIP: $c is not installed"; exit 77; }
	done
}

# The test's own declaration (its "# test: ... needs=TOOL,TOOL" lines,
# tools/test-needs): a tool it names is needed before anything runs.
need_declared() {
	local line w tools
	while IFS= read -r line; do
		for w in ${line#*:}; do
			case $w in needs=*) tools=${w#needs=}; need ${tools//,/ } ;; esac
		done
	done < <(head -40 "$1" | grep -E '^# test( [A-Za-z0-9_.+-]+)?:')
}
need_declared "${BASH_SOURCE[-1]}"

# need_hup: skip (77) when this test was started with SIGHUP ignored (under
# nohup, say): benchtui then keeps ignoring it, as it should, and no hangup
# the test sends can reach it.  Bit 0 of SigIgn is SIGHUP.
need_hup() {
	local ign
	ign=$(awk '/^SigIgn:/ { print $2 }' /proc/$$/status)
	if (( 16#${ign:-0} & 1 )); then
		echo "SKIP: started with SIGHUP ignored (nohup?): benchtui keeps ignoring it"
		exit 77
	fi
}

# BENCHTUI_COUNTERS_BACKEND (meson sets it for the counters' tests and
# their raw copies): $BENCHTUI counts with that backend, or the test
# would check the other one unseen.
if [ -n "${BENCHTUI_COUNTERS_BACKEND:-}" ]; then
	case $("$BENCHTUI" --version) in
	*"(counters: $BENCHTUI_COUNTERS_BACKEND)") ;;
	*) echo "FAIL: $BENCHTUI does not count with $BENCHTUI_COUNTERS_BACKEND: $("$BENCHTUI" --version)"
	   exit 1 ;;
	esac
fi

tmp=$(mktemp -d /tmp/benchtui-e2e.XXXXXX)
# A sealed round's files are read-only: made writable to be removed.
e2e_cleanup() {
	chmod -R u+w "$tmp" 2>/dev/null
	rm -rf "$tmp"
}
trap e2e_cleanup EXIT

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
# finish: the test's status, 1 after any fail.
finish() {
	[ "$fails" -eq 0 ] || { echo "$fails failures"; exit 1; }
	echo "all passed"
	exit 0
}

# wait_until SECONDS CMD...: run CMD every 0.1 s until it succeeds; 1 when
# it never did.
wait_until() {
	local n=$(( $1 * 10 ))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		n=$((n - 1))
	done
	return 1
}

# lines_in FILE N: FILE holds at least N lines (a pid file filling up).
lines_in() { [ "$(grep -c . "$1" 2>/dev/null)" -ge "$2" ]; }

# Whether something listens on loopback PORT.
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# free_port [N]: a loopback port nobody listens on, and the N-1 after it
# free too.  Drawn below the kernel's ephemeral range (32768 up), so no
# outgoing connection takes it meanwhile; tests running beside each other
# draw apart.
free_port() {
	local n=${1:-1} p i busy
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 12000))
		busy=0
		for ((i = 0; i < n; i++)); do
			port_busy $((p + i)) && busy=1
		done
		[ $busy = 1 ] || { echo "$p"; return 0; }
	done
	echo "no free port" >&2
	return 1
}

# demo_json FILTER [JQ-ARGS...]: the demo round (assets/demo/demo.json) on
# stdout, with $BENCHTUI_DEMO as its binary and its server on a free port
# instead of the demo's 47311 (other builds' tests may run the demo round
# on this machine at the same moment), then the caller's jq FILTER, given
# JQ-ARGS (--arg NAME VALUE ...).
demo_json() {
	local filter=$1 port
	shift
	port=$(free_port) || return 1
	jq --arg b "$BENCHTUI_DEMO" --argjson p "$port" "$@" '
	    (.cells[].server | select(. != null)) |= (.ready.tcp_port = $p |
	        .cmd |= map(if . == "47311" then ($p | tostring) else . end)) |
	    (.cells[].vars.ARGS) |= map(if . == "47311" then ($p | tostring) else . end) |
	    .bin = $b | '"$filter" "$BENCHTUI_SOURCE_DIR/assets/demo/demo.json"
}
