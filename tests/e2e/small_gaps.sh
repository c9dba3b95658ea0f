#!/bin/bash
# test: needs=jq,sha256sum
# Smaller gaps where benchtui knew something was wrong and said nothing:
# a wall of 5e-324 (a subnormal no clock yields) is left out with a
# warning, and the json report still prints (a ratio against it was
# infinite, and the report stopped half-way); a profile of a cell or arm
# not in round.json is warned and not shown; a leg that leaves a symlink
# in legs/ does not fail the seal (exit 1): it is removed, named; the
# headless line of a server_perf profile names its symbols (it read
# "? 0, ? 0, ? 0") and says when a profile has fewer samples than
# min_samples.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<EOF2
{"name": "g", "reps": 3, "command": ["/bin/true"], "baseline": "base",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "other"}], "cells": [{"name": "c"}]}
EOF2
"$BENCHTUI" run "$tmp/r.json" --out "$tmp/a" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "run a"; finish; }
chmod -R u+w "$tmp/a"
sed -i '0,/"wall":[0-9.e-]*/s//"wall":5e-324/' "$tmp/a/log.jsonl"
"$BENCHTUI" report "$tmp/a/log.jsonl" --format json >"$tmp/rep.json" 2>"$tmp/rep.err" ||
	{ cat "$tmp/rep.err"; fail "report with a wall of 5e-324: exit $?"; }
jq -e '.warnings | any(test("wall 4.94066e-324 is not a value a leg can have"))' \
    "$tmp/rep.json" >/dev/null && ok "a wall of 5e-324 is warned and left out" ||
	fail "no warning for a wall of 5e-324: $(jq -c .warnings "$tmp/rep.json" 2>&1)"

echo '{"t":"profile","cell":"zz","arm":"base","kind":"syscalls","status":"ok"}' \
    >>"$tmp/a/log.jsonl"
"$BENCHTUI" report "$tmp/a" --format json 2>/dev/null >"$tmp/rep2.json"
jq -e '(.warnings | any(test("zz base syscalls: a profile of a cell or arm that is not in round.json"))) and (.profiles == null)' \
    "$tmp/rep2.json" >/dev/null && ok "a profile of a cell not in the round is warned" ||
	fail "a profile of cell zz: $(jq -c '[.warnings, .profiles]' "$tmp/rep2.json" 2>&1)"
cat >"$tmp/s.json" <<EOF2
{"name": "s", "reps": 1, "baseline": "a", "quiet": false,
 "command": ["/bin/ln", "-sf", "/etc/hostname", "\${ROUND_DIR}/legs/evil-\${ARM}"],
 "counters": ["task-clock"], "arms": [{"name": "a"}], "cells": [{"name": "c"}]}
EOF2
"$BENCHTUI" run "$tmp/s.json" --out "$tmp/s" --headless >"$tmp/s.out" 2>&1
rc=$?
[ $rc = 0 ] && grep -q 'legs/evil-a: a symlink to /etc/hostname a leg left there; removed before the seal' "$tmp/s.out" &&
    "$BENCHTUI" verify "$tmp/s" >/dev/null && ok "a symlink in legs/ is removed, named, and the round sealed" ||
	{ cat "$tmp/s.out"; fail "a symlink in legs/: exit $rc"; }
cp "$BENCHTUI_SOURCE_DIR/tests/data/profile/prof-replay.jsonl" "$tmp/pr.jsonl"
echo '{"t":"profile","cell":"cpu","arm":"on","kind":"server_perf","status":"ok","samples":225,"min_samples":2000,"top":[{"symbol":"srv_fn","share":40.5}]}' \
    >>"$tmp/pr.jsonl"
"$BENCHTUI" replay "$tmp/pr.jsonl" --headless >"$tmp/pr.out" 2>&1
grep -q '^profile cpu on server_perf ok (225 samples, under min_samples 2000): srv_fn 40.5%' "$tmp/pr.out" &&
    ok "a server_perf line names its symbols and its missing samples" ||
	{ grep '^profile' "$tmp/pr.out"; fail "the server_perf headless line"; }
finish
