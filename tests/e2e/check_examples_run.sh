#!/bin/bash
# The example rounds in assets/rounds really run: each one, cut to one rep
# with the quiet gate off (so a busy test machine does not stall it), must
# finish with exit 0 and one "ok" leg line per planned leg; the zstd round's
# scratch output is counted, and the levels' outputs differ in size.
set -u
: "${BENCHTUI:?BENCHTUI must name the benchtui binary}"
src=${BENCHTUI_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0

fail() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

for r in "$src"/assets/rounds/*.json; do
	name=$(basename "$r" .json)
	# A scratch folder of its own: the example's fixed /tmp path is emptied
	# before each leg, so two test runs at once (make check's two builds,
	# several build dirs) would empty each other's and count 0 bytes.
	jq --arg wd "$src/assets/rounds" --arg sc "$tmp/scratch-$name" \
		'.quiet = false | .reps = 1 | .workdir = $wd |
		if .scratch then .scratch = $sc else . end' \
		"$r" >"$tmp/$name.json"
	legs=$(jq '(.arms | length) * (.cells | length)' "$tmp/$name.json")
	"$BENCHTUI" run "$tmp/$name.json" --headless --out "$tmp/$name.out" \
		>"$tmp/$name.stdout" 2>&1
	rc=$?
	[ $rc -eq 0 ] || { fail "$name: run exited $rc: $(tail -5 "$tmp/$name.stdout")"; continue; }
	log=$tmp/$name.out/log.jsonl
	got=$(jq -c 'select(.t == "leg" and .status == "ok")' "$log" | wc -l)
	[ "$got" -eq "$legs" ] || fail "$name: $got ok legs of $legs"
	if jq -e '.scratch' "$r" >/dev/null; then
		jq -s -e 'map(select(.t == "leg")) | all(.bytes > 0)' "$log" >/dev/null ||
			fail "$name: a leg's scratch bytes are not counted"
		sizes=$(jq -r 'select(.t == "leg" and .cell == "text-t1") | .bytes' "$log" | sort -u | wc -l)
		[ "$sizes" -ge 3 ] || fail "$name: levels all wrote $sizes distinct sizes"
	fi
done
echo "check_examples_run: $fails failures"
[ $fails -eq 0 ]
