# Shared by the remote_* e2e tests (sourced, not run), on top of
# hygiene_lib.sh: the ssh test host.  An sshd this test starts itself on
# 127.0.0.1 at a free port, with a throw-away host key and user key and an
# authorized_keys for root in the test's own folder, stopped by its pid at
# the end.  No traffic leaves the machine.  Where the machine has no sshd
# or will not run one (not root, no mount namespace and no /run/sshd), the
# test exits 77 saying why.
#
# After remote_up:
#   $RHOST      the host string a round names ("root@127.0.0.1")
#   $RPORT      sshd's port
#   $RKEY       the user key
#   ssh_json    the round's "ssh" (a JSON array): this host's key, port
#               and known_hosts, no user config
#   remote_round FILE [JQ]  the demo's server cell with its server on the
#               test host, the agent this build's benchtui, written to FILE
. "$(dirname "${BASH_SOURCE[0]}")/hygiene_lib.sh"
need ssh ssh-keygen
SSHD=${SSHD:-/usr/sbin/sshd}
[ -x "$SSHD" ] || { echo "SKIP: $SSHD is not installed (apt-get install openssh-server)"; exit 77; }

RHOST=root@127.0.0.1
RDIR=$T/ssh
SSHD_PID=

remote_cleanup() {
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	hygiene_cleanup
}
trap remote_cleanup EXIT

# sshd wants its privilege separation folder, /run/sshd.  In a mount
# namespace of its own a tmpfs over /run gives it one and leaves the
# machine's /run alone; without one, an existing /run/sshd will do.  In
# the foreground (-D), so its pid is the one started here.
remote_sshd_start() {
	if unshare -m true 2>/dev/null; then
		unshare -m sh -c 'mount -t tmpfs -o mode=755 none /run &&
			mkdir -m 755 /run/sshd && exec "$0" -D -e -f "$1"' \
			"$SSHD" "$RDIR/sshd_config" >"$RDIR/sshd.log" 2>&1 &
	elif [ -d /run/sshd ]; then
		"$SSHD" -D -e -f "$RDIR/sshd_config" >"$RDIR/sshd.log" 2>&1 &
	else
		echo "SKIP: sshd needs /run/sshd, and this machine has neither it nor a mount namespace to give it one"
		exit 77
	fi
	SSHD_PID=$!
}

remote_up() {
	local sshv
	[ "$(id -u)" = 0 ] || { echo "SKIP: the ssh test host logs in as root, and this test runs as $(id -un)"; exit 77; }
	mkdir -p "$RDIR"
	ssh-keygen -q -t ed25519 -N '' -f "$RDIR/host_key" -C benchtui-test-host ||
		{ echo "SKIP: ssh-keygen failed"; exit 77; }
	ssh-keygen -q -t ed25519 -N '' -f "$RDIR/user_key" -C benchtui-test-user
	cp "$RDIR/user_key.pub" "$RDIR/authorized_keys"
	RPORT=$(free_port)
	RKEY=$RDIR/user_key
	cat >"$RDIR/sshd_config" <<-EOF
		Port $RPORT
		ListenAddress 127.0.0.1
		HostKey $RDIR/host_key
		PidFile $RDIR/sshd.pid
		AuthorizedKeysFile $RDIR/authorized_keys
		PermitRootLogin prohibit-password
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		UsePAM no
		StrictModes no
		PrintMotd no
		LogLevel ERROR
	EOF
	echo "[127.0.0.1]:$RPORT $(cut -d' ' -f1,2 "$RDIR/host_key.pub")" >"$RDIR/known_hosts"
	remote_sshd_start
	if ! wait_until 10 port_busy "$RPORT"; then
		echo "SKIP: sshd did not start: $(tail -3 "$RDIR/sshd.log")"
		exit 77
	fi
	mapfile -t sshv < <(ssh_json | jq -r '.[]')
	if ! "${sshv[@]}" "$RHOST" true 2>"$RDIR/probe.err"; then
		echo "SKIP: the ssh test host refuses a login: $(cat "$RDIR/probe.err")"
		exit 77
	fi
	ok "ssh test host: sshd pid $SSHD_PID on 127.0.0.1:$RPORT"
}

