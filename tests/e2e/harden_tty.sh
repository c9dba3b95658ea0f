#!/bin/bash
# test:
# Legs run in a session of their own, with no controlling terminal: a leg
# that reads /dev/tty fails at once (it used to stop on SIGTTIN for ever
# when benchtui ran in a terminal), and one that writes there cannot draw
# over the console.
. "$(dirname "$0")/life_lib.sh"

cat >"$T/sid.json" <<'EOF'
{"name": "sid", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "read -r pid comm st ppid pgrp sid tty rest </proc/self/stat; echo $pid $pgrp $sid $tty"],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/sid.json" --out "$T/d1" --headless >"$T/o1" 2>&1 || { cat "$T/o1"; fail "run failed"; }
read -r pid pgrp sid tty <"$T/d1/legs/c-a-r1.out"
[ "$pid" = "$sid" ] && [ "$pid" = "$pgrp" ] ||
	fail "the leg is not the leader of its own session and group: pid $pid pgrp $pgrp sid $sid"
[ "$tty" = 0 ] || fail "the leg has a controlling terminal ($tty)"

# In a terminal (script gives benchtui a pty): /dev/tty is not the leg's.
command -v script >/dev/null || { echo "SKIP tty part: no script(1)"; exit 0; }
cat >"$T/tty.json" <<'EOF'
{"name": "tty", "reps": 1, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "cat /dev/tty; echo rc=$?"],
 "baseline": "a", "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
timeout 60 script -qec "'$BENCHTUI' run '$T/tty.json' --out '$T/d2' --headless" /dev/null \
	</dev/null >"$T/o2" 2>&1
rc=$?
[ $rc -ne 124 ] || fail "a leg that reads /dev/tty hung the round"
grep -q 'rc=1' "$T/d2/legs/c-a-r1.out" || { cat "$T/d2/legs/c-a-r1.out"; fail "reading /dev/tty did not fail at once"; }
exit 0
