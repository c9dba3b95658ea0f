#!/bin/bash
# test: alone asan-covered est=2 needs=jq
# A binary that goes missing mid-round (run checked it was there): the leg
# that cannot exec it is recorded failed with exec_error, and the warning
# names the leg and the binary.  The gate stays on, as rounds have it by
# default, with a threshold this shared test machine can meet.
. "$(dirname "$0")/e2e_lib.sh"

mkdir "$tmp/tools"
# The first leg removes the program itself.
printf '#!/bin/sh\nrm -f "$0"\n' > "$tmp/tools/vanish"
chmod +x "$tmp/tools/vanish"
cat > "$tmp/round.json" <<'EOF'
{
  "name": "late",
  "reps": 2,
  "bin": "tools/vanish",
  "command": ["${BIN}"],
  "baseline": "base",
  "arms": [{"name": "base"}],
  "cells": [{"name": "c"}],
  "counters": ["task-clock"],
  "quiet": {"max_foreign_cores": 64, "window_ms": 50, "timeout_s": 5}
}
EOF
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/round.json" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
log="$tmp/out/log.jsonl"
# Complete and sealed, with a failed leg: exit 5.
[ "$rc" -eq 5 ] && ok "round completes (exit 5: a leg failed)" ||
    fail "exit $rc: $(cat "$tmp/stderr")"
jq -se '[.[] | select(.t == "quiet")] | length > 0' "$log" > /dev/null &&
    ok "the gate ran" || fail "no quiet event: the gate did not run"
jq -se 'map(select(.t == "leg")) | .[0].status == "ok" and .[1].status == "failed"
    and (.[1].exec_error | test("No such file"))' "$log" > /dev/null &&
    ok "second leg failed with exec_error" ||
    fail "legs: $(jq -c 'select(.t == "leg")' "$log")"
# The program is resolved once per cell and arm, so the warning names the
# path that was exec'd.
grep -Eq "warning: leg c base r2: exec of (/.*/)?tools/vanish failed: No such file" "$tmp/stderr" &&
    ok "the warning names the leg and the binary" ||
    fail "stderr: $(cat "$tmp/stderr")"
jq -se --arg b "tools/vanish" 'map(select(.t == "warning" and
    (.msg | contains("leg c base r2") and contains($b)))) | length == 1' "$log" > /dev/null &&
    ok "logged as a warning" || fail "no warning event in the log"

finish
