#!/bin/bash
# A server's agent that refuses close (after a leg) or stop (after the
# cell): the round stops resumably (exit 3) naming the agent's own words,
# never an empty reason.  The agent here is a stand-in that speaks the
# protocol's few lines (ssh's place is taken by python3 running it).
. "$(dirname "$0")/e2e_lib.sh"
need jq python3

cat >"$tmp/agent.py" <<'EOF2'
import json, os, sys
refuse = sys.argv[1]
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        break
    op, r = m.get("op"), {"id": m.get("id"), "ok": True}
    if op == "hello":
        r.update({"protocol": 2, "version": os.environ["FAKE_VERSION"],
                  "pid": os.getpid()})
    elif op == "start":
        r.update({"pid": os.getpid(), "server": {}})
    elif op == refuse:
        r = {"id": m.get("id"), "ok": False, "cause": "failed",
             "error": refuse + " refused: the agent's own words"}
    sys.stdout.write(json.dumps(r) + "\n")
    sys.stdout.flush()
EOF2
FAKE_VERSION=$("$BENCHTUI" --version | awk '{print $2}')
export FAKE_VERSION
for op in close stop; do
	cat >"$tmp/$op.json" <<EOF2
{"name": "r", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"],
 "ssh": ["python3", "$tmp/agent.py", "$op"],
 "arms": [{"name": "a"}],
 "cells": [{"name": "c", "server": {"host": "far", "cmd": ["/bin/true"],
   "ready": {"tcp_port": 9}}}]}
EOF2
	timeout 60 "$BENCHTUI" run "$tmp/$op.json" --out "$tmp/$op" --headless \
	    >"$tmp/$op.out" 2>&1
	rc=$?
	[ $rc = 3 ] && grep -q "far: $op refused: the agent's own words (the agent refused)" "$tmp/$op.out" &&
	    ok "a refused $op names the agent's reason (exit 3)" ||
		{ cat "$tmp/$op.out"; fail "a refused $op: exit $rc"; }
done
finish
