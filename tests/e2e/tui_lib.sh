# Shared by the tui_*.sh tests, on top of e2e_lib.sh ($tmp, fail, ok,
# free_port): a private tmux server per test (killed on exit), the demo
# round in a temp folder, and polling for screen text.
. "$(dirname "${BASH_SOURCE[0]}")/e2e_lib.sh"
: "${BENCHTUI_DEMO:?}"
need tmux

sock="bt$$"
tm() { tmux -L "$sock" "$@"; }
cleanup() {
	tm kill-server 2>/dev/null
	e2e_cleanup
}
trap cleanup EXIT

# demo_round FILE [MIB]: the demo round with our binary, the gate off, its
# server on a free port, 3 reps (18 legs, short), its two profiles cut to
# 200 samples (7 s of 9 at the demo's 2000; no console test reads their
# size, run_demo runs them whole), and optionally a heavier work cell
# (longer legs, for pausing and aborting).
demo_round() {
	demo_json '.quiet = false | .reps = 3 |
	    .profile.perf.min_samples = 200 |
	    .cells[0].vars.ARGS = ["--mib", $mib]' --arg mib "${2:-48}" > "$1"
}

# start W H CMD...: run CMD in a fresh session; its exit status lands in
# $tmp/exit ("EXIT=N").  The previous session's server, if any, is ended
# and its exit status removed first.
start() {
	local w=$1 h=$2
	shift 2
	# A socket of its own each time: a server just killed may still hold
	# the last one, and a new server there dies with it ("server exited
	# unexpectedly").
	tm kill-server 2>/dev/null
	rm -f "$tmp/exit"
	starts=$(( ${starts:-0} + 1 ))
	sock="bt$$.$starts"
	printf '%q ' "$@" > "$tmp/cmd"
	tm -f /dev/null new-session -d -x "$w" -y "$h" \
	    "cd $tmp && LANG=C.UTF-8 TERM=screen-256color $(cat "$tmp/cmd"); echo EXIT=\$? > $tmp/exit; sleep 600"
}

screen() { tm capture-pane -p; }
# screen_has / screen_lacks PATTERN: the screen matches (grep -E), or not.
screen_has() { screen | grep -Eq -- "$1"; }
screen_lacks() { ! screen_has "$1"; }

# wait_for PATTERN [SECONDS]: until the screen matches (grep -E).
wait_for() { wait_until "${2:-30}" screen_has "$1"; }

# wait_gone PATTERN [SECONDS]: until the screen no longer matches.
wait_gone() { wait_until "${2:-30}" screen_lacks "$1"; }

# drawn_at W H: the console has drawn itself for a W x H terminal: its
# footer on the last line and a pane's bottom-right corner in the last
# column of the line above.  What tmux keeps of a drawing for another size
# (cut, or padded with blank lines) fails one or the other.
drawn_at() {
	local w=$1 h=$2 s edge
	s=$(screen)
	sed -n "${h}p" <<<"$s" | grep -q 'q quit' || return 1
	edge=$(sed -n "$((h - 1))p" <<<"$s")
	grep -q '┘$' <<<"$edge" &&
	    [ "$(printf '%s' "$edge" | LC_ALL=C.UTF-8 wc -m)" -eq "$w" ]
}

# wait_drawn W H [SECONDS]: until drawn_at W H.
wait_drawn() { wait_until "${3:-10}" drawn_at "$1" "$2"; }

# wait_exit [SECONDS]: until the command ended; prints its status.
wait_exit() {
	if wait_until "${1:-30}" test -s "$tmp/exit"; then
		sed 's/EXIT=//' "$tmp/exit"
	else
		echo none
	fi
}

finish() {
	if [ "$fails" -ne 0 ]; then
		echo "--- last screen:"
		screen
		exit 1
	fi
	exit 0
}