ssh_json() {
	jq -nc --arg port "$RPORT" --arg key "${1:-$RKEY}" --arg kh "$RDIR/known_hosts" \
		'["ssh", "-F", "/dev/null", "-o", "BatchMode=yes",
		  "-o", "IdentitiesOnly=yes", "-i", $key, "-p", $port,
		  "-o", ("UserKnownHostsFile=" + $kh), "-o", "StrictHostKeyChecking=yes",
		  "-o", "LogLevel=ERROR"]'
}

# remote_round FILE REQUESTS [JQ-ARGS... JQ]: the demo round cut to its
# server cell (the client pinned nowhere, a free port), its server on the
# test host, the agent this build's benchtui, its folder $T/agent; JQ
# (with jq's own arguments before it) edits more.
remote_round() {
	local file=$1 requests=$2 edit=. port
	local -a args=()
	shift 2
	if [ $# -gt 0 ]; then
		edit=${!#}
		args=("${@:1:$#-1}")
	fi
	port=$(free_port)
	jq --arg port "$port" --argjson ssh "$(ssh_json)" --arg b "$BENCHTUI" \
		--arg demo "$BENCHTUI_DEMO" --arg host "$RHOST" --arg dir "$T/agent" \
		--arg wd "$BENCHTUI_SOURCE_DIR/assets/demo" --arg req "$requests" '
		.bin = $demo | .workdir = $wd | del(.profile) | del(.cpus) |
		.cells = [.cells[] | select(.server)] |
		.cells[0].vars.ARGS = ["--port", $port, "--requests", $req] |
		.cells[0].vars.PORT = $port |
		.cells[0].server.cmd[3] = $port |
		.cells[0].server.ready.tcp_port = ($port | tonumber) |
		.cells[0].server.host = $host | .cells[0].server.dir = $dir |
		.ssh = $ssh | .agent = [$b, "agent"] | .quiet = false' \
		"$BENCHTUI_SOURCE_DIR/assets/demo/demo.json" | jq "${args[@]}" "$edit" >"$file"
}

# tree_gone FILE: every pid listed in FILE is gone.
tree_gone() {
	local p
	while read -r p; do
		[ -n "$p" ] && alive "$p" && return 1
	done <"$1"
	return 0
}

# The seconds since the epoch, to the millisecond.
now_s() { date +%s.%N; }
# secs_under A B: A < B, both decimal seconds.
secs_under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# The pids of the ready events' servers in a log, one a line.
server_pids() {
	jq -r 'select(.t == "server" and .state == "ready") | .pid' "$1"
}

# remote_tree_start: a round whose legs sleep while $T/long exists (the
# first leg, cut short by the test), then load the server briefly, and whose
# server forks a child (a tree), started in the background: $bpid, $log.
# Waits for the first leg; the server's tree, one pid a line, in $T/tree.
remote_tree_start() {
	local spid
	touch "$T/long"
	remote_round "$T/r.json" 300 --arg long "$T/long" '
		.reps = 2 |
		.command = ["sh", "-c", "[ -e \"$1\" ] && sleep 30; exec \"$2\" client --port \"$3\" --requests 300",
		            "leg", $long, "${BIN}", "${PORT}"] |
		.cells[0].server.cmd = ["sh", "-c", "sleep 600 & exec \"$0\" serve --port \"$1\"",
		                        "${BIN}", .cells[0].vars.PORT]'
	log=$T/out/log.jsonl
	"$BENCHTUI" run "$T/r.json" --headless --out "$T/out" >"$T/stdout" 2>&1 &
	bpid=$!
	OWN_PIDS+=("$bpid")
	wait_until 30 grep -q '"t":"leg_start"' "$log" 2>/dev/null || fail "no leg started"
	spid=$(server_pids "$log")
	[ -n "$spid" ] || fail "no server pid in the ready event"
	cat /proc/"$spid"/task/*/children 2>/dev/null | tr ' ' '\n' | grep . >"$T/tree"
	echo "$spid" >>"$T/tree"
	[ "$(wc -l <"$T/tree")" -ge 2 ] || fail "the server's tree is not two processes: $(cat "$T/tree")"
}

# replay_shows DIR WIDTH PATTERN WHAT: the console replaying DIR in a
# terminal WIDTH columns wide shows a line matching PATTERN (grep) within
# 30 s (a loaded box starts a console slowly): ok WHAT, else the screen
# and fail.  No tmux: nothing is checked.
replay_shows() {
	# A socket of each call's own: the last call's server may still be
	# going away (kill-server does not wait), and a new session on its
	# socket then fails with "server exited unexpectedly".
	replay_shows_n=$((${replay_shows_n:-0} + 1))
	local sock=$T/tmux.$replay_shows_n.sock
	command -v tmux >/dev/null || return 0
	tmux -S "$sock" new-session -d -x "$2" -y 35 "$BENCHTUI --replay $1 --instant; sleep 60"
	if wait_until 30 sh -c "tmux -S '$sock' capture-pane -p | grep -q '$3'"; then
		ok "$4"
	else
		tmux -S "$sock" capture-pane -p | head -12
		fail "not shown: $4"
	fi
	# Quit it with q, as a user does, before the server goes: a console
	# hung up by kill-server under the sanitizer build was once left
	# spinning in LeakSanitizer's exit scan, taking a core from every
	# later test.  A console that does not quit is killed by its pid.
	local shpid bt
	shpid=$(tmux -S "$sock" display -p '#{pane_pid}' 2>/dev/null)
	bt=$(pgrep -P "${shpid:-0}" -f 'benchtui' 2>/dev/null | head -1)
	tmux -S "$sock" send-keys q 2>/dev/null
	if [ -n "$bt" ] && ! wait_until 10 sh -c "! kill -0 $bt 2>/dev/null"; then
		fail "the replay console did not quit on q"
		kill -9 "$bt" 2>/dev/null
	fi
	tmux -S "$sock" kill-server 2>/dev/null
}

# remote_host_add [NAME=VALUE...]: one more ssh test host (after
# remote_up), an sshd of its own on another free port with the same keys,
# whose sessions get each NAME=VALUE (sshd's SetEnv): several "hosts" on
# one machine, each with an environment of its own.  Sets $HPORT and
# $HPID and adds the port to known_hosts; the sshd is stopped by its pid
# at the end.  A round names it as "ssh://root@127.0.0.1:$HPORT" (ssh
# without -p: hosts_ssh_json).
remote_host_add() {
	local conf
	HPORT=$(free_port)
	conf=$RDIR/sshd_config.$HPORT
	sed "s/^Port .*/Port $HPORT/; s|^PidFile .*|PidFile $RDIR/sshd.$HPORT.pid|" \
		"$RDIR/sshd_config" >"$conf"
	[ $# -gt 0 ] && echo "SetEnv $*" >>"$conf"
	echo "[127.0.0.1]:$HPORT $(cut -d' ' -f1,2 "$RDIR/host_key.pub")" >>"$RDIR/known_hosts"
	if unshare -m true 2>/dev/null; then
		unshare -m sh -c 'mount -t tmpfs -o mode=755 none /run &&
			mkdir -m 755 /run/sshd && exec "$0" -D -e -f "$1"' \
			"$SSHD" "$conf" >"$RDIR/sshd.$HPORT.log" 2>&1 &
	else
		"$SSHD" -D -e -f "$conf" >"$RDIR/sshd.$HPORT.log" 2>&1 &
	fi
	HPID=$!
	disown "$HPID"   # no "Killed" when it is stopped at the end
	OWN_PIDS+=("$HPID")
	wait_until 10 port_busy "$HPORT" || fail "sshd on $HPORT did not start: $(tail -3 "$RDIR/sshd.$HPORT.log")"
}

# The round's "ssh" for hosts written ssh://root@127.0.0.1:PORT: the
# test's key and known_hosts, the port from the host.
hosts_ssh_json() {
	ssh_json | jq -c 'index("-p") as $i | del(.[$i, $i + 1])'
}

# hosts_round FILE REPS [JQ-ARGS... JQ]: a round of two arms (a, and b
# with ARMX=1) in one cell, a short CPU loop (awk) as the leg, three times
# longer for arm b where the host's session has SLOW set; the agent this
# build's benchtui, started in the folder its host's AGENT_HOME names (a
# folder per host on one machine).  JQ edits more.
hosts_round() {
	local file=$1 reps=$2 edit=.
	local -a args=()
	shift 2
	if [ $# -gt 0 ]; then
		edit=${!#}
		args=("${@:1:$#-1}")
	fi
	jq -n --argjson ssh "$(hosts_ssh_json)" --arg b "$BENCHTUI" \
		--arg wd "$T" --argjson reps "$reps" '{
		name: "hosts", reps: $reps, baseline: "a", workdir: $wd,
		command: ["sh", "-c", "n=150000; [ -n \"$SLOW\" ] && [ \"$ARMX\" = 1 ] && n=600000; exec awk -v n=$n \"BEGIN { for (i = 0; i < n; i++) s += i * i }\""],
		arms: [{name: "a"}, {name: "b", env: {ARMX: "1"}}],
		cells: [{name: "c"}],
		ssh: $ssh, agent: ["sh", "-c", "cd \"$AGENT_HOME\" && exec \"$0\" agent \"$@\"", $b],
		quiet: false}' | jq "${args[@]}" "$edit" >"$file"
}

# hosts_up N [K NAME=VALUE...]: N more ssh test hosts (remote_host_add),
# each with its own AGENT_HOME folder; the K-th's sessions also get each
# NAME=VALUE.  Their hosts in H[1..N], their ports in P[1..N].
hosts_up() {
	local n=$1 k=${2:-0} i
	shift 2 2>/dev/null || shift $#
	for ((i = 1; i <= n; i++)); do
		mkdir -p "$T/agent$i"
		if [ "$i" = "$k" ]; then
			remote_host_add "AGENT_HOME=$T/agent$i" "$@"
		else
			remote_host_add "AGENT_HOME=$T/agent$i"
		fi
		H[i]="ssh://root@127.0.0.1:$HPORT"
		P[i]=$HPORT
	done
}

# hosts_srv_round FILE REQUESTS [JQ-ARGS... JQ]: the demo's server cell
# (remote_round) with no server.host, for a round on the hosts of
# hosts_up (run --host ...), no warm-up; each host's agent in its
# folder (AGENT_HOME) and in a network namespace of its own, its
# loopback up, as a machine of its own would be: each host's copy of
# the server listens on the same port, and a leg reaches only its own
# host's.  Skips (77) where the machine gives no network namespace.
hosts_srv_round() {
	local file=$1 requests=$2 edit=.
	local -a args=()
	shift 2
	if [ $# -gt 0 ]; then
		edit=${!#}
		args=("${@:1:$#-1}")
	fi
	unshare -n true 2>/dev/null || { echo "SKIP: no network namespace for a host's agent (unshare -n)"; exit 77; }
	command -v ip >/dev/null || { echo "SKIP: ip (iproute2) is not installed"; exit 77; }
	cat >"$T/agent.sh" <<-EOF
		#!/bin/sh
		cd "\$AGENT_HOME" || exit 1
		exec unshare -n sh -c 'ip link set lo up && exec "\$0" agent "\$@"' "$BENCHTUI" "\$@"
	EOF
	chmod +x "$T/agent.sh"
	remote_round "$file" "$requests" --arg agent "$T/agent.sh" \
		--argjson ssh "$(hosts_ssh_json)" '
		.warmup = 0 | .ssh = $ssh | .agent = [$agent] |
		del(.cells[0].server.host) | del(.cells[0].server.dir)'
	jq "${args[@]}" "$edit" "$file" >"$file.tmp" && mv "$file.tmp" "$file"
}
