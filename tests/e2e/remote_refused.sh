#!/bin/bash
# test: needs=jq,python3
# A server's agent that refuses close (after a leg) or stop (after the
# cell): the round stops resumably (exit 3) naming the agent's own words,
# never an empty reason.  ssh's place is taken by python3 running a relay
# to the real agent that refuses the one request itself.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/agent.py" <<'EOF2'
# ssh's place: agent.py OP HOST LINE, LINE the agent's command as the far
# shell would read it.  The real agent answers everything but OP, which
# is refused here in the agent's own words.
import json, shlex, subprocess, sys
refuse = sys.argv[1]
agent = subprocess.Popen(shlex.split(sys.argv[3]), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        break
    if m.get("op") == refuse:
        r = {"id": m.get("id"), "ok": False, "cause": "failed",
             "error": refuse + " refused: the agent's own words"}
        sys.stdout.write(json.dumps(r) + "\n")
        sys.stdout.flush()
        continue
    agent.stdin.write(line)
    agent.stdin.flush()
    while True:
        out = agent.stdout.readline()
        if not out:
            sys.exit(0)
        sys.stdout.write(out)
        sys.stdout.flush()
        try:
            if json.loads(out).get("id") == m.get("id"):
                break
        except ValueError:
            break
agent.stdin.close()
agent.wait()
EOF2
for op in close stop; do
	port=$(free_port)
	cat >"$tmp/$op.json" <<EOF2
{"name": "r", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"],
 "ssh": ["python3", "$tmp/agent.py", "$op"], "agent": ["$BENCHTUI", "agent"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"host": "far",
   "cmd": ["$BENCHTUI_DEMO", "serve", "--port", "$port"],
   "ready": {"tcp_port": $port, "timeout_s": 10}}}]}
EOF2
	timeout 60 "$BENCHTUI" run "$tmp/$op.json" --out "$tmp/$op" --headless \
	    >"$tmp/$op.out" 2>&1
	rc=$?
	[ $rc = 3 ] && grep -q "far: .*the agent refused $op: $op refused: the agent's own words" "$tmp/$op.out" &&
	    ok "a refused $op names the agent's reason (exit 3)" ||
		{ cat "$tmp/$op.out"; fail "a refused $op: exit $rc"; }
done
finish
