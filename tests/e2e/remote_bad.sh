#!/bin/bash
# test: est=8 long
# Bad remote input, each stopping the round resumably (exit 3) before any
# leg, in words that say what to do: an agent of another version or
# protocol (refused naming both; one older than protocol numbers, which
# does not refuse, is refused by the client); an unreachable host and a refused key (ssh's own
# words and the command that failed); benchtui missing on the far host
# (said so, with how to install it); a malformed agent message mid-round
# (named by its line).  A host string with shell metacharacters reaches
# ssh as one argument: no shell runs it.
. "$(dirname "$0")/remote_lib.sh"
remote_up
version=$("$BENCHTUI" --version | awk '{ print $2 }')
# The protocol this build speaks (engine/remote/wire.h).
proto=$(sed -n 's/^#define WIRE_PROTOCOL \([0-9]*\).*/\1/p' "$BENCHTUI_SOURCE_DIR/engine/remote/wire.h")
[ -n "$proto" ] || fail "no WIRE_PROTOCOL in engine/remote/wire.h"

# bad NAME JQ-ARGS... JQ: the round with JQ's edits runs and stops with
# exit 3 before any leg; its output is $T/NAME.out.
bad() {
	local name=$1 rc
	shift
	remote_round "$T/$name.json" 300 "$@"
	"$BENCHTUI" run "$T/$name.json" --headless --out "$T/$name" >"$T/$name.out" 2>&1
	rc=$?
	[ $rc -eq 3 ] || fail "$name: run exited $rc, not 3: $(tail -3 "$T/$name.out")"
	grep -q '"t":"leg_start"' "$T/$name/log.jsonl" && fail "$name: a leg ran"
	jq -s -e 'map(select(.t == "abort")) | length == 1' "$T/$name/log.jsonl" >/dev/null ||
		fail "$name: no abort event"
}

# A fake agent, FAKE-AGENT VERSION PROTOCOL: it answers hello (with no
# protocol when PROTOCOL is empty, as one older than protocol numbers),
# ping and bins, and anything else with a line that is no message.
cat >"$T/fake-agent" <<'EOF'
#!/bin/sh
proto=
[ -z "$2" ] || proto="\"protocol\":$2,"
while IFS= read -r line; do
	id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
	case "$line" in
	*'"op":"hello"'*) printf '{"id":%s,"ok":true,"version":"%s",%s"pid":%d,"dir":"/x","host":{},"quiet":false}\n' "$id" "$1" "$proto" $$ ;;
	*'"op":"ping"'*|*'"op":"bins"'*) printf '{"id":%s,"ok":true,"bins":{}}\n' "$id" ;;
	*) echo 'Welcome to the far host!' ;;
	esac
done
EOF

bad version --arg b "$BENCHTUI" '.agent = ["env", "BENCHTUI_TEST_AGENT_VERSION=0.0.0-other", $b, "agent"]'
grep -q "the client is benchtui $version (protocol $proto), the agent on .* is benchtui 0.0.0-other (protocol $proto)" "$T/version.out" ||
	fail "another version: $(grep -m1 benchtui: "$T/version.out")"
ok "an agent of another version is refused, naming both ($version, 0.0.0-other)"

# The same version speaking another protocol: the agent refuses it.
bad protocol --arg b "$BENCHTUI" '.agent = ["env", "BENCHTUI_TEST_AGENT_PROTOCOL=1", $b, "agent"]'
grep -q "the client is benchtui $version (protocol $proto), the agent on .* is benchtui $version (protocol 1)" "$T/protocol.out" ||
	fail "another protocol: $(grep -m1 benchtui: "$T/protocol.out")"
ok "an agent of the same version and another protocol is refused, naming both"

# An agent from before protocol numbers accepts the hello (its version is
# the same) and answers without one: the client refuses it, naming both.
bad old --arg f "$T/fake-agent" --arg v "$version" '.agent = ["sh", $f, $v, ""]'
grep -q "root@127.0.0.1: the agent there is benchtui $version (protocol 1), this is benchtui $version (protocol $proto)" "$T/old.out" ||
	fail "an agent without a protocol: $(grep -m1 benchtui: "$T/old.out")"
