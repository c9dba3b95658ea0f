#!/bin/bash
# test:
# A leg's own metrics file (${METRICS}): a good one is the leg line's
# "metrics" and a metric of the report; a bad one (not JSON, not numbers, a
# reserved name) gets one warning naming the leg and the file, and the leg
# keeps its status.
set -u
. "$(dirname "$0")/hygiene_lib.sh"

cat >"$T/round.json" <<EOF2
{"name": "mets", "reps": 2, "baseline": "good",
 "command": ["sh", "-c", "\$0 >\"\$1\"; [ -s \"\$1\" ] || rm -f \"\$1\"", "\${BODY}", "\${METRICS}"],
 "arms": [{"name": "good", "env": {}}, {"name": "twice", "env": {"X": "1"}}],
 "cells": [{"name": "ok", "vars": {"BODY": "echo {\\"score\\": 2.5, \\"n_items\\": 7}"}},
           {"name": "notjson", "vars": {"BODY": "echo {oops"}},
           {"name": "reserved", "vars": {"BODY": "echo {\\"wall\\": 1}"}},
           {"name": "string", "vars": {"BODY": "echo {\\"score\\": \\"2\\"}"}},
           {"name": "none", "vars": {"BODY": "true"}}],
 "quiet": false}
EOF2
run_round 0
[ "$(events leg | jq -r .status | sort -u)" = ok ] || fail "a leg lost its status"
events leg | jq -e -s '[.[] | select(.cell == "ok")] | length == 4 and
	all(.[]; .metrics == {"score": 2.5, "n_items": 7})' >/dev/null ||
	fail "cell ok: metrics not recorded"
events leg | jq -e -s '[.[] | select(.cell != "ok" and has("metrics"))] | length == 0' \
	>/dev/null || fail "a bad metrics file was recorded"
for c in notjson reserved string none; do
	n=$(events warning | jq -r .msg | grep -c "^leg $c good r1: metrics file legs/$c-good-r1.metrics.json ")
	[ "$n" = 1 ] || fail "cell $c: $n warnings for leg good r1, not 1"
done
events warning | jq -r .msg | grep -q 'legs/notjson-good-r1.metrics.json is not JSON' ||
	fail "no 'is not JSON' warning"
events warning | jq -r .msg | grep -q '"wall" is not a name a leg may use' ||
	fail "no reserved-name warning"
events warning | jq -r .msg | grep -q '"score" is not a finite number' ||
	fail "no not-a-number warning"
events warning | jq -r .msg | grep -q 'none-good-r1.metrics.json was not written' ||
	fail "no 'was not written' warning"
"$BENCHTUI" report "$T/out" --format json >"$T/report.json" || fail "report failed"
jq -e '.cells.ok.arms.twice.metrics.score.n == 2 and
	.cells.ok.arms.twice.metrics.n_items.median == 1' "$T/report.json" >/dev/null ||
	fail "report: score / n_items are not metrics"

# Late metrics: a process the leg set loose (setsid, ignoring SIGTERM, so
# the /proc way of ending leftovers gives it its grace) writes ${METRICS}
# 0.3 s after the leg exited.  It is not the leg's: no metrics, and
# without a cgroup a warning saying why (with one, the writer is killed
# at once and the file never written).
cat >"$T/late.json" <<'EOF2'
{"name": "late", "reps": 1, "baseline": "a",
 "command": ["sh", "-c", "setsid sh -c 'trap \"\" TERM; sleep 0.3; echo {\\\"score\\\": 9} >\"$0\"' \"$0\" & sleep 0.1; exit 0", "${METRICS}"],
 "arms": [{"name": "a"}], "cells": [{"name": "c"}], "quiet": false,
 "counters": ["task-clock"]}
EOF2
for cg in "" 1; do
	cp "$T/late.json" "$T/round.json"
	rm -rf "$T/out"
	BENCHTUI_NO_CGROUP=$cg run_round 0
	events leg | jq -se 'length == 1 and all(.[]; has("metrics") | not)' >/dev/null ||
		fail "cgroup=${cg:-yes}: metrics written after the leg exited were recorded: $(events leg | jq -c .metrics)"
	[ -z "$cg" ] || events warning | jq -r .msg |
		grep -q 'leg c a r1: metrics file legs/c-a-r1.metrics.json was written after the leg exited' ||
		fail "cgroup=${cg:-yes}: no warning about the late metrics: $(events warning | jq -r .msg)"
done
echo ok
