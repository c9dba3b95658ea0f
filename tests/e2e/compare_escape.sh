#!/bin/bash
# test: needs=jq,sha256sum
# compare shows text from a round folder or a far host through the one
# escape rule: an ESC in environment.json's facts (hostname, a host's
# kernel) or in a folder's name reaches the terminal as \x1b in text,
# csv and markdown, and on stderr; a backtick in a folder's name keeps
# the markdown heading's code span whole.
. "$(dirname "$0")/e2e_lib.sh"

cat >"$tmp/r.json" <<EOF2
{"name": "e", "reps": 3, "command": ["/bin/true"], "baseline": "base",
 "quiet": false, "counters": ["task-clock"],
 "arms": [{"name": "base"}, {"name": "other"}], "cells": [{"name": "c"}]}
EOF2
a="$tmp/a\`b"
"$BENCHTUI" run "$tmp/r.json" --out "$a" --headless >"$tmp/run.out" 2>&1 ||
	{ cat "$tmp/run.out"; fail "run a"; finish; }
b=$tmp/$'b\e[2Jx'
cp -r "$a" "$b"
chmod -R u+w "$b"
jq -c '.hostname = "evil\u001b]0;owned\u0007host"' "$b/environment.json" >"$tmp/env"
cp "$tmp/env" "$b/environment.json"
(cd "$b" && find . -type f ! -name 'SHA256SUMS*' | sed 's|^\./||' |
    LC_ALL=C sort | xargs sha256sum >SHA256SUMS)
for f in text csv markdown; do
	"$BENCHTUI" compare "$a" "$b" --format $f >"$tmp/o.$f" 2>"$tmp/e.$f" ||
		fail "compare --format $f: exit $?"
	if grep -q $'\e' "$tmp/o.$f" "$tmp/e.$f"; then
		fail "--format $f: a raw ESC reached the terminal"
	else
		ok "--format $f: no raw ESC"
	fi
done
grep -q 'evil\\x1b\]0;owned\\x07host' "$tmp/o.text" ||
	fail "the text does not show the far hostname escaped"
grep -q 'b\\x1b\[2Jx' "$tmp/o.text" || fail "the text does not show B's name escaped"
# The heading: B's name, then A's in a span of two backticks.
grep -q '^B `.*b\\x1b\[2Jx` against A ``.*/a`b`` (B/A)' "$tmp/o.markdown" &&
    ok "a backtick in a folder name keeps the markdown span whole" ||
	{ grep against "$tmp/o.markdown"; fail "markdown heading"; }
# json keeps the bytes as jansson escapes them.
"$BENCHTUI" compare "$a" "$b" --format json 2>/dev/null |
    jq -e '.env.differ.hostname[1] == "evil\u001b]0;owned\u0007host"' >/dev/null ||
	fail "json lost the hostname"
finish
