#!/bin/bash
# test:
# Help everywhere: "benchtui help" lists every command; "benchtui help CMD"
# and "benchtui CMD --help" print the same synopsis, options and man page
# pointer and exit 0 for every subcommand, running nothing; an unknown
# command is exit 2.  "--replay DIR" takes a round folder as report does.
. "$(dirname "$0")/e2e_lib.sh"

cmds="run resume replay report compare verify seal check load agent help"
"$BENCHTUI" help > "$tmp/list" 2>&1
rc=$?
[ "$rc" -eq 0 ] && ok "benchtui help: exit 0" || fail "benchtui help: exit $rc"
for c in $cmds; do
	grep -q "^  $c " "$tmp/list" || fail "benchtui help does not list $c"
done
for c in $cmds; do
	"$BENCHTUI" "$c" --help > "$tmp/a" 2> "$tmp/aerr"
	rc=$?
	"$BENCHTUI" help "$c" > "$tmp/b" 2>&1
	rcb=$?
	if [ "$rc" -eq 0 ] && [ "$rcb" -eq 0 ] && [ ! -s "$tmp/aerr" ] &&
	    grep -q "^usage: benchtui $c" "$tmp/a" &&
	    grep -q "man benchtui" "$tmp/a" && cmp -s "$tmp/a" "$tmp/b"; then
		ok "$c --help and help $c: exit 0, synopsis, man pointer"
	else
		fail "$c --help: exit $rc, help $c: exit $rcb: $(cat "$tmp/a" "$tmp/aerr")"
	fi
done
# Options are listed one line each, and --help wins wherever it stands.
[ "$(grep -cE '^  (-[a-zA-Z], )?--' < <("$BENCHTUI" report --help))" -ge 4 ] &&
    ok "report lists its options" || fail "report --help: $("$BENCHTUI" report --help)"
"$BENCHTUI" run nonexistent.json --headless --help > /dev/null 2>&1 &&
    ok "run ... --help: exit 0, nothing run" || fail "run ... --help did not exit 0"
"$BENCHTUI" --replay --help > /dev/null 2>&1 && ok "--replay --help: exit 0" ||
    fail "--replay --help"
"$BENCHTUI" help nosuch > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q "nosuch" "$tmp/err" && ok "help nosuch: exit 2" ||
    fail "help nosuch: exit $rc $(cat "$tmp/err")"

# agent needs its folder (it writes nowhere else).
"$BENCHTUI" agent </dev/null > /dev/null 2> "$tmp/err"
rc=$?
[ "$rc" -eq 2 ] && grep -q -- "--dir DIR is required" "$tmp/err" && ok "agent without --dir: exit 2" ||
    fail "agent without --dir: exit $rc $(cat "$tmp/err")"

# --replay DIR
cat > "$tmp/r.json" <<'EOF'
{"name": "tiny", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}],
 "counters": ["task-clock"], "quiet": false}
EOF
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/r.json" > /dev/null 2>&1 ||
    fail "the tiny round failed"
"$BENCHTUI" --replay "$tmp/out" --headless > "$tmp/replay" 2>&1
rc=$?
[ "$rc" -eq 0 ] && grep -q "c b r1" "$tmp/replay" && ok "--replay DIR replays the folder's log" ||
    fail "--replay DIR: exit $rc: $(cat "$tmp/replay")"

finish
