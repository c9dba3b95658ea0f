#!/bin/bash
# test:
# A leg that plants symlinks where its profile's files go
# (legs/prof-CELL-ARM.report, pointing outside the round folder):
# the targets are untouched, the profile fails with a reason naming the
# link, the other arm's profile is taken, and the round seals and
# verifies.
set -u
. "$(dirname "$0")/hygiene_lib.sh"
: "${BENCHTUI_PROF_HOT:?set BENCHTUI_PROF_HOT to the prof-hot test program}"
command -v perf >/dev/null || { echo "perf is not installed"; exit 77; }

echo "precious report" >"$T/target.report"
echo "precious data" >"$T/target.data"
sum_before=$(sha256sum "$T/target.report" "$T/target.data")
# the leg: plant the links (arm "bad" only), then the CPU work
cat >"$T/plant.sh" <<EOF
#!/bin/sh
if [ "\$ARM" = bad ]; then
	ln -sfn "$T/target.report" "\$1/legs/prof-cpu-bad.report"
fi
exec "$BENCHTUI_PROF_HOT" 2000000
EOF
chmod +x "$T/plant.sh"
cat >"$T/round.json" <<EOF
{"name": "proflinks", "reps": 1, "baseline": "good", "quiet": false,
 "command": ["$T/plant.sh", "\${ROUND_DIR}"],
 "arms": [{"name": "good", "env": {"ARM": "good"}},
          {"name": "bad", "env": {"ARM": "bad"}}],
 "cells": [{"name": "cpu"}],
 "profile": {"arms": ["good", "bad"],
             "perf": {"args": ["-F", "999", "-g"], "min_samples": 200}}}
EOF
"$BENCHTUI" run "$T/round.json" --headless --out "$T/out" >"$T/stdout" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "run exited $rc"
log=$T/out/log.jsonl
[ "$(sha256sum "$T/target.report" "$T/target.data")" = "$sum_before" ] ||
	fail "a planted link's target was written"
[ -e "$T/out/legs/prof-cpu-bad.report" ] || [ -L "$T/out/legs/prof-cpu-bad.report" ] &&
	fail "the planted link is still there (the seal covers regular files only)"
jq -e -s 'map(select(.t == "profile" and .arm == "bad")) | length == 1 and
	(.[0].status == "failed") and (.[0].reason | test("legs/prof-cpu-bad.report: a symlink is in the way \\(to .*target"))' \
	"$log" >/dev/null || fail "bad's profile: $(jq -c 'select(.t == "profile")' "$log")"
jq -e -s 'map(select(.t == "profile" and .arm == "good")) | length == 1 and .[0].status == "ok"' \
	"$log" >/dev/null || fail "good's profile: $(jq -c 'select(.t == "profile")' "$log")"
grep -q 'profile cpu bad perf failed: legs/prof-cpu-bad' "$T/stdout" ||
	fail "headless does not say why: $(cat "$T/stdout")"
"$BENCHTUI" report "$T/out" >"$T/rep.txt" || fail "report"
grep -q 'cpu  perf  bad: failed -- legs/prof-cpu-bad.*symlink' "$T/rep.txt" ||
	fail "the report does not show the reason: $(cat "$T/rep.txt")"
[ -s "$T/out/SHA256SUMS" ] || fail "not sealed"
"$BENCHTUI" verify "$T/out" >"$T/verify" 2>&1 || fail "verify: $(cat "$T/verify")"
[ "$(sha256sum "$T/target.report" "$T/target.data")" = "$sum_before" ] ||
	fail "a target changed after the seal"
echo ok
