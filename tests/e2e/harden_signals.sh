#!/bin/bash
# test: alone est=1
# A signal benchtui gets from the round's own tree (a leg, or a process the
# leg started and set loose with setsid) is the leg's doing: recorded on
# that leg's line and in a warning, and the round goes on.  It used to be
# taken for an operator's abort, which every resume then repeated.  The
# sender is told by its ancestry in /proc, so it stays alive a moment after
# its kill: one already gone when benchtui looks (as an operator's kill(1)
# is too) cannot be told apart and counts as from outside.
. "$(dirname "$0")/life_lib.sh"
need_hup  # leg a2 sends benchtui a hangup

cat >"$T/r.json" <<'EOF'
{"name": "sig", "reps": 2, "quiet": false, "counters": ["task-clock"],
 "command": ["/bin/sh", "-c", "case ${ARM}${REP} in a1) kill -TERM $PPID;; b1) setsid /bin/sh -c 'kill -INT $1; sleep 0.3' sh $PPID;; a2) kill -HUP $PPID;; esac; sleep 0.1; echo ok"],
 "baseline": "a", "arms": [{"name": "a"}, {"name": "b"}], "cells": [{"name": "c"}]}
EOF
"$BENCHTUI" run "$T/r.json" --out "$T/d" --headless >"$T/o" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$T/o"; fail "a leg that signalled benchtui stopped the round: exit $rc"; }
log=$T/d/log.jsonl
# Over the whole log (jq -e alone judges its last line only).
[ "$(jq -s '[.[] | select(.t == "abort")] | length' "$log")" -eq 0 ] ||
	fail "an abort was logged: $(jq -c 'select(.t == "abort")' "$log")"
check_exactly_once "$log" 4
for want in a1:SIGTERM b1:SIGINT a2:SIGHUP; do
	leg=${want%%:*} sig=${want#*:}
	got=$(jq -r --arg a "${leg:0:1}" --argjson r "${leg:1}" \
	    'select(.t == "leg" and .arm == $a and .rep == $r) | .signalled_benchtui' "$log")
	[ "$got" = "$sig" ] || fail "leg $leg: signalled_benchtui is '$got', expected $sig"
done
jq -r 'select(.t == "warning") | .msg' "$log" | grep -q "sent benchtui SIGTERM; that is the leg's doing" ||
	fail "no warning names the leg's signal"
check_sealed "$T/d"
exit 0
