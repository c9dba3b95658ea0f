#!/bin/bash
# test: asan-covered needs=jq
# A bin (round or arm) that holds templates runs what it expands to for
# the leg's cell and arm, not the raw string: every leg runs, records the
# expanded, resolved path as its bin, and environment.json hashes the
# expanded binaries.
. "$(dirname "$0")/e2e_lib.sh"

mkdir "$tmp/tools"
for t in one two alt; do
	printf '#!/bin/sh\necho %s "$@"\n' "$t" > "$tmp/tools/prog-$t"
	chmod +x "$tmp/tools/prog-$t"
done
cat > "$tmp/round.json" <<EOF
{
  "name": "bintmpl",
  "reps": 2,
  "bin": "\${TOOLS}/prog-\${WHICH}",
  "command": ["\${BIN}", "\${CELL}", "\${ARM}"],
  "baseline": "base",
  "arms": [{"name": "base"}, {"name": "other", "bin": "tools/prog-\${ALT}"}],
  "cells": [{"name": "c1", "vars": {"WHICH": "one"}},
            {"name": "c2", "vars": {"WHICH": "two"}}],
  "vars": {"TOOLS": "$tmp/tools", "ALT": "alt"},
  "counters": ["task-clock"],
  "quiet": false
}
EOF

"$BENCHTUI" check "$tmp/round.json" > "$tmp/check" 2>&1 ||
    fail "check refused the round: $(cat "$tmp/check")"
"$BENCHTUI" run --headless --out "$tmp/out" "$tmp/round.json" > "$tmp/stdout" 2>&1
rc=$?
log="$tmp/out/log.jsonl"
[ "$rc" -eq 0 ] && ok "round exit 0" || { fail "exit $rc"; cat "$tmp/stdout"; }
[ "$(jq -s '[.[] | select(.t == "leg" and .status == "ok")] | length' "$log")" = 8 ] &&
    ok "8 legs ok" || fail "legs: $(jq -c 'select(.t == "leg") | [.cell, .arm, .status, .bin, .exec_error]' "$log")"
for want in "c1 base $tmp/tools/prog-one" "c2 base $tmp/tools/prog-two" \
    "c1 other $tmp/tools/prog-alt" "c2 other $tmp/tools/prog-alt"; do
	set -- $want
	got=$(jq -r --arg c "$1" --arg a "$2" \
	    'select(.t == "leg" and .cell == $c and .arm == $a) | .bin' "$log" | sort -u)
	[ "$got" = "$3" ] && ok "$1 $2 bin $3" || fail "$1 $2 bin: '$got', want $3"
done
grep -q "^one c1 base" "$tmp/out/legs/c1-base-r1.out" &&
    grep -q "^alt c2 other" "$tmp/out/legs/c2-other-r2.out" &&
    ok "the expanded programs ran" || fail "leg output: $(cat "$tmp/out/legs/"*)"
for t in one two alt; do
	sum=$(sha256sum "$tmp/tools/prog-$t" | cut -d' ' -f1)
	[ "$(jq -r --arg p "$tmp/tools/prog-$t" '.bins[$p]' "$tmp/out/environment.json")" = "$sum" ] &&
	    ok "environment.json hashes prog-$t" ||
	    fail "bins: $(jq -c .bins "$tmp/out/environment.json")"
done
jq -e '.bins | keys | map(select(test("[$][{]"))) | length == 0' \
    "$tmp/out/environment.json" > /dev/null && ok "no raw template in bins" ||
    fail "raw template in bins: $(jq -c .bins "$tmp/out/environment.json")"

finish
