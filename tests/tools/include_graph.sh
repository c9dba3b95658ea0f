#!/bin/bash
# test: timeout=60
# tools/include-graph passes on the tree as it is, and fails, naming the
# file, on a copy with a circle planted (base including the driver's
# header, which includes base), a private header seen from tui/, and an
# include by path.
set -u
src=${BENCHTUI_SOURCE_DIR:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*"; bad=1; }

"$src/tools/include-graph" "$src" >"$tmp/out" 2>&1 ||
	fail "the tree itself: $(cat "$tmp/out")"

plant() {  # plant NAME FILE LINE: a copy of engine/ and tui/ with LINE added to FILE
	rm -rf "$tmp/$1" && mkdir -p "$tmp/$1" &&
		cp -r "$src/engine" "$src/tui" "$tmp/$1/" &&
		printf '%s\n' "$3" >>"$tmp/$1/$2"
}
expect() {  # expect NAME PATTERN: include-graph fails on copy NAME, saying PATTERN
	if "$src/tools/include-graph" "$tmp/$1" >"$tmp/$1.out" 2>&1; then
		fail "$1: passed"
	elif ! grep -q -- "$2" "$tmp/$1.out"; then
		fail "$1: no '$2' in: $(cat "$tmp/$1.out")"
	fi
}

plant circle engine/base/clock.c '#include "round.h"'
expect circle 'circle: base -> round -> base'
expect circle 'engine/base/clock.c: includes round.h from engine/round, a layer above'
plant private tui/model.c '#include "tally_int.h"'
expect private 'tui/model.c: includes tally_int.h, private to engine/tally'
plant bypath engine/round/round.c '#include "../tally/private/tally_int.h"'
expect bypath 'engine/round/round.c: includes ../tally/private/tally_int.h by a path'
[ $bad = 0 ] && echo "include-graph: all passed"
exit $bad
