#!/bin/bash
# test: needs=jq,setpriv
# Clear words for what fails between a leg's clone and its exec: with
# CAP_SYS_NICE dropped (as a user who is not root), "nice": -5 makes check
# warn, and every leg says setpriority (nice -5) failed, with the hint,
# in its warning and on its leg line, never "cannot run /bin/true"; a
# program that is not one (a script without #!) says the exec failed and
# why, for a leg and for a server.
. "$(dirname "$0")/e2e_lib.sh"
drop=(setpriv --inh-caps=-sys_nice --bounding-set=-sys_nice)
"${drop[@]}" true 2>/dev/null || { echo "SKIP: setpriv cannot drop CAP_SYS_NICE here"; exit 77; }

cat >"$tmp/nice.json" <<'EOF'
{"name": "n", "reps": 2, "command": ["/bin/true"], "baseline": "a",
 "nice": -5, "quiet": false, "counters": ["task-clock"], "fail_fast": 0,
 "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"${drop[@]}" "$BENCHTUI" check "$tmp/nice.json" >"$tmp/check.out" 2>&1 ||
	fail "check failed: $(cat "$tmp/check.out")"
grep -q 'warning: nice is -5: a negative nice needs root or CAP_SYS_NICE' "$tmp/check.out" &&
	ok "check warns about the negative nice" ||
	fail "check does not warn: $(grep warning "$tmp/check.out")"
"$BENCHTUI" check "$tmp/nice.json" 2>&1 | grep -q 'nice is -5' &&
	fail "check warns with CAP_SYS_NICE too"

"${drop[@]}" "$BENCHTUI" run "$tmp/nice.json" --out "$tmp/n" --headless >"$tmp/run.out" 2>&1
rc=$?
[ $rc -eq 5 ] || fail "run: exit $rc, expected 5 (every leg failed)"
want='setpriority (nice -5) failed before the exec of /bin/true: Permission denied; a negative nice needs root or CAP_SYS_NICE'
grep -qF "warning: leg c a r1: $want" "$tmp/run.out" && ok "the warning names setpriority" ||
	fail "the warning: $(grep warning "$tmp/run.out")"
grep -q 'cannot run' "$tmp/run.out" && fail "still 'cannot run': $(grep 'cannot run' "$tmp/run.out")"
[ "$(jq -r 'select(.t == "leg" and .rep == 1) | .exec_error' "$tmp/n/log.jsonl")" = "$want" ] &&
	ok "the leg line's exec_error names it" ||
	fail "exec_error: $(jq -c 'select(.t == "leg") | .exec_error' "$tmp/n/log.jsonl")"

# Not a program: a script without "#!".
printf 'echo hi\n' >"$tmp/script"
chmod +x "$tmp/script"
port=$(free_port)
cat >"$tmp/noexec.json" <<EOF
{"name": "x", "reps": 1, "command": ["$tmp/script"], "baseline": "a",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$tmp/noexec.json" --out "$tmp/x" --headless >"$tmp/x.out" 2>&1
grep -qF "exec of $tmp/script failed: Exec format error (not a program: a script needs a #! line)" "$tmp/x.out" &&
	ok "a script without #! is named as one" || fail "no exec words: $(grep warning "$tmp/x.out")"
jq '.cells[0].server = {"cmd": ["'"$tmp/script"'"], "ready": {"tcp_port": '"$port"', "timeout_s": 5}} |
    .command = ["/bin/true"]' "$tmp/noexec.json" >"$tmp/srv.json"
"$BENCHTUI" run "$tmp/srv.json" --out "$tmp/s" --headless >"$tmp/s.out" 2>&1
rc=$?
[ $rc -eq 3 ] && grep -qF "exec of $tmp/script failed: Exec format error" "$tmp/s.out" &&
	ok "the server's exec failure is named too" ||
	fail "server: exit $rc: $(grep benchtui: "$tmp/s.out" | head -3)"
finish