ok "an agent that speaks the first protocol is refused by the client, naming both"

port=$(free_port)
bad unreachable --arg p "$port" '.ssh |= (index("-p") as $i | .[$i + 1] = $p)'
grep -q "root@127.0.0.1: ssh: connect to host 127.0.0.1 port $port: Connection refused" "$T/unreachable.out" &&
	grep -q "ssh exited 255; the command: ssh -F /dev/null .* -p $port .* root@127.0.0.1 '$BENCHTUI agent --dir $T/agent'" "$T/unreachable.out" ||
	fail "unreachable: $(grep -m1 benchtui: "$T/unreachable.out")"
ok "an unreachable host: ssh's own words and the command"

ssh-keygen -q -t ed25519 -N '' -f "$T/stranger" -C stranger
bad refused --argjson ssh "$(ssh_json "$T/stranger")" '.ssh = $ssh'
grep -q "root@127.0.0.1: root@127.0.0.1: Permission denied (publickey)" "$T/refused.out" &&
	grep -q "the command: ssh " "$T/refused.out" ||
	fail "refused key: $(grep -m1 benchtui: "$T/refused.out")"
ok "a refused key: ssh's own words and the command"

bad missing '.agent = ["/nonexistent/benchtui", "agent"]'
grep -q "root@127.0.0.1: benchtui is not installed, or not on the PATH, on that host" "$T/missing.out" &&
	grep -q "install benchtui $version there (make install" "$T/missing.out" &&
	grep -q '/nonexistent/benchtui: No such file or directory' "$T/missing.out" ||
	fail "benchtui missing: $(grep -m1 benchtui: "$T/missing.out")"
ok "benchtui missing on the far host: said so, with how to install it"

# An agent that answers the handshake, then says something that is no
# message when the server should start (as a login script that prints a
# greeting would).
bad malformed --arg f "$T/fake-agent" --arg v "$version" --arg p "$proto" '.agent = ["sh", $f, $v, $p]'
grep -q "root@127.0.0.1: a protocol error: the agent's line 8: not JSON .*: 'Welcome to the far host!'.*while the server started; the round stopped, resume reconnects" \
	"$T/malformed.out" || fail "malformed: $(grep -m1 benchtui: "$T/malformed.out")"
ok "a malformed agent message is named by its line; the round stops resumably"

# Shell metacharacters in the host: one argument to ssh (HostName says
# where it connects), never a shell's.
remote_round "$T/meta.json" 300 --arg pwned "$T/pwned" \
	'.cells[0].server.host = ("root@far;touch " + $pwned + ";#") | .ssh += ["-o", "HostName=127.0.0.1"] | .reps = 1'
"$BENCHTUI" run "$T/meta.json" --headless --out "$T/meta" >"$T/meta.out" 2>&1
rc=$?
[ -e "$T/pwned" ] && fail "a shell ran the host string: $T/pwned exists"
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "metacharacters: run exited $rc"
if [ $rc -eq 0 ]; then
	jq -e --arg pwned "$T/pwned" '.hosts[1].host == ("root@far;touch " + $pwned + ";#")' \
		"$T/meta/environment.json" >/dev/null || fail "metacharacters: hosts[1] is not the host as written"
fi
ok "a host with shell metacharacters is one argument to ssh (run exited $rc, nothing was touched)"

# A ${VAR} in a host is never expanded: check refuses it, naming the cell.
remote_round "$T/var.json" 300 '.cells[0].server.host = "root@${HOST}"'
"$BENCHTUI" check "$T/var.json" >"$T/var.out" 2>&1 && fail "check took a \${VAR} in server.host"
grep -q 'cells\[0\].server.host: "root@${HOST}" holds ${...}, which is never expanded' "$T/var.out" ||
	fail "\${VAR} in a host: $(cat "$T/var.out")"
ok "check refuses \${VAR} in server.host, naming the cell"
finish
