#!/bin/bash
# test: needs=jq
# Terminal escapes from a crafted log or round folder never reach the
# terminal raw: report (text, markdown, csv) and headless --replay show
# ESC, BEL, CR and the C1 controls (as UTF-8, U+009B is a CSI to some
# terminals) as \xNN or \r, as verify and the console do (one rule).
. "$(dirname "$0")/e2e_lib.sh"

# Names, a warning, an abort reason and profile symbols carrying
# ESC ] 0 ; title BEL (retitle), ESC [ 2 J (clear), CR and U+009B.
esc='\u001b]0;pwned\u0007\u001b[2J\r\u009b31m'
cat >"$tmp/log.jsonl" <<EOF
{"t":"round","name":"r$esc","reps":1,"legs_total":2}
{"t":"leg","cell":"c$esc","arm":"a","rep":1,"seq":1,"status":"ok","wall":1,"cpu":1}
{"t":"leg","cell":"c$esc","arm":"b$esc","rep":1,"seq":2,"status":"failed","rc":1,"wall":2,"cpu":2}
{"t":"warning","msg":"look$esc"}
{"t":"profile","cell":"c$esc","arm":"b$esc","kind":"perf","status":"ok","top":[{"symbol":"sym$esc","share":60},{"symbol":"x","share":40}]}
{"t":"profile","cell":"c$esc","arm":"a","kind":"perf","status":"ok","top":[{"symbol":"sym$esc","share":30},{"symbol":"x","share":70}]}
{"t":"abort","reason":"why$esc"}
EOF
jq -e . "$tmp/log.jsonl" >/dev/null || fail "the crafted log is not JSON"

# raw FILE: the control bytes (but newline and tab) and the C1 controls
# in UTF-8 that FILE holds, as hex; empty when none.
raw() {
	LC_ALL=C tr -d '\n\t' <"$1" | od -An -tx1 -v | tr -s ' \n' '\n\n' |
		awk '/^(0[0-9a-f]|1[0-9a-f]|7f)$/ { print; next }
		     prev == "c2" && /^(8|9)[0-9a-f]$/ { print "c2" $0 }
		     { prev = $0 }' | sort -u | tr '\n' ' '
}

for fmt in text markdown csv; do
	"$BENCHTUI" report "$tmp/log.jsonl" --format "$fmt" >"$tmp/r.$fmt" 2>"$tmp/r.$fmt.err"
	[ -s "$tmp/r.$fmt" ] || { fail "report --format $fmt printed nothing: $(cat "$tmp/r.$fmt.err")"; continue; }
	b=$(raw "$tmp/r.$fmt")$(raw "$tmp/r.$fmt.err")
	[ -z "$b" ] && ok "report --format $fmt: no raw control bytes" ||
		fail "report --format $fmt prints raw control bytes: $b"
done
grep -Fq '\x1b]0;pwned\x07\x1b[2J\r\xc2\x9b31m' "$tmp/r.text" &&
	ok "the text report shows the escapes as \\xNN" ||
	fail "the text report does not show '\\x1b]0;pwned\\x07...': $(grep -a pwned "$tmp/r.text" | head -2)"
grep -Fq 'sym\x1b' "$tmp/r.text" && ok "profile symbols are escaped too" ||
	fail "no escaped profile symbol in the text report"

"$BENCHTUI" --replay "$tmp/log.jsonl" --headless >"$tmp/replay" 2>"$tmp/replay.err"
[ -s "$tmp/replay" ] || fail "replay --headless printed nothing: $(cat "$tmp/replay.err")"
b=$(raw "$tmp/replay")$(raw "$tmp/replay.err")
[ -z "$b" ] && ok "replay --headless: no raw control bytes" ||
	fail "replay --headless prints raw control bytes: $b"
grep -Fq 'look\x1b]0;pwned' "$tmp/replay.err" && ok "the warning's escapes are shown" ||
	fail "replay's warning: $(grep -a look "$tmp/replay.err")"

# verify names a crafted file name the same way.
mkdir -p "$tmp/v"
cat >"$tmp/v/round.json" <<EOF
{"name": "v", "reps": 1, "command": ["/bin/true"], "baseline": "a",
 "arms": [{"name": "a"}], "cells": [{"name": "c"}], "quiet": false}
EOF
"$BENCHTUI" run "$tmp/v/round.json" --out "$tmp/v/out" --headless >/dev/null 2>&1 ||
	fail "the small round did not run"
chmod u+w "$tmp/v/out"
: >"$tmp/v/out/$(printf 'x\033[2Jy')"
"$BENCHTUI" verify "$tmp/v/out" >"$tmp/verify" 2>&1
[ -z "$(raw "$tmp/verify")" ] && grep -Fq 'x\x1b[2Jy' "$tmp/verify" &&
	ok "verify shows the added name escaped the same way" ||
	fail "verify: $(cat -v "$tmp/verify")"
finish
